package cheaders_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeaderEditRebuildsUsers builds dlpack/tensor (which includes hugepages.h from
// here) in a copy of the module, breaks the header, and builds again: the build must
// fail. Without the import of this package, the go command kept its cached build of
// dlpack/tensor, as it tracks only a package's own folder.
func TestHeaderEditRebuildsUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package twice")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := moduleRoot(t)
	dst := t.TempDir()
	// this folder always: without the import (the mistake this catches) it is not a dependency
	dirs := append(packageDirs(t, root, "./dlpack/tensor"), filepath.Join("internal", "cheaders"))
	for _, dir := range dirs {
		copyDir(t, filepath.Join(root, dir), filepath.Join(dst, dir))
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(dst, f))
	}
	build := func() error {
		cmd := exec.Command("go", "build", "./dlpack/tensor")
		cmd.Dir = dst
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("go build ./dlpack/tensor:\n%s", out)
		}
		return err
	}
	if err := build(); err != nil {
		t.Fatalf("the copy does not build before the edit: %v", err)
	}
	header := filepath.Join(dst, "internal", "cheaders", "hugepages.h")
	f, err := os.OpenFile(header, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n#error header edited by TestHeaderEditRebuildsUsers\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := build(); err == nil {
		t.Fatal("dlpack/tensor still built after hugepages.h was broken: its cached build was reused")
	}
}

// moduleRoot is the folder of the module's go.mod, two levels above this package.
func moduleRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// packageDirs lists the folders, relative to root, of pkg and of every package of
// this module it imports.
func packageDirs(t *testing.T, root, pkg string) []string {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}", pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var dirs []string
	for _, d := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, rel)
	}
	return dirs
}

// copyDir copies the files (not the folders) of src into dst.
func copyDir(t *testing.T, src, dst string) {
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
		}
	}
}

func copyFile(t *testing.T, src, dst string) {
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, in); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
