// Command sqrtuser calls vec's square roots from outside package vec, as an
// extension does: TestSqrtIsOneInstruction reads the machine code Go makes of
// them here (go build compiles their instantiations in this package).
package main

import (
	"fmt"

	"github.com/godlpack/godlpack/dlpack/vec"
)

func main() {
	s, d := []float32{3, 4}, []float64{5, 12}
	fmt.Println(vec.Norm2(s), vec.Norm2(d), vec.Sqrt(s, s), vec.Sqrt(d, d))
}
