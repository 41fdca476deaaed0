package ci

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gauntlet/harness/runtime/tcp"
	"gauntlet/internal/buildtest"
)

// slurmVar, set to 1, makes TestSlurmGradesACohort run against a real Slurm (.ci/run sets
// it after installing Debian's slurmctld, slurmd, slurm-client and munge); then a machine
// without them fails the test instead of skipping it.
const slurmVar = "GAUNTLET_SLURM"

// slurmCluster is a one-node Slurm cluster started for a test: munged, slurmctld and
// slurmd, run as root in the foreground, every file of theirs in one temporary folder,
// stopped when the test ends.
type slurmCluster struct {
	dir  string
	conf string
}

// env is what a Slurm client (sbatch, squeue) needs to find the cluster.
func (c *slurmCluster) env() []string { return []string{"SLURM_CONF=" + c.conf} }

// startSlurm starts the cluster: a munge key and daemon on a socket of its own, a
// slurm.conf naming this host as the controller and as one node with the machine's CPUs,
// on two free ports, and the two daemons; it waits (a minute at most) until the node is
// idle.
func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	var missing []string
	for _, p := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo"} {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	switch {
	case os.Getenv(slurmVar) != "1":
		t.Skipf("%s is not 1: not testing against a real Slurm (.ci/run sets it; needs root and Debian's slurmctld, slurmd, slurm-client and munge)", slurmVar)
	case len(missing) > 0:
		t.Fatalf("%s=1 but %s not installed (apt-get install slurmctld slurmd slurm-client munge)", slurmVar, strings.Join(missing, ", "))
	case os.Geteuid() != 0:
		t.Fatalf("%s=1 but not root: the test's slurmd runs the jobs as their users, which takes root", slurmVar)
	}
	dir := t.TempDir()
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf")}
	for _, d := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "munge.key")
	if out, err := exec.Command("mungekey", "-c", "-k", key).CombinedOutput(); err != nil {
		t.Fatalf("mungekey: %v\n%s", err, out)
	}
	socket := filepath.Join(dir, "munge.sock")
	c.daemon(t, "munged", "-F", "-f", "--key-file="+key, "--socket="+socket, "--pid-file="+filepath.Join(dir, "munged.pid"),
		"--log-file="+filepath.Join(dir, "munged.log"), "--seed-file="+filepath.Join(dir, "munged.seed"))
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	var ports [2]int
	for i := range ports {
		if ports[i], err = tcp.FreePort("127.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	if ports[0] == ports[1] {
		ports[1]++
	}
	conf := fmt.Sprintf(`ClusterName=gauntlettest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=2 RealMemory=16000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], socket, dir)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.daemon(t, "slurmctld", "-D", "-i", "-f", c.conf)
	c.daemon(t, "slurmd", "-D", "-f", c.conf)
	deadline := time.Now().Add(time.Minute)
	for {
		out, _ := c.client("sinfo", "-h", "-o", "%T").CombinedOutput()
		if strings.TrimSpace(string(out)) == "idle" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Slurm node is not idle after a minute: sinfo says %q\n%s", out, c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// daemon starts a daemon in the foreground, and stops it (SIGTERM, then SIGKILL after
// ten seconds) when the test ends.
func (c *slurmCluster) daemon(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.env()...)
	log, err := os.Create(filepath.Join(c.dir, name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// client is a Slurm client command for this cluster.
func (c *slurmCluster) client(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.env()...)
	return cmd
}

// logs are the daemons' logs, for a failure's message.
func (c *slurmCluster) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.log", "slurmctld.out", "slurmd.out", "munged.out"} {
		data, _ := os.ReadFile(filepath.Join(c.dir, f))
		fmt.Fprintf(&b, "--- %s\n%s\n", f, data)
	}
	return b.String()
}

// waitIdle waits until the cluster has no job left (ten minutes at most).
func (c *slurmCluster) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		out, err := c.client("squeue", "-h", "-o", "%i %T").CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still queued after ten minutes:\n%s\n%s", out, c.logs())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// ci/slurm's submit.sh, run against a real one-node Slurm cluster started here, grades a
// cohort of four small submissions in two parts (a job array of two tasks) and merges
// them in a job that runs after both: the merged CSV holds exactly the marks of one
// unsharded grade, every task's log says which part it graded, and no job failed.
func TestSlurmGradesACohort(t *testing.T) {
	buildtest.Long(t) // a cluster, four jobs and a cohort grade
	c := startSlurm(t)
	root := t.TempDir()
	gauntlet := smallCohort(t, root)
	submit := exec.Command(filepath.Join(mustAbs(t, "slurm"), "submit.sh"), "2")
	submit.Dir = root
	submit.Env = append(os.Environ(), append(c.env(), "GAME=dealer2310", "COHORT="+root, "GAUNTLET="+gauntlet, "GAUNTLET_FLAGS="+clusterFlags)...)
	out, err := submit.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "gauntlet: grading in job array ") {
		t.Fatalf("submit.sh: %v\n%s\n%s", err, out, c.logs())
	}
	t.Logf("%s", out)
	c.waitIdle(t)
	logs, _ := filepath.Glob(filepath.Join(root, "gauntlet-grade-*.log"))
	merges, _ := filepath.Glob(filepath.Join(root, "gauntlet-merge-*.log"))
	if len(logs) != 2 || len(merges) != 1 {
		t.Fatalf("task logs %v, merge logs %v: want two and one\n%s", logs, merges, c.logs())
	}
	var all string
	for _, l := range append(logs, merges...) {
		data, _ := os.ReadFile(l)
		all += string(data)
	}
	for _, want := range []string{"gauntlet grade: shard 1/2: 2 of the cohort's 4 submissions", "gauntlet grade: shard 2/2: 2 of the cohort's 4 submissions",
		"gauntlet merge: 4 reports from 1 folders, 2 of the 2 shards' manifests"} {
		if !strings.Contains(all, want) {
			t.Errorf("the jobs' logs lack %q:\n%s", want, all)
		}
	}
	sameMarks(t, filepath.Join(root, "cohort.csv"), unshardedCSV(t, gauntlet, root))
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// grade.sbatch's comments say what docs/ci.md says of a job run as a user other than root
// (rootless boxes where the nodes allow them, else no box), not that such a user grades
// without the box (issue 60); and both say the tasks steal work through the shared reports.
func TestSlurmCommentsAgreeWithDocs(t *testing.T) {
	sbatch, err := os.ReadFile("slurm/grade.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	_, slurm, _ := strings.Cut(string(doc), "### Slurm (`ci/slurm/`)")
	for _, want := range []string{"rootless boxes", "-steal"} {
		if !strings.Contains(string(sbatch), want) || !strings.Contains(slurm, want) {
			t.Errorf("grade.sbatch and docs/ci.md's Slurm section do not both say %q", want)
		}
	}
	if strings.Contains(string(sbatch), "as a user other than root,\n# gauntlet grades without the box") {
		t.Error("grade.sbatch says a user other than root grades without the box")
	}
}
