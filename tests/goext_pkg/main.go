// Command goextpkg is the Go half of the Python package goextpkg: the extension
// module goextpkg._native, which goextpkg/__init__.py wraps
// (tests/test_goext_build.py builds and installs it with pip).
package main

import "github.com/godlpack/godlpack"

func init() {
	godlpack.Module("_native", "The Go functions of goextpkg.",
		godlpack.Func1("sum_squares", sumSquares, "x").Doc("The float64 sum of x's squared elements."),
	)
}

func main() {}

func sumSquares(x godlpack.Tensor[float64]) (float64, error) {
	s, err := godlpack.ReadSlice[float64](x)
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, v := range s {
		total += v * v
	}
	return total, nil
}
