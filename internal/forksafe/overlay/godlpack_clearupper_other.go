//go:build ignore && !amd64

package runtime

// godlpackClearUpper: nothing to clear but on amd64 (godlpack_clearupper_amd64.s).
//
//go:nosplit
func godlpackClearUpper() {}
