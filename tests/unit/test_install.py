"""hookd.install: merging hookd's hooks into Gemini CLI's settings.json and taking them out again."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd import install as inst
from hookd.errors import SettingsError
from hookd.install import (
    BACKUP_SUFFIX,
    DESCRIPTION,
    InstallPlan,
    install,
    install_events,
    settings_path,
    uninstall,
)
from hookd.types import Event

GEMINI_EVENTS = install_events("gemini")
CLAUDE_EVENTS = install_events("claude")

CMD = "/opt/hookd/bin/hookd-shim --client gemini"


def plan_for(
    path: Path, *, command: str = CMD, timeout: int = 5000, events: Any = GEMINI_EVENTS, name: str = "hookd"
) -> InstallPlan:
    return InstallPlan(path, {e: f"{command} {e}" for e in events}, timeout, name, client="gemini")


def write_json(path: Path, doc: Any) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(doc, indent=4) + "\n").encode()
    path.write_bytes(data)
    return data


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def ordered(doc: Any) -> str:
    """Order-sensitive canonical text, so a round trip must also keep key and list order."""
    return json.dumps(doc)


def ours(command: str, timeout: int = 5000, name: str = "hookd") -> dict[str, Any]:
    return {
        "hooks": [
            {
                "type": "command",
                "name": name,
                "command": command,
                "timeout": timeout,
                "description": DESCRIPTION,
            }
        ]
    }


@pytest.fixture
def settings(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return tmp_path / "proj" / ".gemini" / "settings.json"


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


OTHER_BEFORE_TOOL = [
    {"matcher": "^write_file$", "hooks": [{"type": "command", "command": "./guard.sh", "name": "guard"}]},
    {"hooks": [{"type": "command", "command": "./log.sh", "timeout": 300}], "sequential": True},
]

ORIGINALS: dict[str, Any] = {
    "empty": {},
    "other keys": {
        "general": {"enableAutoUpdate": False},
        "model": {"name": "gemini-3-flash-preview"},
        "mcpServers": {"x": {"command": "srv", "args": ["-v"]}},
        "unknownTopLevel": [1, 2.5, None, "ünïcode ✓"],
    },
    "enabled false": {"hooksConfig": {"enabled": False, "disabled": ["noisy"]}, "ui": {"theme": "Default"}},
    "enabled true": {"hooksConfig": {"notifications": False, "enabled": True}},
    "empty hooksConfig": {"hooksConfig": {}},
    "other BeforeTool hooks": {
        "security": {"folderTrust": {"enabled": False}},
        "hooks": {"BeforeTool": OTHER_BEFORE_TOOL, "AfterTool": [], "PreToolUse": [{"hooks": []}]},
        "tail": True,
    },
    "legacy hooks keys": {"hooks": {"enabled": True, "disabled": ["x"], "SessionStart": [{"hooks": []}]}},
    "empty hooks": {"hooks": {}},
}


class TestSettingsPath:
    def test_scopes(self, tmp_path: Path) -> None:
        """user is under home, project under the project directory."""
        home, proj = tmp_path / "home", tmp_path / "proj"
        assert settings_path("gemini", "user", home=home, project_dir=proj) == home / ".gemini/settings.json"
        assert settings_path("gemini", "project", home=home, project_dir=proj) == proj / ".gemini/settings.json"

    def test_claude_scopes(self, tmp_path: Path) -> None:
        home, proj = tmp_path / "home", tmp_path / "proj"
        assert settings_path("claude", "user", home=home, project_dir=proj) == home / ".claude/settings.json"
        assert settings_path("claude", "project", home=home, project_dir=proj) == proj / ".claude/settings.json"
        assert settings_path("claude", "local", home=home, project_dir=proj) == proj / ".claude/settings.local.json"

    @pytest.mark.parametrize(
        ("client", "scope"), [("cursor", "user"), ("gemini", "system"), ("gemini", ""), ("gemini", "local")]
    )
    def test_unknown(self, tmp_path: Path, client: str, scope: str) -> None:
        """Unknown clients and scopes are a SettingsError."""
        with pytest.raises(SettingsError):
            settings_path(client, scope, home=tmp_path, project_dir=tmp_path)


def test_events_match_the_canonical_event_enum() -> None:
    """GEMINI_EVENTS lists the 11 events hookd knows, once each."""
    assert len(GEMINI_EVENTS) == 11
    assert set(GEMINI_EVENTS) == {e.value for e in Event if e is not Event.OTHER}


class TestInstallFresh:
    def test_creates_dir_and_file(self, settings: Path) -> None:
        """A missing .gemini dir and file are created with one hookd definition per event."""
        result = install(plan_for(settings, timeout=4000))
        assert result.changed and result.backup_path is None and result.removed == ()
        assert result.added == GEMINI_EVENTS
        assert result.settings_path == settings
        doc = read(settings)
        assert list(doc["hooks"]) == list(GEMINI_EVENTS)
        for event in GEMINI_EVENTS:
            assert doc["hooks"][event] == [ours(f"{CMD} {event}", 4000)]
        assert doc["hooksConfig"] == {"enabled": True}
        assert doc["hookd"] == {
            "installed": {
                "names": ["hookd"],
                "created": ["hooks", *(f"hooks.{e}" for e in GEMINI_EVENTS), "hooksConfig"],
                "events": list(GEMINI_EVENTS),
            }
        }

    def test_output_format(self, settings: Path) -> None:
        """Two-space indent, UTF-8, trailing newline."""
        install(plan_for(settings, command="/opt/hoöks/shim"))
        text = settings.read_text(encoding="utf-8")
        assert text == json.dumps(read(settings), indent=2, ensure_ascii=False) + "\n"
        assert "hoöks" in text

    def test_new_file_mode_follows_umask(self, settings: Path, umask_022: None) -> None:
        """A new file gets 0666 & ~umask; the created dir 0777 & ~umask."""
        install(plan_for(settings))
        assert stat.S_IMODE(settings.stat().st_mode) == 0o644
        assert stat.S_IMODE(settings.parent.stat().st_mode) == 0o755

    def test_missing_grandparent_refused(self, tmp_path: Path) -> None:
        """Only the .gemini dir is created: a mistyped project dir is an error, not a new tree."""
        path = tmp_path / "no" / "such" / ".gemini" / "settings.json"
        with pytest.raises(SettingsError, match="does not exist"):
            install(plan_for(path))
        assert not (tmp_path / "no").exists()

    def test_empty_file_counts_as_empty_object(self, settings: Path) -> None:
        """A whitespace-only file (which Gemini itself rejects) is treated as {}."""
        settings.parent.mkdir(parents=True)
        settings.write_text("  \n")
        result = install(plan_for(settings))
        assert result.changed and result.backup_path is not None
        assert read(settings)["hooksConfig"] == {"enabled": True}


class TestInstallMerge:
    def test_other_keys_and_hooks_kept_in_order(self, settings: Path) -> None:
        """Other keys, unknown keys and other hooks stay as they were; ours go last."""
        original = ORIGINALS["other BeforeTool hooks"] | ORIGINALS["other keys"]
        write_json(settings, original)
        install(plan_for(settings))
        doc = read(settings)
        for key, value in original.items():
            if key != "hooks":
                assert doc[key] == value
        assert list(doc)[: len(original)] == list(original)
        assert doc["hooks"]["BeforeTool"][:2] == OTHER_BEFORE_TOOL
        assert doc["hooks"]["BeforeTool"][2] == ours(f"{CMD} BeforeTool")
        assert doc["hooks"]["PreToolUse"] == [{"hooks": []}]
        assert list(doc["hooks"])[:3] == ["BeforeTool", "AfterTool", "PreToolUse"]

    def test_hooks_config_enabled_set(self, settings: Path) -> None:
        """hooksConfig.enabled becomes true in place; sibling keys stay."""
        write_json(settings, ORIGINALS["enabled false"])
        install(plan_for(settings))
        doc = read(settings)
        assert doc["hooksConfig"] == {"enabled": True, "disabled": ["noisy"]}
        assert doc["hookd"]["installed"]["hooksConfig.enabled"] is False

    def test_comments_inside_strings_are_not_comments(self, settings: Path) -> None:
        """`//` and `/*` inside JSON strings do not count as comments."""
        settings.parent.mkdir(parents=True)
        settings.write_text('{"url": "http://x/*y*/", "q": "a \\" // b"}\n')
        assert install(plan_for(settings)).changed
        assert read(settings)["url"] == "http://x/*y*/"
        assert read(settings)["q"] == 'a " // b'

    def test_symlink_followed(self, tmp_path: Path) -> None:
        """A symlinked settings.json stays a symlink; its target is rewritten."""
        real = tmp_path / "dotfiles" / "settings.json"
        write_json(real, {"a": 1})
        link = tmp_path / "home" / ".gemini" / "settings.json"
        link.parent.mkdir(parents=True)
        link.symlink_to(real)
        result = install(plan_for(link))
        assert link.is_symlink()
        assert read(real)["a"] == 1 and "hooks" in read(real)
        assert result.backup_path == link.with_name("settings.json" + BACKUP_SUFFIX)
        assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]


class TestIdempotence:
    @pytest.mark.parametrize("name", list(ORIGINALS))
    def test_second_install_changes_nothing(self, settings: Path, name: str) -> None:
        """The second identical install reports no change and leaves bytes and backup alone."""
        original = write_json(settings, ORIGINALS[name])
        first = install(plan_for(settings))
        assert first.changed
        backup = settings.with_name("settings.json" + BACKUP_SUFFIX)
        assert first.backup_path == backup and backup.read_bytes() == original
        after_first = settings.read_bytes()
        backup_stat = backup.stat()
        second = install(plan_for(settings))
        assert (second.changed, second.backup_path, second.added, second.removed) == (False, None, (), ())
        assert settings.read_bytes() == after_first
        assert backup.stat().st_mtime_ns == backup_stat.st_mtime_ns and backup.read_bytes() == original

    def test_fresh_file_twice_makes_no_backup(self, settings: Path) -> None:
        """Installing twice into a new file never makes a backup."""
        install(plan_for(settings))
        install(plan_for(settings))
        assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

    def test_unchanged_file_is_not_reformatted(self, settings: Path) -> None:
        """An already-installed file in another layout is left byte for byte."""
        install(plan_for(settings))
        compact = json.dumps(read(settings), separators=(",", ":")).encode()
        settings.write_bytes(compact)
        assert not install(plan_for(settings)).changed
        assert settings.read_bytes() == compact


class TestUpdate:
    def test_new_command_and_timeout_update_in_place(self, settings: Path) -> None:
        """A different command or timeout replaces hookd's definition where it is."""
        write_json(settings, ORIGINALS["other BeforeTool hooks"])
        install(plan_for(settings))
        first = read(settings)
        result = install(plan_for(settings, command="/new/shim", timeout=9000))
        assert result.changed and result.added == GEMINI_EVENTS and result.removed == ()
        doc = read(settings)
        assert doc["hooks"]["BeforeTool"][:2] == OTHER_BEFORE_TOOL
        assert doc["hooks"]["BeforeTool"][2] == ours("/new/shim BeforeTool", 9000)
        assert list(doc) == list(first) and list(doc["hooks"]) == list(first["hooks"])
        assert doc["hookd"] == first["hookd"]

    def test_only_changed_events_reported(self, settings: Path) -> None:
        """added names only the events whose entry really changed."""
        install(plan_for(settings))
        commands = {e: f"{CMD} {e}" for e in GEMINI_EVENTS} | {"AfterTool": "/other"}
        result = install(InstallPlan(settings, commands, 5000, client="gemini"))
        assert result.added == ("AfterTool",)

    def test_subset_removes_stale_events(self, settings: Path) -> None:
        """Events left out of a later plan lose hookd's entry; containers install created go too."""
        write_json(settings, ORIGINALS["other BeforeTool hooks"])
        install(plan_for(settings))
        result = install(plan_for(settings, events=("BeforeTool",)))
        assert result.added == () and result.removed == tuple(e for e in GEMINI_EVENTS if e != "BeforeTool")
        doc = read(settings)
        assert list(doc["hooks"]) == ["BeforeTool", "AfterTool", "PreToolUse"]
        assert doc["hooks"]["AfterTool"] == []
        assert doc["hookd"]["installed"]["created"] == ["hooksConfig"]

    def test_duplicate_own_definitions_collapsed(self, settings: Path) -> None:
        """Two copies of hookd's definition on one event become one."""
        write_json(settings, {"hooks": {"BeforeTool": [ours("a"), {"hooks": []}, ours("b")]}})
        result = install(plan_for(settings, events=("BeforeTool",)))
        assert result.added == ("BeforeTool",)
        assert read(settings)["hooks"]["BeforeTool"] == [ours(f"{CMD} BeforeTool"), {"hooks": []}]

    def test_foreign_hookd_hook_refused(self, settings: Path) -> None:
        """A hook named hookd inside a definition hookd did not write is not silently rewritten."""
        data = write_json(settings, {"hooks": {"BeforeTool": [{"matcher": "x", **ours("a")}]}})
        with pytest.raises(SettingsError, match=r"hooks\.BeforeTool\[0\].*'matcher'"):
            install(plan_for(settings))
        assert settings.read_bytes() == data


class TestUninstall:
    @pytest.mark.parametrize("name", list(ORIGINALS))
    def test_round_trip_restores_original(self, settings: Path, name: str) -> None:
        """install then uninstall gives back the original document, key and list order included."""
        write_json(settings, ORIGINALS[name])
        install(plan_for(settings))
        install(plan_for(settings, command="/v2", timeout=1234))
        result = uninstall(settings)
        assert result.changed and result.added == ()
        assert set(result.removed) == set(GEMINI_EVENTS)
        assert result.backup_path == settings.with_name("settings.json" + BACKUP_SUFFIX)
        assert ordered(read(settings)) == ordered(ORIGINALS[name])

    def test_round_trip_from_missing_file(self, settings: Path) -> None:
        """A file install created is left as {} (not deleted)."""
        install(plan_for(settings))
        uninstall(settings)
        assert settings.read_text() == "{}\n"

    def test_two_names(self, settings: Path) -> None:
        """Two installed names come out independently; the original returns after the last."""
        original = ORIGINALS["enabled false"] | {"hooks": {"BeforeTool": OTHER_BEFORE_TOOL}}
        write_json(settings, original)
        install(plan_for(settings, name="hookd"))
        install(plan_for(settings, name="hookd-dev", events=("BeforeTool", "AfterTool")))
        uninstall(settings, "hookd")
        doc = read(settings)
        assert doc["hooksConfig"]["enabled"] is True
        assert doc["hooks"]["BeforeTool"][2] == ours(f"{CMD} BeforeTool", name="hookd-dev")
        assert set(doc["hooks"]) == {"BeforeTool", "AfterTool"}
        uninstall(settings, "hookd-dev")
        assert ordered(read(settings)) == ordered(original)

    def test_user_change_to_enabled_is_kept(self, settings: Path) -> None:
        """A hooksConfig.enabled the user set after install is not overwritten by uninstall."""
        write_json(settings, {})
        install(plan_for(settings))
        doc = read(settings)
        doc["hooksConfig"]["enabled"] = False
        write_json(settings, doc)
        uninstall(settings)
        assert read(settings) == {"hooksConfig": {"enabled": False}}

    def test_entries_without_marker(self, settings: Path) -> None:
        """Hand-written hookd hooks are removed; nothing else is guessed."""
        other = {"hooks": [{"type": "command", "command": "x"}]}
        shared = {
            "matcher": "m",
            "hooks": [
                {"type": "command", "command": "y", "name": "hookd"},
                {"type": "command", "command": "z"},
            ],
        }
        write_json(settings, {"hooks": {"BeforeTool": [ours("a"), other, shared]}, "hooksConfig": {"enabled": True}})
        result = uninstall(settings)
        assert result.removed == ("BeforeTool",)
        assert read(settings) == {
            "hooks": {"BeforeTool": [other, {"matcher": "m", "hooks": [{"type": "command", "command": "z"}]}]},
            "hooksConfig": {"enabled": True},
        }

    def test_nothing_to_remove(self, settings: Path) -> None:
        """A file without hookd entries is not written and gets no backup."""
        data = write_json(settings, ORIGINALS["other BeforeTool hooks"])
        mtime = settings.stat().st_mtime_ns
        result = uninstall(settings)
        assert (result.changed, result.backup_path, result.removed) == (False, None, ())
        assert settings.read_bytes() == data and settings.stat().st_mtime_ns == mtime
        assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

    def test_missing_file(self, settings: Path) -> None:
        """Uninstall from a missing file changes nothing and creates nothing."""
        result = uninstall(settings)
        assert not result.changed and not settings.parent.exists()


class TestRefusals:
    @pytest.mark.parametrize(
        ("text", "match"),
        [
            ('{\n  "a": 1,\n  "b": \n}\n', r"not valid JSON \(line 4 column 1\)"),
            ('{"a": 1,}', "not valid JSON"),
            ('\ufeff{"a": 1}', "byte-order mark"),
            ("[1, 2]", "top level is an array"),
            ('"x"', "top level is a string"),
            ('{"hooks": []}', '"hooks" is an array, expected an object'),
            ('{"hooks": {"BeforeTool": {}}}', '"hooks.BeforeTool" is an object, expected an array'),
            ('{"hooksConfig": true}', '"hooksConfig" is a boolean'),
            ('{"hookd": {"mine": 1}}', 'top-level key "hookd"'),
            ('{"a": 1, "a": 2}', "duplicate key 'a'"),
            ('{"a": NaN}', "NaN is not JSON"),
            ('{"a": 1 /* open', r"line 1 column 9\): unterminated /\* comment"),
        ],
    )
    def test_bad_file_left_alone(self, settings: Path, text: str, match: str) -> None:
        """Broken or unexpected files are refused with a one-line message naming the file."""
        settings.parent.mkdir(parents=True)
        settings.write_text(text, encoding="utf-8")
        data, mtime = settings.read_bytes(), settings.stat().st_mtime_ns
        for action in ("install", "uninstall"):
            with pytest.raises(SettingsError, match=match) as info:
                install(plan_for(settings)) if action == "install" else uninstall(settings)
            message = str(info.value)
            assert message.startswith(f"{settings}: ") and "\n" not in message
        assert settings.read_bytes() == data and settings.stat().st_mtime_ns == mtime
        assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

    def test_not_utf8(self, settings: Path) -> None:
        """Bytes that are not UTF-8 are refused."""
        settings.parent.mkdir(parents=True)
        settings.write_bytes(b'{"a": "\xff"}')
        with pytest.raises(SettingsError, match="not valid UTF-8"):
            install(plan_for(settings))

    def test_directory(self, settings: Path) -> None:
        """A directory where settings.json should be is refused."""
        settings.mkdir(parents=True)
        with pytest.raises(SettingsError, match="is a directory"):
            install(plan_for(settings))

    COMMENTED = '{\n  // my model\n  "model": {"name": "m"}, /* keep */\n  "hooks": {}\n}\n'

    def test_comments_refused_and_kept(self, settings: Path) -> None:
        """A file with comments is read but never rewritten: the comments would be lost."""
        settings.parent.mkdir(parents=True)
        settings.write_text(self.COMMENTED)
        with pytest.raises(SettingsError, match=r"contains comments \(first at line 2 column 3\)") as info:
            install(plan_for(settings))
        assert "\n" not in str(info.value)
        assert settings.read_text() == self.COMMENTED
        assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

    def test_comments_fine_when_nothing_changes(self, settings: Path) -> None:
        """Reading a commented file works: no-op install and uninstall succeed without writing."""
        install(plan_for(settings))
        installed = read(settings)
        text = "// installed by hand-copy\n" + json.dumps(installed, indent=2) + "\n"
        settings.write_text(text)
        assert not install(plan_for(settings)).changed
        with pytest.raises(SettingsError, match="contains comments"):
            uninstall(settings)
        settings.write_text(self.COMMENTED)
        assert not uninstall(settings).changed
        assert settings.read_text() == self.COMMENTED

    @pytest.mark.parametrize(
        ("commands", "timeout", "name"),
        [
            ({}, 5000, "hookd"),
            ({"PreToolUse": "x"}, 5000, "hookd"),
            ({"BeforeTool": "  "}, 5000, "hookd"),
            ({"BeforeTool": "x"}, 0, "hookd"),
            ({"BeforeTool": "x"}, 2**31, "hookd"),
            ({"BeforeTool": "x"}, True, "hookd"),
            ({"BeforeTool": "x"}, 5000, ""),
        ],
    )
    def test_bad_plan(self, settings: Path, commands: dict[str, str], timeout: int, name: str) -> None:
        """A plan with unknown events, empty commands or an out-of-range timeout is a ValueError."""
        with pytest.raises(ValueError):
            install(InstallPlan(settings, commands, timeout, name, client="gemini"))
        assert not settings.parent.exists()


class TestFiles:
    def test_backup_and_mode(self, settings: Path) -> None:
        """The previous bytes go to settings.json.hookd-backup; both files keep the original mode."""
        data = write_json(settings, {"a": 1})
        settings.chmod(0o640)
        result = install(plan_for(settings))
        backup = settings.with_name("settings.json" + BACKUP_SUFFIX)
        assert result.backup_path == backup and backup.read_bytes() == data
        assert stat.S_IMODE(settings.stat().st_mode) == 0o640
        assert stat.S_IMODE(backup.stat().st_mode) == 0o640
        installed = settings.read_bytes()
        uninstall(settings)
        assert backup.read_bytes() == installed
        assert stat.S_IMODE(settings.stat().st_mode) == 0o640

    def test_existing_dir_mode_untouched(self, settings: Path) -> None:
        """An existing .gemini dir is never chmod-ed."""
        settings.parent.mkdir(parents=True)
        settings.parent.chmod(0o700)
        install(plan_for(settings))
        assert stat.S_IMODE(settings.parent.stat().st_mode) == 0o700

    def test_no_temp_files_left(self, settings: Path) -> None:
        """After install and uninstall only the settings file and its backup remain."""
        write_json(settings, {"a": 1})
        install(plan_for(settings))
        uninstall(settings)
        assert sorted(p.name for p in settings.parent.iterdir()) == [
            "settings.json",
            "settings.json.hookd-backup",
        ]

    def test_failed_replace_leaves_file_and_no_temp(self, settings: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """If the final rename fails the original file is intact and the temp file is gone."""
        data = write_json(settings, {"a": 1})

        def boom(self: Path, target: Path) -> Path:
            raise PermissionError(13, "Permission denied", str(target))

        monkeypatch.setattr(Path, "replace", boom)
        with pytest.raises(SettingsError, match=r"cannot write .*Permission denied"):
            install(plan_for(settings))
        assert settings.read_bytes() == data
        assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]

    def test_concurrent_change_detected(self, settings: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A file changed by someone else between read and write is not overwritten."""
        write_json(settings, {"a": 1})
        real_load = inst._load

        def load_then_edit(path: Path) -> Any:
            loaded = real_load(path)
            settings.write_text('{"a": 1, "edited": "by gemini"}\n')
            return loaded

        monkeypatch.setattr(inst, "_load", load_then_edit)
        with pytest.raises(SettingsError, match="changed by another program"):
            install(plan_for(settings))
        assert read(settings) == {"a": 1, "edited": "by gemini"}
        assert not [p for p in settings.parent.iterdir() if p.name.endswith(".tmp")]


class TestClaude:
    """The Claude Code file: exec-form command hooks or http hooks, seconds, onFailure on blocking events."""

    @staticmethod
    def plan(path: Path, timeout_ms: int = 5000, http: bool = False) -> InstallPlan:
        commands = dict.fromkeys(CLAUDE_EVENTS, "/opt/hookd-shim")
        args = {e: ("claude", e, "--socket", "/run/h.sock") for e in CLAUDE_EVENTS}
        endpoint = {"url": "http://127.0.0.1:8765/v1/hooks/claude", "allowedEnvVars": ["HOOKD_HOOK_TOKEN"],
                    "headers": {"Authorization": "Bearer $HOOKD_HOOK_TOKEN"}}  # fmt: skip
        return InstallPlan(
            path, commands, timeout_ms, client="claude", args=args,
            http={e: endpoint for e in CLAUDE_EVENTS if e != "SessionStart"} if http else {},
            block_on_failure=frozenset({"PreToolUse", "UserPromptSubmit"}),
        )  # fmt: skip

    def test_command_hooks_in_exec_form_with_seconds_and_on_failure(self, tmp_path: Path) -> None:
        path = tmp_path / ".claude" / "settings.json"
        path.parent.mkdir()
        path.write_text(json.dumps({"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}}))
        install(self.plan(path, timeout_ms=4500))
        doc = json.loads(path.read_text())
        assert doc["model"] == "opus" and "hooksConfig" not in doc
        assert set(doc["hooks"]) == set(CLAUDE_EVENTS)
        pre = doc["hooks"]["PreToolUse"]
        assert pre[0] == {"matcher": "Bash", "hooks": []}  # the user's own entry stays first
        assert pre[1] == {"hooks": [{"type": "command", "name": "hookd", "command": "/opt/hookd-shim",
                                     "args": ["claude", "PreToolUse", "--socket", "/run/h.sock"], "timeout": 5,
                                     "onFailure": "block"}]}  # fmt: skip
        assert "onFailure" not in doc["hooks"]["Stop"][0]["hooks"][0]  # a block there would loop

    def test_http_hooks_keep_a_command_hook_where_claude_sends_no_http(self, tmp_path: Path) -> None:
        path = tmp_path / "settings.json"
        install(self.plan(path, http=True))
        doc = json.loads(path.read_text())
        pre = doc["hooks"]["PreToolUse"][0]["hooks"][0]
        assert pre == {"type": "http", "name": "hookd", "url": "http://127.0.0.1:8765/v1/hooks/claude",
                       "headers": {"Authorization": "Bearer $HOOKD_HOOK_TOKEN"},
                       "allowedEnvVars": ["HOOKD_HOOK_TOKEN"], "timeout": 5, "onFailure": "block"}  # fmt: skip
        assert doc["hooks"]["SessionStart"][0]["hooks"][0]["type"] == "command"

    def test_install_then_uninstall_gives_back_the_document(self, tmp_path: Path) -> None:
        path = tmp_path / "settings.json"
        original = {"permissions": {"deny": ["Read(.env)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command",
                    "command": "notify"}]}]}}  # fmt: skip
        path.write_text(json.dumps(original, indent=2) + "\n")
        assert install(self.plan(path)).changed
        assert not install(self.plan(path)).changed  # twice: nothing changes
        switched = install(self.plan(path, http=True))  # switching transport replaces in place
        assert switched.changed and "PreToolUse" in switched.added
        uninstall(path)
        assert json.loads(path.read_text()) == original

    def test_a_gemini_event_is_refused_for_claude(self, tmp_path: Path) -> None:
        plan = InstallPlan(tmp_path / "s.json", {"BeforeTool": "x"}, 5000, client="claude")
        with pytest.raises(ValueError, match="unknown claude event 'BeforeTool'"):
            install(plan)
