"""Packing, the same for both backends: the wheel's tag (read from the built extension),
core metadata checked by parsing it back, the .dist-info, the wheel's zip and the
sdist's tar, byte-reproducible with SOURCE_DATE_EPOCH.

Standard library at import time: wheel and packaging (toolchain.BUILD_REQUIREMENTS) are
imported where a wheel or metadata is written."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import struct
import tarfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import BuildError

# The wheel tag, filled in from the target interpreter and the built extension.
# To move to the stable ABI later: "cp311-abi3-{platform}" (and build with Py_LIMITED_API,
# EXT_SUFFIX ".abi3.so").
WHEEL_TAG = "{python}-{abi}-{platform}"
# Lowest manylinux level a Linux wheel claims. The real level is the newest GLIBC_x.y symbol
# version the built .so needs (read from its ELF .gnu.version_r), if that is higher: Go's
# runtime/cgo linked against glibc >= 2.34 needs pthread_create@GLIBC_2.34, so a wheel built
# on a new distribution is tagged for it, and one built in a manylinux2014 image is 2_17.
MANYLINUX_FLOOR = (2, 17)
# Compiled files: never shipped as sources, and mode 0755 in a wheel.
BINARY_SUFFIXES = (".so", ".o", ".a", ".dylib", ".pyd", ".dll")


def _elf_glibc_needed(path: Path) -> tuple[int, int] | None:
    """The newest GLIBC_x.y symbol version an ELF shared object needs, or None."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF":
        return None
    end = "<" if data[5] == 1 else ">"
    if data[4] == 2:  # ELFCLASS64
        (shoff,) = struct.unpack_from(end + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x3A)
        shfmt = end + "IIQQQQIIQQ"
    else:
        (shoff,) = struct.unpack_from(end + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(end + "HH", data, 0x2E)
        shfmt = end + "IIIIIIIIII"
    # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
    sections = [struct.unpack_from(shfmt, data, shoff + i * shentsize) for i in range(shnum)]
    best: tuple[int, int] | None = None
    for sec in sections:
        if sec[1] != 0x6FFFFFFE:  # SHT_GNU_verneed
            continue
        strtab = sections[sec[6]][4]
        off, count = sec[4], sec[7]
        for _ in range(count):
            _vers, vn_cnt, _file, vn_aux, vn_next = struct.unpack_from(end + "HHIII", data, off)
            aux = off + vn_aux
            for _ in range(vn_cnt):
                _h, _f, _o, vna_name, vna_next = struct.unpack_from(end + "IHHII", data, aux)
                start = strtab + vna_name
                name = data[start : data.index(b"\0", start)].decode("ascii", "replace")
                if name.startswith("GLIBC_"):
                    parts = name[len("GLIBC_") :].split(".")
                    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
                        ver = (int(parts[0]), int(parts[1]))
                        best = ver if best is None else max(best, ver)
                if not vna_next:
                    break
                aux += vna_next
            if not vn_next:
                break
            off += vn_next
    return best


def platform_tag(info: dict[str, Any], ext: Path) -> str:
    plat: str = info["platform"]
    if not plat.startswith("linux-"):
        return plat.replace("-", "_").replace(".", "_")
    arch = plat.split("-", 1)[1]
    glibc = _elf_glibc_needed(ext)
    if glibc is None:  # not linked against glibc (musl): claim nothing more than linux
        return f"linux_{arch}"
    major, minor = max(MANYLINUX_FLOOR, glibc)
    return f"manylinux_{major}_{minor}_{arch}"


def wheel_tag(info: dict[str, Any], ext: Path) -> str:
    py = "cp{}{}".format(*info["version"])
    abi = py + ("t" if info["gil_disabled"] else "")
    return WHEEL_TAG.format(python=py, abi=abi, platform=platform_tag(info, ext))


# --------------------------------------------------------------------------- metadata


def core_metadata(fields: Iterable[tuple[str, str]], description: str | None = None) -> bytes:
    """Core metadata (PKG-INFO / METADATA) of ``fields``, checked by parsing it back with
    packaging (InvalidMetadata if wrong).

    The fields are written by hand with their canonical names: packaging's own writer
    (Metadata.as_rfc822) lower-cases them, which twine/pkginfo reject.
    """
    from packaging.metadata import Metadata, RFC822Message

    fields = list(fields)
    msg = RFC822Message()
    if description is not None:
        msg.set_payload(description)
    for name, value in fields:
        msg[name] = value
    data = msg.as_bytes()
    try:
        meta = Metadata.from_email(data, validate=True)
    except Exception as e:  # InvalidMetadata, or an ExceptionGroup of them
        details = [str(x) for x in getattr(e, "exceptions", [e])]
        raise BuildError(f"invalid metadata: {'; '.join(details)}") from e
    version = dict(fields).get("Version")
    if meta.version is None or str(meta.version) != version:
        raise BuildError(f"metadata round trip lost the version {version}: {meta.version}")
    return data


# --------------------------------------------------------------------------- sdist


def write_sdist(
    out_dir: Path, base: str, root: Path, files: Iterable[Path], pkg_info: bytes
) -> Path:
    """``out_dir``/``base``.tar.gz: PKG-INFO and ``files`` (relative to ``root``) under
    ``base``/. Times from SOURCE_DATE_EPOCH when set, so that two runs give equal bytes."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{base}.tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))

    def add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
        ti = tarfile.TarInfo(f"{base}/{name}")
        ti.size, ti.mode, ti.mtime = len(data), mode, mtime
        tar.addfile(ti, io.BytesIO(data))

    # gzip's header carries a time too: pin it.
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        add_bytes(tar, "PKG-INFO", pkg_info)
        for rel in files:
            src = root / rel
            mode = 0o755 if os.access(src, os.X_OK) else 0o644
            add_bytes(tar, rel.as_posix(), src.read_bytes(), mode)
    return path


# --------------------------------------------------------------------------- wheel


def write_dist_info(
    dist_info: Path,
    metadata: bytes,
    tag: str | None,
    generator: str,
    license_files: Iterable[Path] = (),
) -> None:
    """A .dist-info folder: METADATA, ``license_files`` in licenses/ and, with the
    wheel's ``tag`` (None: prepare_metadata_for_build_wheel's, before any build), the
    WHEEL file of a platform wheel."""
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_bytes(metadata)
    for lic in license_files:
        (dist_info / "licenses").mkdir(exist_ok=True)
        shutil.copy2(lic, dist_info / "licenses" / lic.name)
    if tag is not None:
        (dist_info / "WHEEL").write_text(
            f"Wheel-Version: 1.0\nGenerator: {generator}\nRoot-Is-Purelib: false\nTag: {tag}\n",
            encoding="utf-8",
        )


def pack_wheel(staging: Path, out_dir: Path, name: str, version: str, tag: str) -> Path:
    """Zip ``staging`` (the package, its .dist-info) into ``out_dir`` as a wheel, RECORD
    written by the wheel package."""
    from wheel.wheelfile import WheelFile  # type: ignore[import-untyped]

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name.replace('-', '_')}-{version}-{tag}.whl"
    # The zip records each file's mode and time: modes fixed here, times from
    # SOURCE_DATE_EPOCH when it is set (WheelFile reads it), so two builds of one tree
    # give the same bytes.
    for f in staging.rglob("*"):
        f.chmod(0o755 if f.is_dir() or f.suffix in BINARY_SUFFIXES else 0o644)
    with WheelFile(path, "w") as wf:
        wf.write_files(str(staging))
    return path
