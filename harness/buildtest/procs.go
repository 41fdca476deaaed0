package buildtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// GroupMembers returns the pids of the processes in process group pgid, and how many of
// them are stopped (state T): a test that a program leaves none behind when it ends.
func GroupMembers(pgid int) (pids []int, stopped int) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		data, err := os.ReadFile(s)
		i := bytes.LastIndexByte(data, ')')
		if err != nil || i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:])) // state, ppid, pgrp, ...
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			pids = append(pids, pid)
			if f[0] == "T" {
				stopped++
			}
		}
	}
	return pids, stopped
}
