//go:build goexperiment.simd && amd64

package vec

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// instr is one machine instruction of the running test binary, as GNU objdump
// reads it.
type instr struct {
	addr uint64
	hex  string // its bytes, "62 f2 7e 28 39 cc"
	text string // mnemonic and operands, AT&T syntax
}

// "  587cae:\t62 f2 7e 28 39 cc    \tvpmovd2m %ymm4,%k1"; --insn-width=16 keeps
// every instruction (15 bytes at most) on one line
var instrLine = regexp.MustCompile(`^\s+([0-9a-f]+):\t([0-9a-f ]+)\t(.*)$`)

// vecMachineCode is the code of package vec's functions (not the tests' own,
// nor closures) in the running test binary, by name: what the tests that hold
// the kernels to a rule about their instructions read.
func vecMachineCode(t *testing.T) map[string][]instr {
	t.Helper()
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Fatal("objdump (GNU binutils, beside the C compiler cgo uses) is not on PATH: " +
			"this test reads vec's instructions with it; install binutils")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(objdump, "-d", "--insn-width=16", self).Output()
	if err != nil {
		t.Fatalf("objdump -d %s: %v", self, err)
	}
	funcs := readFuncs(out, reflect.TypeFor[View[float32]]().PkgPath()+".")
	if len(funcs) == 0 {
		t.Fatalf("objdump -d %s names none of package vec's functions: the tests read nothing", self)
	}
	return funcs
}

// readFuncs is the code of the functions named with prefix, by name. The names
// are the runtime's (FuncForPC: the binary is the running one, and go test's
// lacks the symbol table objdump would name them by).
func readFuncs(objdump []byte, prefix string) map[string][]instr {
	funcs := map[string][]instr{}
	sc := bufio.NewScanner(bytes.NewReader(objdump))
	sc.Buffer(nil, 1<<20)
	var entry uintptr
	var name string
	for sc.Scan() {
		m := instrLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		f := runtime.FuncForPC(uintptr(addr))
		if f == nil {
			continue
		}
		// an inlined call's code is named by the inlined function, with the
		// entry of the one it is inlined into
		if f.Entry() != entry {
			entry, name = f.Entry(), ""
			n := runtime.FuncForPC(entry).Name()
			if strings.HasPrefix(n, prefix) && !strings.Contains(n, ".func") &&
				!strings.Contains(n, ".Test") && !strings.Contains(n, ".Benchmark") {
				name = n
			}
		}
		if name != "" {
			funcs[name] = append(funcs[name], instr{addr, strings.TrimSpace(m[2]), strings.TrimSpace(m[3])})
		}
	}
	return funcs
}
