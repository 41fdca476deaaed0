// Package lineio reads the line-based messages every hub and player exchanges.
//
// It settles two rules shared by all the protocols once: a message that ends at EOF without
// its '\n' is still a message (the 2310 spec's tip 6; the other specs behave alike), and a
// peer cannot make a reader grow without bound by never sending a newline.
package lineio

import (
	"bufio"
	"errors"
	"io"
	"os"
)

// MaxLine is the longest line, in bytes without the '\n', that ReadLine returns.
const MaxLine = 1 << 20

// ErrTooLong is returned for a line longer than MaxLine. The rest of that line is
// discarded, so the next ReadLine starts at the following line.
var ErrTooLong = errors.New("line too long")

// Reader reads '\n'-terminated lines.
type Reader struct {
	br *bufio.Reader
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReader(r)}
}

// ReadLine returns the next line without its '\n'. A final line ended by EOF rather than
// '\n' is returned with a nil error; the call after it returns io.EOF. Any other read error
// is returned as it is.
func (r *Reader) ReadLine() (string, error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			n := len(buf) + len(chunk)
			if err == nil {
				n-- // the '\n' itself does not count
			}
			if n > MaxLine {
				tooLong = true
				buf = nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil:
			if tooLong {
				return "", ErrTooLong
			}
			return string(buf[:len(buf)-1]), nil
		case err == io.EOF:
			if tooLong {
				return "", ErrTooLong
			}
			if len(buf) == 0 {
				return "", io.EOF
			}
			return string(buf), nil
		default:
			if tooLong {
				return "", ErrTooLong
			}
			if len(buf) > 0 && !errors.Is(err, os.ErrDeadlineExceeded) {
				// Deliver what arrived; the error comes back on the next call.
				return string(buf), nil
			}
			// A read past its deadline was given up: what came of the line is not a line.
			return "", err
		}
	}
}

// ReadByte returns the next byte, for handshakes made of one byte without a newline.
func (r *Reader) ReadByte() (byte, error) {
	return r.br.ReadByte()
}
