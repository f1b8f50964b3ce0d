"""The last good bundle of each source, kept in the state directory so that a restart (offline or not)
serves the same policies before any network: STATE/bundles/NAME/{bundle.tar.gz, meta.json, active-*/}.
Every write is a temporary file, fsync'd, then renamed over the old one."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from hookd.errors import BundleError

BUNDLE_FILE = "bundle.tar.gz"
META_FILE = "meta.json"


@dataclass(frozen=True, slots=True)
class Kept:
    data: bytes
    etag: str
    revision: str
    saved_at: float


class BundleStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def directory(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        return path

    def save(self, name: str, data: bytes, *, etag: str, revision: str) -> None:
        directory = self.directory(name)
        _atomic_write(directory / BUNDLE_FILE, data)
        meta = {"etag": etag, "revision": revision, "saved_at": time.time()}
        _atomic_write(directory / META_FILE, json.dumps(meta).encode())

    def load(self, name: str) -> Kept | None:
        directory = self.root / name
        try:
            data = (directory / BUNDLE_FILE).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise BundleError(f"cannot read the kept bundle {directory / BUNDLE_FILE}: {exc.strerror}") from None
        try:
            meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}  # the bundle is what matters; without its ETag the next poll downloads again
        return Kept(data, str(meta.get("etag", "")), str(meta.get("revision", "")), float(meta.get("saved_at", 0)))

    @staticmethod
    def sweep_one(directory: Path) -> None:
        shutil.rmtree(directory, ignore_errors=True)

    def sweep(self, name: str, keep: Path | None) -> None:
        """Remove extraction directories of this source other than the one serving."""
        directory = self.root / name
        if not directory.is_dir():
            return
        for child in directory.glob("active-*"):
            if keep is None or child.resolve() != keep.resolve():
                shutil.rmtree(child, ignore_errors=True)


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
