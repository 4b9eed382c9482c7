package godlpack

// ext_class.go: Go types bound as Python classes (ext_class.c has the C half and
// docs/internals/classes.md the ownership rules).

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/dlpack/tensor"
)

// A ClassDef binds a Go struct type T as a Python class: made by Class, refined
// by its methods (Init, Def, Property, AtomicProperty, Final), passed to Module.
//
// An instance owns its Go value (a *T, kept in the instance table,
// ext_instance_table.go): made by the constructor (Init) or returned by any
// function of the module as a *T, it is released once Python drops the instance,
// exactly once, at the instance's dealloc. Methods run like any
// function of the module, the GIL released while Go runs: two Python threads may
// run methods of one instance at once, so a T whose methods write its fields must
// lock (a sync.Mutex field) as any Go value shared by goroutines.
type ClassDef struct {
	name, doc string
	ptrType   reflect.Type // *T
	id        int32        // the index in gd_ext_classes and classList
	final     bool
	init      *Function
	methods   []*Function // methods and dunders (__repr__, __len__, __iter__, __eq__...)
	props     []*property
	buffer    *bufferDef // Buffer's, or nil
	setstate  *Function  // Pickle's restore (__setstate__ calls it with the state's items), or nil
	errs      []string
	ctype     *pyTypeObject // made at the first module exec
	binder    memberBinder  // the members' calls without reflection (ext_class_fast.go)
}

type property struct {
	name, doc string
	get, set  *Function    // set nil: read-only
	field     *atomicField // AtomicProperty's: C reads it with no call into Go (get: the fallback)
}

// boundClasses are the classes by their *T, classList by id: filled by Class in
// init functions, read only afterwards.
var (
	boundClasses = map[reflect.Type]*ClassDef{}
	classList    []*ClassDef
)

// Class binds the Go struct type T as the Python class name with docstring doc.
// Parameters and results of type *T of the module's functions and methods are
// its instances (None for a nil *T result; a parameter with Default nil takes
// None as nil). Without Init, Python cannot create instances; Go functions
// returning a *T can.
func Class[T any](name, doc string) *ClassDef {
	c := &ClassDef{name: name, doc: doc, ptrType: reflect.TypeFor[*T](), id: int32(len(classList)),
		binder: classBinder[T]{}}
	if !validIdentifier(name) {
		c.fail("%q is not a valid Python class name", name)
	}
	if reflect.TypeFor[T]().Kind() != reflect.Struct {
		c.fail("the Go type %v is not a struct: bind a struct type", reflect.TypeFor[T]())
	}
	if prev, dup := boundClasses[c.ptrType]; dup {
		c.fail("the Go type %v is bound twice (as %s and %s)", reflect.TypeFor[T](), prev.name, name)
	} else {
		boundClasses[c.ptrType] = c
	}
	classList = append(classList, c)
	return c
}

func (c *ClassDef) fail(format string, a ...any) {
	f := &Function{name: c.name}
	f.fail(format, a...)
	c.errs = append(c.errs, f.errs...)
}

// Final forbids Python subclasses of the class (nanobind's is_final): class
// Sub(Cls) raises TypeError. Classes are subclassable by default; a subclass's
// __init__ must call the bound class's (super().__init__(...)) to make its Go value.
func (c *ClassDef) Final() *ClassDef {
	c.final = true
	return c
}

// Init sets the constructor, Python's Cls(...): fn returns the new *T (and an
// error), its parameters are the call's, named by params ("*" starts the
// keyword-only ones; Default, Where and Doc refine them as for any Function;
// errors name the class). It is called with no reflection where it has up to three
// parameters, each int64, int, float64, string, bool or a tensor (ext_erased.go).
// fn may also be a Function made by Func0..Func4 (typed, any parameter types) of
// the constructor, named as the class, params then empty:
//
//	c.Init(newOpts, "n", "*", "scale").Default("scale", 1.0)
//	h.Init(godlpack.Func3("Histogram", newHistogram, "bins", "lo", "hi"))
//
// A constructor of any other shape goes through Func's reflection (~500 ns more a
// creation).
func (c *ClassDef) Init(fn any, params ...string) *Function {
	if f, ok := fn.(*Function); ok {
		if len(params) != 0 {
			f.fail("Init of a Function takes no parameter names (Func0..Func4 named them), got %s", strings.Join(params, ", "))
		}
		return c.initFunction(f)
	}
	f := Func(c.name, fn, params...)
	if t := reflect.TypeOf(fn); t != nil && t.Kind() == reflect.Func &&
		(t.NumOut() == 0 || t.Out(0) != c.ptrType || t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != errorType)) {
		f.fail("the constructor must return %v or (%v, error)", c.ptrType, c.ptrType)
	}
	if call := erasedCall(f, fn, c.ptrType); call != nil {
		f.call = call
	}
	c.init = f
	return f
}

// InitFunc sets the constructor to f, a Function made by Func0 to Func4 of a Go
// function returning (*T, error) and named as the class.
//
// Deprecated: Init takes it: c.Init(f).
func (c *ClassDef) InitFunc(f *Function) *Function { return c.initFunction(f) }

func (c *ClassDef) initFunction(f *Function) *Function {
	switch {
	case f.name != c.name:
		f.fail("the constructor of class %s must be named %q (got %q)", c.name, c.name, f.name)
	case f.result != c.ptrType:
		f.fail("the constructor must return %v or (%v, error)", c.ptrType, c.ptrType)
	}
	c.init = f
	return f
}

// Def adds a method: fn's first parameter is the instance (*T: a method
// expression such as (*T).Add), named self in Python; params names the others.
// Dunders are methods too: __repr__ (returning a string), __len__ (an int),
// __iter__ (an iter.Seq or iter.Seq2: a lazy Python iterator pulling it; or a
// slice, which Python iterates over), __eq__ (a bool; the class is then
// unhashable, as a Python class defining __eq__).
func (c *ClassDef) Def(name string, fn any, params ...string) *Function {
	f := Func(name, fn, append([]string{"self"}, params...)...)
	switch name {
	case "__getbuffer__", "__releasebuffer__", "__buffer__", "__release_buffer__":
		f.fail("the buffer protocol is C slots, not a method: declare the view with ClassDef.Buffer(func(*T) []E)")
	case "__setstate__":
		f.fail("__setstate__ must give the instance its Go value: declare pickling with ClassDef.Pickle(state, restore)")
	}
	c.checkReceiver(f, fn)
	useFast(c.binder, f, fn)
	c.methods = append(c.methods, f)
	return f
}

// StaticMethod adds a static method (nanobind's def_static, pyo3's
// #[staticmethod], Python's @staticmethod): fn is any function Func takes,
// called with no instance, from the class (Cls.name(...)) or an instance;
// params names its parameters.
func (c *ClassDef) StaticMethod(name string, fn any, params ...string) *Function {
	f := Func(name, fn, params...)
	f.methodKind = extStaticMethod
	c.checkNotDunder(f, "StaticMethod")
	c.methods = append(c.methods, f)
	return f
}

// ClassMethod adds a class method (pyo3's #[classmethod], Python's
// @classmethod): fn's first parameter is a *Object, the class it was called on
// (the bound class, or a Python subclass: cls, borrowed for the call); params
// names the others. A *T it returns becomes an instance of that class: an
// alternative constructor called on a subclass makes an instance of the
// subclass (with T's Go value; the subclass's __init__ does not run).
func (c *ClassDef) ClassMethod(name string, fn any, params ...string) *Function {
	f := Func(name, fn, append([]string{"cls"}, params...)...)
	f.methodKind = extClassMethod
	c.checkNotDunder(f, "ClassMethod")
	if t := reflect.TypeOf(fn); t != nil && t.Kind() == reflect.Func && (t.NumIn() == 0 || t.In(0) != reflect.TypeFor[*Object]()) {
		f.fail("ClassMethod: the first parameter must be the class it is called on, a *godlpack.Object (func(cls *godlpack.Object, ...))")
	}
	c.methods = append(c.methods, f)
	return f
}

// checkNotDunder refuses a static or class method named as a dunder: Python
// calls __repr__, __len__... with the instance.
func (c *ClassDef) checkNotDunder(f *Function, how string) {
	if strings.HasPrefix(f.name, "__") && strings.HasSuffix(f.name, "__") {
		f.fail("%s: %s cannot be a special method (%s): declare it with Def", how, f.name, c.name)
	}
}

func (c *ClassDef) checkReceiver(f *Function, fn any) {
	if t := reflect.TypeOf(fn); t != nil && t.Kind() == reflect.Func && (t.NumIn() == 0 || t.In(0) != c.ptrType) {
		f.fail("the first parameter must be the instance, a %v", c.ptrType)
	}
}

// Property adds a property with docstring doc: get is a func(*T) V (or (V,
// error)); set, nil for a read-only property (setting it raises
// AttributeError), a func(*T, V) error (or with no result) whose errors raise,
// as a setter that validates. A value of the wrong type raises TypeError.
func (c *ClassDef) Property(name, doc string, get, set any) *ClassDef {
	p := &property{name: name, doc: doc, get: Func(name, get, "self")}
	c.checkReceiver(p.get, get)
	useFast(c.binder, p.get, get)
	if set != nil {
		p.set = Func(name, set, "self", "value")
		c.checkReceiver(p.set, set)
		useFast(c.binder, p.set, set)
	}
	c.props = append(c.props, p)
	return c
}

// AtomicProperty adds a read-only property that Python reads from the
// instance's Go value itself, with no call into Go: a getter's call costs a C->Go
// crossing (~50 ns), more than the rest of a property read together. field returns
// the address of an atomic field of its argument, the same field of every T:
//
//	h.AtomicProperty("count", "How many values were added (read-only).",
//		func(h *Histogram) *atomic.Int64 { return &h.count })
//
// The field is a sync/atomic Int64, Uint64, Int32 or Uint32 (Python reads an int)
// or Bool (a bool). Go writes it only through its methods (Store, Add,
// CompareAndSwap...), at any time, from any goroutine, with or without the GIL;
// Python's read is an atomic load of it, so a read never races a write and sees
// a value some write stored, as Load does. Python cannot write it: setting the
// property raises AttributeError. At its first read the value is pinned
// (runtime.Pinner: C may then hold its address) until the instance is released.
// A field reached through a pointer (&h.stats.count with stats a pointer) or
// outside T is a registration error: the import raises ImportError saying so.
func (c *ClassDef) AtomicProperty(name, doc string, field any) *ClassDef {
	getter, af, err := c.binder.atomicField(field)
	p := &property{name: name, doc: doc, get: Func(name, getter, "self"), field: af}
	if err != nil {
		p.get.fail("AtomicProperty: %v", err)
	}
	useFast(c.binder, p.get, getter)
	c.props = append(c.props, p)
	return c
}

// Pickle makes instances picklable (pickle, copy.copy, copy.deepcopy,
// multiprocessing and the like): nanobind's __getstate__/__setstate__ pair,
// pyo3's __getstate__/__setstate__ with __getnewargs__. state is a method,
// func(*T) returning the instance's state as a Tuple (or several results, a
// tuple of them; with or without an error): its __getstate__. restore makes a
// new *T from those items, its parameters in the same order (named by params;
// func(items...) (*T, error)): unpickling makes an instance as Cls.__new__ does
// and its __setstate__(state) calls restore(*state) and gives the instance the
// Go value, as __init__ would. A Python subclass's own attributes are not in the
// state: it extends __getstate__/__setstate__ itself. The class needs Init
// (unpickling calls Cls.__new__, which a class without a constructor refuses).
func (c *ClassDef) Pickle(state, restore any, params ...string) *ClassDef {
	get := Func("__getstate__", state, "self")
	c.checkReceiver(get, state)
	useFast(c.binder, get, state)
	c.methods = append(c.methods, get)
	c.setstate = Func("__setstate__", restore, params...)
	if t := reflect.TypeOf(restore); t != nil && t.Kind() == reflect.Func &&
		(t.NumOut() == 0 || t.Out(0) != c.ptrType || t.NumOut() > 2 || (t.NumOut() == 2 && t.Out(1) != errorType)) {
		c.setstate.fail("Pickle: restore must return %v or (%v, error)", c.ptrType, c.ptrType)
	}
	return c
}

// bufferDef is a class's buffer (ClassDef.Buffer): the slice of a *T its
// views show, and how Python reads an element.
type bufferDef struct {
	slice    reflect.Value // func(*T) []E
	format   string        // the struct module's code of E
	itemsize int
}

// bufferFormats are the struct module's codes of the element types a buffer
// may have (sized: a view's format says the width).
var bufferFormats = map[reflect.Kind]string{
	reflect.Int8: "b", reflect.Uint8: "B", reflect.Int16: "h", reflect.Uint16: "H",
	reflect.Int32: "i", reflect.Uint32: "I", reflect.Int64: "q", reflect.Uint64: "Q",
	reflect.Float32: "f", reflect.Float64: "d",
}

// Buffer gives the class Python's buffer protocol (pybind11's def_buffer,
// pyo3's __getbuffer__; nanobind has none): memoryview(obj), numpy.asarray(obj),
// bytes(obj) read a read-only, zero-copy, 1-D view of the slice view returns
// (func(*T) []E, E a sized integer or float type: int64 is format 'q').
//
// The view shows the slice's own memory, so Go's later writes to it show in
// every view (they are not ordered with Python's reads: a reader may see a
// write in progress, as with any memory two threads share). From each view's
// making to its release the slice's array is pinned (runtime.Pinner) and the
// view holds the instance, so neither moves nor is freed under it. Python cannot
// write through it (a writable request is a BufferError). A T that replaces its
// slice (a resize) while views exist leaves them on the old array, alive and
// pinned but no longer the T's: give the slice its final length when T is made,
// as streamstats' counts are, or refuse the resize in Go.
func (c *ClassDef) Buffer(view any) *ClassDef {
	f := Func("__buffer__", view, "self")
	c.checkReceiver(f, view)
	t := reflect.TypeOf(view)
	switch {
	case t == nil || t.Kind() != reflect.Func || t.NumOut() != 1 || t.Out(0).Kind() != reflect.Slice ||
		bufferFormats[t.Out(0).Elem().Kind()] == "":
		f.fail("Buffer takes a func(*T) []E, E a sized integer or float type (int8...uint64, float32, float64); got %T", view)
	case c.buffer != nil:
		f.fail("Buffer is declared twice for class %s", c.name)
	default:
		e := t.Out(0).Elem()
		c.buffer = &bufferDef{slice: reflect.ValueOf(view), format: bufferFormats[e.Kind()], itemsize: int(e.Size())}
	}
	c.errs = append(c.errs, f.errs...)
	return c
}

// bufferPins are the pins of the exported views by token (exportBuffer).
var (
	bufferPins      sync.Map // uint64 -> *runtime.Pinner
	lastBufferToken atomic.Uint64
)

// exportBuffer returns the address and length of the slice b gives for the
// Go value at p (a *T), pinned until releaseBuffer(token): a view's making
// (ext_class.c's instance_getbuffer). An empty slice has no address to pin
// (nil, token 0).
func (b *bufferDef) export(p unsafe.Pointer) (addr unsafe.Pointer, n int, token uint64) {
	s := b.slice.Call([]reflect.Value{reflect.NewAt(b.slice.Type().In(0).Elem(), p)})[0]
	if s.Len() == 0 {
		return nil, 0, 0
	}
	addr = s.UnsafePointer()
	pin := new(runtime.Pinner)
	pin.Pin(addr)
	token = lastBufferToken.Add(1)
	bufferPins.Store(token, pin)
	return addr, s.Len(), token
}

// releaseBuffer unpins a view's slice: its release. Any thread.
func releaseBuffer(token uint64) {
	if pin, ok := bufferPins.LoadAndDelete(token); ok {
		pin.(*runtime.Pinner).Unpin()
	}
}

// functions is every Function of the class.
func (c *ClassDef) functions() []*Function {
	fs := append([]*Function(nil), c.methods...)
	if c.init != nil {
		fs = append(fs, c.init)
	}
	if c.setstate != nil {
		fs = append(fs, c.setstate)
	}
	for _, p := range c.props {
		fs = append(fs, p.get)
		if p.set != nil {
			fs = append(fs, p.set)
		}
	}
	return fs
}

// instanceConverter converts an argument of a *T parameter (GD_EXT_INSTANCE: C
// has checked its class and read its handle).
func instanceConverter(t reflect.Type) argConv {
	return func(a *extArg) (reflect.Value, error) {
		if a.i == 0 {
			return reflect.Zero(t), nil
		}
		return reflect.NewAt(t.Elem(), instanceValue(uintptr(a.i))), nil
	}
}

// instanceWriter writes a *T result: a new instance owning it (nil: None).
func instanceWriter(t reflect.Type) func(reflect.Value, *extResult) error {
	w := instancePointerWriter(t)
	return func(v reflect.Value, r *extResult) error {
		if v.IsNil() {
			return nil
		}
		return w(v.UnsafePointer(), r)
	}
}

// instancePointerWriter writes p, a *T of t (not nil), as a new instance owning
// it. T's class is looked up once, at the first result: Class may come after the
// Func returning *T, both in init functions, and boundClasses is complete by the
// first call.
func instancePointerWriter(t reflect.Type) func(unsafe.Pointer, *extResult) error {
	var class atomic.Pointer[ClassDef]
	return func(p unsafe.Pointer, r *extResult) error {
		c := class.Load()
		if c == nil {
			c = boundClasses[t]
			class.Store(c)
		}
		id, err := newInstanceIDFor(p, r)
		if err != nil {
			return err
		}
		r.kind, r.i, r.n = extRInstance, cInt64(id), cInt64(c.id)
		return nil
	}
}

// LiveInstances returns how many Go values instances of bound classes hold now.
//
// Deprecated: use godlpacktest.LiveInstances.
func LiveInstances() int64 {
	return liveInstanceIDs()
}

// isInstanceType reports whether t, a parameter or result type, is a bound
// class's *T (resolved when the module is imported: Class may be called after
// the Func that uses T).
func isInstanceType(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct &&
		t != reflect.TypeFor[*Object]() && t != reflect.TypeFor[*tensor.Tensor]()
}
