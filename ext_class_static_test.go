//go:build !godlpack_python

package godlpack

// ext_class_static_test.go: Check's rules for static and class methods
// (ClassDef.StaticMethod, ClassMethod) and for IntEnumFor types, and the Go
// half of an IntEnumFor parameter and result (tests/test_streamstats.py has
// the Python half).

import (
	"errors"
	"strings"
	"testing"
)

type staticProbe struct{ n int }

type probeMode int

const (
	probeOff probeMode = iota
	probeOn
)

func modeOf(m probeMode) (probeMode, error) { return m, nil }

func init() {
	c := Class[staticProbe]("StaticProbe", "")
	c.StaticMethod("twice", func(n int) int { return 2 * n }, "n")
	c.ClassMethod("make", func(cls *Object, n int) *staticProbe { return &staticProbe{n} }, "n")
	Module("static_ok", "", c,
		IntEnumFor[probeMode]("Mode", "").Value("OFF", int64(probeOff)).Value("ON", int64(probeOn)),
		Func("mode_of", modeOf, "m").Default("m", probeOn))

	bad := Class[struct{ x int }]("BadStatics", "")
	bad.ClassMethod("no_cls", func(n int) int { return n }, "n")
	bad.ClassMethod("cls_not_object", func(cls *staticProbe, n int) int { return n }, "n")
	bad.StaticMethod("__repr__", func() string { return "" })
	bad.ClassMethod("__len__", func(cls *Object) int { return 0 })
	bad.StaticMethod("names", func(a, b int) int { return a }, "a")
	bad.StaticMethod("fn", 3)
	bad.Def("dup", func(x *struct{ x int }) int { return 0 })
	bad.StaticMethod("dup", func() int { return 0 })
	Module("static_bad", "", bad)

	type notNamed = int
	Module("enum_bad", "",
		IntEnumFor[probeMode]("Again", "").Value("A", 0),
		IntEnumFor[notNamed]("Plain", ""),
		Func("mode_default", modeOf, "m").Default("m", probeMode(7)))
}

func TestCheckAcceptsStaticAndClassMethods(t *testing.T) {
	if err := Check("static_ok"); err != nil {
		t.Fatal(err)
	}
	if f := Lookup("static_ok", "StaticProbe.twice"); f == nil || f.methodKind != extStaticMethod {
		t.Fatalf("StaticProbe.twice: %v", f)
	}
	if f := Lookup("static_ok", "StaticProbe.make"); f == nil || f.methodKind != extClassMethod || f.params[0].name != "cls" {
		t.Fatalf("StaticProbe.make: %v", f)
	}
}

func TestCheckRefusesBadStaticAndClassMethods(t *testing.T) {
	err := Check("static_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		"no_cls(): ClassMethod: the first parameter must be the class it is called on, a *godlpack.Object",
		"cls_not_object(): ClassMethod: the first parameter must be the class it is called on",
		"__repr__(): StaticMethod: __repr__ cannot be a special method (BadStatics): declare it with Def",
		"__len__(): ClassMethod: __len__ cannot be a special method (BadStatics)",
		"names(): the Go function has 2 parameters but 1 names were given",
		"fn(): Func needs a non-nil Go function, got int",
		`BadStatics: two methods are named "dup"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

func TestCheckRefusesBadEnums(t *testing.T) {
	err := Check("enum_bad")
	if err == nil {
		t.Fatal("Check accepted them")
	}
	for _, want := range []string{
		`IntEnumFor[godlpack.probeMode]("Again"): the Go type is bound twice (as Mode and Again)`,
		`IntEnumFor[int]("Plain"): bind a named integer type of the package`,
		"mode_default(): the default 7 of parameter m is not a member of Mode (OFF=0, ON=1)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error lacks %q:\n%v", want, err)
		}
	}
}

// An IntEnumFor parameter takes its members' values only (ValueError
// otherwise), and its result is written as the enum's (C makes the member).
func TestEnumParameterAndResult(t *testing.T) {
	f := Lookup("static_ok", "mode_of")
	args := make([]extArg, 1)
	args[0].i = 1
	var res extResult
	if err := f.call(args, &res); err != nil || res.kind != extREnum || res.i != 1 || res.n != cInt64(boundEnums[f.params[0].goType].id) {
		t.Fatalf("mode_of(1): %v, result kind %d, value %d, enum %d", err, res.kind, res.i, res.n)
	}
	args[0].i = 2
	err := f.call(args, &res)
	if err == nil || !strings.Contains(err.Error(), "mode_of(): argument m: 2 is not a member of Mode (OFF=0, ON=1)") {
		t.Fatalf("mode_of(2): %v", err)
	}
	var exc *exceptionError
	if !errors.As(err, &exc) || exc.kind != ValueError {
		t.Fatalf("mode_of(2): %T %v, want a ValueError", err, err)
	}
	if got := f.signature(); got != "mode_of(m=Mode.ON)" {
		t.Fatalf("signature %q", got)
	}
}
