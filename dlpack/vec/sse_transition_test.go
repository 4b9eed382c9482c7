//go:build goexperiment.simd && amd64

package vec

import (
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// No kernel runs a legacy-SSE instruction while the vector registers' upper
// halves are in use, that is after an AVX instruction on a YMM or ZMM register
// and before the VZEROUPPER of clearUpper, nor calls a function then (whose
// SSE code would run so: copy's memmove). On the machines measured each such
// instruction waits ~70 cycles on them (an int8 Sum's copy of its lanes, eight
// MOVUPS, was ~190 ns of its 253; Log ran 13-17x slower for a MOVQ an
// iteration). The Go compiler writes SSE where a kernel does not ask for it:
// a range over an array copies it with MOVUPS, a 16-byte vector held across a
// call or a scalar the registers cannot hold is spilled with MOVUPS, a float
// constant comes from a general register by MOVQ, and Go 1.26 moves the count
// of a logical ShiftAllRight with MOVQ. docs/internals/vec.md says how each
// kernel avoids them. The test reads this test binary's machine code (objdump)
// and follows each of package vec's functions that touch YMM or ZMM registers
// through its jumps, from a clean state at its entry.
func TestNoSSEWhileUpperHalvesInUse(t *testing.T) {
	funcs := vecMachineCode(t)
	checked := 0
	for name, code := range funcs {
		if !usesWideVectors(code) {
			continue
		}
		checked++
		for _, bad := range sseWhileDirty(code, funcs) {
			t.Errorf("%s: %s at %#x runs while the upper halves are in use: move it before the "+
				"first vector instruction or after clearUpper, or keep the value in a vector "+
				"(docs/internals/vec.md)", name, bad.text, bad.addr)
		}
	}
	if checked < 50 {
		t.Fatalf("only %d of vec's functions use YMM or ZMM registers: the kernels were not found", checked)
	}
}

var (
	jumpTarget = regexp.MustCompile(`^(j\w+)\s+(?:0x)?([0-9a-f]+)\b`)
	callTarget = regexp.MustCompile(`^call\s+(?:0x)?([0-9a-f]+)\b`)
)

func usesWideVectors(code []instr) bool {
	for _, in := range code {
		if strings.Contains(in.text, "%ymm") || strings.Contains(in.text, "%zmm") {
			return true
		}
	}
	return false
}

// sseWhileDirty is the legacy-SSE instructions of code (those on an XMM
// register not VEX- or EVEX-encoded) that some path from its entry reaches
// after an instruction on a YMM or ZMM register and before a VZEROUPPER, and
// the calls it so reaches but those of vec's functions that run no SSE
// instruction and call nothing (funcs: vec's code by name). clearUpper's
// guard, a jump over its one VZEROUPPER where no kernel ran (no AVX), leaves
// the state clean.
func sseWhileDirty(code []instr, funcs map[string][]instr) []instr {
	index := map[uint64]int{}
	for i, in := range code {
		index[in.addr] = i
	}
	// dirtyAt[i]: some path reaches instruction i in the dirty state
	dirtyAt := make([]bool, len(code))
	visited := make([]bool, len(code))
	var bad []instr
	reported := map[int]bool{}
	type state struct {
		i     int
		dirty bool
	}
	work := []state{{0, false}}
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		for i, dirty := s.i, s.dirty; i < len(code); i++ {
			if visited[i] && (dirtyAt[i] || !dirty) {
				break // this state was followed from here already
			}
			visited[i] = true
			dirtyAt[i] = dirtyAt[i] || dirty
			in := code[i]
			mnemonic, _, _ := strings.Cut(in.text, " ")
			switch {
			case mnemonic == "vzeroupper":
				dirty = false
			case strings.Contains(in.text, "%ymm") || strings.Contains(in.text, "%zmm"):
				dirty = true
			case dirty && strings.Contains(in.text, "%xmm") && !strings.HasPrefix(mnemonic, "v") && !reported[i]:
				reported[i] = true
				bad = append(bad, in)
			case dirty && mnemonic == "call" && !callsNoReturn(in.text) && !isSSEFreeLeaf(funcs[callee(in.text)]) && !reported[i]:
				reported[i] = true // the callee's SSE code (copy's memmove) runs dirty
				bad = append(bad, instr{addr: in.addr, text: in.text + " (" + callee(in.text) + ")"})
			}
			if m := jumpTarget.FindStringSubmatch(in.text); m != nil {
				target, _ := strconv.ParseUint(m[2], 16, 64)
				if j, ok := index[target]; ok {
					work = append(work, state{j, dirty && !jumpsOverVZeroUpper(code, i, j)})
				}
				if m[1] == "jmp" {
					break
				}
			}
			if mnemonic == "ret" || mnemonic == "ud2" || callsNoReturn(in.text) {
				break
			}
		}
	}
	return bad
}

// callsNoReturn says whether in calls a function that does not return (a
// bounds check's panic): what follows it in the code is another path (the
// stack check's call of morestack, which jumps back to the entry).
func callsNoReturn(text string) bool {
	name := callee(text)
	return strings.HasPrefix(name, "runtime.panic") || name == "runtime.gopanic" || name == "runtime.throw"
}

// callee is the name of the function a call instruction calls ("" if unknown).
func callee(text string) string {
	m := callTarget.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	target, _ := strconv.ParseUint(m[1], 16, 64)
	if f := runtime.FuncForPC(uintptr(target)); f != nil {
		return f.Name()
	}
	return ""
}

// isSSEFreeLeaf says whether code (one of vec's functions, nil if not) runs no
// legacy-SSE instruction and calls no function (a bounds check's panic aside).
func isSSEFreeLeaf(code []instr) bool {
	if code == nil {
		return false
	}
	for _, in := range code {
		mnemonic, _, _ := strings.Cut(in.text, " ")
		if mnemonic == "call" && !callsNoReturn(in.text) && !strings.Contains(callee(in.text), "morestack") {
			return false
		}
		if strings.Contains(in.text, "%xmm") && !strings.HasPrefix(mnemonic, "v") {
			return false
		}
	}
	return true
}

// jumpsOverVZeroUpper says whether the jump at i to j skips a VZEROUPPER and
// nothing else but padding: clearUpper's guard.
func jumpsOverVZeroUpper(code []instr, i, j int) bool {
	if j <= i+1 || code[i+1].text != "vzeroupper" {
		return false
	}
	for _, in := range code[i+2 : j] {
		if !strings.HasPrefix(in.text, "nop") && !strings.HasPrefix(in.text, "xchg   %ax,%ax") {
			return false
		}
	}
	return true
}
