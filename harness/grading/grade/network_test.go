package grade

import (
	"os"
	"path/filepath"
	"testing"

	"gauntlet/internal/buildtest"
)

// netPlayer is a subject's program that serves or fetches over TCP: `serve PORT` answers
// one connection on 127.0.0.1:PORT with "hello", `get PORT` prints what it is told there.
const netPlayer = `#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(int argc, char **argv) {
	if (argc != 3) return 2;
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(atoi(argv[2]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (strcmp(argv[1], "serve") == 0) {
		if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 1) < 0) { perror("listen"); return 1; }
		int c = accept(s, 0, 0);
		if (c < 0 || write(c, "hello\n", 6) != 6) { perror("accept"); return 1; }
		close(c);
		return 0;
	}
	if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); return 1; }
	char b[64];
	ssize_t n = read(s, b, sizeof b);
	if (n > 0) fwrite(b, 1, n, stdout);
	return 0;
}
`

// A case whose subject serves over TCP in the background and is reached by a client run
// after it (freeport, waitport) passes, graded as root and by a grader that is not root:
// the case's runs share a network of the case's own either way (a rootless grade's
// through sandbox's C helper; before 2026-11-28 it was a HARNESS-ERROR, "grade it as
// root").
func TestCaseServerAndClientMeet(t *testing.T) {
	if os.Geteuid() == 0 {
		if buildtest.AsUnprivileged(t, "^TestCaseServerAndClientMeet$", "gauntlet/cmd/gauntlet") {
			t.Run("root", serverAndClient)
		}
		return
	}
	serverAndClient(t)
}

func serverAndClient(t *testing.T) {
	src := filepath.Join(t.TempDir(), "net.c")
	if err := os.WriteFile(src, []byte(netPlayer), 0o644); err != nil {
		t.Fatal(err)
	}
	subj, opt := boxedSetup(t, "")
	if err := buildtest.CProgramAt(subj.Programs["toyplayer"], src); err != nil {
		t.Fatal(err)
	}
	o := gradeOne(t, subj, opt, `freeport PORT
run $PLAYER serve $PORT &srv&
waitport $PORT
run $PLAYER get $PORT
stdout '^hello$'
await srv
`)
	if o.Verdict != Pass {
		t.Errorf("%s (%s), want %s\n%s", o.Verdict, o.Detail, Pass, o.Log)
	}
}
