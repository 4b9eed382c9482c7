package godlpack

// The binding surface that cmd/godlpack-bind's generated code uses (Const,
// IntEnum, Extend, Slices, GoSlice), checked without Python; tests/test_bind.py
// imports what it generates.

import (
	"slices"
	"strings"
	"testing"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

func sortInPlace(x Tensor[float64]) (int64, error) {
	s, err := GoSlice[float64](x)
	if err != nil {
		return 0, err
	}
	slices.Sort(s)
	return int64(len(s)), nil
}

func TestExtendAddsToModuleInEitherOrder(t *testing.T) {
	Extend("bindtest_extend", Func1("sort", sortInPlace, "x").Slices("x"),
		Const("Answer", 42), IntEnum("Kind", "kinds").Value("A", 1).Value("B", 2).Export())
	Module("bindtest_extend", "doc", Func1("sort2", sortInPlace, "x"))
	if err := Check("bindtest_extend"); err != nil {
		t.Fatal(err)
	}
	if Lookup("bindtest_extend", "sort") == nil || Lookup("bindtest_extend", "sort2") == nil {
		t.Fatal("Extend's and Module's functions are both in the module")
	}
	Module("bindtest_extend2", "doc")
	Extend("bindtest_extend2", Func1("sort", sortInPlace, "x"))
	if Lookup("bindtest_extend2", "sort") == nil {
		t.Fatal("Extend after Module adds to it")
	}
}

func TestExtendWithoutModuleIsAnError(t *testing.T) {
	Extend("bindtest_orphan", Func1("sort", sortInPlace, "x"))
	err := Check("bindtest_orphan")
	if err == nil || !strings.Contains(err.Error(), `godlpack.Extend("bindtest_orphan") adds to a module no godlpack.Module declares`) {
		t.Fatalf("got %v", err)
	}
}

func TestConstAndIntEnumMistakes(t *testing.T) {
	Module("bindtest_consts", "doc",
		Const("Bad", []int{1}),
		Const("not valid", 1),
		IntEnum("Kind", "").Value("A", 1).Value("A", 2),
		IntEnum("Other", "").Value("Answer", 1).Export(),
		Const("Answer", 42),
	)
	err := Check("bindtest_consts")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`Const("Bad"): a []int is not an int, float, bool or string`,
		`Const("not valid"): not a valid Python identifier`,
		`IntEnum Kind: two members are named "A"`,
		`two members are named "Answer"`, // an exported member and a constant
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in %v", want, err)
		}
	}
}

func TestSlicesTakesOneElementTypeTensorsOnly(t *testing.T) {
	Module("bindtest_slices", "doc",
		Func1("f", func(x int64) (int64, error) { return x, nil }, "x").Slices("x"),
		Func1("g", func(x Tensor[AnyFloat]) (int64, error) { return 0, nil }, "x").Slices("x"),
	)
	err := Check("bindtest_slices")
	if err == nil || strings.Count(err.Error(), "Slices takes a Tensor[E] parameter of one element type E") != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestGoSliceIsTheTensorsMemoryOrACopy(t *testing.T) {
	Module("bindtest_goslice", "doc", Func1("sort", sortInPlace, "x").Slices("x"))
	f := Lookup("bindtest_goslice", "sort")
	data := []float64{3, 1, 2}
	x, err := tensor.FromSlice(data, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if n, err := f.Call(x); err != nil || n != int64(3) {
		t.Fatal(n, err)
	}
	if !slices.Equal(data, []float64{1, 2, 3}) {
		t.Errorf("a contiguous writable tensor is the slice: got %v", data)
	}
	// strided: a copy, sorted; the tensor is left as it was
	data = []float64{3, 0, 1, 0, 2, 0}
	y, err := tensor.FromSliceStrided(data, []int64{3}, []int64{2})
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if n, err := f.Call(y); err != nil || n != int64(3) {
		t.Fatal(n, err)
	}
	if !slices.Equal(data, []float64{3, 0, 1, 0, 2, 0}) {
		t.Errorf("a strided tensor is copied: got %v", data)
	}
	if n, err := f.Call(nil); err != nil || n != int64(0) {
		t.Errorf("None is a nil slice: got %v, %v", n, err)
	}
}
