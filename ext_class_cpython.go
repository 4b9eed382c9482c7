//go:build godlpack_python

package godlpack

// ext_class_cpython.go: a bound class's Python type (ext_class.c makes it), from
// the declarations ext_class.go checked, and the release of an instance's Go
// value.
//
// The release: a dealloc makes no call into Go (ext_class.c's
// gd_ext_instance_release pushes its id onto a lock-free stack in C memory); Go
// takes the stack whole and empties the ids' slots here: at the entry of every
// call Python makes into Go (goExtCall, goExtIterNext), when the live instances
// are counted, and after every collection (gctick). So no Go code that Python
// starts sees a released value still held, and a collection that a goroutine
// alone started finds it held at worst, freeing it one collection later. C
// cannot empty a slot itself: the slot is Go memory the collector scans, and
// dropping a pointer there needs Go's write barrier (docs/internals/classes.md,
// "The instance table"). A call that returns a bound class's *T keeps one of
// the ids, emptied, for its instance: while it runs, that id counts as live
// (LiveInstances), as the instance it is making will.

// #include "ext.h" // Python.h first, before any system header (CPython's rule)
// #include <stdlib.h>
import "C"

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/godlpack/godlpack/internal/gctick"
)

// goExtReleaseInstances drops the Go values of n instances whose ids are at ids
// (C memory) at once: a release (gd_ext_instance_release) that could not queue
// its id, with no memory for the queue's link (every other is queued: below).
// Any thread, with or without the GIL, after finalization too: it only empties
// table slots.
//
//export goExtReleaseInstances
func goExtReleaseInstances(ids *cUintptr, n C.int64_t) {
	releaseInstanceIDs(unsafe.Slice((*uintptr)(unsafe.Pointer(ids)), int(n)))
}

// goExtPinInstance pins the Go value of instance id until id's release and
// returns its address, for C's loads of its atomic fields (AtomicProperty;
// ext_class.c's field_get, at an instance's first read). GIL held. The address
// goes as a number: cgocheck refuses a result pointing to an object that holds
// unpinned Go pointers (T's slices and strings), which C never follows; the
// object itself is pinned, which is what lets C keep its address.
//
//export goExtPinInstance
func goExtPinInstance(id C.uintptr_t) C.uintptr_t {
	return C.uintptr_t(uintptr(pinInstance(uintptr(id))))
}

// goExtReleasePinnedInstance unpins and releases the Go value of an instance
// whose value C read (goExtPinInstance): its dealloc. As goExtReleaseInstances,
// any thread, with or without the GIL, after finalization too.
//
//export goExtReleasePinnedInstance
func goExtReleasePinnedInstance(id C.uintptr_t) {
	unpinInstance(uintptr(id))
	releaseInstanceIDs([]uintptr{uintptr(id)})
}

// goExtGetBuffer gives a view of instance id of class (ClassDef.Buffer) its
// slice, pinned until goExtReleaseBuffer(out.token): ext_class.c's
// instance_getbuffer, GIL held. The address goes as a number, as
// goExtPinInstance's. 0, or -1 with out.err set (a panic of the view's function).
//
//export goExtGetBuffer
func goExtGetBuffer(class C.int32_t, id C.uintptr_t, out *C.gd_ext_buffer_out) (rc C.int) {
	c := classList[class]
	defer func() {
		if r := recover(); r != nil {
			out.err = (*C.char)(cBytes(fmt.Sprintf("%s: the buffer's Go function panicked: %v\x00", c.name, r)))
			rc = -1
		}
	}()
	addr, n, token := c.buffer.export(instanceValue(uintptr(id)))
	out.buf, out.len, out.token = C.uintptr_t(uintptr(addr)), C.int64_t(n), C.uint64_t(token)
	return 0
}

// goExtReleaseBuffer unpins a view's slice: its release (any thread, after
// finalization too).
//
//export goExtReleaseBuffer
func goExtReleaseBuffer(token C.uint64_t) {
	releaseBuffer(uint64(token))
}

// addClass makes c's Python class (once) and adds it to module mod (GIL held).
func (c *ClassDef) addTo(mod *pyObject, module string) C.int {
	if c.ctype == nil && c.makeType(mod, module) < 0 {
		return -1
	}
	name := C.CString(c.name)
	defer C.free(unsafe.Pointer(name))
	return C.PyModule_AddObjectRef(mod, name, (*pyObject)(unsafe.Pointer(c.ctype)))
}

func (c *ClassDef) makeType(mod *pyObject, module string) C.int {
	n := len(c.props)
	props := (*C.gd_ext_property)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(C.gd_ext_property{}))))
	names := (**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	docs := (**C.char)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	if props == nil || names == nil || docs == nil {
		C.PyErr_NoMemory()
		return -1
	}
	for i, p := range c.props { // C memory for good: the type keeps pointers into it
		unsafe.Slice(names, n)[i] = C.CString(p.name)
		unsafe.Slice(docs, n)[i] = C.CString(p.doc)
		if p.field != nil { // read by C (ext_class.c's field_get) from the pinned value
			cp := &unsafe.Slice(props, n)[i]
			cp.field_offset, cp.field_kind = C.int64_t(p.field.offset), C.int32_t(p.field.kind)
		}
	}
	hasIter, hasEq := false, false
	for _, f := range c.methods {
		hasIter = hasIter || f.name == "__iter__"
		hasEq = hasEq || f.name == "__eq__"
	}
	doc := c.doc
	if c.init != nil { // the constructor's signature, for inspect.signature(Cls) and help()
		doc = c.init.docHead(false) + doc
	}
	t := C.gd_ext_class_new(cInt32(c.id), C.CString(module+"."+c.name), C.CString(doc), boolInt(c.final),
		boolInt(c.init != nil), boolInt(hasIter), boolInt(hasEq), boolInt(c.buffer != nil), boolInt(c.setstate != nil),
		C.int(n), names, docs, props)
	if t == nil {
		return -1
	}
	cls := &C.gd_ext_classes[c.id]
	if c.setstate != nil { // ext_class.c's instance_setstate calls it with the state's items
		if cls.setstate = functionObject(mod, c.setstate); cls.setstate == nil {
			return -1
		}
	}
	if c.buffer != nil { // read by ext_class.c's instance_getbuffer
		cls.buffer_format, cls.buffer_itemsize = C.CString(c.buffer.format), C.int32_t(c.buffer.itemsize)
	}
	if c.init != nil {
		if cls.init = functionObject(mod, c.init); cls.init == nil {
			return -1
		}
		if c.init.cfunc.noverloads == 0 { // its table (functionObject made it): Cls(...) calls it
			cls.init_func = c.init.cfunc
		}
	}
	for i, p := range c.props {
		cp := &unsafe.Slice(props, n)[i]
		if cp.get = functionObject(mod, p.get); cp.get == nil {
			return -1
		}
		cp.get_func = p.get.cfunc // functionObject made it
		if p.set != nil {
			if cp.set = functionObject(mod, p.set); cp.set == nil {
				return -1
			}
			cp.set_func = p.set.cfunc
		}
	}
	for _, f := range c.methods {
		fn := functionObject(mod, f)
		if fn == nil {
			return -1
		}
		if f.name == "__iter__" {
			cls.iter = fn // ext_class.c's tp_iter calls it and iterates over its result
			continue
		}
		if f.name == "__eq__" { // ext_class.c's tp_richcompare: NotImplemented for other types
			cls.eq, cls.eq_other = fn, eqOther(f)
			continue
		}
		if C.gd_ext_class_set_method((*pyObject)(unsafe.Pointer(t)), fn, C.int(f.methodKind), f.cfunc) < 0 {
			return -1
		}
	}
	C.gd_immortalize_type(t) // every thread makes instances and calls methods: internal/cpython/immortal.c
	c.ctype = t
	return 0
}

// eqOther is the class id __eq__'s other parameter takes (-1: not a bound
// class's instance, any object goes to the Go function).
func eqOther(f *Function) C.int32_t {
	if len(f.params) == 2 {
		if oc, ok := boundClasses[f.params[1].goType]; ok {
			return C.int32_t(oc.id)
		}
	}
	return -1
}

// functionObject is a function object calling f (a new reference, kept for good
// by the class), named as a function of module mod.
func functionObject(mod *pyObject, f *Function) *pyObject {
	f.makeCTable()
	return C.gd_ext_function(mod, f.cfunc)
}

// releasedHead is the stack's newest id (0: empty), C memory read with Go's atomics.
var releasedHead = (*uint32)(unsafe.Pointer(&C.gd_ext_released_head))

// C's chunks of links are the table's chunks: the same ids, the same split.
const _ = uint(instanceChunkBits-C.GD_EXT_ID_CHUNK_BITS) + uint(C.GD_EXT_ID_CHUNK_BITS-instanceChunkBits) +
	uint(instanceChunks-C.GD_EXT_ID_CHUNKS) + uint(C.GD_EXT_ID_CHUNKS-instanceChunks)

func init() {
	emptyReleasedLocked = emptyQueuedSlots
	gctick.Each(takeQueuedIDs)
}

// releasedQueued reports whether deallocs have queued ids: one load, inlined
// where a call enters Go.
func releasedQueued() bool { return atomic.LoadUint32(releasedHead) != 0 }

// takeReleasedIDs takes the queue and empties its ids' slots. For a call that
// returns a bound class's *T (spare), the newest id is kept in res for the
// instance the call makes (newInstanceIDFor), with no lock: a creation whose
// entry finds the id of the instance dropped before it, the loop of making and
// dropping, takes no mutex, where it took the table's twice (~15% of a creation
// in perf). The rest are freed under the table's mutex.
func takeReleasedIDs(res *C.gd_ext_result, spare bool) {
	id := atomic.SwapUint32(releasedHead, 0)
	if spare && id != 0 {
		next := releasedNext(id)
		*instanceSlot(uintptr(id)) = nil // ours alone
		res.spare_id = C.uint32_t(id)
		id = next
	}
	if id != 0 {
		instances.mu.Lock()
		freeQueued(id)
		instances.mu.Unlock()
	}
}

// freeSpareID frees the id res's call kept and did not use (its call made no
// instance: an error, a nil *T, a *T it had already).
func freeSpareID(res *C.gd_ext_result) {
	instances.mu.Lock()
	instances.free = append(instances.free, uint32(res.spare_id))
	instances.mu.Unlock()
	res.spare_id = 0
}

// takeQueuedIDs takes the queue under the table's mutex: after every collection.
func takeQueuedIDs() {
	instances.mu.Lock()
	emptyQueuedSlots()
	instances.mu.Unlock()
}

// emptyQueuedSlots takes the queue, if any, and frees its ids; instances.mu is held.
func emptyQueuedSlots() {
	if releasedQueued() {
		freeQueued(atomic.SwapUint32(releasedHead, 0))
	}
}

// freeQueued empties the slots of the ids queued from id on and frees them;
// instances.mu is held. Each id's link is read before the id is freed: once
// free, a creation and a dealloc may reuse it and its link.
func freeQueued(id uint32) {
	for id != 0 {
		next := releasedNext(id)
		*instanceSlot(uintptr(id)) = nil
		instances.free = append(instances.free, id)
		id = next
	}
}

// releasedNext is the id queued before id (0: none), from C's link.
func releasedNext(id uint32) uint32 {
	links := (*[instanceChunkLen]uint32)(atomic.LoadPointer(
		(*unsafe.Pointer)(unsafe.Pointer(&C.gd_ext_released_next[id>>instanceChunkBits]))))
	return atomic.LoadUint32(&links[id&(instanceChunkLen-1)])
}
