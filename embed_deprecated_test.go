//go:build godlpack_python

package godlpack_test

// A Go program that calls the deprecated godlpack.Start and does not link package
// pyembed (as this package's test binary does not) cannot make godlpack's own module
// in-process, so Start says to use pyembed instead. tests/test_embed.py runs this with
// go-env --embed's settings.

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
	for _, want := range []string{"pyembed.Start: ", "ImportError", "links no godlpack module", "pyembed.Start (import github.com/godlpack/godlpack/pyembed)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start's error %q does not say %q", err, want)
		}
	}
	if err := godlpack.Finalize(); err != nil {
		t.Errorf("Finalize after a failed Start: %v", err)
	}
}
