"""The differential harness: the same normalised inputs decided by the embedded engine (regorus, in
process) and by the real OPA server (RegoOpaEngine), over the default policies plus the built-in-heavy
policies in tests/differential/policies. Inputs are Gemini hook payloads drawn by hypothesis, then parsed
and enriched exactly as the daemon does, so the policies see what they see in production."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from hookd.assembly import enrichers
from hookd.dialects.gemini import GeminiDialect
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.opa import RegoOpaEngine
from hookd.errors import EngineError
from hookd.types import Caller, Deadline, EngineRequest, HookRequest, Verdict, settled

ROOT = Path(__file__).resolve().parents[2]
EXTRA_POLICIES = Path(__file__).resolve().parent / "policies"
PROJECT = "/tmp/hkd-diff/project"
HOME = "/home/agent"

_ENRICHERS = enrichers()

Outcome = tuple[str, ...]  # the sorted canonical verdicts, or ("error",)


def combined_policy_dir(target: Path) -> Path:
    """The default policies and the extra ones in one directory, without their tests and case files."""
    ignore = shutil.ignore_patterns("*_test.rego", "cases", "README.md")
    shutil.copytree(ROOT / "policies", target, ignore=ignore)
    shutil.copytree(EXTRA_POLICIES, target / "diff", ignore=ignore)
    return target


def canonical(verdicts: Sequence[Verdict]) -> Outcome:
    return tuple(sorted(json.dumps(v.as_json(), sort_keys=True, ensure_ascii=False) for v in verdicts))


@dataclass
class Pair:
    embedded: RegoEmbeddedEngine
    remote: RegoOpaEngine
    runner: asyncio.Runner

    def embedded_outcome(self, document: dict[str, Any]) -> Outcome:
        try:
            return canonical(self.embedded.evaluate_sync(document))
        except EngineError:
            return ("error",)

    def opa_outcome(self, document: dict[str, Any]) -> Outcome:
        request = EngineRequest(None, document, Deadline.after(120))  # type: ignore[arg-type]
        try:
            return canonical(self.runner.run(settled(self.remote.evaluate(request))))
        except EngineError as exc:
            if "answered HTTP 500" in str(exc):  # an evaluation error (a conflict, a strict built-in)
                return ("error",)
            raise


def document_of(payload: dict[str, Any]) -> dict[str, Any]:
    request = HookRequest(
        client="gemini",
        event=str(payload["hook_event_name"]),
        payload=json.dumps(payload).encode(),
        env={"GEMINI_PROJECT_DIR": PROJECT, "HOME": HOME},
        cwd=PROJECT,
        caller=Caller(uid=1000, gid=1000, pid=1),
        deadline=Deadline.after(10),
    )
    event = GeminiDialect().parse(request)
    for enrich in _ENRICHERS:
        event = enrich(event)
    return event.input_document()


# ------------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------------

PROGRAMS = [
    "rm", "git", "ls", "cat", "curl", "wget", "sudo", "dd", "chmod", "chown", "echo", "python3", "bash", "sh",
    "npm", "mv", "cp", "scp", "tar", "base64", "grep", "kill", "shutdown", "mkfs.ext4", "find", "xargs", "env",
    "head", "less", "rsync", "doas", "eval", "ssh", "jq", "openssl",
]  # fmt: skip
WORDS = [
    "-rf", "-r", "-f", "-fdx", "-n", "/", "~", "~/", "$HOME", "${HOME}", "$(pwd)", "build", "./src", "src/a.py",
    "/etc/passwd", "/etc/shadow", "~/.ssh/id_rsa", "~/.ssh/id_rsa.pub", "~/.aws/credentials", ".env",
    ".env.example", "prod.env", ".env*", "id_*", "*.pem", "push", "--force", "-f", "origin", "main", "release/1",
    "reset", "--hard", "clean", "checkout", "--", ".", "https://get.example.sh", "http://10.0.0.1/x", "of=/dev/sda",
    "if=/dev/zero", "a=1", "x=42", "key=", "-d", "@.env", "-F", "f=@id_rsa", "ünïcödé", "日本語", "Ωmega", "''", "-9",
    "-1", "777", "/usr/bin", "/boot", "..", "../..", "/tmp/x", "now", "-c", "'rm -rf /'",
]  # fmt: skip
OPERATORS = [" && ", " || ", "; ", " | ", " > out.txt", " < .env", " 2>&1", " &"]
PATHS = [
    f"{PROJECT}/src/main.py", f"{PROJECT}/.env", f"{PROJECT}/.env.local", f"{PROJECT}/.env.example", "src/a.py",
    f"{HOME}/.ssh/id_ed25519", f"{HOME}/.ssh/known_hosts", f"{HOME}/.aws/credentials", f"{HOME}/.netrc",
    "/etc/shadow", "/etc/hosts", "../../etc/passwd", "secret.txt", "a/b/../c.txt", "key.pem", "server.key",
    f"{HOME}/.config/gcloud/creds.json", "/usr/bin/python3", "/boot/grub.cfg", "notes/日本語.md", "",
]  # fmt: skip
SIZES = ["10", "1.5K", "1K", "10KB", "3KiB", "2M", "2MB", "7Mi", "1G", "1GiB", "5gb", "12mb", "512kb", "0"]
IPS = ["10.1.2.3", "10.255.255.254", "127.0.0.1", "192.168.1.20", "172.16.5.4", "8.8.8.8", "0.0.0.0", "1.2.3"]

texty = st.text(alphabet=st.sampled_from(list("abcrm -/._=~$@*0123456789ÄéΩ日<>&\\\"'")), max_size=24)
word = st.one_of(st.sampled_from(WORDS), st.sampled_from(PATHS), texty)
simple_command = st.builds(
    lambda program, args: " ".join([program, *args]), st.sampled_from(PROGRAMS), st.lists(word, max_size=4)
)


@st.composite
def shell_line(draw: st.DrawFn) -> str:
    parts = [draw(simple_command)]
    for _ in range(draw(st.integers(0, 2))):
        parts.append(draw(st.sampled_from(OPERATORS)))
        parts.append(draw(simple_command))
    line = "".join(parts)
    return draw(st.sampled_from([line, f"sudo {line}", f"bash -c '{line}'", line]))


rfc3339 = st.datetimes(
    min_value=__import__("datetime").datetime(1970, 1, 2), max_value=__import__("datetime").datetime(2199, 12, 30)
).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S") + draw_fraction(d.microsecond) + "Z")


def draw_fraction(microsecond: int) -> str:
    return "" if microsecond % 3 == 0 else f".{microsecond:06d}"


probes = st.fixed_dictionaries(
    {},
    optional={
        "when": st.one_of(
            rfc3339, st.sampled_from(["yesterday", "2024-01-01T00:00:00+02:00", "2024-01-01T00:00:00.5-07:30"])
        ),
        "size": st.sampled_from(SIZES),
        "ip": st.sampled_from(IPS),
    },
)


def before_tool(tool: str, tool_input: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**base_payload("BeforeTool"), "tool_name": tool, "tool_input": {**tool_input, **extra}}


def base_payload(event: str) -> dict[str, Any]:
    return {
        "session_id": "diff",
        "transcript_path": "",
        "cwd": PROJECT,
        "hook_event_name": event,
        "timestamp": "2026-12-02T00:00:00.000Z",
    }


payloads = st.one_of(
    st.builds(lambda c, x: before_tool("run_shell_command", {"command": c}, x), shell_line(), probes),
    st.builds(
        lambda p, c, x: before_tool("write_file", {"file_path": p, "content": c}, x),
        st.sampled_from(PATHS),
        texty,
        probes,
    ),
    st.builds(
        lambda p, x: before_tool("read_file", {"file_path": p}, x), st.one_of(st.sampled_from(PATHS), texty), probes
    ),
    st.builds(
        lambda p, o, n: before_tool("replace", {"file_path": p, "old_string": o, "new_string": n}, {}),
        st.sampled_from(PATHS),
        texty,
        texty,
    ),
    st.builds(lambda u: before_tool("web_fetch", {"prompt": f"summarise {u}"}, {}), st.sampled_from(WORDS)),
    st.builds(lambda p: {**base_payload("BeforeAgent"), "prompt": p}, st.one_of(texty, shell_line())),
)
