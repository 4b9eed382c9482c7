//go:build !godlpack_python

package godlpack

// ext_lend_test.go: KeepFunc and Object.Keep in a build without Python, where an
// extension's go test passes its own funcs through Function.Call: nothing is lent,
// so keeping does nothing and the function under test runs as in the extension.

import "testing"

var keptInTest func(float64) (float64, error)

var storeFn = Func("store", storeKept, "fn")

func init() { Module("lendtest", "", storeFn) }

func storeKept(fn func(float64) (float64, error)) error {
	if err := KeepFunc(fn); err != nil {
		return err
	}
	keptInTest = fn
	return nil
}

func TestKeepFuncInAGoTestKeepsTheTestsOwnFunc(t *testing.T) {
	if err := Check("lendtest"); err != nil {
		t.Fatal(err)
	}
	if _, err := storeFn.Call(func(x float64) (float64, error) { return 2 * x, nil }); err != nil {
		t.Fatalf("Call: %v", err)
	}
	if v, err := keptInTest(4); v != 8 || err != nil {
		t.Errorf("the kept func gave %v, %v", v, err)
	}
	if err := KeepFunc[func() error](nil); err != nil {
		t.Errorf("KeepFunc(nil) = %v, want nil (an optional callback not passed)", err)
	}
	if err := KeepFunc(3); err == nil || err.Error() != "godlpack: KeepFunc takes a func, not a int" {
		t.Errorf("KeepFunc(3) = %v", err)
	}
}

func TestKeepOfAnObjectThatIsNoArgument(t *testing.T) {
	o := &Object{}
	if k, err := o.Keep(); k != o || err != nil {
		t.Errorf("Keep = %v, %v; want the Object itself, nil", k, err)
	}
	var none *Object
	if _, err := none.Keep(); err == nil {
		t.Error("Keep of a nil *Object gave no error")
	}
	none.Close() // a nil Object's Close does nothing
}
