// Command bindmixed is a Python extension module with a function of its own
// (twice) and, added by the build ([tool.godlpack] bind in pyproject.toml),
// gonum's stat package bound with no glue (tests/test_bind.py).
package main

import "github.com/godlpack/godlpack"

func init() {
	godlpack.Module("bindmixed", "Hand-written functions beside gonum's stat, bound at build time.",
		godlpack.Func1("twice", twice, "x").Doc("2 * x."),
	)
}

func twice(x float64) (float64, error) { return 2 * x, nil }

// A c-shared library needs a main function; it never runs.
func main() {}
