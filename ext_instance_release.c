//go:build godlpack_python

/* ext_instance_release.c: an instance's dealloc releases its Go value's id at
 * once, one call into Go (goExtReleaseInstances) per dealloc, so the value lives
 * exactly as long as its instance. Batching the ids (one call per 64 deallocs)
 * saved that crossing, ~70 ns of a creation-and-drop, but a value then outlived
 * its instance by up to 63 other deallocs: a Go value holding a large buffer
 * stayed reachable after `del` for as long as no other instance died (issue 20
 * asks for exactly the Python object's lifetime). Any thread, with or without the
 * GIL, after finalization too: Go only empties a table slot. */
#include "ext.h"
#include "_cgo_export.h"

void gd_ext_instance_release(uintptr_t id) { goExtReleaseInstances(&id, 1); }
