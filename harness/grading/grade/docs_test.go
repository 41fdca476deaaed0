package grade

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// section is the text of docs/report-format.md from the heading that starts with heading
// to the next heading of the same or a higher level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading)
	if i < 0 {
		t.Fatalf("docs/report-format.md has no heading %q", heading)
	}
	level := strings.Index(heading, " ")
	rest := doc[i+1+len(heading):]
	for _, l := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(l, "#") && strings.Index(l, " ") <= level {
			return doc[i : i+1+len(heading)+strings.Index(rest, l)]
		}
	}
	return doc[i:]
}

// jsonFields are the JSON names of a struct's fields.
func jsonFields(v any) []string {
	var names []string
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		if tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]; tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	return names
}

// docs/report-format.md describes every field the reports have, each in its own section:
// a field added to a report and not to the doc fails here.
func TestReportFormatDocumentsEveryField(t *testing.T) {
	data, err := os.ReadFile("../../../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, tc := range []struct {
		heading string
		v       any
		row     bool // a table row "| `field` |" rather than a mention
	}{
		{"### Top level", Report{}, true},
		{"### `build`", BuildReport{}, true},
		{"### `categories[]`", CategoryReport{}, true},
		{"### `cases[]`", CaseReport{}, true},
		{"## Gradescope", gsResults{}, true},
		{"## Gradescope", gsTest{}, false},
		{"## The cohort's JSON", CohortReport{}, true},
		{"### `submissions[]`", CohortEntry{}, false},
		{"### `dashboard`", Dashboard{}, true},
		{"### `dashboard`", MarkBin{}, false},
		{"### `dashboard`", CategoryPassRate{}, false},
		{"### `dashboard`", FailedCase{}, false},
		{"### `dashboard`", FailureSignature{}, false},
	} {
		text := section(t, doc, tc.heading)
		for _, f := range jsonFields(tc.v) {
			want, array := "`"+f+"`", "`"+f+"[]`"
			if tc.row {
				want, array = "| "+want+" |", "| "+array+" |"
			}
			if !strings.Contains(text, want) && !strings.Contains(text, array) {
				t.Errorf("docs/report-format.md, %s: no %s", tc.heading, want)
			}
		}
	}
}
