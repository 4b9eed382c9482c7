package main

import (
	"os"
	"strings"
	"testing"
)

// The guide's program runs as written and prints what the guide says.
func Example() {
	main()
	// Output:
	// C consumer's sum: 10
	// 0:0 1:0.5 2:1 3:1.5 [2 2] [2 1]
	// deleter calls: 1
}

// docs/arrays-and-dlpack.md shows this program whole, byte for byte
// (tests/test_readme.py checks it too, from Python).
func TestGuideShowsTheProgram(t *testing.T) {
	prog, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../docs/arrays-and-dlpack.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), "```go\n"+string(prog)+"```") {
		t.Error("docs/arrays-and-dlpack.md's program differs from examples/fromgo/main.go")
	}
}
