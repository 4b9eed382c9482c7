//go:build godlpack_python && !(godlpack_linkname && go1.26 && !go1.27 && !goexperiment.staticlockranking)

package godlpack

// fork_template_other.go: builds without the backend's linkname permission, or
// for Go releases fork_template.go has not been written for: a fork child keeps
// the parent's template thread in its bookkeeping, and a goroutine locked to its
// thread that needs a new one there loses a P (fork_template.go says why).

// templateLayoutMatches: no layout is known for this build.
func templateLayoutMatches() bool { return false }

// restartTemplateThread does nothing here (see above).
func restartTemplateThread() bool { return false }
