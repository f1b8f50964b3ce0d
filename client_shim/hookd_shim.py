"""hookd's Python shim: the command an agent runs for each hook event.

Run as `<absolute python> -I -S hookd_shim.py CLIENT EVENT [--socket PATH] [--deadline-ms N]
[--fail closed|open]`. It reads the hook payload from stdin to EOF, sends it to the hookd daemon
over its Unix socket (protocol: docs/protocol.md) and writes back exactly the daemon's stdout,
stderr and exit code. When anything goes wrong (no daemon, refused, past the deadline, a truncated
or malformed reply, an error reply) it applies the event's fail mode: closed prints the event's deny
JSON with a one-line reason, open prints nothing.

Standard library only, and only the cheap parts of it (no json, socket, argparse): this process is
started for every hook call, so its start-up is the cost of the hook path.
"""

import _socket
import os
import select
import struct
import sys
import time

VERSION = 1
REQUEST = struct.Struct("!4sBxII")
REPLY = struct.Struct("!4sBBBxII")
MAX_PAYLOAD = 16 * 1024 * 1024
DEFAULT_DEADLINE_MS = 4000
FORWARDED_ENV = (
    "GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "GEMINI_PLANS_DIR",
    "CLAUDE_PROJECT_DIR", "HOME", "USER",
)  # fmt: skip
# Events that fail closed by default, and those that may be made to (`--fail closed`). AfterAgent never
# does: a deny there makes Gemini retry in a loop; BeforeToolSelection has no deny at all.
FAIL_CLOSED = {"gemini": ("BeforeTool", "BeforeAgent", "BeforeModel", "AfterTool")}
CAN_FAIL_CLOSED = {"gemini": (*FAIL_CLOSED["gemini"], "AfterModel")}


class ShimError(Exception):
    """Anything that makes the shim fall back to its fail mode; the message is the one-line reason."""


_ESCAPES = {i: f"\\u{i:04x}" for i in range(32)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", 0x2028: "\\u2028", 0x2029: "\\u2029"})


def json_string(text):
    return '"' + text.translate(_ESCAPES) + '"'


def encode_header(client, event):
    env = ",".join(json_string(k) + ":" + json_string(os.environ[k]) for k in FORWARDED_ENV if k in os.environ)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    fields = (
        '{"client":' + json_string(client), '"event":' + json_string(event),
        '"cwd":' + json_string(cwd), '"ppid":' + str(os.getppid()), '"env":{' + env + "}}",
    )  # fmt: skip
    return ",".join(fields).encode("utf-8", "surrogateescape")


def socket_path():
    explicit = os.environ.get("HOOKD_SOCKET")
    if explicit:
        return explicit
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and runtime.startswith("/"):
        return runtime + "/hookd/hook.sock"
    return f"/tmp/hookd-{os.getuid()}/hook.sock"


def remaining(deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        raise ShimError("timeout")
    return left


def read_stdin(deadline, limit):
    chunks, size = [], 0
    while True:
        if not select.select([0], [], [], remaining(deadline))[0]:
            raise ShimError("timeout")
        chunk = os.read(0, 65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ShimError(f"oversize:{limit}")
        chunks.append(chunk)


def recv_exactly(sock, size, deadline):
    parts, got = [], 0
    while got < size:
        sock.settimeout(remaining(deadline))
        part = sock.recv(min(size - got, 1 << 20))
        if not part:
            raise ShimError("truncated")
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def exchange(path, frame, deadline):
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(remaining(deadline))
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            raise ShimError("not-running") from None
        sock.settimeout(remaining(deadline))
        sock.sendall(frame)
        prefix = recv_exactly(sock, REPLY.size, deadline)
        magic, version, status, code, out_len, err_len = REPLY.unpack(prefix)
        if magic != b"HKDR" or version != VERSION or status > 1 or out_len + err_len > MAX_PAYLOAD:
            raise ShimError("malformed")
        body = recv_exactly(sock, out_len + err_len, deadline)
    except _socket.timeout:
        raise ShimError("timeout") from None
    except OSError as exc:
        raise ShimError(f"connection failed ({exc.strerror or exc})") from None
    finally:
        sock.close()
    if status == 1:
        raise ShimError("rejected: " + body[:out_len].decode("utf-8", "replace"))
    return code, body[:out_len], body[out_len:]


def describe(error, path, deadline_ms):
    text = str(error)
    if text == "not-running":
        return f"hookd is not running (no daemon on {path}): start it with `hookd serve`"
    if text == "timeout":
        return f"hookd did not answer within {deadline_ms} ms"
    if text == "truncated":
        return "hookd closed the connection before a complete reply"
    if text == "malformed":
        return "hookd sent a malformed reply"
    if text.startswith("oversize:"):
        return f"the hook input is larger than hookd's limit of {text[9:]} bytes; not sent"
    if text.startswith("rejected: "):
        return "hookd rejected the event: " + text[10:]
    return "hookd could not be reached: " + text


def fail_output(client, event, mode, reason):
    """The fail-mode stdout: the event's deny JSON when closed, nothing when open."""
    if mode != "closed" or event not in CAN_FAIL_CLOSED.get(client, ()):
        return b""
    one_line = " ".join(reason.split())
    return ('{"decision":"deny","reason":' + json_string(one_line) + "}").encode("utf-8", "surrogateescape")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def parse_args(argv):
    if len(argv) < 2:
        raise SystemExit("usage: hookd_shim.py CLIENT EVENT [--socket PATH] [--deadline-ms N] [--fail closed|open]")
    opts = {"client": argv[0], "event": argv[1], "socket": None, "deadline-ms": None, "fail": None}
    rest = argv[2:]
    while rest:
        key = rest.pop(0)
        if not key.startswith("--") or key[2:] not in opts or not rest:
            raise SystemExit(f"hookd_shim.py: bad argument {key!r}")
        opts[key[2:]] = rest.pop(0)
    return opts


def main(argv):
    opts = parse_args(argv)
    client, event = opts["client"], opts["event"]
    text = opts["deadline-ms"] or ""
    deadline_ms = int(text) if text.isdigit() and int(text) > 0 else DEFAULT_DEADLINE_MS
    deadline = time.monotonic() + deadline_ms / 1000.0
    path = opts["socket"] or socket_path()
    default_mode = "closed" if event in FAIL_CLOSED.get(client, ()) else "open"
    mode = opts["fail"] or default_mode
    try:
        payload = read_stdin(deadline, MAX_PAYLOAD)
        header = encode_header(client, event)
        frame = REQUEST.pack(b"HKDQ", VERSION, len(header), len(payload)) + header + payload
        code, out, err = exchange(path, frame, deadline)
    except (ShimError, OSError, ValueError, struct.error) as exc:
        write_all(1, fail_output(client, event, mode, describe(exc, path, deadline_ms)))
        return 0
    write_all(1, out)
    write_all(2, err)
    return code


if __name__ == "__main__":
    status = main(sys.argv[1:])
    os._exit(status)
