package godlpacktest_test

import (
	"fmt"

	"github.com/godlpack/godlpack/godlpacktest"
)

// A test of an extension reads a counter before and after what it checks: here, that
// a call leaves no bound instance alive. In a go test of an extension, the work between
// the two reads is godlpack.Lookup(module, "name").Call(...).
func ExampleLiveInstances() {
	before := godlpacktest.LiveInstances()
	// ... the calls under test ...
	after := godlpacktest.LiveInstances()
	fmt.Println("instances left alive:", after-before)
	// Output: instances left alive: 0
}
