//go:build godlpack_python && godlpack_linkname && go1.26 && !go1.27 && !goexperiment.staticlockranking

package godlpack

// fork_template.go: the fork child gets a template thread of its own (fork.go).
//
// A goroutine locked to its thread (runtime.LockOSThread) that needs a new
// thread, to run a goroutine it started or to take its P when it blocks, does
// not clone its own thread: it queues the request for the runtime's template
// thread, which every cgo runtime starts at init. fork() does not copy that
// thread, but the child's runtime still says it has one: the child's first such
// request is queued for nobody, and the P that went with it is lost. With
// GOMAXPROCS = 2 a child lost one P and went on; its own fork child lost the
// other, and its first locked goroutine that started goroutines never returned
// (tests/test_goext_fork.py, 5 hung grandchildren in 5).
//
// The runtime cannot start a second template thread (haveTemplateThread is set
// once), and runtime.newmHandoff is not among the symbols it keeps linkable, so
// this file is built only where the build backend links with -checklinkname=0
// and the tag godlpack_linkname (_gobuild.py), and, like fork_idle_ms.go, only
// for the Go release its copy of the layout was written from; it is checked in
// the parent at module exec, against what the runtime set at init.

import (
	"sync"
	"unsafe"
)

// templateHandoff is runtime.newmHandoff (proc.go, Go 1.26), field for field.
type templateHandoff struct {
	lock               uintptr // a mutex: its futex key
	newm               uintptr // Ms queued for the template thread (a muintptr)
	waiting            bool    // the template thread sleeps on wake
	wake               uintptr // a note: its futex key
	haveTemplateThread uint32
}

//go:linkname runtimeNewmHandoff runtime.newmHandoff
var runtimeNewmHandoff templateHandoff

//go:linkname runtimeStartTemplateThread runtime.startTemplateThread
func runtimeStartTemplateThread()

// templateLayoutMatches says whether templateHandoff is this runtime's layout:
// a cgo runtime has started its template thread by the time a module executes,
// and nothing else writes these words' other bits.
var templateLayoutMatches = sync.OnceValue(func() bool {
	h := &runtimeNewmHandoff
	waiting := *(*uint8)(unsafe.Pointer(&h.waiting))
	return h.haveTemplateThread == 1 && waiting <= 1 && h.wake <= 1
})

// restartTemplateThread gives a fork child (afterForkChild: the only thread) a
// template thread: the parent's bookkeeping is dropped, with any request it
// had queued (its M never ran), and a new thread is started from this one,
// which entered Go from C without locking itself, a known-good state. False
// when the layout check failed and nothing was done.
func restartTemplateThread() bool {
	if !templateLayoutMatches() {
		return false
	}
	h := &runtimeNewmHandoff
	h.lock, h.newm, h.waiting, h.wake = 0, 0, false, 0
	h.haveTemplateThread = 0 // so that the runtime's own start below takes effect
	runtimeStartTemplateThread()
	return true
}
