//go:build godlpack_python

package pyembed

import (
	"github.com/godlpack/godlpack/internal/arraymodule"
	"github.com/godlpack/godlpack/internal/cpython"
)

func start(cfg Config) error {
	// godlpack's own module, made in-process from its definition (a Go extension's
	// .so, godlpack's included, cannot be loaded into a Go program).
	cpython.SetInProcessModule(arraymodule.ModuleDef)
	return cpython.Start(cfg.Python)
}

func finalize() error { return cpython.Finalize() }
