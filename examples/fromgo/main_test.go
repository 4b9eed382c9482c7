package main

import (
	"os"
	"strings"
	"testing"
)

// The README's program runs as written and prints what the README says.
func Example() {
	main()
	// Output:
	// C consumer's sum: 10
	// 0:0 1:0.5 2:1 3:1.5 [2 2] [2 1]
	// deleter calls: 1
}

// README.md shows this program whole, byte for byte.
func TestREADMEShowsTheProgram(t *testing.T) {
	prog, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(prog)+"```") {
		t.Error("README.md's From Go program differs from examples/fromgo/main.go")
	}
}
