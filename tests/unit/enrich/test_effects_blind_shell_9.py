"""Mechanisms blind-shell-9's first run missed (policies/README.md, "Ninth batch"): the effects they now have,
and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops

from hookd.enrich.effects.pycode import python_effects

# --- Python: a module or member imported or assigned under another name is the name it stands for ---


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import shutil as sh, os.path as op; sh.rmtree(op.expanduser('~/Documents'))", ["rm", "-r", "-f", "~/Documents"]),
        ("from shutil import rmtree as wipe; wipe('/srv')", ["rm", "-r", "-f", "/srv"]),
        ("from os import path, remove; remove(path.join(path.expanduser('~'), '.bashrc'))", ["rm", "~/.bashrc"]),
        ("import pathlib as p; p.Path.home().joinpath('.aws', 'credentials').read_bytes()", ["cat", "~/.aws/credentials"]),
        ("import subprocess as sp; run = sp.check_call; run(['git', 'push', '--force'])", ["git", "push", "--force"]),
        ("o = __import__('os'); d = o.environ; o.remove(d['HOME'] + '')", ["rm", "${python_value}"]),
    ],
)  # fmt: skip
def test_python_aliases_are_the_names_they_stand_for(code: str, argv: list[str]) -> None:
    assert python_effects(code).commands == [argv]


def test_python_getattr_of_a_literal_member_is_that_member() -> None:
    assert python_effects("import os; getattr(os, 'system')('rm -rf ~')").scripts == ["rm -rf ~"]
    assert python_effects("import os; getattr(os, 'sys' + 'tem')('x')").dynamic  # computed: still not followed


def test_a_rebound_alias_is_not_trusted() -> None:
    # `sh` bound twice: which module it is depends on the run; the table's names are not given to it
    assert python_effects("import shutil as sh\nimport json as sh\nsh.rmtree('/srv')").commands == []


def test_inline_python_with_aliases_deletes_what_it_names(tmp_path: Path) -> None:
    command = "python3 -c \"import shutil as sh, os.path as op; sh.rmtree(op.expanduser('~/Documents'))\""
    assert [e["path"] for e in ops(command, tmp_path, "delete")] == [f"{HOME}/Documents"]


# --- Python: the glob module's matches, as a loop variable a file call is given ---


def test_glob_matches_below_the_home_are_its_content_removed(tmp_path: Path) -> None:
    code = "import glob, os; [os.remove(f) for f in glob.glob(os.path.expanduser('~/Documents/**/*'), recursive=True)]"
    assert python_effects(code).commands == [["rm", "-r", "-f", "~/Documents"]]


def test_glob_matches_in_the_project_are_the_pattern(tmp_path: Path) -> None:
    code = "import glob, shutil; [shutil.rmtree(p) for p in glob.glob('**/__pycache__', recursive=True)]"
    assert python_effects(code).commands == [["rm", "-r", "-f", "**/__pycache__"]]
    assert python_effects("import glob, os\nfor f in glob.glob('build/*.o'):\n    os.remove(f)").commands == [
        ["rm", "build/*.o"]
    ]
