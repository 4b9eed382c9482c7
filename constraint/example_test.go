package constraint_test

import (
	"fmt"

	"github.com/godlpack/godlpack/constraint"
)

// A rule is data: Function.Where applies it; its methods say what it requires.
// Shape(-1, -1, 3) is any height and width with three channels: three
// dimensions, so it implies NDim(3).
func ExampleShape() {
	c := constraint.Shape(-1, -1, 3)
	dims, ok := c.Shape()
	n, _ := c.NDim()
	fmt.Println(dims, ok, n)
	// Output: [-1 -1 3] true 3
}
