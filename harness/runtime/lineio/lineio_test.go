package lineio

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func readAll(t *testing.T, in string) ([]string, error) {
	t.Helper()
	r := NewReader(strings.NewReader(in))
	var lines []string
	for {
		l, err := r.ReadLine()
		if err != nil {
			return lines, err
		}
		lines = append(lines, l)
	}
}

func TestReadLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty input", "", nil},
		{"one line", "YT\n", []string{"YT"}},
		{"no final newline", "YT\nDONE", []string{"YT", "DONE"}},
		{"empty lines kept", "\n\nx\n", []string{"", "", "x"}},
		{"carriage return kept", "DO1\r\n", []string{"DO1\r"}},
		{"binary bytes kept", "a\x00b\xff\n", []string{"a\x00b\xff"}},
		{"exactly MaxLine", strings.Repeat("x", MaxLine) + "\n", []string{strings.Repeat("x", MaxLine)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, tc.in)
			if err != io.EOF {
				t.Fatalf("final error = %v, want io.EOF", err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadLineTooLong(t *testing.T) {
	for _, tail := range []string{"\nnext\n", ""} {
		r := NewReader(strings.NewReader(strings.Repeat("y", MaxLine+1) + tail))
		if _, err := r.ReadLine(); !errors.Is(err, ErrTooLong) {
			t.Fatalf("ReadLine = %v, want ErrTooLong", err)
		}
		if tail == "" {
			continue
		}
		if l, err := r.ReadLine(); err != nil || l != "next" {
			t.Fatalf("line after a long one = %q, %v; want \"next\"", l, err)
		}
	}
}

func TestReadByteThenLine(t *testing.T) {
	r := NewReader(strings.NewReader("^DO1\n"))
	if b, err := r.ReadByte(); err != nil || b != '^' {
		t.Fatalf("ReadByte = %q, %v", b, err)
	}
	if l, err := r.ReadLine(); err != nil || l != "DO1" {
		t.Fatalf("ReadLine = %q, %v", l, err)
	}
}

// A read that passes its deadline mid-line was given up: it returns the deadline error, not
// the part of the line that came (which a hub would take for a whole line). Another error
// after part of a line still delivers the part first.
func TestReadLinePastDeadline(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	w.WriteString("whole\npart")
	lr := NewReader(r)
	if l, err := lr.ReadLine(); l != "whole" || err != nil {
		t.Fatalf("first line %q, %v", l, err)
	}
	r.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if l, err := lr.ReadLine(); l != "" || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past the deadline: %q, %v; want no line and the deadline error", l, err)
	}
	other := NewReader(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(errors.New("boom"))))
	if l, err := other.ReadLine(); l != "part" || err != nil {
		t.Fatalf("before another error: %q, %v; want the part", l, err)
	}
}
