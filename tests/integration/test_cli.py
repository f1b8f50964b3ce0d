"""The `hookd` command line, run as a user runs it: eval, test, install, uninstall."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import DEMO_POLICIES, ROOT, SHIM, gemini_payload, require

HOOKD = [sys.executable, "-m", "hookd"]
DECISION_ID = re.compile(r"^id:       ([0-9a-f]{16}) ")


def hookd(
    *args: str, stdin: bytes = b"", env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "HOOKD_CONFIG": "", **(env or {})}
    done = subprocess.run([*HOOKD, *args], input=stdin, capture_output=True, timeout=timeout, env=full_env, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def write_payload(name: str) -> bytes:
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": "x"})
    return json.dumps(payload).encode()


class TestEval:
    def test_shows_decision_exact_bytes_and_verdicts(self) -> None:
        result = hookd("eval", "--policies", str(DEMO_POLICIES), stdin=write_payload("secret.txt"))
        assert result.returncode == 0, result.stderr
        decision_id = DECISION_ID.search(result.stdout.splitlines()[-1])
        assert decision_id, result.stdout
        assert result.stdout.splitlines() == [
            "decision: deny",
            'stdout:   {"decision":"deny","reason":"writing secret.txt is not allowed [hookd.demo:no-secret] '
            f'(decision {decision_id[1]})"}}',
            "exit:     0",
            "verdicts:",
            "  deny     hookd.demo:no-secret  writing secret.txt is not allowed",
            f"id:       {decision_id[1]} (a dry run: not in the decision log)",
        ]

    def test_json_output(self) -> None:
        result = hookd("eval", "--json", "--policies", str(DEMO_POLICIES), stdin=write_payload("shout.txt"))
        out = json.loads(result.stdout)
        assert out["decision"] == "rewrite"
        assert json.loads(out["stdout"])["hookSpecificOutput"]["tool_input"] == {
            "file_path": "shout.txt",
            "content": "X",
        }
        assert out["verdicts"] == [
            {
                "kind": "rewrite",
                "policy": "hookd.demo",
                "rule": "shout",
                "message": "",
                "patch": {"tool_input": {"content": "X"}},
            }
        ]

    def test_ask_is_kept_only_for_an_interactive_session(self) -> None:
        headless = json.loads(
            hookd("eval", "--json", "--policies", str(DEMO_POLICIES), stdin=write_payload("ask-me.txt")).stdout
        )
        assert headless["decision"] == "deny"
        assert "ask fallback applied: deny (the agent session is headless)" in headless["notes"]
        interactive = hookd(
            "eval",
            "--json",
            "--interactive",
            "--policies",
            str(DEMO_POLICIES),
            stdin=write_payload("ask-me.txt"),
        )
        out = json.loads(interactive.stdout)
        assert json.loads(out["stdout"]) == {
            "decision": "ask",
            "systemMessage": f"please confirm ask-me.txt [hookd.demo:ask-me] (decision {out['decision_id']})",
        }

    @pytest.mark.parametrize(
        ("stdin", "args", "message"),
        [
            (b"{nope", (), "hookd: stdin is not valid JSON"),
            (b'{"tool_name": "x"}', (), "hookd: the payload has no hook_event_name: pass --event"),
            (
                b'{"tool_name": 1, "tool_input": {}}',
                ("--event", "BeforeTool"),
                "hookd: BeforeTool payload has no tool_name",
            ),
        ],
    )
    def test_bad_input_is_one_clear_line(self, stdin: bytes, args: tuple[str, ...], message: str) -> None:
        result = hookd("eval", "--policies", str(DEMO_POLICIES), *args, stdin=stdin)
        assert result.returncode == 2
        assert result.stdout == ""
        assert len(result.stderr.strip().splitlines()) == 1
        assert result.stderr.startswith(message)

    def test_engine_error_fails_closed(self, tmp_path: Path) -> None:
        (tmp_path / "p.rego").write_text("package hookd.p\ndeny contains x if x := 1 / (count(input.tool.input) - 2)\n")
        out = json.loads(hookd("eval", "--json", "--policies", str(tmp_path), stdin=write_payload("a.txt")).stdout)
        assert out["decision"] == "deny"
        assert out["verdicts"][0]["rule"] == "engine-error"
        assert json.loads(out["stdout"])["reason"].startswith("hookd could not evaluate its policies")


class TestPolicyTests:
    # the whole corpus's verdicts: tests/integration/test_corpus_verdicts.py, in parts on separate workers
    def test_default_policies_pass_under_the_real_opa(self) -> None:
        opa = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
        require(bool(opa) and Path(opa).is_file(), "opa v1.22.4 (HOOKD_OPA_BIN)")
        done = subprocess.run([opa, "test", str(ROOT / "policies")], capture_output=True, timeout=120, check=False)
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
        check = subprocess.run(
            [opa, "check", "--strict", str(ROOT / "policies")], capture_output=True, timeout=120, check=False
        )
        assert check.returncode == 0, check.stdout.decode() + check.stderr.decode()
        unformatted = subprocess.run(
            [opa, "fmt", "--list", str(ROOT / "policies")], capture_output=True, timeout=120, check=False
        )
        assert unformatted.returncode == 0 and not unformatted.stdout.strip(), unformatted.stdout.decode()

    def test_failures_are_named_and_set_the_exit_code(self, tmp_path: Path) -> None:
        (tmp_path / "p.rego").write_text('package hookd.p\ndeny contains "no" if input.tool.input.file_path == "x"\n')
        (tmp_path / "p_test.rego").write_text(
            "package hookd.p\n"
            'test_ok if { count(deny) == 1 with input as {"tool": {"input": {"file_path": "x"}}} }\n'
            'test_wrong if { count(deny) == 2 with input as {"tool": {"input": {"file_path": "x"}}} }\n'
            "test_error if { 1 / 0 }\n"
            "todo_test_later if { false }\n"
        )
        cases = tmp_path / "cases"
        cases.mkdir()
        (cases / "c.json").write_text(json.dumps([
            {"name": "denied", "payload": json.loads(write_payload("x")),
             "expect": {"outcome": "deny", "rules": ["hookd.p:deny"]}},
            {"name": "wrong", "payload": json.loads(write_payload("x")), "expect": {"outcome": "allow"}},
        ]))  # fmt: skip
        result = hookd("test", str(tmp_path))
        assert result.returncode == 1
        lines = result.stdout.splitlines()
        assert lines[-1] == "2 passed, 3 failed"
        assert "FAIL  data.hookd.p.test_wrong: undefined" in lines
        assert any(line.startswith("ERROR data.hookd.p.test_error") for line in lines)
        assert any(line.startswith("FAIL  c.json#1 wrong: outcome deny, expected allow") for line in lines)


class TestInstall:
    def test_install_registers_all_events_and_uninstall_restores(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True)
        original = {
            "theme": "dark",
            "hooks": {"BeforeTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "true"}]}]},
        }
        settings.write_text(json.dumps(original))
        env = {"HOME": str(home), "XDG_RUNTIME_DIR": "/run/user/4242"}
        first = hookd("install", "--client", "gemini", "--scope", "user", "--shim", "python", "--all-events", env=env)
        assert first.returncode == 0, first.stderr
        data = json.loads(settings.read_text())
        assert data["theme"] == "dark"
        assert data["hooksConfig"]["enabled"] is True
        assert len(data["hooks"]) == 11
        assert data["hooks"]["BeforeTool"][0] == original["hooks"]["BeforeTool"][0]
        hook = data["hooks"]["BeforeTool"][1]["hooks"][0]
        python = os.path.realpath(sys.executable)
        assert hook["command"] == (
            f"{python} -I -S {SHIM} gemini BeforeTool --socket /run/user/4242/hookd/hook.sock --deadline-ms 4000"
        )
        assert Path(hook["command"].split()[0]).is_absolute()
        assert hook["timeout"] == 5000
        assert hookd("install", "--shim", "python", "--all-events", env=env).stdout.startswith(
            "hookd is already installed"
        )
        assert hookd("uninstall", env=env).returncode == 0
        assert json.loads(settings.read_text()) == original

    def test_project_scope_and_fail_mode_from_config(self, tmp_path: Path) -> None:
        project = tmp_path / "proj"
        project.mkdir()
        config = tmp_path / "c.toml"
        config.write_text('[fail_mode]\nBeforeTool = "open"\n')
        result = hookd("--config", str(config), "install", "--scope", "project", "--project-dir", str(project),
                       env={"HOME": str(tmp_path)})  # fmt: skip
        assert result.returncode == 0, result.stderr
        data = json.loads((project / ".gemini" / "settings.json").read_text())
        assert data["hooks"]["BeforeTool"][0]["hooks"][0]["command"].endswith("--fail open")
        assert not data["hooks"]["AfterTool"][0]["hooks"][0]["command"].endswith("--fail open")

    def test_claude_install_writes_exec_form_hooks_and_uninstall_restores(self, tmp_path: Path) -> None:
        home = tmp_path / "home"
        settings = home / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True)
        original = {"permissions": {"allow": ["Bash(ls:*)"]}}
        settings.write_text(json.dumps(original))
        config = tmp_path / "c.toml"
        config.write_text('[fail_mode]\nBeforeAgent = "open"\n')
        env = {"HOME": str(home), "XDG_RUNTIME_DIR": "/run/user/4242"}
        result = hookd("--config", str(config), "install", "--client", "claude", "--shim", "python", "--all-events",
                       env=env)  # fmt: skip
        assert result.returncode == 0, result.stderr
        data = json.loads(settings.read_text())
        assert data["permissions"] == original["permissions"] and "hooksConfig" not in data
        pre = data["hooks"]["PreToolUse"][0]["hooks"][0]
        assert pre["command"] == os.path.realpath(sys.executable)
        assert pre["args"] == ["-I", "-S", str(SHIM), "claude", "PreToolUse", "--socket",
                               "/run/user/4242/hookd/hook.sock", "--deadline-ms", "4000"]  # fmt: skip
        assert (pre["timeout"], pre["onFailure"]) == (5, "block")
        prompt = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]
        assert prompt["args"][-2:] == ["--fail", "open"] and "onFailure" not in prompt  # the config said open
        assert "onFailure" not in data["hooks"]["Stop"][0]["hooks"][0]
        assert hookd("uninstall", "--client", "claude", env=env).returncode == 0
        assert json.loads(settings.read_text()) == original

    def test_claude_http_install_prints_how_to_pass_the_token(self, tmp_path: Path) -> None:
        env = {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
        result = hookd("install", "--client", "claude", "--transport", "http", "--scope", "local",
                       "--project-dir", str(tmp_path), "--shim", "python", env=env)  # fmt: skip
        assert result.returncode == 0, result.stderr
        token = tmp_path / "state" / "hookd" / "http-token"
        assert f'export HOOKD_HOOK_TOKEN="$(cat {token})"' in result.stdout
        assert "[http] enabled = true" in result.stderr  # the endpoint is off in this config
        data = json.loads((tmp_path / ".claude" / "settings.local.json").read_text())
        pre = data["hooks"]["PreToolUse"][0]["hooks"][0]
        assert (pre["type"], pre["url"], pre["allowedEnvVars"]) == (
            "http", "http://127.0.0.1:8765/v1/hooks/claude", ["HOOKD_HOOK_TOKEN"])  # fmt: skip
        assert data["hooks"]["SessionStart"][0]["hooks"][0]["type"] == "command"

    def test_http_transport_is_refused_for_gemini(self, tmp_path: Path) -> None:
        result = hookd("install", "--client", "gemini", "--transport", "http", env={"HOME": str(tmp_path)})
        assert result.returncode != 0
        assert "--transport http is not available for Gemini CLI" in result.stderr

    def test_unparsable_settings_are_refused_and_kept(self, tmp_path: Path) -> None:
        settings = tmp_path / ".gemini" / "settings.json"
        settings.parent.mkdir()
        settings.write_text('{"theme": "dark",, }')
        result = hookd("install", env={"HOME": str(tmp_path)})
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1
        assert "not valid JSON" in result.stderr
        assert settings.read_text() == '{"theme": "dark",, }'


def fake_native_shim(data_home: Path) -> Path:
    """What `hookd shim build` leaves in the data directory (install only needs it to be executable)."""
    binary = data_home / "hookd" / "bin" / "hookd-shim"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\nexit 0\n")
    binary.chmod(0o755)
    return binary


class TestNativeShim:
    def env(self, tmp_path: Path) -> dict[str, str]:
        (tmp_path / "home").mkdir(exist_ok=True)
        return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
                "XDG_RUNTIME_DIR": "/run/user/4242"}  # fmt: skip

    def command(self, tmp_path: Path, event: str = "BeforeTool") -> str:
        data = json.loads((tmp_path / "home" / ".gemini" / "settings.json").read_text())
        return str(data["hooks"][event][0]["hooks"][0]["command"])

    def test_install_native_registers_the_binary(self, tmp_path: Path) -> None:
        binary = fake_native_shim(tmp_path / "data")
        result = hookd("install", "--shim", "native", "--all-events", env=self.env(tmp_path))
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        assert self.command(tmp_path) == (
            f"{binary} gemini BeforeTool --socket /run/user/4242/hookd/hook.sock --deadline-ms 4000"
        )
        assert self.command(tmp_path, "AfterAgent").startswith(f"{binary} gemini AfterAgent --socket ")

    def test_install_native_without_the_binary_is_refused(self, tmp_path: Path) -> None:
        result = hookd("install", "--shim", "native", env=self.env(tmp_path))
        assert result.returncode == 2
        assert result.stderr.strip().splitlines() == [
            f"hookd: the native shim is not built ({tmp_path / 'data'}/hookd/bin/hookd-shim is missing): "
            "run `hookd shim build` first"
        ]
        assert not (tmp_path / "home" / ".gemini" / "settings.json").exists()

    def test_auto_picks_native_when_built_else_says_it_fell_back(self, tmp_path: Path) -> None:
        fallback = hookd("install", "--all-events", env=self.env(tmp_path))
        assert fallback.returncode == 0, fallback.stderr
        assert len(fallback.stderr.strip().splitlines()) == 1
        assert "the Python shim is installed" in fallback.stderr
        assert "`hookd shim build`" in fallback.stderr
        assert f" -I -S {SHIM} gemini BeforeTool " in self.command(tmp_path)
        binary = fake_native_shim(tmp_path / "data")
        native = hookd("install", "--all-events", env=self.env(tmp_path))
        assert (native.returncode, native.stderr) == (0, "")
        assert native.stdout.startswith("installed hookd for 11 events")  # python → native, in place
        assert self.command(tmp_path).startswith(f"{binary} gemini BeforeTool ")
        python = hookd("install", "--shim", "python", env=self.env(tmp_path))
        assert (python.returncode, python.stderr) == (0, "")
        assert f" -I -S {SHIM} gemini BeforeTool " in self.command(tmp_path)

    def test_build_and_path(self, tmp_path: Path) -> None:
        require(shutil.which("cc") is not None, "a C compiler (cc)")
        env = self.env(tmp_path)
        where = tmp_path / "data" / "hookd" / "bin" / "hookd-shim"
        missing = hookd("shim", "path", env=env)
        assert (missing.returncode, missing.stdout) == (1, f"{where}\n")
        built = hookd("shim", "build", env=env)
        assert built.returncode == 0, built.stderr
        shim_line, quiet_line = built.stdout.splitlines()
        assert shim_line.startswith(f"built the native shim: {where} (")
        assert quiet_line.startswith(f"built the native quiet chunk: {where.with_name('libhookd-quiet.so')} (")
        assert sorted(os.listdir(where.parent)) == ["hookd-shim", "libhookd-quiet.so"]  # no temporary left behind
        assert where.parent.stat().st_mode & 0o777 == 0o700  # the library is loaded only from a directory of one's own
        assert os.access(where, os.X_OK)
        assert (hookd("shim", "path", env=env).returncode, hookd("shim", "path", env=env).stdout) == (0, f"{where}\n")
        usage = subprocess.run([str(where)], capture_output=True, check=False)
        assert usage.returncode == 1
        assert usage.stderr.startswith(b"usage: hookd-shim CLIENT EVENT")
        out = tmp_path / "elsewhere"
        again = hookd("shim", "build", "--out", str(out), env=env)
        assert again.returncode == 0, again.stderr
        assert os.access(out / "hookd-shim", os.X_OK)

    def test_build_without_a_compiler_says_so(self, tmp_path: Path) -> None:
        env = {**self.env(tmp_path), "PATH": str(tmp_path / "empty"), "CC": ""}
        result = hookd("shim", "build", env=env)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr.strip().splitlines() == [
            "hookd: no C compiler found (tried cc, gcc, clang): install one (cc, gcc or clang) or pass --cc"
        ]
        named = hookd("shim", "build", "--cc", "/nonexistent/cc", env=self.env(tmp_path))
        assert named.returncode == 1
        assert named.stderr.strip().splitlines() == [
            "hookd: no C compiler '/nonexistent/cc' found: pass --cc a compiler on PATH or a path to one"
        ]
        assert not (tmp_path / "data").exists()

    def test_a_failed_compile_is_one_line_and_leaves_nothing(self, tmp_path: Path) -> None:
        require(shutil.which("cc") is not None, "a C compiler (cc)")
        out = tmp_path / "bin"
        result = hookd("shim", "build", "--cc", "cc -include /nonexistent/broken.h", "--out", str(out))
        assert result.returncode == 1
        [line] = result.stderr.strip().splitlines()
        assert line.startswith("hookd: compiling the native shim with ")
        assert "/nonexistent/broken.h" in line
        assert os.listdir(out) == []


class TestBench:
    def test_hands_every_argument_to_the_bench_runner(self) -> None:
        result = hookd("bench", "--help")
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("usage: run.py"), result.stdout
        assert "--compare" in result.stdout

    def test_other_commands_still_refuse_unknown_arguments(self) -> None:
        result = hookd("test", "--bogus")
        assert result.returncode == 2
        assert "unrecognized arguments: --bogus" in result.stderr
