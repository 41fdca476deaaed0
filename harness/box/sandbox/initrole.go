package sandbox

import "gauntlet/execrole"

// TokenEnv is the variable every subject process is started with: its value is a random
// token naming the run, which lets the harness recognise the run's processes after they left
// its session and were orphaned.
const TokenEnv = "GAUNTLET_RUN"

// Init plays the "exec with limits" role when this process was started for it, and
// otherwise returns at once.
//
// The sandbox starts a program by re-executing the harness's own binary (/proc/self/exe)
// with the role's settings in its environment; the role (package execrole) sets the process
// up (box, cgroups, user, limits, signals) and execs the program in its place. The role runs
// from execrole's init function, early in the binary's start, so any binary that links the
// sandbox (the CLI, a test binary) plays it before its own main or TestMain runs; calling
// Init first thing in main is harmless and makes the role visible.
func Init() { execrole.Init() }
