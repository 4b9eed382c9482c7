package vec

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A square root in vec is one instruction in the programs that use vec, not a
// call of math.Sqrt: Go compiles a generic function's instantiation in the
// package that uses it, and there math.Sqrt stayed a call while vec called it
// only from generic bodies (elementwise.go's sqrt). This test binary cannot
// show it (its instantiations are compiled in package vec), so it builds
// testdata/sqrtuser with the go command on PATH and reads that machine code.
func TestSqrtIsOneInstruction(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build testdata/sqrtuser")
	}
	bin := filepath.Join(t.TempDir(), "sqrtuser")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "./testdata/sqrtuser").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/sqrtuser: %v\n%s", err, out)
	}
	dis, err := exec.Command(goCmd, "tool", "objdump", "-s", `^(main\.|github\.com/godlpack/godlpack/dlpack/vec\.)`, bin).Output()
	if err != nil {
		t.Fatalf("go tool objdump: %v", err)
	}
	text := regexp.MustCompile(`(?m)^TEXT (\S+)\(SB\)`)
	var fn string
	mains := 0
	for line := range strings.Lines(string(dis)) {
		if m := text.FindStringSubmatch(line); m != nil {
			fn = m[1]
			if fn == "main.main" {
				mains++
			}
		}
		if strings.Contains(line, "CALL math.Sqrt(SB)") {
			t.Errorf("%s calls math.Sqrt out of line where one instruction would do (elementwise.go's sqrt)", fn)
		}
	}
	if mains != 1 {
		t.Fatalf("sqrtuser's main.main not found in its disassembly: it was not read\n%.2000s", dis)
	}
}
