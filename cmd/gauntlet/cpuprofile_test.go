package main

import (
	"os"
	"path/filepath"
	"testing"
)

// -cpuprofile writes the grader's CPU profile (gzip-compressed, as pprof writes it) once
// the grade ends, and nothing for a command line it refuses.
func TestGradeWritesItsCPUProfile(t *testing.T) {
	pingpongBinary(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	missing := filepath.Join(dir, "no-such-folder")
	// Refused once the profile has begun (the reports' folders are checked last), and
	// for the profile's own folder.
	for _, args := range [][]string{{"-json", filepath.Join(missing, "r.json"), "-cpuprofile", prof},
		{"-cpuprofile", filepath.Join(missing, "cpu.prof")}} {
		if code, _, stderr := gauntlet(append([]string{"grade", "pingpong"}, args...)...); code != 2 {
			t.Errorf("grade %v: exit %d, want 2\n%s", args, code, stderr)
		}
	}
	if _, err := os.Stat(prof); err == nil {
		t.Errorf("a refused command line wrote %s", prof)
	}
	if code, stdout, stderr := gauntlet("grade", "pingpong", "-run", "^player_live$", "-cpuprofile", prof); code != 0 {
		t.Fatalf("grade: exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(prof)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("-cpuprofile wrote no profile (%v): %.16q", err, data)
	}
}
