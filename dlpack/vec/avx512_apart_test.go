//go:build goexperiment.simd && amd64

package vec

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestAVX512OnlyInItsFunctions reads this package's test binary's machine code
// (vecMachineCode) and fails on any AVX-512 instruction (EVEX-encoded, or an opmask
// one: kmovw, kortestw, ...) in a function of package vec not named ...AVX512:
// level_simd.go's rule, without which Go's compiler turned AVX2 loops into
// AVX-512 instructions that fault on a CPU without it (Clip, Minimum, Maximum,
// Min and Max: SIGILL). On such a CPU the other tests fault there too; this one
// fails on every machine, AVX-512 ones included, where they run unharmed.
func TestAVX512OnlyInItsFunctions(t *testing.T) {
	wrong := map[string][]string{} // function: its AVX-512 instructions
	apart := 0                     // AVX-512 instructions in ...AVX512 functions
	prefix := reflect.TypeFor[View[float32]]().PkgPath() + "."
	for name, code := range vecMachineCode(t) {
		fn := strings.TrimPrefix(name, prefix)
		for _, in := range code {
			switch {
			case !isAVX512(in):
			case strings.Contains(fn, "AVX512"):
				apart++
			default:
				wrong[fn] = append(wrong[fn], in.text)
			}
		}
	}
	if apart == 0 && len(wrong) == 0 {
		t.Fatal("no AVX-512 instruction found in package vec: the test reads nothing")
	}
	for _, fn := range slices.Sorted(maps.Keys(wrong)) {
		t.Errorf("%s holds AVX-512 instructions but is no ...AVX512 function: Go's compiler may "+
			"make its AVX2 code AVX-512 too, which faults on an AVX2 CPU (level_simd.go): %s",
			fn, strings.Join(wrong[fn], "; "))
	}
}

// isAVX512 reports whether an instruction needs AVX-512: EVEX-encoded (0x62
// first: in 64-bit mode the byte is nothing else) or an opmask instruction
// (VEX-encoded k...).
func isAVX512(in instr) bool {
	return strings.HasPrefix(in.hex, "62 ") ||
		(strings.HasPrefix(in.text, "k") && strings.Contains(in.text, "%k"))
}
