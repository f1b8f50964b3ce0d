"""`hookd bundle build`: a policy directory into a bundle tarball, in OPA's layout."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from hookd.bundle.archive import read_tarball, write_tarball
from hookd.bundle.format import DATA_FILES, MANIFEST, SIGNATURES, Manifest, check_contents
from hookd.bundle.load import check_files
from hookd.bundle.signing import Key, sign
from hookd.errors import BundleError

POLICY_SUFFIXES = (".rego", ".py")


def collect(source: Path) -> dict[str, bytes]:
    """The files of a policy directory that belong in a bundle: Rego, data.json/yaml, Python policies and
    an existing .manifest; hidden directories, caches and a stale .signatures.json are left out."""
    if not source.is_dir():
        raise BundleError(f"{source} is not a directory")
    files: dict[str, bytes] = {}
    for root, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            path = Path(root) / name
            rel = path.relative_to(source).as_posix()
            wanted = name.endswith(POLICY_SUFFIXES) or name in DATA_FILES or rel == MANIFEST
            if wanted and rel != SIGNATURES and not path.is_symlink():
                files[rel] = path.read_bytes()
    if not any(name.endswith(POLICY_SUFFIXES) or Path(name).name in DATA_FILES for name in files):
        raise BundleError(f"{source} holds no .rego or .py policies and no data")  # data alone: discovery
    return files


def build(
    source: Path, *, revision: str | None = None, roots: list[str] | None = None, key: Key | None = None
) -> bytes:
    files = collect(source)
    raw = dict(Manifest.parse(files[MANIFEST]).raw) if MANIFEST in files else {}
    if revision is not None:
        raw["revision"] = revision
    if roots is not None:
        raw["roots"] = roots
    raw.setdefault("revision", "")
    raw.setdefault("roots", [""])
    files[MANIFEST] = json.dumps(raw, sort_keys=True, separators=(",", ":")).encode()
    check_contents(Manifest.parse(files[MANIFEST]), files)
    return write_tarball(with_signature(files, key) if key is not None else files)


def with_signature(files: Mapping[str, bytes], key: Key) -> dict[str, bytes]:
    """The files with a fresh .signatures.json (any old one replaced), checked like a consumer would."""
    unsigned = {name: content for name, content in files.items() if name != SIGNATURES}
    signed = {**unsigned, SIGNATURES: sign(unsigned, key)}
    check_files(signed, key)
    return signed


def sign_tarball(data: bytes, key: Key) -> bytes:
    return write_tarball(with_signature(read_tarball(data), key))
