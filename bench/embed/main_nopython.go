//go:build !godlpack_python

// Command embed measures Go calling Python; it needs libpython: bench/bench_embed.sh
// builds it with `python -m godlpack go-env --embed`'s settings.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench/embed: built without Python; run bash bench/bench_embed.sh")
	os.Exit(2)
}
