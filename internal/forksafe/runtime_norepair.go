//go:build godlpack_python && !godlpack_runtime_fork

package forksafe

// repairRuntimeInChild: this build's runtime has no fork repair (a plain go build,
// or a Go release other than the ones the runtime file was checked against):
// idle_ms.go's part of it is all a child gets.
func repairRuntimeInChild() bool { return false }
