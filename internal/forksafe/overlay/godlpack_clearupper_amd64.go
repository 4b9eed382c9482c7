//go:build ignore

package runtime

// godlpackClearUpper clears the vector registers' upper halves before Go leaves for C
// (godlpack_clearupper_amd64.s says why).
func godlpackClearUpper()
