package grade

import (
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// The JUnit XML shape most CI systems read (Jenkins, GitLab, GitHub test reporters): one
// <testsuites>, one <testsuite> per graded subject, one <testcase> per case and pairing.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Timestamp  string          `xml:"timestamp,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// WriteJUnit writes reports as one JUnit XML document: a testsuite per report, named
// "GAME: SUBJECT", whose testcases are the cases in every pairing they ran in (named as
// CaseReport.Name says, classname the marking category, time in seconds). A failed case
// carries a <failure> whose type is the verdict, whose message is the detail and whose text
// is the requirement and the case's log; a HARNESS-ERROR is an <error> instead (the grader
// failed, not the subject); a PASS-LENIENT case passes with a <system-out> note saying what
// alternative was accepted. A report with a build step has one more testcase, "build"
// (classname "build"), failing with make's log when the build failed. The marks go in the
// suite's properties. Characters XML cannot carry (binary bytes in a log) become U+FFFD.
func WriteJUnit(w io.Writer, reports ...*Report) error {
	doc := junitSuites{Name: "gauntlet grade"}
	total := 0.0
	var games []string
	for _, r := range reports {
		// With several subjects (a cohort), each one's classnames start with its name, so
		// that CI views do not merge students' cases.
		prefix := ""
		if len(reports) > 1 {
			prefix = filepath.Base(r.Subject) + "/"
		}
		s := junitSuite{Name: r.Game + ": " + r.Subject, Time: seconds(r.Seconds),
			Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05")}
		if len(games) == 0 || games[len(games)-1] != r.Game {
			games = append(games, r.Game)
		}
		mark := "incomplete" // a marked case not judged: no mark
		if m, ok := r.Total(); ok {
			mark = fmt.Sprintf("%g", m)
		}
		s.Properties = append(s.Properties, junitProperty{"marks", fmt.Sprintf("%s/%g", mark, r.MaxMarks)})
		for _, c := range r.Categories {
			marks := fmt.Sprintf("%g", c.Marks)
			if c.Unjudged > 0 {
				marks = "incomplete"
			}
			s.Properties = append(s.Properties, junitProperty{"marks: " + c.Name,
				fmt.Sprintf("%s/%g (%d/%d cases passed)", marks, c.MaxMarks, c.Passed, c.Cases)})
		}
		if b := r.Build; b != nil {
			tc := junitCase{Name: "build", Classname: prefix + "build", Time: seconds(b.Seconds)}
			if b.OK {
				tc.SystemOut = buildText(b)
			} else {
				tc.Failure = &junitProblem{Type: string(BuildFail), Message: b.Problem, Text: buildText(b)}
				s.Failures++
			}
			s.Cases = append(s.Cases, tc)
		}
		for _, c := range r.Cases {
			tc := junitCase{Name: c.Name(), Classname: prefix + c.Category, Time: seconds(c.Seconds)}
			switch {
			case c.Verdict == PassLenient:
				tc.SystemOut = "PASS-LENIENT: passed on an allowed alternative: " + c.Detail
			case c.Verdict.Passed():
			case c.Verdict == HarnessError:
				tc.Error = &junitProblem{Type: string(c.Verdict), Message: c.Detail, Text: caseText(c)}
				s.Errors++
			default:
				tc.Failure = &junitProblem{Type: string(c.Verdict), Message: c.Detail, Text: caseText(c)}
				s.Failures++
			}
			s.Cases = append(s.Cases, tc)
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		total += r.Seconds
		doc.Suites = append(doc.Suites, s)
	}
	if len(games) > 0 {
		doc.Name += " " + strings.Join(games, " ")
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseText is a failed case for people: what it checks, whether it is marked, what went
// wrong, then the full log.
func caseText(c CaseReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", c.Verdict, c.Name())
	fmt.Fprintf(&b, "requirement: %s [%s; %s]\n", c.Title, c.Section, c.Category)
	if c.Requirement != "" {
		fmt.Fprintf(&b, "spec: %s\n", c.Requirement)
	}
	if c.Accept != "" {
		fmt.Fprintf(&b, "also accepted: %s\n", c.Accept)
	}
	switch {
	case c.Unmarked != "":
		fmt.Fprintf(&b, "not marked: %s\n", c.Unmarked)
	case c.ChargedIn != "":
		fmt.Fprintf(&b, "not marked: its failure is already charged in %s, which it needs\n", c.ChargedIn)
	case !c.Counted:
		b.WriteString("not marked: this pairing only tells whether the hub or the players are wrong\n")
	}
	if c.Verdict == HarnessError {
		b.WriteString("HARNESS-ERROR: the grader failed on this case; it is not counted for or against the subject\n")
	}
	fmt.Fprintf(&b, "what happened: %s\n", c.Detail)
	if c.Alone != "" {
		fmt.Fprintf(&b, "%s\n", c.Alone)
	}
	b.WriteString(c.Divergence)
	b.WriteString(c.Conversation)
	if c.Log != "" {
		fmt.Fprintf(&b, "\nlog:\n%s", c.Log)
		if !strings.HasSuffix(c.Log, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// buildText is the build step for people: its outcome, warnings, programs not found and,
// when it failed, make's log.
func buildText(b *BuildReport) string {
	var s strings.Builder
	if b.OK {
		fmt.Fprintf(&s, "build ok, %d warning(s)\n", b.Warnings)
	} else {
		fmt.Fprintf(&s, "BUILD-FAIL: %s, %d warning(s)\n", b.Problem, b.Warnings)
	}
	if len(b.Missing) > 0 {
		fmt.Fprintf(&s, "programs not built: %s\n", strings.Join(b.Missing, " "))
	}
	s.WriteString(b.removedText())
	if b.Log != "" {
		fmt.Fprintf(&s, "\nmake's output:\n%s", b.Log)
		if !strings.HasSuffix(b.Log, "\n") {
			s.WriteByte('\n')
		}
	}
	return s.String()
}
