"""bench/ab.py's fairness, without timing anything: both sides are snapshotted alike, serve the same policies
from their own snapshot, and every process of each side (the daemon, its lane, any sandboxed evaluator)
reads only its own side's code, which the kernel reports (inotify: every file opened under each tree)
rather than what a command line claims. The CPU figures count each daemon's whole process tree."""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import struct
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from support import ROOT

IN_OPEN, IN_ISDIR = 0x20, 0x40000000
EVENT = struct.Struct("iIII")


def load_ab_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_ab", ROOT / "bench" / "ab.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_ab"] = module
    spec.loader.exec_module(module)
    return module


class OpenWatch:
    """Which of several trees had a file opened since the last `opened()` (a source or its byte code; not a
    directory, which an import lists on every entry of sys.path), from inotify watches on every directory
    of each tree (its __pycache__ directories included)."""

    def __init__(self, trees: dict[str, Path]) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        self._tree_of: dict[int, str] = {}
        for name, tree in trees.items():
            for directory in [tree, *(p for p in tree.rglob("*") if p.is_dir())]:
                wd = self._libc.inotify_add_watch(self.fd, str(directory).encode(), IN_OPEN)
                assert wd >= 0, f"{directory}: {os.strerror(ctypes.get_errno())}"
                self._tree_of[wd] = name

    def opened(self) -> dict[str, set[str]]:
        """The files opened, by tree."""
        trees: dict[str, set[str]] = {}
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return trees
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = EVENT.unpack_from(data, offset)
                name = data[offset + EVENT.size : offset + EVENT.size + length].rstrip(b"\0").decode()
                if not mask & IN_ISDIR:
                    trees.setdefault(self._tree_of.get(wd, "?"), set()).add(name)
                offset += EVENT.size + length

    def close(self) -> None:
        os.close(self.fd)


@contextmanager
def watching(trees: dict[str, Path]) -> Iterator[OpenWatch]:
    watch = OpenWatch(trees)
    try:
        yield watch
    finally:
        watch.close()


def files(tree: Path) -> dict[Path, bytes]:
    return {p.relative_to(tree): p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def test_each_side_runs_its_own_snapshot_in_every_process(tmp_path: Path) -> None:
    ab = load_ab_module()
    new_code = ab.copy_working_tree(tmp_path / "new")
    base_code = ab.extract("HEAD", tmp_path / "base")
    ab.serve_same_policies(base_code, new_code / "policies")
    assert sorted(p.name for p in new_code.iterdir()) == sorted(ab.SNAPSHOT)
    assert not list(new_code.rglob("__pycache__")), "the copy holds what git sees, no byte code"
    assert files(new_code / "policies") == files(base_code / "policies")
    payloads = tmp_path / "payloads.json"
    payloads.write_text(json.dumps([ab.payload(i, tmp_path).decode() for i in range(len(ab.PAYLOADS))]))
    trees = {"new": new_code / "daemon", "base": base_code / "daemon", "this tree": ROOT / "daemon"}
    with ExitStack() as stack, watching(trees) as watch:
        watch.opened()
        sides = {}
        for name, own, other in (("new", new_code, base_code), ("base", base_code, new_code)):
            target = ab.start(own, tmp_path / f"{name}-daemon", name, stack)
            ab.load([target], payloads, "max", 2, 0.3)  # what a decision imports lazily, too
            opened = watch.opened()
            assert set(opened) == {name}, f"{name}'s processes read another tree's code: {opened}"
            assert ab.foreign_processes(target, own, [other]) == []
            assert ab.foreign_processes(target, other, [own]) != []  # the check sees a side running the other
            sides[name] = target
        for name, target in sides.items():
            pids = target.pids()
            assert len(pids) >= 2, f"{name}: the daemon and at least its lane"
            assert len(pids) == len(sides["new"].pids()), "both sides run the same processes"
            ab.load([target], payloads, "max", 2, 0.3)
            assert set(watch.opened()) <= {name}
