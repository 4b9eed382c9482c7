//go:build !godlpack_python

package godlpack_test

// example_test.go: the extension API's examples, run by go test without Python
// (Check and Function.Call stand in for Python's import and calls).

import (
	"fmt"

	"github.com/godlpack/godlpack"
	"github.com/godlpack/godlpack/constraint"
	"github.com/godlpack/godlpack/dlpack/tensor"
)

// scale returns a new tensor x * k.
func scale(x godlpack.Tensor[float64], k float64) (*tensor.Tensor, error) {
	in, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return nil, err
	}
	out, s, err := tensor.Empty[float64](x.Shape()...)
	if err != nil {
		return nil, err
	}
	for i, v := range in {
		s[i] = v * k
	}
	return out, nil
}

// An extension declares its module in an init function of its main package;
// Python's import binds it. Here Check does what import would.
func ExampleModule() {
	godlpack.Module("example_mod", "Functions over DLPack tensors, in Go.",
		godlpack.Func2("scale", scale, "x", "k").Default("k", 2.0).
			Where("x", constraint.Contiguous()).
			Doc("A new array x * k."),
	)
	fmt.Println(godlpack.Check("example_mod"))
	// Output: <nil>
}

// Check reports a module's binding mistakes with the message import would raise.
func ExampleCheck() {
	godlpack.Module("example_bad", "",
		godlpack.Func2("scale", scale, "x", "k").Default("k", "two"),
	)
	fmt.Println(godlpack.Check("example_bad"))
	// Output: godlpack.Module("example_bad"): scale(): the default "two" does not suit parameter k of type float64
}

// Call runs a declared function on tensors made in Go, through the same
// converters and constraints as Python's calls.
func ExampleFunction_Call() {
	f := godlpack.Func2("scale", scale, "x", "k").Where("x", constraint.NDim(1))
	x, _ := tensor.FromSlice([]float64{1, 2, 3}, 3)
	defer x.Close()
	r, err := f.Call(x, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := r.(*tensor.Tensor)
	defer y.Close()
	v, _ := tensor.As[float64](y)
	s, _ := v.Slice()
	fmt.Println(s)
	m, _ := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	defer m.Close()
	_, err = f.Call(m, 10)
	fmt.Println(err)
	// Output:
	// [10 20 30]
	// scale(): argument x: expected a 1-d tensor, got a 2-d one
}

type Counter struct{ n int64 }

func (c *Counter) Add(k int64) (int64, error) { c.n += k; return c.n, nil }

// Class binds a Go struct as a Python class: a constructor, methods, properties.
func ExampleClass() {
	counter := godlpack.Class[Counter]("Counter", "A running total.")
	counter.Init(func(start int64) (*Counter, error) { return &Counter{n: start}, nil }, "start")
	counter.Def("add", (*Counter).Add, "k").Doc("Adds k; returns the total.")
	counter.Property("total", "The total.", func(c *Counter) int64 { return c.n }, nil)
	godlpack.Module("example_class", "", counter)
	c, _ := godlpack.Lookup("example_class", "Counter").Call(5)
	total, _ := godlpack.Lookup("example_class", "Counter.add").Call(c, 2)
	fmt.Println(total, godlpack.Check("example_class"))
	// Output: 7 <nil>
}
