//go:build goexperiment.simd && amd64

package vec

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAVX512OnlyInItsFunctions reads this package's test binary's machine code
// (GNU objdump) and fails on any AVX-512 instruction (EVEX-encoded, or an opmask
// one: kmovw, kortestw, ...) in a function of package vec not named ...AVX512:
// level_simd.go's rule, without which Go's compiler turned AVX2 loops into
// AVX-512 instructions that fault on a CPU without it (Clip, Minimum, Maximum,
// Min and Max: SIGILL). On such a CPU the other tests fault there too; this one
// fails on every machine, AVX-512 ones included, where they run unharmed.
func TestAVX512OnlyInItsFunctions(t *testing.T) {
	objdump, err := exec.LookPath("objdump")
	if err != nil {
		t.Fatal("objdump (GNU binutils, beside the C compiler cgo uses) is not on PATH: " +
			"this test reads vec's instructions with it; install binutils")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command on PATH to build this package's test binary")
	}
	// this binary, as go test runs it, has no symbols (-s): build it again, whole
	exe := filepath.Join(t.TempDir(), "vec.test")
	if out, err := exec.Command(goCmd, "test", "-c", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	out, err := exec.Command(objdump, "-d", "--insn-width=16", exe).Output()
	if err != nil {
		t.Fatalf("objdump -d %s: %v", exe, err)
	}
	prefix := "<" + reflect.TypeFor[View[float32]]().PkgPath() + "."
	wrong := map[string][]string{} // function: its AVX-512 instructions
	apart := 0                     // AVX-512 instructions in ...AVX512 functions
	fn := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutSuffix(line, ">:"); ok { // "0000000000587ac0 <pkg.fn>:"
			fn = ""
			if _, sym, ok := strings.Cut(name, " "); ok && strings.HasPrefix(sym, prefix) {
				fn = strings.TrimPrefix(sym, prefix)
			}
			continue
		}
		// "  587cae:\t62 f2 7e 28 39 cc    \tvpmovd2m %ymm4,%k1"
		fields := strings.SplitN(line, "\t", 3)
		if fn == "" || len(fields) < 3 || !isAVX512(fields[1], fields[2]) {
			continue
		}
		if strings.Contains(fn, "AVX512") {
			apart++
			continue
		}
		wrong[fn] = append(wrong[fn], strings.TrimSpace(fields[2]))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if apart == 0 && len(wrong) == 0 {
		t.Fatal("no AVX-512 instruction found in package vec: the test reads nothing")
	}
	for _, fn := range slices.Sorted(func(yield func(string) bool) {
		for fn := range wrong {
			if !yield(fn) {
				return
			}
		}
	}) {
		t.Errorf("%s holds AVX-512 instructions but is no ...AVX512 function: Go's compiler may "+
			"make its AVX2 code AVX-512 too, which faults on an AVX2 CPU (level_simd.go): %s",
			fn, strings.Join(wrong[fn], "; "))
	}
}

// isAVX512 reports whether an instruction, its bytes in hex and its text as
// objdump writes them, needs AVX-512: EVEX-encoded (0x62 first: in 64-bit mode
// the byte is nothing else) or an opmask instruction (VEX-encoded k...).
func isAVX512(hex, text string) bool {
	text = strings.TrimSpace(text)
	return strings.HasPrefix(strings.TrimSpace(hex), "62 ") ||
		(strings.HasPrefix(text, "k") && strings.Contains(text, "%k"))
}
