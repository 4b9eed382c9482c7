//go:build godlpack_python

package godlpack

import "github.com/godlpack/godlpack/internal/cpython"

// The errors of pyembed.Start are PythonErrors, as this package's calls' are.
func init() { cpython.SetErrorMaker(takePythonError) }

// start and finalize are the deprecated Start and Finalize (embed_api.go) with Python.
func start(cfg Config) error { return cpython.Start(cfg.Python) }
func finalize() error        { return cpython.Finalize() }
