"""A seeded fuzzer for the hook socket: frames and payloads, mutated, sent to a real daemon.

Every case is one connection: the bytes are sent, the write side is shut (a frame cut short ends in
EOF, not in a wait for the deadline), and the whole answer is read. A case passes when the answer is a
well-formed reply (status OK) or an error frame with a known code and a one-line message, and it came
within the deadline plus a margin. A connection closed without an answer, a hang, or a daemon that
stops listening is a failure. The daemon's RSS is sampled as it goes.

Quick form: tests/integration/test_fuzz_frames.py. Full form, one command (starts its own daemon):

    .cache/venv/bin/python tests/fuzz_frames.py --cases 10000 --seed 13
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import string
import struct
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hookd import wire
from hookd.errors import FrameError

PREFIX = struct.Struct("!4sBxII")
ERROR_CODES = {"bad-magic", "bad-version", "header-too-large", "payload-too-large", "bad-header", "truncated",
               "bad-payload", "deadline", "internal"}  # fmt: skip
EVENTS = {"gemini": ["BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
                     "BeforeToolSelection", "SessionStart", "SessionEnd", "PreCompress", "Notification"],
          "claude": ["PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
                     "SubagentStop", "Notification", "SessionStart", "SessionEnd", "PreCompact"]}  # fmt: skip
TOOLS = ["run_shell_command", "write_file", "replace", "read_file", "Bash", "Write", "Edit", "Read",
         "mcp__srv__tool", "", "x" * 300]  # fmt: skip
COMMANDS = ["ls", "rm -rf /", "git push --force", "cat ~/.ssh/id_rsa", "echo $(echo $(id))", "a;b&&c||d|e",
            "cat <<EOF\nx\nEOF", "'unterminated", "rm " + "x " * 2000, "$(" * 50 + ")" * 50,
            # the pathological shapes of tests/pathological.py that stay under the caps (at a fuzzer's size)
            "find " + " ".join(f"/srv/d{i}" for i in range(250)) + " -delete", " | ".join(["curl x", "sh"] * 80),
            "echo '" + "".join(f"f{i}(){{" for i in range(2000)) + "' | a|a"]  # fmt: skip


@dataclass
class Tally:
    cases: int = 0
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    slowest_ms: float = 0.0
    rss_start_kb: int = 0
    rss_peak_kb: int = 0
    rss_end_kb: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        codes = ", ".join(f"{code} {n}" for code, n in sorted(self.errors.items()))
        return (
            f"{self.cases} cases in {self.seconds:.1f} s: {self.ok} OK replies, {sum(self.errors.values())} error "
            f"frames ({codes}), {len(self.failures)} failures; slowest answer {self.slowest_ms:.0f} ms; RSS (daemon "
            "and lane) "
            f"{self.rss_start_kb // 1024} MB at the start, {self.rss_peak_kb // 1024} MB peak, "
            f"{self.rss_end_kb // 1024} MB at the end"
        )


def rss_kb(pid: int) -> int:
    """The RSS of the daemon and its child processes together (the lane decides the large frames)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return sum(_rss_kb(p) for p in [pid, *(int(c) for c in children)])


def _rss_kb(pid: int) -> int:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:  # a child that just ended
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("VmRSS:")), 0)


# ---- generators -------------------------------------------------------------------------------------


def text(rng: random.Random) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return ""
    if kind == 1:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(1, 80)))
    if kind == 2:
        return (
            "".join(chr(rng.randrange(0x80, 0x10FFFF)) for _ in range(rng.randrange(1, 20)))
            .encode("utf-8", "surrogatepass")
            .decode("utf-8", "replace")
        )
    if kind == 3:
        return rng.choice(COMMANDS)
    if kind == 4:
        return 'NaN Infinity \u2028 \x00 "quoted" \\ back'
    return "a" * rng.choice([1, 1000, 70_000])


def value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(9 if depth < 6 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**63, -(2**70), 1.5, 1e308, 5e-324])
    if kind in (3, 4):
        return text(rng)
    if kind in (5, 6):
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {text(rng)[:20]: value(rng, depth + 1) for _ in range(rng.randrange(4))}


def payload(rng: random.Random, client: str, event: str) -> bytes:
    doc: dict[str, object] = {"session_id": text(rng)[:40], "cwd": rng.choice(["/tmp", "", "relative", "/" * 5]),
                              "hook_event_name": rng.choice([event, event, text(rng)[:20]])}  # fmt: skip
    if rng.random() < 0.7:
        doc["tool_name"] = rng.choice(TOOLS)
        doc["tool_input"] = rng.choice([
            {"command": rng.choice(COMMANDS)}, {"file_path": text(rng), "content": text(rng)}, value(rng),
        ])  # fmt: skip
    for _ in range(rng.randrange(3)):
        doc[text(rng)[:15]] = value(rng)
    raw = json.dumps(doc).encode()
    mutation = rng.randrange(12)  # 6 in 12 mutated
    if mutation == 0:  # deep nesting
        depth = rng.choice([50, 500, 5_000, 100_000])
        return raw[:-1] + b',"deep":' + b"[" * depth + b"]" * depth + b"}"
    if mutation == 1:  # non-finite numbers
        return raw[:-1] + b',"n":' + rng.choice([b"NaN", b"Infinity", b"-Infinity", b"[1,NaN]", b"1e999"]) + b"}"
    if mutation == 2:  # flipped bytes
        data = bytearray(raw)
        for _ in range(rng.randrange(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if mutation == 3:  # cut short
        return raw[: rng.randrange(len(raw))]
    if mutation == 4:  # not an object
        return rng.choice([b"[]", b"null", b"1", b'"s"', b"", b"\xff\xfe", b"{" * 10])
    if mutation == 5:  # duplicate keys, odd spacing, a BOM
        return b"\xef\xbb\xbf" + raw if rng.random() < 0.5 else raw.replace(b",", b' ,\n\t"x":1,', 3)
    return raw


def header(rng: random.Random, client: str, event: str) -> bytes:
    doc: dict[str, object] = {"client": client, "event": event, "cwd": "/tmp", "ppid": rng.randrange(1 << 16),
                              "env": {"HOME": "/root"}}  # fmt: skip
    mutation = rng.randrange(20)  # 6 in 20 mutated
    if mutation == 0:
        del doc[rng.choice(["client", "event"])]
    elif mutation == 1:
        doc[rng.choice(["client", "event", "cwd", "ppid", "env"])] = value(rng)
    elif mutation == 2:
        doc["env"] = {f"K{i}": "v" for i in range(rng.choice([64, 65, 1000]))}
    elif mutation == 3:
        depth = rng.choice([100, 10_000, 30_000])
        return b"[" * depth + b"]" * depth
    elif mutation == 4:
        return json.dumps(doc).encode()[:-1] + b',"ppid":NaN}'
    elif mutation == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    return json.dumps(doc).encode()


def frame(rng: random.Random) -> bytes:
    client = rng.choice(["gemini"] * 5 + ["claude"] * 5 + ["vim", ""])
    event = rng.choice(EVENTS.get(client, ["BeforeTool"]))
    head, body = header(rng, client, event), payload(rng, client, event)
    mutation = rng.randrange(24)  # 7 in 24 mutated
    if mutation == 0:  # a prefix that lies about the lengths
        return PREFIX.pack(b"HKDQ", 1, rng.randrange(1 << 32), rng.randrange(1 << 32)) + head + body
    if mutation == 1:
        return PREFIX.pack(b"HKDQ", 1, len(head) + rng.randrange(1, 50), len(body)) + head + body
    if mutation == 2:
        return PREFIX.pack(rng.choice([b"HKDR", b"GET ", b"\0\0\0\0"]), 1, len(head), len(body)) + head + body
    if mutation == 3:
        return PREFIX.pack(b"HKDQ", rng.randrange(256), len(head), len(body)) + head + body
    if mutation == 4:  # cut anywhere
        whole = PREFIX.pack(b"HKDQ", 1, len(head), len(body)) + head + body
        return whole[: rng.randrange(len(whole))]
    if mutation == 5:  # noise
        return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
    if mutation == 6:  # trailing bytes after a whole frame
        return PREFIX.pack(b"HKDQ", 1, len(head), len(body)) + head + body + b"more"
    return PREFIX.pack(b"HKDQ", 1, len(head), len(body)) + head + body


# ---- running ----------------------------------------------------------------------------------------


def exchange(path: Path, data: bytes, timeout: float) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused from the prefix: the answer is already there
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            # The daemon answered from the prefix and closed with our bytes unread: the kernel reports the
            # reset once the answer has been read (the shims read exactly the reply and never see it).
            if not chunks:
                raise
    return b"".join(chunks)


def judge(answer: bytes) -> str:
    """'ok', 'error:<code>', or why the answer is not acceptable."""
    try:
        reply = wire.decode_reply(answer)
    except FrameError as exc:
        return f"not a reply ({exc}): {answer[:80]!r}"
    if reply.status == wire.Status.OK:
        if reply.stdout:
            try:
                json.loads(reply.stdout, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
            except ValueError as exc:
                return f"OK reply whose stdout is not strict JSON ({exc}): {reply.stdout[:80]!r}"
        return "ok"
    code = reply.stderr.decode("ascii", "replace")
    message = reply.stdout.decode("utf-8", "replace")
    if code not in ERROR_CODES or not message or "\n" in message:
        return f"unclear error frame: {code!r} {message[:80]!r}"
    return f"error:{code}"


def run(socket_path: Path, pid: int, cases: int, seed: int, deadline_s: float,
        progress: Callable[[int], None] | None = None) -> Tally:  # fmt: skip
    rng = random.Random(seed)
    tally = Tally(rss_start_kb=rss_kb(pid))
    tally.rss_peak_kb = tally.rss_start_kb
    started = time.monotonic()
    for n in range(cases):
        data = frame(rng)
        began = time.monotonic()
        try:
            verdict = judge(exchange(socket_path, data, deadline_s + 5))
        except TimeoutError:
            verdict = "hang: no answer within the deadline + 5 s"
        except OSError as exc:
            verdict = f"connection failed: {exc}"
        tally.slowest_ms = max(tally.slowest_ms, (time.monotonic() - began) * 1000)
        tally.cases += 1
        if verdict == "ok":
            tally.ok += 1
        elif verdict.startswith("error:"):
            tally.errors[verdict[6:]] += 1
        else:
            tally.failures.append(f"case {n} (seed {seed}): {verdict}")
            if verdict.startswith("connection failed"):
                break  # the daemon is gone: every case after this would fail the same way
        if n % 50 == 0:
            tally.rss_peak_kb = max(tally.rss_peak_kb, rss_kb(pid))
            if progress:
                progress(n)
    tally.seconds = time.monotonic() - started
    tally.rss_end_kb = rss_kb(pid)
    tally.rss_peak_kb = max(tally.rss_peak_kb, tally.rss_end_kb)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description="fuzz a real hookd daemon's hook socket")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from support import start_daemon

    with tempfile.TemporaryDirectory(prefix="hkdfuzz") as tmp:
        daemon = start_daemon(Path(tmp))
        try:
            tally = run(daemon.socket, daemon.proc.pid, args.cases, args.seed, 2.5)
            alive = daemon.proc.poll() is None
        finally:
            daemon.stop()
    print(tally.summary() + ("" if alive else "; THE DAEMON DIED"))
    for failure in tally.failures[:20]:
        print(failure)
    return 0 if alive and not tally.failures else 1


if __name__ == "__main__":
    sys.exit(main())
