package godlpack

import "github.com/godlpack/godlpack/internal/hooks"

// The counters package godlpacktest reads.
func init() {
	hooks.LiveInstances = liveInstanceIDs
	hooks.GILReleases = gilReleases
}
