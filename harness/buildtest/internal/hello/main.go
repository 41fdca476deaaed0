// Command hello prints "hello"; the buildtest package's own test builds and runs it.
package main

import "fmt"

func main() { fmt.Println("hello") }
