package godlpack

// ext_values.go: result types of extension functions with no C in them. No build
// tag: go doc shows them from a plain checkout.

// None is the result type of a function that returns None to Python.
type None struct{}

// Tuple is a result returned to Python as a tuple; its items are any of the
// result types.
type Tuple []any
