package hygiene_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"gauntlet/harness/box/hygiene"
	"gauntlet/internal/buildtest"
)

// A process that makes itself non-dumpable turns the files of its /proc/PID into root's,
// but not the folder: ReadProc and Owners still give its own user. (Read from
// /proc/PID/stat, a sandbox user's process could pass for root's and hide from the
// sweeps that look for its user's processes.) Root runs it as another user.
func TestOwnerOfANonDumpableProcess(t *testing.T) {
	bin := buildtest.HostileProgram(t, "nodump")
	uid := uint32(os.Geteuid())
	cmd := exec.Command(bin)
	if uid == 0 {
		uid = 1_799_999_997 // outside the sandbox's pool, no account's
		cmd.Path = buildtest.PublicCopy(t, bin)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "hidden\n" {
		t.Fatalf("the program said %q, %v", line, err)
	}
	pid := cmd.Process.Pid
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(pid)+"/stat", &st); err != nil || st.Uid != 0 {
		t.Fatalf("/proc/%d/stat belongs to uid %d (%v): the program is not as the test needs it", pid, st.Uid, err)
	}
	p, err := hygiene.ReadProc(pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.UID != uid {
		t.Errorf("ReadProc: uid %d, want %d (its user, not the owner of its files)", p.UID, uid)
	}
	owners, err := hygiene.Owners()
	if err != nil {
		t.Fatal(err)
	}
	if !owners[uid] {
		t.Errorf("Owners does not name uid %d, the user of a live process", uid)
	}
}
