// Command hello prints "hello"; the buildtest package's own test builds and runs it. Given
// arguments, it writes them on stderr instead and exits with status 3.
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, strings.Join(os.Args[1:], " "))
		os.Exit(3)
	}
	fmt.Println("hello")
}
