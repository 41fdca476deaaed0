package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gauntlet/programs"
)

// A make that fails on one program does not zero the others: unboxed, each program is made
// on its own and what built is the subject's (the cases of the rest are BUILD-FAIL).
func TestBuildSubjectGradesWhatBuilt(t *testing.T) {
	g, ok := programs.GradeGame("dealer2310")
	if !ok {
		t.Fatal("no dealer2310")
	}
	src := t.TempDir()
	mk := "all: 2310A 2310B 2310dealer\n" +
		"2310A 2310dealer:\n\tprintf '#!/bin/sh\\n' > $@; chmod 755 $@\n" +
		"2310B:\n\t@echo 'player.c:3:1: error: expected ; before }'; false\n"
	if err := os.WriteFile(filepath.Join(src, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	subj, res, err := buildSubject(g, src, t.TempDir(), gradeFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if subj.Programs["2310A"] == "" || subj.Programs["2310dealer"] == "" || subj.Programs["2310B"] != "" {
		t.Errorf("programs %v, want 2310A and 2310dealer only\nlog:\n%s", subj.Programs, res.Log)
	}
	if !strings.HasSuffix(res.Problem, "built 2310dealer 2310A; did not build: 2310B") {
		t.Errorf("problem %q", res.Problem)
	}
}
