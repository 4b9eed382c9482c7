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

// Calls made per request: CallInt converts the result in the same entry into Python
// (one cgo call for an int or float argument), where Call, Int and Close would take
// the GIL three times (docs/embedding.md, "the fast way to call").
func ExampleStart_callInt() {
	if err := pyembed.Start(pyembed.Config{Python: "python3"}); err != nil {
		log.Fatal(err)
	}
	defer pyembed.Finalize()

	builtins, err := godlpack.Import("builtins")
	if err != nil {
		log.Fatal(err)
	}
	defer builtins.Close()
	abs, err := builtins.Attr("abs")
	if err != nil {
		log.Fatal(err)
	}
	defer abs.Close()
	n, err := abs.CallInt(-7)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n)
}

// Several operations under one hold of the GIL, as pyo3's Python::with_gil: each
// Python exception comes back as the error of the call that raised it.
func ExampleStart_withGIL() {
	if err := pyembed.Start(pyembed.Config{Python: "python3"}); err != nil {
		log.Fatal(err)
	}
	defer pyembed.Finalize()

	math, err := godlpack.Import("math")
	if err != nil {
		log.Fatal(err)
	}
	defer math.Close()
	err = godlpack.WithGIL(func(py *godlpack.GIL) error {
		r, err := py.CallMethod(math, "hypot", 3.0, 4.0)
		if err != nil {
			return err
		}
		defer py.Close(r)
		f, err := py.Float(r)
		fmt.Println(f)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}
