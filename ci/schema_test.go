package ci

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The facts of the CI systems' documented schemas that the templates rely on, written here
// as data (from GitHub's "Workflow syntax for GitHub Actions" and "Controlling permissions
// for GITHUB_TOKEN", and GitLab's "CI/CD YAML syntax reference"): a key a system does not
// know, a permission it does not have or a rule it cannot read fails here rather than in
// a course's first pipeline.
var (
	// A workflow's top-level keys.
	githubTopKeys = []string{"name", "run-name", "on", "permissions", "env", "defaults", "concurrency", "jobs"}
	// A job's keys (jobs.<job_id>).
	githubJobKeys = []string{"name", "permissions", "needs", "if", "runs-on", "environment", "concurrency",
		"outputs", "env", "defaults", "steps", "timeout-minutes", "strategy", "continue-on-error", "container",
		"services", "uses", "with", "secrets"}
	// A step's keys.
	githubStepKeys = []string{"id", "if", "name", "uses", "run", "working-directory", "shell", "with", "env",
		"continue-on-error", "timeout-minutes"}
	// The scopes of the GITHUB_TOKEN's permissions, and the values each may take (id-token
	// and models have no "read" that matters here; they are listed with what they allow).
	githubScopes = map[string][]string{
		"actions": {"read", "write", "none"}, "attestations": {"read", "write", "none"},
		"checks": {"read", "write", "none"}, "contents": {"read", "write", "none"},
		"deployments": {"read", "write", "none"}, "discussions": {"read", "write", "none"},
		"id-token": {"write", "none"}, "issues": {"read", "write", "none"},
		"models": {"read", "none"}, "packages": {"read", "write", "none"},
		"pages": {"read", "write", "none"}, "pull-requests": {"read", "write", "none"},
		"repository-projects": {"read", "write", "none"}, "security-events": {"read", "write", "none"},
		"statuses": {"read", "write", "none"},
	}
	// The events the templates may be triggered by.
	githubEvents = []string{"push", "pull_request", "workflow_dispatch", "pull_request_target", "schedule", "workflow_run"}

	// GitLab's global keywords: any other top-level key is a job (or a hidden one, ".x").
	gitlabGlobalKeys = []string{"default", "include", "stages", "variables", "workflow", "image", "services",
		"cache", "before_script", "after_script", "spec"}
	// A job's keywords.
	gitlabJobKeys = []string{"after_script", "allow_failure", "artifacts", "before_script", "cache", "coverage",
		"dast_configuration", "dependencies", "environment", "extends", "hooks", "id_tokens", "identity", "image",
		"inherit", "interruptible", "manual_confirmation", "needs", "pages", "parallel", "release", "resource_group",
		"retry", "rules", "run", "script", "secrets", "services", "stage", "tags", "timeout", "trigger",
		"variables", "when"}
	// The keys of one entry of rules:, and the values of its when:.
	gitlabRuleKeys  = []string{"if", "changes", "exists", "when", "allow_failure", "needs", "variables", "interruptible", "start_in"}
	gitlabRuleWhens = []string{"on_success", "on_failure", "always", "never", "manual", "delayed"}
	// artifacts: keys, and the values of artifacts:when.
	gitlabArtifactKeys  = []string{"paths", "exclude", "expire_in", "expose_as", "name", "public", "access", "reports", "untracked", "when"}
	gitlabArtifactWhens = []string{"on_success", "on_failure", "always"}
)

// unknownKeys lists the keys of m that are not in allowed, sorted.
func unknownKeys(m map[string]any, allowed []string) []string {
	var bad []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	return bad
}

// Each GitHub workflow uses only the keys GitHub documents, and sets the token's
// permissions that its steps need: contents read (checkout: a workflow that sets
// permissions gets none it does not name) and checks write (publishing the JUnit results),
// and nothing else; the publishing step is left out for a pull request from a fork, whose
// token is read-only whatever the workflow says.
func TestGitHubWorkflowsSchema(t *testing.T) {
	for _, f := range []string{"github/gauntlet.yml", "github/gauntlet-cohort.yml"} {
		doc := readYAML(t, f)
		if bad := unknownKeys(doc, githubTopKeys); len(bad) > 0 {
			t.Errorf("%s: top-level keys GitHub does not know: %v", f, bad)
		}
		switch on := doc["on"].(type) {
		case []any:
			for _, e := range on {
				if s, _ := e.(string); !slices.Contains(githubEvents, s) {
					t.Errorf("%s: on: %v", f, e)
				}
			}
		case map[string]any:
			if bad := unknownKeys(on, githubEvents); len(bad) > 0 {
				t.Errorf("%s: on: events %v", f, bad)
			}
		default:
			t.Errorf("%s: on is %T", f, on)
		}
		perms, ok := doc["permissions"].(map[string]any)
		if !ok {
			t.Fatalf("%s: no permissions map (the default token may be read-only: publishing the results fails)", f)
		}
		checkPermissions(t, f, perms)
		jobs, _ := doc["jobs"].(map[string]any)
		for name, j := range jobs {
			job, _ := j.(map[string]any)
			if bad := unknownKeys(job, githubJobKeys); len(bad) > 0 {
				t.Errorf("%s: job %s: keys GitHub does not know: %v", f, name, bad)
			}
			if p, ok := job["permissions"].(map[string]any); ok {
				checkPermissions(t, f+": job "+name, p)
			}
			steps, _ := job["steps"].([]any)
			published := false
			for i, s := range steps {
				step, _ := s.(map[string]any)
				if bad := unknownKeys(step, githubStepKeys); len(bad) > 0 {
					t.Errorf("%s: job %s step %d: keys GitHub does not know: %v", f, name, i, bad)
				}
				if (step["uses"] == nil) == (step["run"] == nil) {
					t.Errorf("%s: job %s step %d: a step has uses or run, one of them", f, name, i)
				}
				if uses, _ := step["uses"].(string); strings.HasPrefix(uses, "mikepenz/action-junit-report@") {
					published = true
					cond, _ := step["if"].(string)
					if !strings.Contains(cond, "always()") || !strings.Contains(cond, "github.event.pull_request.head.repo.full_name == github.repository") {
						t.Errorf("%s: the publishing step's if is %q: want always(), and not for a pull request from a fork", f, cond)
					}
				}
			}
			if !published {
				t.Errorf("%s: job %s publishes no results", f, name)
			}
		}
	}
}

// checkPermissions checks a permissions map: known scopes and values, exactly contents
// read and checks write.
func checkPermissions(t *testing.T, where string, perms map[string]any) {
	t.Helper()
	for scope, v := range perms {
		values, known := githubScopes[scope]
		if s, _ := v.(string); !known || !slices.Contains(values, s) {
			t.Errorf("%s: permissions: %s: %v is not a documented scope and value", where, scope, v)
		}
	}
	if fmt.Sprint(perms) != "map[checks:write contents:read]" {
		t.Errorf("%s: permissions %v, want contents: read and checks: write", where, perms)
	}
}

// The GitLab template uses only the keywords GitLab documents, in the shapes it documents.
func TestGitLabTemplateSchema(t *testing.T) {
	doc := readYAML(t, "gitlab/gauntlet.gitlab-ci.yml")
	jobs := 0
	for name, v := range doc {
		if slices.Contains(gitlabGlobalKeys, name) {
			continue
		}
		jobs++
		job, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: not a job (a map), nor a global keyword", name)
			continue
		}
		if bad := unknownKeys(job, gitlabJobKeys); len(bad) > 0 {
			t.Errorf("job %s: keywords GitLab does not know: %v", name, bad)
		}
		if art, ok := job["artifacts"].(map[string]any); ok {
			if bad := unknownKeys(art, gitlabArtifactKeys); len(bad) > 0 {
				t.Errorf("job %s: artifacts: %v", name, bad)
			}
			if w, ok := art["when"]; ok && !slices.Contains(gitlabArtifactWhens, fmt.Sprint(w)) {
				t.Errorf("job %s: artifacts:when: %v", name, w)
			}
		}
		rules, ok := job["rules"].([]any)
		if !ok {
			t.Errorf("job %s: no rules: it would run in every pipeline of every repository", name)
		}
		for i, r := range rules {
			rule, ok := r.(map[string]any)
			if !ok {
				t.Errorf("job %s: rule %d is %T, want a map", name, i, r)
				continue
			}
			if bad := unknownKeys(rule, gitlabRuleKeys); len(bad) > 0 || len(rule) == 0 {
				t.Errorf("job %s: rule %d: keys %v unknown (or none)", name, i, bad)
			}
			if w, ok := rule["when"]; ok && !slices.Contains(gitlabRuleWhens, fmt.Sprint(w)) {
				t.Errorf("job %s: rule %d: when: %v", name, i, w)
			}
			if e, ok := rule["exists"]; ok {
				list, _ := e.([]any)
				if len(list) == 0 {
					t.Errorf("job %s: rule %d: exists is %v, want a list of globs", name, i, e)
				}
				for _, g := range list {
					if _, ok := g.(string); !ok {
						t.Errorf("job %s: rule %d: exists: %v", name, i, g)
					}
				}
			}
		}
	}
	if jobs != 2 {
		t.Errorf("%d jobs, want 2", jobs)
	}
}

// runs evaluates a job's rules as GitLab does for the pipeline of a repository holding
// files (only exists: and when:, the only ones the template uses): without rules it runs;
// else the first rule that matches decides (when: never keeps the job out), and no rule
// matching keeps it out.
func runs(t *testing.T, job map[string]any, files []string) bool {
	t.Helper()
	rules, ok := job["rules"].([]any)
	if !ok {
		return true // a job without rules is in every pipeline
	}
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		match := true
		if e, ok := rule["exists"]; ok {
			match = false
			globs, _ := e.([]any)
			for _, g := range globs {
				for _, f := range files {
					if ok, err := path.Match(fmt.Sprint(g), f); err != nil {
						t.Fatal(err)
					} else if ok {
						match = true
					}
				}
			}
		}
		if match {
			return rule["when"] != "never"
		}
	}
	return false
}

// In a repository of one submission the GitLab template grades it, and not as a cohort; in
// a cohort repository it grades the cohort and not the repository's root, even where the
// root has a Makefile of its own; in a repository of neither, nothing.
func TestGitLabRulesChooseTheJob(t *testing.T) {
	doc := readYAML(t, "gitlab/gauntlet.gitlab-ci.yml")
	one, _ := doc["gauntlet"].(map[string]any)
	cohort, _ := doc["gauntlet-cohort"].(map[string]any)
	tests := []struct {
		name            string
		files           []string
		single, cohorts bool
	}{
		{"one submission", []string{"Makefile", "player.c", "README.md"}, true, false},
		{"a cohort", []string{"README.md", "submissions/alice/Makefile", "submissions/alice/hub.c", "submissions/bob/Makefile"}, false, true},
		{"a cohort with a Makefile at its root", []string{"Makefile", "submissions/alice/Makefile"}, false, true},
		{"neither", []string{"README.md"}, false, false},
	}
	for _, tc := range tests {
		if got := runs(t, one, tc.files); got != tc.single {
			t.Errorf("%s: the single-submission job runs: %v, want %v", tc.name, got, tc.single)
		}
		if got := runs(t, cohort, tc.files); got != tc.cohorts {
			t.Errorf("%s: the cohort job runs: %v, want %v", tc.name, got, tc.cohorts)
		}
	}
}
