// Package term tells a terminal from anything else a command writes to, the one way every
// command asks (a progress line is redrawn in place only on a terminal), and its width.
package term

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether w is a terminal: a file whose terminal settings can be read
// (TCGETS). A character device that is no terminal (/dev/null) is not one, nor are pipes,
// files or buffers.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Width is the terminal's width in columns (80 when it cannot be told).
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 80
}
