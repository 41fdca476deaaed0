package grade

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

// The JUnit shape as a consumer reads it, declared apart from the writer's types so that a
// misnamed element or attribute in the writer shows as a missing value here.
type (
	xSuites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Time     string   `xml:"time,attr"`
		Suites   []xSuite `xml:"testsuite"`
	}
	xSuite struct {
		Name      string `xml:"name,attr"`
		Tests     int    `xml:"tests,attr"`
		Failures  int    `xml:"failures,attr"`
		Errors    int    `xml:"errors,attr"`
		Time      string `xml:"time,attr"`
		Timestamp string `xml:"timestamp,attr"`
		Props     []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []xCase `xml:"testcase"`
	}
	xCase struct {
		Name      string    `xml:"name,attr"`
		Classname string    `xml:"classname,attr"`
		Time      string    `xml:"time,attr"`
		Failure   *xProblem `xml:"failure"`
		Error     *xProblem `xml:"error"`
		SystemOut *string   `xml:"system-out"`
	}
	xProblem struct {
		Type    string `xml:"type,attr"`
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

func TestJUnit(t *testing.T) {
	// want describes one testcase: "pass", "lenient", "error TYPE" or "failure TYPE".
	type want struct{ name, class, outcome string }
	tests := []struct {
		subjects []string
		suites   [][]want
	}{
		{[]string{"good"}, [][]want{{
			{"build", "build", "pass"},
			{"hub_pairs@their-hub+ref-players", "hub/basics", "pass"},
			{"hub_pairs@ref-hub+their-players", "hub/basics", "pass"},
			{"hub_pairs@their-hub+their-players", "hub/basics", "pass"},
			{"echo", "player/basics", "pass"},
			{"exit", "player/basics", "lenient"},
		}}},
		{[]string{"bad", "nobuild"}, [][]want{{
			{"build", "bad/build", "pass"},
			{"hub_pairs@their-hub+ref-players", "bad/hub/basics", "failure WRONG-STDOUT"},
			{"hub_pairs@ref-hub+their-players", "bad/hub/basics", "pass"},
			{"hub_pairs@their-hub+their-players", "bad/hub/basics", "failure CRASH"},
			{"echo", "bad/player/basics", "error HARNESS-ERROR"},
			{"exit", "bad/player/basics", "failure WRONG-EXIT"},
		}, {
			{"build", "nobuild/build", "failure BUILD-FAIL"},
			{"hub_pairs@their-hub+ref-players", "nobuild/hub/basics", "failure BUILD-FAIL"},
			{"hub_pairs@ref-hub+their-players", "nobuild/hub/basics", "failure BUILD-FAIL"},
			{"hub_pairs@their-hub+their-players", "nobuild/hub/basics", "failure BUILD-FAIL"},
			{"echo", "nobuild/player/basics", "failure BUILD-FAIL"},
			{"exit", "nobuild/player/basics", "failure BUILD-FAIL"},
		}}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.subjects, "+"), func(t *testing.T) {
			var reps []*Report
			for _, s := range tc.subjects {
				reps = append(reps, sampleReport(s))
			}
			var b strings.Builder
			if err := WriteJUnit(&b, reps...); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.HasPrefix(out, xml.Header) {
				t.Errorf("no XML header: %.60q", out)
			}
			var doc xSuites
			if err := xml.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("the XML does not parse back: %v\n%s", err, out)
			}
			if doc.Name != "gauntlet grade toy" || len(doc.Suites) != len(tc.suites) {
				t.Fatalf("testsuites %q with %d suites, want %d", doc.Name, len(doc.Suites), len(tc.suites))
			}
			tests, failures, errors := 0, 0, 0
			for i, s := range doc.Suites {
				if want := "toy: /subs/" + tc.subjects[i]; s.Name != want {
					t.Errorf("suite name %q, want %q", s.Name, want)
				}
				if s.Timestamp != "2025-03-01T10:00:00" {
					t.Errorf("timestamp %q", s.Timestamp)
				}
				if len(s.Props) == 0 || s.Props[0].Name != "marks" || !strings.HasSuffix(s.Props[0].Value, "/6") {
					t.Errorf("properties %+v", s.Props)
				}
				f, e := 0, 0
				if len(s.Cases) != len(tc.suites[i]) {
					t.Fatalf("suite %s: %d testcases, want %d", s.Name, len(s.Cases), len(tc.suites[i]))
				}
				for k, c := range s.Cases {
					w := tc.suites[i][k]
					if c.Name != w.name || c.Classname != w.class {
						t.Errorf("testcase %q (class %q), want %q (class %q)", c.Name, c.Classname, w.name, w.class)
					}
					if sec, err := strconv.ParseFloat(c.Time, 64); err != nil || sec <= 0 {
						t.Errorf("%s: time %q is not seconds", c.Name, c.Time)
					}
					got := "pass"
					switch {
					case c.Failure != nil && c.Error != nil:
						got = "both"
					case c.Failure != nil:
						got, f = "failure "+c.Failure.Type, f+1
					case c.Error != nil:
						got, e = "error "+c.Error.Type, e+1
					case c.SystemOut != nil && strings.HasPrefix(*c.SystemOut, "PASS-LENIENT: "):
						got = "lenient"
					}
					if got != w.outcome {
						t.Errorf("%s: %s, want %s", c.Name, got, w.outcome)
					}
					for _, p := range []*xProblem{c.Failure, c.Error} {
						if p != nil && c.Name != "build" && (p.Message == "" || !strings.Contains(p.Text, "requirement: ")) {
							t.Errorf("%s: message %q, text %q: want the detail and the requirement", c.Name, p.Message, p.Text)
						}
					}
				}
				if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e {
					t.Errorf("suite %s counts tests=%d failures=%d errors=%d, want %d %d %d", s.Name, s.Tests, s.Failures, s.Errors, len(s.Cases), f, e)
				}
				tests, failures, errors = tests+s.Tests, failures+s.Failures, errors+s.Errors
			}
			if doc.Tests != tests || doc.Failures != failures || doc.Errors != errors {
				t.Errorf("testsuites counts %d %d %d, want %d %d %d", doc.Tests, doc.Failures, doc.Errors, tests, failures, errors)
			}
		})
	}
}

// The texts survive the trip through XML: logs with markup characters and bytes XML cannot
// hold (those become U+FFFD), the detail as the message, the build log in the build case.
func TestJUnitTexts(t *testing.T) {
	var b strings.Builder
	if err := WriteJUnit(&b, sampleReport("bad"), sampleReport("nobuild")); err != nil {
		t.Fatal(err)
	}
	var doc xSuites
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	bad, nobuild := doc.Suites[0], doc.Suites[1]
	wrong := bad.Cases[1].Failure
	if wrong.Message != `at line 1, want "a", got "b"` || !strings.Contains(wrong.Text, "[stdout]\nb\uFFFD\uFFFD\nFAIL: hub_pairs.txtar:3") {
		t.Errorf("failure message %q, text %q", wrong.Message, wrong.Text)
	}
	if crash := bad.Cases[3].Failure; !strings.Contains(crash.Text, "not marked") {
		t.Errorf("a pairing that is not marked does not say so: %q", crash.Text)
	}
	if he := bad.Cases[4].Error; !strings.Contains(he.Text, "not counted") || he.Message != `unknown command "frob"` {
		t.Errorf("harness error %+v", he)
	}
	bf := nobuild.Cases[0].Failure
	if bf.Message != "make exited with status 2" || !strings.Contains(bf.Text, `hub.c:1:1: error: <oops> & "quoted"`) ||
		!strings.Contains(bf.Text, "programs not built: toyhub toyplayer") {
		t.Errorf("build failure %+v", bf)
	}
	if out := bad.Cases[0].SystemOut; out == nil || !strings.Contains(*out, "1 warning") {
		t.Errorf("build system-out %v", out)
	}
}

func TestJUnitNoReports(t *testing.T) {
	var b strings.Builder
	if err := WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc xSuites
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil || doc.Tests != 0 || len(doc.Suites) != 0 {
		t.Errorf("empty document %q: %v", b.String(), err)
	}
}
