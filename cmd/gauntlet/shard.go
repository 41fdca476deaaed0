package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gauntlet/harness/grading/grade/cohort"
)

// A sharded grade (-shard K/N) grades the K-th of N parts of a cohort, so that N machines
// (a Slurm job array, a Kubernetes Indexed Job, a CI matrix) grade a cohort together, each
// writing its reports to -out, and `gauntlet merge` makes the cohort's reports from all of
// them. Every shard is given the whole cohort and picks its part itself, the same way:
// the parts depend on the set of folders and their contents, never on the order of the
// arguments nor on the machine. docs/grading.md, "Grading on several machines".

// shardFlag is the value of -shard: K of N, or N == 0 when not given.
type shardFlag struct{ k, n int }

func (s *shardFlag) String() string {
	if s == nil || s.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.k, s.n)
}

func (s *shardFlag) Set(v string) error {
	ks, ns, ok := strings.Cut(v, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return fmt.Errorf("want K/N, such as 2/8 (the second of eight parts), got %q", v)
	case n < 1:
		return fmt.Errorf("%s: want at least one part", v)
	case k < 1 || k > n:
		return fmt.Errorf("%s: want K from 1 to %d", v, n)
	}
	s.k, s.n = k, n
	return nil
}

// shardMember is one submission of a sharded cohort, as every shard's manifest lists it.
type shardMember struct {
	Name    string `json:"name"`    // its name in the cohort (its report's file name)
	Subject string `json:"subject"` // its folder's absolute path
	Size    int64  `json:"size"`    // the size estimate it was dealt by (sizeEstimate)
	Shard   int    `json:"shard"`   // the part that grades it, 1 to N
}

// shardManifest is what a shard writes to -out before it grades: the whole cohort and who
// grades what, so that gauntlet merge can name the submissions whose report is missing
// and the shards that never ran.
type shardManifest struct {
	Shard    string        `json:"shard"` // K/N
	Game     string        `json:"game"`
	Gauntlet string        `json:"gauntlet"`
	Suite    string        `json:"suite"`
	Cohort   []shardMember `json:"cohort"` // in the order of their paths
}

// manifestSuffix ends a shard manifest's file name: shard-K-of-N.manifest in -out.
const manifestSuffix = ".manifest"

func manifestName(k, n int) string { return fmt.Sprintf("shard-%d-of-%d%s", k, n, manifestSuffix) }

// shardUsage checks the flags a sharded grade needs.
func shardUsage(dirs []string, f gradeFlags) error {
	switch {
	case len(dirs) == 0:
		return errors.New("-shard needs the whole cohort's folders (every shard is given all of them and grades its part)")
	case f.outDir == "":
		return errors.New("-shard needs -out DIR: the shard's reports are what gauntlet merge reads")
	}
	return cohortUsage(dirs, f)
}

// planShard deals the cohort in dirs into f.shard.n parts. The folders are taken in the
// order of their absolute paths, and named as a cohort run names them in that order, so
// that every shard names every submission the same. Then, largest size estimate first
// (ties by path), they are dealt to the parts in snake order (1, 2, ..., N, N, ..., 2, 1,
// 1, 2, ...): the parts' numbers of submissions differ by one at most, and each part gets
// a like share of large and small ones.
func planShard(dirs []string, f gradeFlags, game, suite string) (*shardManifest, error) {
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		a, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		abs[i] = a
	}
	sort.Strings(abs)
	names, abs, err := cohort.Names(abs)
	if err != nil {
		return nil, err
	}
	m := &shardManifest{Shard: f.shard.String(), Game: game, Gauntlet: graderID(), Suite: suite}
	for i, a := range abs {
		m.Cohort = append(m.Cohort, shardMember{Name: names[i], Subject: a, Size: sizeEstimate(a)})
	}
	order := make([]int, len(m.Cohort))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return m.Cohort[order[i]].Size > m.Cohort[order[j]].Size })
	n := f.shard.n
	for i, x := range order {
		round, pos := i/n, i%n
		if round%2 == 1 {
			pos = n - 1 - pos
		}
		m.Cohort[x].Shard = pos + 1
	}
	return m, nil
}

// mine are the folders and names of the submissions shard k grades, in path order.
func (m *shardManifest) mine(k int) (dirs, names []string) {
	for _, s := range m.Cohort {
		if s.Shard == k {
			dirs, names = append(dirs, s.Subject), append(names, s.Name)
		}
	}
	return dirs, names
}

// write writes the manifest to -out (through a temporary file, as the reports).
func (m *shardManifest) write(outDir string, k, n int) error {
	return cohort.WriteAtomic(filepath.Join(outDir, manifestName(k, n)), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

// sizeEstimate is the cheap estimate a submission is dealt by: the bytes of its regular
// files, without following links and without .git folders (a repository's history says
// nothing of the grade). Files it cannot read count for nothing.
func sizeEstimate(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" && path != dir {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}

// graderID names this grader in its reports (Report.Gauntlet): what `gauntlet version`
// says, without its explanations, so that every shard run from one build, or from one
// checkout under go run, says the same.
var graderID = sync.OnceValue(func() string {
	v := version()
	for _, note := range []string{" (no revision stamped", " (revision read at run time"} {
		if i := strings.Index(v, note); i >= 0 {
			v = v[:i]
		}
	}
	return v
})

// emptyShard ends a shard that no submission falls to (more parts than submissions): it
// writes its manifest, so that merge knows it ran, and grades nothing (exit 0).
func emptyShard(m *shardManifest, f gradeFlags, stderr io.Writer) int {
	if err := checkOutputs(f); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: %v\n", err)
		return 2
	}
	if err := m.write(f.outDir, f.shard.k, f.shard.n); err != nil {
		fmt.Fprintf(stderr, "gauntlet grade: HARNESS-ERROR: -out: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "gauntlet grade: shard %s: none of the cohort's %d submissions falls to this part: nothing to grade\n", f.shard.String(), len(m.Cohort))
	return 0
}
