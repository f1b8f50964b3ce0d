"""A seeded fuzzer for the hook socket: frames and payloads, mutated, sent to a real daemon.

Every case is one connection: the bytes are sent, the write side is shut (a frame cut short ends in
EOF, not in a wait for the deadline), and the whole answer is read. A case passes when the answer is a
well-formed reply (status OK) or an error frame with a known code and a one-line message, and it came
within the deadline plus a margin. A connection closed without an answer, a hang, or a daemon that
stops listening is a failure. The daemon's RSS is sampled as it goes.

Quick form: tests/integration/test_fuzz_frames.py. Full form, one command (starts its own daemon with the
shipped policies; the seeds run in turn against it):

    .cache/venv/bin/python tests/fuzz_frames.py --cases 20000 --seed 1 2 7 13 29
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


# Unicode that native code or a strict reader may not take (regorus segfaulted on a lone surrogate), and
# text that reads differently than it looks: each is a string json.dumps writes as an escape or as UTF-8.
UNICODE_EDGES = [
    "\ud83d", "\ude00", "\ude00\ud83d", "\ud83d\ude00", "\U0001f600", "\U0001f469\u200d\U0001f4bb",  # surrogates
    "\U00010000", "\U0010fffd", "\U000e0001", "\U0001d573",  # astral planes, a tag character
    "\ufeff", "\x00", "\u202e", "\u200f", "\u2066", "\u2069", "\u061c",  # BOM, NUL, bidi controls
    "e\u0301", "a" + "\u0300\u0301\u0302\u0303" * 50, "\u0345",  # combining characters, a deep stack of them
    "\uffff", "\ufffe", "\ufdd0", "\U0010ffff", "\U0001fffe",  # non-characters
    "\u2028", "\u2029", "\u0085", "\x7f", "\x1b[2J",  # line separators, DEL, an escape sequence
    "\u0130", "\u212a", "\uff0f", "\u2215", "\u00a0", "\u3000",  # case folds, look-alike slashes, spaces
]  # fmt: skip
# Bytes that are not UTF-8 placed inside a JSON string: overlong forms, encoded surrogates, past U+10FFFF,
# a sequence cut short, bytes that never start one.
BAD_UTF8 = [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xed\xa0\xbd", b"\xed\xb8\x80",
            b"\xed\xa0\xbd\xed\xb8\x80", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xff", b"\xfe",
            b"\xe2\x82", b"\x80", b"\xc3"]  # fmt: skip


def unicode_text(rng: random.Random) -> str:
    """A string built from the edge cases above and plain text; sometimes over the lane's 32 KiB."""
    parts = [rng.choice(UNICODE_EDGES) if rng.random() < 0.6 else rng.choice(["/tmp/", "rm -rf ~", "a", "é"])
             for _ in range(rng.randrange(1, 12))]  # fmt: skip
    if rng.random() < 0.1:
        parts.append("x" * 40_000)
    rng.shuffle(parts)
    return "".join(parts)


def text(rng: random.Random) -> str:
    kind = rng.randrange(8)
    if kind >= 6:
        return unicode_text(rng)
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
    # json.dumps writes every non-ASCII character as an escape (a surrogate pair above the BMP); agents write UTF-8
    raw = json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
    mutation = rng.randrange(14)  # 8 in 14 mutated
    if mutation == 12:  # bytes that are not UTF-8 inside a string
        at = raw.find(b'": "') + 4
        return raw[:at] + rng.choice(BAD_UTF8) + raw[at:] if at >= 4 else raw + rng.choice(BAD_UTF8)
    if mutation == 13:  # an escape made by hand: upper-case hex, a surrogate split from its pair, NUL
        escape = rng.choice([b"\\uD83D", b"\\udbff\\udfff", b"\\uDFFF\\uDBFF", b"\\u0000", b"\\uFEFF", b"\\ud800x"])
        return raw[:-1] + b',"' + escape + b'":"' + escape + b'"}'
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
    mutation = rng.randrange(20)  # 7 in 20 mutated
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
    elif mutation == 6:
        doc[rng.choice(["cwd", "client", "event"])] = unicode_text(rng)[:200]
        doc["env"] = {unicode_text(rng)[:20]: unicode_text(rng)[:200]}
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


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


def children_exited(log: str) -> list[str]:
    """The daemon's log lines saying a worker or the lane exited (a crash the hook socket does not show: the
    daemon starts it again)."""
    return [line for line in log.splitlines() if '_exited"' in line]


def main() -> int:
    parser = argparse.ArgumentParser(description="fuzz a real hookd daemon's hook socket")
    parser.add_argument("--cases", type=int, default=10_000, help="cases for each seed")
    parser.add_argument("--seed", type=int, nargs="+", default=[13], help="one or more seeds, run in turn")
    parser.add_argument("--policies", type=Path, default=Path(__file__).parents[1] / "policies",
                        help="the policy directory the daemon serves (default: the shipped policies)")  # fmt: skip
    parser.add_argument("--config", default="", help="the daemon's config, as TOML text")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from support import start_daemon

    failed = False
    with tempfile.TemporaryDirectory(prefix="hkdfuzz") as tmp:
        daemon = start_daemon(Path(tmp), args.policies, args.config)
        try:
            for seed in args.seed:
                tally = run(daemon.socket, daemon.proc.pid, args.cases, seed, 2.5)
                alive = daemon.proc.poll() is None
                exited = children_exited(daemon.log())
                print(f"seed {seed}: " + tally.summary() + ("" if alive else "; THE DAEMON DIED")
                      + (f"; {len(exited)} child processes exited" if exited else ""), flush=True)  # fmt: skip
                for line in [*tally.failures[:20], *exited[:5]]:
                    print(line)
                failed = failed or not alive or bool(tally.failures) or bool(exited)
                if not alive:
                    break
        finally:
            daemon.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
