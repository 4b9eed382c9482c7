package pyembed_test

import (
	"fmt"
	"log"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/pyembed"
)

// A Go program calling Python: start the interpreter once, import a module, call it,
// read the result back as a Go value, finalize at the end. Built without Python's
// headers (no godlpack_python tag), Start returns godlpack.ErrNoPython: build with
// `eval "$(python -m godlpack go-env --embed)"` first (docs/embedding.md).
func Example() {
	if err := pyembed.Start(pyembed.Config{Python: "python3"}); err != nil {
		log.Fatal(err)
	}
	defer pyembed.Finalize()

	math, err := godlpack.Import("math")
	if err != nil {
		log.Fatal(err)
	}
	defer math.Close()
	root, err := math.CallMethod("sqrt", 2.0)
	if err != nil {
		log.Fatal(err)
	}
	defer root.Close()
	f, err := root.Float()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", f)
}
