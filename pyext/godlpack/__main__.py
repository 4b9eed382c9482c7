"""python -m godlpack: a demo of Go-owned memory shared with NumPy and PyTorch.

python -m godlpack [demo]   the demo (needs NumPy; PyTorch adds a part)
python -m godlpack info     what this build speaks and which consumers are installed
python -m godlpack go-env [--embed]
                            `export` lines for a POSIX shell: the settings go build needs
                            to build Go code against godlpack for this interpreter; with
                            --embed, a Go program that embeds it (libpython, GODLPACK_PYTHON):
                            eval "$(python -m godlpack go-env --embed)"
python -m godlpack init [FOLDER] [--module PATH]
                            in a new or empty FOLDER (default: the current one), writes
                            a project named after it (go.mod with the Go module PATH,
                            default example.com/NAME; pyproject.toml, main.go, Go and
                            Python tests, README.md) that pip install . builds; then, as
                            in a folder that has a go.mod, sets it up for go build, go
                            vet, go test and gopls: a go.work pointing at godlpack's Go
                            sources (no Python headers needed)
python -m godlpack bind IMPORT_PATH... --name MODULE -o DIR [--strict]
                            writes a project in DIR that pip builds into the module
                            MODULE, the Go packages bound with no glue (docs/binding.md)
python -m godlpack --help   this usage
"""

from __future__ import annotations

import argparse
import importlib
import sys

from godlpack_build.interpreter import PY_VERSIONS

import godlpack


def demo() -> int:
    a = godlpack.arange(12, dtype="float32").reshape(3, 4)
    print("A Go-owned array (its memory lives in C, managed by the Go extension):")
    print(a)
    print(f"  data at {a.data_ptr:#x} (256-byte aligned: {a.data_ptr % 256 == 0})\n")
    try:
        import numpy as np
    except ImportError:
        print("NumPy is not installed: pip install numpy to see the zero-copy hand-off.")
        return 1
    n = np.from_dlpack(a)
    n[0, 0] = 100.0
    print("numpy.from_dlpack(a) shares the memory, no copy:")
    print(f"  numpy data at {n.ctypes.data:#x}, same address: {n.ctypes.data == a.data_ptr}")
    print(f"  after n[0, 0] = 100 in NumPy, the Go array reads a[0, 0] = {a[0, 0]}")
    try:
        import torch
    except ImportError:
        print("\nPyTorch is not installed; skipping the PyTorch part of the demo.")
        return 0
    t = torch.from_dlpack(a[:, ::2])
    t.mul_(2)
    print("\ntorch.from_dlpack(a[:, ::2]) views every other column, and t.mul_(2) doubles them:")
    print(a)
    back = godlpack.from_dlpack(torch.ones(2, 2, dtype=torch.bfloat16))
    print(f"\ngodlpack.from_dlpack(torch bfloat16 tensor) -> {back!r}")
    return 0


def info() -> int:
    print(
        f"godlpack {godlpack.__version__}, DLPack {godlpack.DLPACK_VERSION[0]}."
        f"{godlpack.DLPACK_VERSION[1]}"
    )
    print("dtypes:", ", ".join(d.name for d in godlpack.dtypes))
    print(
        "devices: kDLCPU (exports and imports); kDLCUDAHost, kDLROCMHost, kDLCUDAManaged "
        "(imports: host-accessible)"
    )
    first, last = PY_VERSIONS[0], PY_VERSIONS[-1]
    print(
        "python: CPython {}.{}.{}".format(*sys.version_info[:3]),
        "(godlpack supports CPython {}.{}-{}.{})".format(*first, *last),
    )
    for name in ("numpy", "torch", "jax", "tvm_ffi", "ml_dtypes"):
        try:
            mod = importlib.import_module(name)
            print(f"  {name}: {getattr(mod, '__version__', 'installed')}")
        except ImportError:
            print(f"  {name}: not installed")
    return 0


def go_env(embed: bool) -> int:
    import shlex

    from godlpack_build.cgo import cgo_settings
    from godlpack_build.errors import BuildError

    try:
        settings = cgo_settings(embed=embed)
    except BuildError as e:
        print(f"python -m godlpack go-env: {e}", file=sys.stderr)
        return 1
    for name, value in settings.items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


def init(folder: str, module_path: str | None) -> int:
    from pathlib import Path

    from godlpack_build.errors import BuildError

    from godlpack._goinit import init as init_folder
    from godlpack._gonew import new_project

    path = Path(folder)
    try:
        lines = []
        if not (path / "go.mod").is_file():
            lines = new_project(path, module_path)
        elif module_path is not None:
            raise BuildError(
                f"{path.resolve()} has a go.mod already: --module goes with a new project"
            )
        lines += init_folder(path)
    except BuildError as e:
        print(f"python -m godlpack init: {e}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


def bind(argv: list[str]) -> int:
    from pathlib import Path

    from godlpack_build.bind import cli_command, write_project
    from godlpack_build.errors import BuildError

    parser = argparse.ArgumentParser(
        prog="python -m godlpack bind",
        description="Write a project that pip builds into a Python module binding Go packages "
        "(their exported functions, classes, properties, constants and enums) with no glue.",
    )
    parser.add_argument("import_paths", nargs="+", metavar="IMPORT_PATH")
    parser.add_argument("--name", required=True, help="the Python module's name")
    parser.add_argument("-o", "--out", required=True, help="the project's folder")
    parser.add_argument(
        "--strict", action="store_true", help="fail when anything exported cannot be bound"
    )
    args = parser.parse_args(argv)
    try:
        report = write_project(
            args.import_paths,
            args.name,
            Path(args.out),
            strict=args.strict,
            command=cli_command(["bind", *argv]),
        )
    except BuildError as e:
        print(f"python -m godlpack bind: {e}", file=sys.stderr)
        return 1
    print(report, end="")
    print(f"wrote {args.out}: pip install {args.out} builds the module {args.name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bind"]:
        return bind(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m godlpack",
        description="godlpack: Go-backed arrays that speak DLPack.",
    )
    parser.add_argument(
        "command",
        nargs="?",
        default="demo",
        choices=("demo", "info", "go-env", "init", "bind"),
        help="demo (the default): share a Go-owned array with NumPy and PyTorch, zero-copy; "
        "info: print the godlpack and DLPack versions, the dtypes, the devices and the "
        "installed consumers; go-env: the settings go build needs, as export lines; "
        "init: write a new project into a new or empty folder, and set an extension's folder "
        "up for go build, go vet, go test and gopls",
    )
    parser.add_argument(
        "--embed",
        action="store_true",
        help="go-env only: for a Go program that embeds this interpreter (links libpython)",
    )
    parser.add_argument(
        "--module",
        dest="module_path",
        help="init of a new project only: its Go module path (default: example.com/NAME)",
    )
    parser.add_argument(
        "folder",
        nargs="?",
        default=".",
        help="init only: the extension's folder, or a new project's (default: .)",
    )
    args = parser.parse_args(argv)
    if args.command == "init":
        return init(args.folder, args.module_path)
    if args.module_path is not None:
        parser.error("--module goes with init")
    if args.folder != ".":
        parser.error("a folder goes with init")
    if args.command == "go-env":
        return go_env(args.embed)
    if args.embed:
        parser.error("--embed goes with go-env")
    return info() if args.command == "info" else demo()


if __name__ == "__main__":
    sys.exit(main())
