"""Build hook: a wheel carries the checkout's default policies and both shims as hookd's package data.

`policies/` and `client_shim/` stay at the top of the checkout (where `./dev` and the tests use them);
build_py copies them to ``hookd/_data/`` in the build tree, which hookd.runtime.resources looks in first.
Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("policies", "client_shim")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads them from the checkout
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "hookd" / "_data"
        for name in SHIPPED:
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(root / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithData})
