package tcp

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

func TestListenDialAccept(t *testing.T) {
	l, err := Listen("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Port == 0 {
		t.Fatal("no port chosen")
	}
	// Nobody connects: the deadline passes.
	if _, err := l.Accept(time.Now().Add(50 * time.Millisecond)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("accept without a client: %v", err)
	}
	c, err := Dial("localhost", l.Port, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Accept(time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("hi\n"))
	CloseWrite(c)
	b, err := io.ReadAll(s)
	if err != nil || string(b) != "hi\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	// The half-closed client still reads; reading with a deadline times out.
	s.Write([]byte("back"))
	buf := make([]byte, 4)
	if n, _ := io.ReadFull(c, buf); n != 4 {
		t.Fatal("the half-closed side could not read")
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	c.Close()
	s.Close()
	// A port where nobody listens refuses.
	l.Close()
	if _, err := Dial("127.0.0.1", l.Port, time.Second); !errors.Is(err, ErrRefused) {
		t.Fatalf("dial to a closed port: %v", err)
	}
}

func TestParse(t *testing.T) {
	for _, h := range []string{"1.2.3", "256.0.0.1", "01.2.3.4", "example.com", ""} {
		if _, err := ParseHost(h); err == nil {
			t.Errorf("host %q accepted", h)
		}
	}
	for _, p := range []string{"-1", "65536", "08", "x"} {
		if _, err := ParsePort(p); err == nil {
			t.Errorf("port %q accepted", p)
		}
	}
}
