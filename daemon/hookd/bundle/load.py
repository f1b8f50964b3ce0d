"""One bundle, opened and checked: archive safety, manifest, roots, signature, Python-must-be-signed;
then written out as a policy directory that the engines load like any other."""

from __future__ import annotations

import os
import posixpath
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hookd.bundle.archive import Limits, read_tarball, safe_name
from hookd.bundle.format import MANIFEST, SIGNATURES, Manifest, check_contents, is_python_policy
from hookd.bundle.signing import Key, Verified, verify
from hookd.errors import BundleError


@dataclass(frozen=True, slots=True)
class Bundle:
    files: Mapping[str, bytes]  # every file by relative path, .manifest and .signatures.json included
    manifest: Manifest
    verified: Verified

    @property
    def revision(self) -> str:
        return self.manifest.revision

    @property
    def has_python(self) -> bool:
        return any(is_python_policy(name) for name in self.files)

    def policy_files(self) -> dict[str, bytes]:
        return {k: v for k, v in self.files.items() if k not in (MANIFEST, SIGNATURES)}


def open_bundle(data: bytes, key: Key | None, limits: Limits | None = None) -> Bundle:
    """Parse and verify a bundle tarball; raises BundleError naming the first problem."""
    return check_files(read_tarball(data, limits or Limits()), key)


def check_files(files: Mapping[str, bytes], key: Key | None) -> Bundle:
    manifests = [name for name in files if posixpath.basename(name) == MANIFEST]
    if len(manifests) > 1 or (manifests and manifests[0] != MANIFEST):
        raise BundleError(f"bundle must hold at most one .manifest, at its root (found {manifests})")
    verified = verify(files, key)
    manifest = Manifest.parse(files[MANIFEST]) if MANIFEST in files else Manifest()
    if any(is_python_policy(name) for name in files) and not verified.signed:
        raise BundleError(
            "bundle contains Python policies and is not signed: Python policies are only run from signed bundles"
        )
    check_contents(manifest, files)
    return Bundle(files=dict(files), manifest=manifest, verified=verified)


def extract(bundle: Bundle, parent: Path) -> Path:
    """Write the bundle's policy files into a new private directory under `parent` and return it."""
    parent.mkdir(parents=True, exist_ok=True)
    target = Path(tempfile.mkdtemp(prefix="active-", dir=parent))
    for name, content in bundle.policy_files().items():
        path = target.joinpath(*safe_name(name).split("/"))
        if not path.resolve().is_relative_to(target.resolve()):
            raise BundleError(f"bundle member {name!r} escapes the extraction directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
    return target
