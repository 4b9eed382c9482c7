//go:build godlpack_python

package pyembed_test

// Go values and names handed to Python by a Go program that embeds it: a value
// holding itself, a name holding a NUL (tests/test_embed.py runs them with
// embed_test.go's TestMain).

import (
	"errors"
	"strings"
	"testing"

	"github.com/godlpack/godlpack"
)

// wantPythonError checks that err is a *PythonError of type typ whose message holds msg.
func wantPythonError(t *testing.T, what string, err error, typ, msg string) {
	t.Helper()
	var pe *godlpack.PythonError
	if !errors.As(err, &pe) || pe.Type != typ || !strings.Contains(pe.Message, msg) {
		t.Errorf("%s: %v, want %s: ...%s...", what, err, typ, msg)
	}
}

// A map or slice holding itself is refused with a TypeError, as the other direction
// refuses a list holding itself. Before: `fatal error: stack overflow`, the program
// aborted.
func TestGoValueHoldingItselfIsATypeError(t *testing.T) {
	const deep = "nested more than 100 deep (or a container holding itself)"
	m := map[string]any{"k": 1}
	m["self"] = m
	l := []any{1, nil}
	l[1] = []any{map[string]any{"back": l}}
	kinds := must(helpers.Attr("kinds"))
	defer kinds.Close()
	ns := must(godlpack.Import("types"))
	defer ns.Close()
	obj := must(ns.CallMethod("SimpleNamespace"))
	defer obj.Close()
	d := must(godlpack.FromGo(map[string]any{}))
	defer d.Close()
	for name, call := range map[string]func() error{
		"FromGo(map)":   func() error { _, err := godlpack.FromGo(m); return err },
		"FromGo(slice)": func() error { _, err := godlpack.FromGo(l); return err },
		"Call(map)":     func() error { _, err := kinds.Call(m); return err },
		"Call(Tuple)":   func() error { _, err := kinds.Call(godlpack.Tuple{l}); return err },
		"Call(Kw)":      func() error { _, err := kinds.Call(godlpack.Kw{"x": m}); return err },
		"SetAttr":       func() error { return obj.SetAttr("x", l) },
		"SetItem":       func() error { return d.SetItem("x", m) },
	} {
		err := call()
		wantPythonError(t, name, err, "TypeError", "cannot pass a Go value "+deep+" to Python")
		if err != nil && strings.Count(err.Error(), `"self"`)+strings.Count(err.Error(), "item") > 1 {
			t.Errorf("%s names every level: %v", name, err)
		}
	}
	// Deep but finite: converted.
	deepest := any(1)
	for range 99 {
		deepest = []any{deepest}
	}
	if _, err := godlpack.FromGo(deepest); err != nil {
		t.Errorf("FromGo of 99 levels: %v", err)
	}
}

// A name holding a NUL is Python's ValueError, as getattr(o, "a\0b") would be for
// Import; before, C read the name cut at the NUL: Import("os\x00x") was os,
// Attr("real\x00x") was .real, SetAttr set the attribute "a".
func TestNamesWithNULAreValueErrors(t *testing.T) {
	const nul = "embedded null character"
	_, err := godlpack.Import("os\x00anything")
	wantPythonError(t, "Import", err, "ValueError", nul)
	ns := must(godlpack.Import("types"))
	defer ns.Close()
	obj := must(ns.CallMethod("SimpleNamespace"))
	defer obj.Close()
	wantPythonError(t, "SetAttr", obj.SetAttr("a\x00b", 1), "ValueError", nul)
	if _, err := obj.Attr("a"); err == nil {
		t.Error(`SetAttr("a\x00b") set the attribute "a"`)
	}
	two := must(godlpack.FromGo(2.5))
	defer two.Close()
	_, err = two.Attr("real\x00junk")
	wantPythonError(t, "Attr", err, "ValueError", nul)
	_, err = two.CallMethod("is_integer\x00junk")
	wantPythonError(t, "CallMethod", err, "ValueError", nul)
	if r, err := two.CallMethod("is_integer"); err != nil || r.String() != "False" {
		t.Errorf("CallMethod(is_integer) = %v, %v", r, err)
	}
}
