// Package hooks carries what package godlpack counts, for godlpacktest to read,
// without a public name in godlpack itself: godlpack sets these at its init.
package hooks

// LiveInstances and GILReleases are godlpack's counters (godlpacktest documents them).
var (
	LiveInstances func() int64
	GILReleases   func() int64
)
