package tensor_test

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/godlpack/godlpack/internal/ctensor"
)

// tests/run sets GODLPACK_EXPECT_CGOCHECK2=1 for its cgocheck2 pass: this makes
// sure that pass really ran with the checks on, not a plain build.
func TestCgocheck2WhenExpected(t *testing.T) {
	if os.Getenv("GODLPACK_EXPECT_CGOCHECK2") != "1" {
		return // an ordinary run
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info")
	}
	for _, s := range bi.Settings {
		if s.Key == "GOEXPERIMENT" && strings.Contains(s.Value, "cgocheck2") {
			return
		}
	}
	t.Fatal("GODLPACK_EXPECT_CGOCHECK2=1 but this test binary was not built with GOEXPERIMENT=cgocheck2")
}

// The negative control: under cgocheck2, storing an unpinned Go pointer in C
// memory (what FromSlice would do without its Pinner) kills the process, so the
// cgocheck2 pass would catch a missing pin. Runs in a child process.
func TestCgocheck2CatchesAnUnpinnedPointer(t *testing.T) {
	if os.Getenv("GODLPACK_UNPINNED_CHILD") == "1" {
		data := make([]float32, 4)
		p := ctensor.Alloc(8)
		*(*unsafe.Pointer)(p) = unsafe.Pointer(&data[0]) // no pin: cgocheck2 throws here
		ctensor.Free(p)
		return
	}
	if os.Getenv("GODLPACK_EXPECT_CGOCHECK2") != "1" {
		return // the check exists only in cgocheck2 builds
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCgocheck2CatchesAnUnpinnedPointer$")
	cmd.Env = append(os.Environ(), "GODLPACK_UNPINNED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Go pointer stored into non-Go memory") {
		t.Fatalf("the child survived an unpinned Go pointer in C memory (err %v):\n%s", err, out)
	}
}
