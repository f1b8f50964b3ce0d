"""hookd's Python shim: the command an agent runs for each hook event.

Run as `<absolute python> -I -S hookd_shim.py CLIENT EVENT [--socket PATH] [--deadline-ms N]
[--fail closed|open]`. It reads the hook payload from stdin to EOF, sends it to the hookd daemon
over its Unix socket (protocol: docs/protocol.md) and writes back exactly the daemon's stdout,
stderr and exit code. When anything goes wrong (no daemon, refused, past the deadline, a truncated
or malformed reply, an error reply, stdin too large or unreadable) it applies the event's fail mode:
closed prints the event's deny JSON with a one-line reason, open prints nothing.

client_shim/hookd_shim.c is the native twin (no interpreter start-up); both give the same bytes for
the same input, which tests/integration/test_shim_conformance.py checks.

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
MAX_DEADLINE_MS = 2**31 - 1  # what poll() can wait; a larger --deadline-ms is not a number
FORWARDED_ENV = (
    "GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "GEMINI_PLANS_DIR",
    "CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID", "HOME", "USER",
)  # fmt: skip
# Events that fail closed by default, and those that may be made to (`--fail closed`). AfterAgent and
# Stop never do: a deny there makes the agent go on in a loop; BeforeToolSelection has no deny at all.
FAIL_CLOSED = {
    "gemini": ("BeforeTool", "BeforeAgent", "BeforeModel", "AfterTool"),
    "claude": ("PreToolUse", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"),
}
CAN_FAIL_CLOSED = {"gemini": (*FAIL_CLOSED["gemini"], "AfterModel"), "claude": FAIL_CLOSED["claude"]}


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
    login = f"/run/user/{os.getuid()}"  # the daemon's choice too (hookd.transport.runtime_dir)
    try:
        info = os.lstat(login)
        if (info.st_mode & 0o170077) == 0o040000 and info.st_uid == os.getuid():
            return login + "/hookd/hook.sock"
    except OSError:
        pass
    return f"/tmp/hookd-{os.getuid()}/hook.sock"


def remaining(deadline, what="timeout"):
    left = deadline - time.monotonic()
    if left <= 0:
        raise ShimError(what)
    return left


def read_stdin(deadline, limit):
    chunks, size = [], 0
    try:
        while True:
            if not select.select([0], [], [], remaining(deadline, "stdin-timeout"))[0]:
                raise ShimError("stdin-timeout")
            try:
                chunk = os.read(0, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > limit:
                raise ShimError(f"oversize:{limit}")
            chunks.append(chunk)
    except OSError as exc:
        raise ShimError(f"stdin-error:{exc.strerror or exc}") from None


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


# ---- who answers: the checks that keep another local user from posing as the daemon ----------------
# Kept self-contained: verify_dir() runs before connecting, verify_peer() right after, before any byte
# is sent. docs/protocol.md ("Who the shim talks to") says why and gives the reasons.


def trusted_uid(uid):
    return uid == 0 or uid == os.getuid()


def verify_dir(path):
    """The socket's directory must be a real directory of this user's (or root's), closed to others:
    anyone else who could create or replace the socket could answer with an allow or a rewrite."""
    directory = path[: path.rfind("/")] or "/" if "/" in path else "."
    try:
        info = os.lstat(directory)
    except (FileNotFoundError, NotADirectoryError):
        raise ShimError("not-running") from None
    except OSError as exc:
        raise ShimError(f"connection failed ({exc.strerror or exc})") from None
    mode, kind = info.st_mode, info.st_mode & 0o170000
    if kind not in (0o040000, 0o120000):
        raise ShimError("connection failed (Not a directory)")  # what connect() would say
    if kind == 0o120000 or not trusted_uid(info.st_uid) or mode & 0o077:
        what = "a symlink" if kind == 0o120000 else "a directory"
        raise ShimError(f"unsafe-dir:{directory}\0{what}\0{info.st_uid}\0{mode & 0o7777:04o}")


def verify_peer(sock):
    """The process listening must be this user's or root's (SO_PEERCRED: pid, uid, gid)."""
    uid = struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12))[1]
    if not trusted_uid(uid):
        raise ShimError(f"foreign-peer:{uid}")


def connect(sock, path, deadline):
    # A blocking connect bounded by SO_SNDTIMEO: on a Unix socket that is how long connect() waits for
    # room in a busy daemon's backlog, where a non-blocking one (settimeout) fails at once with EAGAIN.
    while True:
        left = remaining(deadline)
        seconds, micros = int(left), int(left % 1 * 1e6)
        sock.setsockopt(_socket.SOL_SOCKET, _socket.SO_SNDTIMEO, struct.pack("@ll", seconds, micros or 1))
        try:
            sock.connect(path)
            return
        except (FileNotFoundError, ConnectionRefusedError):
            raise ShimError("not-running") from None
        except (BlockingIOError, InterruptedError):
            continue  # the backlog stayed full for SO_SNDTIMEO: the deadline decides


def read_reply(sock, deadline):
    prefix = recv_exactly(sock, REPLY.size, deadline)
    magic, version, status, code, out_len, err_len = REPLY.unpack(prefix)
    if magic != b"HKDR" or version != VERSION or status > 1 or out_len + err_len > MAX_PAYLOAD:
        raise ShimError("malformed")
    body = recv_exactly(sock, out_len + err_len, deadline)
    if status == 1:
        raise ShimError("rejected: " + body[:out_len].decode("utf-8", "replace"))
    return code, body[:out_len], body[out_len:]


def exchange(path, frame, deadline):
    sock = None
    try:
        verify_dir(path)
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        connect(sock, path, deadline)
        verify_peer(sock)
        sock.settimeout(remaining(deadline))
        try:
            sock.sendall(frame)
        except (BrokenPipeError, ConnectionResetError) as exc:
            # A daemon that refuses a frame (too large, say) answers and closes without reading the
            # rest: the reply is what says why, so read it; the broken pipe only when there is none.
            try:
                return read_reply(sock, deadline)
            except ShimError as reply_error:
                if str(reply_error).startswith("rejected: "):
                    raise
                raise exc from None
            except OSError:
                raise exc from None
        return read_reply(sock, deadline)
    except _socket.timeout:
        raise ShimError("timeout") from None
    except OSError as exc:
        raise ShimError(f"connection failed ({exc.strerror or exc})") from None
    finally:
        if sock is not None:
            sock.close()


def describe(error, path, deadline_ms):
    text = str(error)
    if text == "not-running":
        return f"hookd is not running (no daemon on {path}): start it with `hookd serve`"
    if text == "timeout":
        return f"hookd did not answer within {deadline_ms} ms"
    if text == "stdin-timeout":
        return f"the hook input (stdin) was not complete within {deadline_ms} ms"
    if text.startswith("stdin-error:"):
        return f"the hook input (stdin) could not be read ({text[12:]})"
    if text == "truncated":
        return "hookd closed the connection before a complete reply"
    if text == "malformed":
        return "hookd sent a malformed reply"
    if text.startswith("oversize:"):
        return f"the hook input is larger than hookd's limit of {text[9:]} bytes; not sent"
    if text.startswith("rejected: "):
        return "hookd rejected the event: " + text[10:]
    if text.startswith("unsafe-dir:"):
        directory, kind, uid, mode = text[11:].split("\0")
        return (f"refusing hookd's socket directory {directory}: {kind} owned by uid {uid} with mode {mode} "
                f"(it must be yours or root's with mode 0700); remove it and restart hookd")  # fmt: skip
    if text.startswith("foreign-peer:"):
        return (f"refusing the daemon on {path}: it runs as uid {text[13:]}, not as you (uid {os.getuid()}) "
                f"or root; stop it and start hookd yourself")  # fmt: skip
    return "hookd could not be reached: " + text


def fail_output(client, event, mode, reason):
    """The fail-mode stdout: the event's deny JSON when closed, nothing when open. Claude Code's
    PreToolUse denies with a permissionDecision; its other events block with decision "block"."""
    if mode != "closed" or event not in CAN_FAIL_CLOSED.get(client, ()):
        return b""
    one_line = json_string(" ".join(reason.split()))
    if client == "gemini":
        text = '{"decision":"deny","reason":' + one_line + "}"
    elif event == "PreToolUse":
        text = ('{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
                '"permissionDecisionReason":' + one_line + "}}")  # fmt: skip
    else:
        text = '{"decision":"block","reason":' + one_line + "}"
    return text.encode("utf-8", "surrogateescape")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])


def parse_args(argv):
    if len(argv) < 2:
        raise SystemExit("usage: hookd_shim.py CLIENT EVENT [--socket PATH] [--deadline-ms N] [--fail closed|open]")
    opts = {"client": argv[0], "event": argv[1], "socket": None, "deadline-ms": None, "fail": None}
    rest = argv[2:]
    while rest:
        key = rest.pop(0)
        if key not in ("--socket", "--deadline-ms", "--fail") or not rest:
            raise SystemExit(f"hookd_shim.py: bad argument {key!r}")
        opts[key[2:]] = rest.pop(0)
    if opts["fail"] is not None and opts["fail"] not in ("closed", "open"):
        raise SystemExit(f"hookd_shim.py: bad value {opts['fail']!r} for --fail: use closed or open")
    return opts


def main(argv):
    opts = parse_args(argv)
    client, event = opts["client"], opts["event"]
    text = opts["deadline-ms"] or ""
    number = int(text) if text.isascii() and text.isdigit() else 0
    deadline_ms = number if 0 < number <= MAX_DEADLINE_MS else DEFAULT_DEADLINE_MS
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
        code, out, err = 0, fail_output(client, event, mode, describe(exc, path, deadline_ms)), b""
    try:
        write_all(1, out)
        write_all(2, err)
    except OSError as exc:
        try:  # noqa: SIM105 (contextlib would be one more import on every hook call)
            os.write(2, f"hookd_shim.py: cannot write the reply ({exc.strerror or exc})\n".encode())
        except OSError:
            pass
        return 1
    return code


if __name__ == "__main__":
    status = main(sys.argv[1:])
    os._exit(status)
