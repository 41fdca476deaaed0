package hygiene

import (
	"fmt"
	"strings"
)

// FindingKind names a hygiene fault.
type FindingKind string

// The hygiene faults.
const (
	// LeftRunning: a process the subject started was still running after every program the
	// harness started had ended (an orphan, a daemon, a forgotten child).
	LeftRunning FindingKind = "left-running"
	// Zombie: a child of the subject ended and its parent, still running, did not reap it.
	Zombie FindingKind = "zombie"
	// FileCreated, FileChanged, FileRemoved: the subject changed its working directory.
	FileCreated FindingKind = "file-created"
	FileChanged FindingKind = "file-changed"
	FileRemoved FindingKind = "file-removed"
)

// Finding is one hygiene fault with its evidence.
type Finding struct {
	Kind    FindingKind
	Pid     int    // the process concerned (process findings)
	PPid    int    // its parent when seen (zombie findings)
	Command string // its command line or command name, cut short
	Path    string // slash-separated path inside the working directory (file findings)
}

// String describes the finding in one line.
func (f Finding) String() string {
	switch f.Kind {
	case LeftRunning:
		return fmt.Sprintf("process left running: pid %d (%s)", f.Pid, f.Command)
	case Zombie:
		return fmt.Sprintf("zombie not reaped: pid %d (%s), child of pid %d", f.Pid, f.Command, f.PPid)
	case FileCreated:
		return "file created: " + f.Path
	case FileChanged:
		return "file changed: " + f.Path
	case FileRemoved:
		return "file removed: " + f.Path
	}
	return string(f.Kind)
}

// MaxFindings bounds the findings a Report keeps; the rest are only counted.
const MaxFindings = 100

// Report is the hygiene audit of one run.
type Report struct {
	Findings []Finding
	Omitted  int // findings beyond MaxFindings, counted but not kept
}

// Add appends a finding, or counts it once the report is full.
func (r *Report) Add(f Finding) {
	if len(r.Findings) >= MaxFindings {
		r.Omitted++
		return
	}
	r.Findings = append(r.Findings, f)
}

// AddFiles adds one finding per entry of the changes.
func (r *Report) AddFiles(c DirChanges) {
	for _, p := range c.Created {
		r.Add(Finding{Kind: FileCreated, Path: p})
	}
	for _, p := range c.Changed {
		r.Add(Finding{Kind: FileChanged, Path: p})
	}
	for _, p := range c.Removed {
		r.Add(Finding{Kind: FileRemoved, Path: p})
	}
}

// Clean reports whether the audit found nothing.
func (r Report) Clean() bool { return len(r.Findings) == 0 && r.Omitted == 0 }

// Has reports whether the report holds a finding of the kind.
func (r Report) Has(k FindingKind) bool {
	for _, f := range r.Findings {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// String lists the findings, one per line.
func (r Report) String() string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "(%d more findings omitted)\n", r.Omitted)
	}
	return b.String()
}
