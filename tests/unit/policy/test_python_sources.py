import os
from pathlib import Path

import pytest

from hookd.errors import PolicyLoadError
from hookd.policy.python_sources import discover_python, load_python_set
from support import require

POLICY = "from hookd.policy_api import policy\n@policy()\ndef nothing(input):\n    return None\n"


def policy_dir(tmp_path: Path, mode: int = 0o755) -> Path:
    directory = tmp_path / "policies"
    directory.mkdir()
    (directory / "guard.py").write_text(POLICY)
    (directory / "guard.py").chmod(0o644)
    directory.chmod(mode)
    return directory


def test_tests_private_modules_and_caches_are_not_policies(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path)
    for name in ("test_guard.py", "guard_test.py", "_helpers.py", "notes.txt", "__pycache__/guard.py", ".git/x.py"):
        (directory / name).parent.mkdir(exist_ok=True)
        (directory / name).write_text("")
    (directory / "sub").mkdir()
    (directory / "sub" / "more.py").write_text(POLICY)
    assert [p.relative_to(directory).as_posix() for p in discover_python(directory)] == ["guard.py", "sub/more.py"]


def test_a_directory_without_python_has_no_python_set(tmp_path: Path) -> None:
    (tmp_path / "a.rego").write_text("package hookd.a\n")
    assert load_python_set(tmp_path) is None


def test_a_trusted_directory_loads_with_its_sources_and_a_revision(tmp_path: Path) -> None:
    loaded = load_python_set(policy_dir(tmp_path))
    assert loaded is not None
    assert [(s.path, s.source) for s in loaded.sources] == [("guard.py", POLICY)]
    (tmp_path / "policies" / "guard.py").write_text(POLICY + "# changed\n")
    changed = load_python_set(tmp_path / "policies")
    assert changed is not None and changed.revision != loaded.revision


@pytest.mark.parametrize("mode", [0o775, 0o757])
def test_a_group_or_world_writable_directory_is_refused(tmp_path: Path, mode: int) -> None:
    directory = policy_dir(tmp_path, mode)
    with pytest.raises(PolicyLoadError, match=rf"{directory} is writable by group or others \(mode {mode:o}\)"):
        load_python_set(directory)


def test_a_group_writable_policy_file_is_refused(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path)
    (directory / "guard.py").chmod(0o664)
    with pytest.raises(PolicyLoadError, match=r"guard\.py is writable by group or others"):
        load_python_set(directory)


def test_a_directory_owned_by_another_uid_is_refused(tmp_path: Path) -> None:
    require(os.geteuid() == 0, "root (to give the directory to another uid)")
    directory = policy_dir(tmp_path)
    os.chown(directory / "guard.py", 65534, 65534)
    with pytest.raises(PolicyLoadError, match=r"guard\.py is owned by uid 65534, not by the daemon's uid 0"):
        load_python_set(directory)


def test_a_symlinked_policy_file_is_refused(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path)
    (directory / "link.py").symlink_to(directory / "guard.py")
    with pytest.raises(PolicyLoadError, match=r"link\.py is a symbolic link"):
        load_python_set(directory)


def test_python_from_an_unsigned_bundle_is_refused_and_from_a_signed_one_runs(tmp_path: Path) -> None:
    directory = policy_dir(tmp_path, 0o777)  # a bundle's files are checked by its signature, not their modes
    with pytest.raises(PolicyLoadError, match="a bundle that carries Python must be signed"):
        load_python_set(directory, source="bundle", signed=False)
    loaded = load_python_set(directory, source="bundle", signed=True)
    assert loaded is not None and len(loaded.sources) == 1
