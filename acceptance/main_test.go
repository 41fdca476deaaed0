package acceptance

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain lets more of the whole-grade tests run at once than there are cores: most of
// their time is spent waiting (on mutants' timeouts, on builds' I/O, on the programs'
// replies), and one at a time per core the package took over four minutes on 2 cores. A
// -test.parallel on the command line still wins: flags are parsed after this.
func TestMain(m *testing.M) {
	flag.Set("test.parallel", strconv.Itoa(3*runtime.GOMAXPROCS(0)))
	os.Exit(m.Run())
}
