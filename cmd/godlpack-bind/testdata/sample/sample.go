// Package sample is what gen_test.go binds: one of each thing godlpack-bind
// binds or skips.
package sample

import "errors"

// Level is a named integer type with constants: an IntEnum.
type Level int

// The levels.
const (
	Low  Level = 1
	High Level = 2
)

// Pi is a float constant.
const Pi = 3.14159

// Huge is beyond uint64.
const Huge = 1 << 70

// Name is a string constant.
const Name = "sample"

// Counter is a package variable.
var Counter int

// Sum adds xs.
func Sum(xs []float32) float64 {
	s := 0.0
	for _, x := range xs {
		s += float64(x)
	}
	return s
}

// Split returns the halves, or an error for a negative n.
func Split(n int, l Level) (int, int, error) {
	if n < 0 {
		return 0, 0, errors.New("negative")
	}
	return n / 2, n - n/2, nil
}

// Generic is generic.
func Generic[T any](x T) T { return x }

// Send takes a channel.
func Send(c chan int) {}

// Apply takes a function.
func Apply(f func(int) int) int { return f(1) }

// Join is variadic.
func Join(parts ...string) string { return "" }

// Box holds a value.
type Box struct {
	// V is the value.
	V     float64
	Label string
	Ch    chan int
	inner int
}

// NewBox makes a Box.
func NewBox(v float64) *Box { return &Box{V: v} }

// Twice doubles the value.
func (b *Box) Twice() float64 { return 2 * b.V }

// Add adds another box's value.
func (b Box) Add(o Box) Box { return Box{V: b.V + o.V} }

// Point has no methods.
type Point struct{ X, Y float64 }

// Shape is an interface.
type Shape interface{ Area() float64 }

// RangeError is the package's error type.
type RangeError struct{ N int }

func (e *RangeError) Error() string { return "out of range" }

// Check returns a *RangeError for a negative n.
func Check(n int) error {
	if n < 0 {
		return &RangeError{n}
	}
	return nil
}

// Counts counts the words, the threshold optional (nil: 0).
func Counts(words []string, min *int) map[string]int { return nil }

// Describe takes any value.
func Describe(v any) string { return "" }

// Ratios takes a map of a named type.
func Ratios(m map[Level]float64) float64 { return 0 }

// Acc accumulates; it has no exported fields.
type Acc struct{ n float64 }

// Add adds x.
func (a *Acc) Add(x float64) { a.n += x }
