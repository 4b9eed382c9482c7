//go:build godlpack_python && !godlpack_module

package godlpack_test

// A Go program built as an extension in Go builds (the tag godlpack_python without
// godlpack_module: none of the godlpack module's own files) cannot make the module
// in-process, so Start says how to build it instead. tests/test_embed.py runs this
// with go-env --embed's settings but GOFLAGS=-tags=godlpack_python.

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack"
)

func TestStartWithoutTheModule(t *testing.T) {
	err := godlpack.Start(godlpack.Config{})
	if err == nil {
		t.Fatal("Start succeeded in a build without the godlpack module")
	}
	for _, want := range []string{"godlpack.Start: ", "ImportError", "godlpack_module", "go-env --embed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start's error %q does not say %q", err, want)
		}
	}
	if err := godlpack.Finalize(); err != nil {
		t.Errorf("Finalize after a failed Start: %v", err)
	}
}
