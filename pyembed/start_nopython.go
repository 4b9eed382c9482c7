//go:build !godlpack_python

package pyembed

import "github.com/godlpack/godlpack"

func start(Config) error { return godlpack.ErrNoPython }
func finalize() error    { return godlpack.ErrNoPython }
