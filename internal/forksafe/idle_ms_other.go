//go:build godlpack_python && (!go1.26 || go1.28 || goexperiment.staticlockranking)

package forksafe

// idle_ms_other.go: Go releases (or runtime experiments) whose scheduler layout
// idle_ms.go has not been written for: a fork child keeps the parent's idle Ms
// on its list, and a call that starts goroutines there hangs (idle_ms.go says
// why).

// schedLayoutMatches: no layout is known for this build.
func schedLayoutMatches() bool { return false }

// forgetParentIdleMs does nothing here (see above).
func forgetParentIdleMs() bool { return false }
