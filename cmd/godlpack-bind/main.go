// Command godlpack-bind writes the godlpack registration code that binds Go
// packages as one Python extension module, with no glue written by hand: each
// package's exported functions, struct types with methods (classes), fields
// (properties), constants and named integer types with constants (IntEnum)
// become ordinary godlpack.Module, Func, Class, Const and IntEnum declarations.
// python -m godlpack bind runs it to write a project, and the build backend
// runs it at build time for [tool.godlpack] bind (docs/binding.md).
//
// It reads each package's API with the Go toolchain's type information
// (go/types, the package type-checked from source by go/importer, in the module
// of the current folder) and its doc comments with go/doc. What it cannot bind
// is skipped; the report lists every exported identifier, bound as what or
// skipped and why.
//
//	godlpack-bind -module NAME [-main] [-strict] [-o FILE] [-report FILE] [-command CMD] IMPORT_PATH...
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	module := flag.String("module", "", "the Python module's name (godlpack.Module's)")
	withMain := flag.Bool("main", false, "declare the module (godlpack.Module) and func main: a package of its own; "+
		"otherwise the members are added to a module the package's own files declare (godlpack.Extend)")
	strict := flag.Bool("strict", false, "fail (exit 1) when anything exported is skipped")
	out := flag.String("o", "", "the Go file to write (default: standard output)")
	report := flag.String("report", "", "the report's file (default: standard error)")
	command := flag.String("command", "", "the command named in the generated file's header")
	flag.Parse()
	if *module == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: godlpack-bind -module NAME [-main] [-strict] [-o FILE] [-report FILE] IMPORT_PATH...")
		os.Exit(2)
	}
	cmd := *command
	if cmd == "" {
		cmd = "godlpack-bind " + strings.Join(os.Args[1:], " ")
	}
	g := &generator{module: *module, withMain: *withMain, command: cmd, multi: flag.NArg() > 1}
	for _, path := range flag.Args() {
		if err := g.bindPackage(path); err != nil {
			fmt.Fprintf(os.Stderr, "godlpack-bind: %s: %v\n", path, err)
			os.Exit(1)
		}
	}
	src, err := g.source()
	if err != nil {
		fmt.Fprintf(os.Stderr, "godlpack-bind: %v\n", err)
		os.Exit(1)
	}
	if err := write(*out, src); err != nil {
		fmt.Fprintf(os.Stderr, "godlpack-bind: %v\n", err)
		os.Exit(1)
	}
	text := g.reportText()
	if *report != "" {
		err = os.WriteFile(*report, []byte(text), 0o644)
	} else {
		_, err = os.Stderr.WriteString(text)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "godlpack-bind: %v\n", err)
		os.Exit(1)
	}
	if *strict && g.skipped > 0 {
		fmt.Fprintf(os.Stderr, "godlpack-bind: -strict: %d exported identifiers were skipped (the report names each)\n", g.skipped)
		os.Exit(1)
	}
}

func write(path string, src []byte) error {
	if path == "" {
		_, err := os.Stdout.Write(src)
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
