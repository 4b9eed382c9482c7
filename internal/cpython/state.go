package cpython

import "errors"

// ErrNotStarted is returned by calls into Python before the interpreter is started
// in a Go program, and after it is finalized (no build tag: godlpack and pyembed
// name it in both their build states).
var ErrNotStarted = errors.New("godlpack: no Python interpreter: call pyembed.Start first (or the interpreter was finalized)")
