// Package ci holds the ready-to-use CI and autograder set-ups (ci/github, ci/gitlab,
// ci/gradescope; docs/ci.md); its tests check each one.
package ci

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"gauntlet/internal/buildtest"
	"gauntlet/programs"
)

func readYAML(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return doc
}

// GitHub workflows: triggers, a job on a runner, GAME set, steps that install gauntlet,
// grade, keep the reports and publish the JUnit file.
func TestGitHubWorkflows(t *testing.T) {
	for _, f := range []string{"github/gauntlet.yml", "github/gauntlet-cohort.yml"} {
		doc := readYAML(t, f)
		if doc["on"] == nil || doc["name"] == nil {
			t.Errorf("%s: no name or on", f)
		}
		if env, _ := doc["env"].(map[string]any); env["GAME"] != "stlucia" {
			t.Errorf("%s: env.GAME is %v", f, env["GAME"])
		}
		jobs, _ := doc["jobs"].(map[string]any)
		if len(jobs) != 1 {
			t.Fatalf("%s: jobs %v", f, jobs)
		}
		for name, j := range jobs {
			job, _ := j.(map[string]any)
			if job["runs-on"] == nil {
				t.Errorf("%s: job %s has no runs-on", f, name)
			}
			steps, _ := job["steps"].([]any)
			var text []string
			for _, s := range steps {
				step, _ := s.(map[string]any)
				text = append(text, fmtStep(step))
			}
			all := strings.Join(text, "\n")
			for _, want := range []string{"go install ./cmd/gauntlet", "gauntlet\" grade \"$GAME\"", "actions/upload-artifact", "junit"} {
				if !strings.Contains(all, want) {
					t.Errorf("%s: no step with %q:\n%s", f, want, all)
				}
			}
		}
	}
}

func fmtStep(step map[string]any) string {
	var b strings.Builder
	for _, k := range []string{"uses", "run", "name"} {
		if v, ok := step[k].(string); ok {
			b.WriteString(v + " ")
		}
	}
	if with, ok := step["with"].(map[string]any); ok {
		for k, v := range with {
			b.WriteString(k + "=" + strings.TrimSpace(toString(v)) + " ")
		}
	}
	return b.String()
}

func toString(v any) string {
	s, _ := v.(string)
	return s
}

// The GitLab template: both jobs grade and keep a JUnit report.
func TestGitLabTemplate(t *testing.T) {
	doc := readYAML(t, "gitlab/gauntlet.gitlab-ci.yml")
	if vars, _ := doc["variables"].(map[string]any); vars["GAME"] != "stlucia" {
		t.Errorf("variables.GAME is %v", vars["GAME"])
	}
	for _, name := range []string{"gauntlet", "gauntlet-cohort"} {
		job, _ := doc[name].(map[string]any)
		script, _ := job["script"].([]any)
		art, _ := job["artifacts"].(map[string]any)
		reports, _ := art["reports"].(map[string]any)
		if len(script) == 0 || !strings.Contains(toString(script[0]), "gauntlet grade \"$GAME\"") || reports["junit"] == nil {
			t.Errorf("job %s: script %v, artifacts %v", name, script, art)
		}
	}
}

// run_autograder, on a folder laid out as Gradescope lays it out, writes a results.json
// in Gradescope's format with the marks the grader gives, and the visibility set.
func TestGradescopeAutograder(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	if testing.Short() {
		t.Skip("a whole grade through the autograder script: full mode only")
	}
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join("..", "fixtures", "submissions", "buggy2310")
	entries, _ := os.ReadDir(fixture)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(fixture, e.Name()))
		os.WriteFile(filepath.Join(sub, e.Name()), data, 0o644)
	}
	_, data, _ := runAutograder(t, root, gauntlet, nil, "VISIBILITY=after_due_date")
	var res struct {
		Score        *float64 `json:"score"`
		OutputFormat string   `json:"output_format"`
		Visibility   string   `json:"visibility"`
		Tests        []struct {
			Name       string   `json:"name"`
			Score      *float64 `json:"score"`
			MaxScore   float64  `json:"max_score"`
			Status     string   `json:"status"`
			Visibility string   `json:"visibility"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Score == nil || res.OutputFormat != "text" || res.Visibility != "after_due_date" || len(res.Tests) == 0 {
		t.Fatalf("results: %s", data)
	}
	sum := 0.0
	for _, tc := range res.Tests {
		if tc.Name == "" || tc.Score == nil || (tc.Status != "passed" && tc.Status != "failed") || tc.Visibility != "after_due_date" {
			t.Errorf("test %+v", tc)
		}
		sum += *tc.Score
	}
	// The categories' scores add up to the score (each rounded to hundredths); the buggy
	// fixture scores some marks, not all.
	if diff := sum - *res.Score; diff > 0.05 || diff < -0.05 || *res.Score <= 0 || *res.Score >= 42 {
		t.Errorf("score %v, the tests add up to %v", *res.Score, sum)
	}
}

// Every template's GAME setting names every game gauntlet grades, and so does docs/ci.md:
// a game added to the grader and not to the set-ups fails here.
func TestTemplatesNameEveryGame(t *testing.T) {
	files := []string{"github/gauntlet.yml", "github/gauntlet-cohort.yml", "gitlab/gauntlet.gitlab-ci.yml", "gradescope/run_autograder",
		"kubernetes/grade-job.yaml", "slurm/grade.sbatch"}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var setting string
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if t := strings.TrimSpace(line); (strings.HasPrefix(t, "GAME:") || strings.HasPrefix(t, "GAME=")) && strings.Contains(t, "#") {
				setting = line
				break
			}
			if strings.TrimSpace(line) == "- name: GAME" && i+1 < len(lines) { // a Kubernetes container's env
				setting = lines[i+1]
				break
			}
		}
		for _, g := range programs.GradeGames() {
			if !strings.Contains(setting, g) {
				t.Errorf("%s: the GAME setting %q does not name %s", f, setting, g)
			}
		}
	}
	doc, err := os.ReadFile("../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, games, ok := strings.Cut(string(doc), "Set `GAME` at the top: any game `gauntlet grade` knows (")
	games, _, _ = strings.Cut(games, ";")
	for _, g := range programs.GradeGames() {
		if !ok || !strings.Contains(games, g) {
			t.Errorf("docs/ci.md does not name %s where it says what GAME may be (%q)", g, games)
		}
	}
}

// The Gradescope autograder grades Clue too: a submission that builds nothing gets the
// game's categories, each with no marks, and the build test, in Gradescope's format.
func TestGradescopeAutograderClue(t *testing.T) {
	t.Parallel() // an autograder run of its own, in a folder of its own
	gauntlet := buildtest.Path(t, "gauntlet/cmd/gauntlet")
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "Makefile"), []byte("all:\n\ttrue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A later GAME= replaces runAutograder's dealer2310.
	res, data, _ := runAutograder(t, root, gauntlet, nil, "GAME=clue")
	g, _ := programs.GradeGame("clue")
	var names []string
	total := 0.0
	for _, tc := range res.Tests {
		names = append(names, tc.Name)
		total += tc.MaxScore
	}
	if res.Score == nil || *res.Score != 0 || len(res.Tests) < len(g.Categories)+1 {
		t.Fatalf("results: %s", data)
	}
	for i, c := range g.Categories {
		if names[i] != c.Name {
			t.Errorf("test %d is %q, want the category %q", i, names[i], c.Name)
		}
	}
	if names[len(g.Categories)] != "build" || total != 40 {
		t.Errorf("tests %q worth %v in all, want the categories (40 marks) and then the build", names, total)
	}
}
