// Command emptygo does nothing: it is the smallest Go program, whose start and exit are
// the floor of any program written in Go (acceptance's BenchmarkGoProcessFloor).
package main

func main() {}
