// Package contract holds a spec's exit-code tables as data: for each program, the condition,
// the exit status and the exact message it must print on stderr.
//
// The tables are the single source the reference programs, the conformance suites and the
// grader read, so a status or a message is written down once.
package contract

import "fmt"

// Row is one row of a spec's exit table.
type Row struct {
	Program   string // the program the row belongs to, e.g. "2310dealer" or "player"
	Condition string // the spec's wording of the condition
	Status    int    // exit status
	Message   string // exact stderr line without its trailing '\n'; "" when nothing is printed
	Section   string // the spec section the row comes from
}

// Stderr is what the program writes to stderr for this row: Message and a newline, or
// nothing for a row without a message.
func (r Row) Stderr() string {
	if r.Message == "" {
		return ""
	}
	return r.Message + "\n"
}

// Table is one program's exit table, in the spec's order (the order checks are made in).
type Table []Row

// Status returns the row with exit status n. It panics when the table has no such row: a
// caller asking for a status the spec does not define is a programming error.
func (t Table) Status(n int) Row {
	for _, r := range t {
		if r.Status == n {
			return r
		}
	}
	panic(fmt.Sprintf("contract: no row with exit status %d", n))
}

// Category is one marking category of a spec: the functionality it names, the program it
// grades, and the marks it is worth.
type Category struct {
	Name    string  // e.g. "2310A/arg checking"; the suites' `category:` lines use it
	Program string  // the spec name of the program it grades ("2310dealer", "2310A", ...)
	Marks   float64 // the marks the spec gives it
	About   string  // the spec's wording
}
