"""False positives blind-benign-11's first run found, and what their mechanisms share (policies/README.md, "An
eleventh blind batch, benign only")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.opencode import TOOLS
from hookd.enrich.paths import tool_paths
from hookd.enrich.shell.analysis import analyse_shell

HOME = "/home/u"


def _effects(command: str, proj: Path) -> list[dict[str, Any]]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False, shell["error"]
    return found


def _reads(command: str, proj: Path) -> list[str]:
    return [str(e["path"] or e["raw"]) for e in _effects(command, proj) if e["op"] == "read" and not e.get("uses")]


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        # a process ID a lookup prints is no file (pstree(1): [pid | user]; jstack: PID; perf-record(1): -F FREQ)
        ("pstree -p $(pgrep -f 'node server.js' | head -1)", []),
        ("jstack $(pgrep -f 'java.*myapp.jar')", []),
        ("perf record -F 99 -g -p $(pgrep -o -f server) -- sleep 10", []),
        ("perf stat -r 5 -x , -- make", []),
        # what the lookup itself reads, and what perf launches, stay
        ("pstree -p $(cat ~/.ssh/id_rsa)", [f"{HOME}/.ssh/id_rsa"]),
        ("perf record -F 99 -g -- cat ~/.aws/credentials", [f"{HOME}/.aws/credentials"]),
    ],
)
def test_a_process_id_operand_is_no_file_read(command: str, reads: list[str], proj: Path) -> None:
    assert _reads(command, proj) == reads


def test_jstack_attaches_to_the_process_its_operand_names(proj: Path) -> None:
    signals = [e for e in _effects("jstack $(pgrep -f hookd)", proj) if e["op"] == "signal"]
    assert [(e["match"], e.get("lookup")) for e in signals] == [("pid", ["hookd"])]


def test_systemd_analyze_reads_the_units_it_verifies(proj: Path) -> None:
    unit = f"{HOME}/.config/systemd/user/myapp.service"
    found = [e for e in _effects(f"systemd-analyze --user verify {unit}", proj) if e["path"] == unit]
    assert [(e["op"], e.get("guess", False)) for e in found] == [("read", False)]


@pytest.mark.parametrize(
    ("command", "uses"),
    [
        # openssl-rsa(1)/openssl-pkey(1): -noout prints no encoded key, -pubout the public half only
        ("openssl rsa -in certs/dev.key -check -noout", True),
        ("openssl rsa -noout -modulus -in certs/dev.key", True),
        ("openssl pkey -in certs/dev.key -pubout -out certs/dev.pub.pem", True),
        # -text prints every component, the private ones too; without a quiet option the key itself is printed
        ("openssl rsa -in certs/dev.key -noout -text", False),
        ("openssl pkey -in certs/dev.key", False),
        ("openssl pkey -in certs/dev.key -out copy.pem", False),
        # another subcommand's -in is no key it keeps quiet
        ("openssl enc -d -in certs/dev.key -noout", False),
    ],
)
def test_a_key_read_for_its_public_half_or_a_check_is_used_not_printed(command: str, uses: bool, proj: Path) -> None:
    found = [e for e in _effects(command, proj) if e["op"] == "read" and str(e["path"]).endswith("certs/dev.key")]
    assert [bool(e.get("uses")) for e in found] == [uses]


def _search(include: str | None, home: Path) -> list[tuple[str, str | None]]:
    tool_input = {"pattern": "Host", "path": str(home / ".ssh"), **({"include": include} if include else {})}
    entries = tool_paths(TOOLS["grep"], tool_input, home=str(home), base_dir="/p", project_dir="/p")
    return sorted({(str(e["path"]).removeprefix(str(home)), e.get("op")) for e in entries})


@pytest.mark.parametrize(
    ("include", "entries"),
    [
        # a filter naming files narrows the search to them: the root is listed, each match read
        ("config", [("/.ssh", "list"), ("/.ssh/config", None)]),
        # a wildcard reaches whatever exists when it runs: the root is read whole, as with no filter
        ("id_*", [("/.ssh", None), ("/.ssh/id_*", None), ("/.ssh/id_ed25519", None)]),
        (None, [("/.ssh", None), ("/.ssh/config", None), ("/.ssh/id_ed25519", None), ("/.ssh/keys/k", None)]),
        # a negation, or a name that is a directory (searched whole): the root is read whole
        ("!x", [("/.ssh", None), ("/.ssh/!x", None)]),
        ("keys", [("/.ssh", None), ("/.ssh/keys", None)]),
    ],
)
def test_a_search_filter_narrows_what_the_search_root_reads(
    include: str | None, entries: list[tuple[str, str | None]], tmp_path: Path
) -> None:
    (tmp_path / ".ssh/keys").mkdir(parents=True)
    for name in ("config", "id_ed25519", "keys/k"):
        (tmp_path / ".ssh" / name).write_text("x\n")
    assert _search(include, tmp_path) == entries


def test_a_search_of_the_home_is_read_whole_whatever_its_filter(tmp_path: Path) -> None:
    tool_input = {"pattern": "token", "path": str(tmp_path), "include": "config"}
    entries = tool_paths(TOOLS["grep"], tool_input, home=str(tmp_path), base_dir="/p", project_dir="/p")
    assert [e.get("op") for e in entries if e["arg"] == "path"] == [None]


def _environment(command: str, proj: Path) -> list[object]:
    return [e.get("variables") for e in _effects(command, proj) if e["path"] == "/proc/self/environ"]


@pytest.mark.parametrize(
    ("command", "variables"),
    [
        # grep keeps only the variables whose whole names its anchored pattern spells: judged as `printenv NAME`
        ("env | grep -iE '^(http|https|no)_proxy='", []),
        ("printenv | egrep '^(LANG|LC_ALL)='", []),
        ("env | grep '^PATH='", []),
        ("env | grep -E '^(GITHUB_TOKEN|PATH)='", [["GITHUB_TOKEN"]]),
        # a prefix, an option that prints other lines, another command between, no pipe: the whole environment
        ("env | grep -i ^NODE_ENV", [[]]),
        ("env | grep -v '^PATH='", [[]]),
        ("env | grep -A3 '^PATH='", [[]]),
        ("env | sort | grep '^PATH='", [[]]),
        ("env | grep '^(PATH|X)='", [[]]),  # a basic regex's parentheses are literal
        ("env; grep '^PATH=' notes.txt", [[]]),
        # the whole environment is no credential a program authenticates with
        ("env | docker login registry.example --password-stdin", [[]]),
    ],
)
def test_the_environment_through_a_filter_of_whole_names_prints_those(
    command: str, variables: list[object], proj: Path
) -> None:
    assert _environment(command, proj) == variables
