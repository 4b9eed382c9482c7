package main

// goext_bad_test.go: go test finds the mistakes import would (godlpack.Check, no
// Python); tests/test_goinit.py compares its message with the ImportError's.

import (
	"strings"
	"testing"

	"github.com/godlpack/godlpack"
)

func TestCheckReportsTheMistakes(t *testing.T) {
	err := godlpack.Check("goext_bad")
	if err == nil {
		t.Fatal("godlpack.Check found no mistake in goext_bad")
	}
	if !strings.Contains(err.Error(), "slice_param(): parameter x: unsupported type []int") {
		t.Errorf("Check: %v", err)
	}
	t.Log(err) // the whole message, which the ImportError's must equal
}
