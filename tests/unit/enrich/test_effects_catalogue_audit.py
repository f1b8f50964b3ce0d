"""The catalogue's "only reads" programs audited (policies/README.md, "The catalogue's read-only programs audited
(catalog39)"): an operand or option that writes, replaces or loads code is the effect it has, and what only
reads stays a read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from effect_support import HOME, effects

from hookd.enrich.effects.catalogue import DATA, catalogue
from hookd.enrich.effects.options import parse
from hookd.enrich.effects.replaced import _unpacked


def _has(command: str, proj: Path, op: str, path: str) -> bool:
    where = path.replace("~", HOME).replace("@", str(proj))
    return any(e["op"] == op and e["path"] == where for e in effects(command, proj))


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [
        # a second operand is the output file
        ("uniq notes.txt ~/.bashrc", "write", "~/.bashrc"),
        ("uniq -f 1 notes.txt .git/hooks/pre-commit", "write", "@/.git/hooks/pre-commit"),
        ("pdftotext -f 1 doc.pdf ~/.profile", "write", "~/.profile"),
        # an option names the output file or directory
        ("tree -L 1 -o ~/.bashrc", "write", "~/.bashrc"),
        ("highlight -o .git/hooks/pre-push main.c", "write", "@/.git/hooks/pre-push"),
        ("source-highlight -i main.c --output .git/hooks/pre-commit", "write", "@/.git/hooks/pre-commit"),
        ("xmllint --format --output ~/.zshrc feed.xml", "write", "~/.zshrc"),
        ("sdiff -o ~/.bashrc a.txt b.txt", "write", "~/.bashrc"),
        ("age -d -i key.txt -o ~/.bashrc secret.age", "write", "~/.bashrc"),
        ("csplit -f .git/hooks/pre-commit log.txt /ERROR/", "write", "@/.git/hooks/pre-commit"),
        ("zstd -d payload.zst -o ~/.bashrc", "write", "~/.bashrc"),
        ("pygmentize -f html -o ~/.bashrc main.py", "write", "~/.bashrc"),
        ("exiftool -o ~/.ssh/ photo.jpg", "write", "~/.ssh"),
        ("detect-secrets scan --baseline .git/hooks/pre-commit", "write", "@/.git/hooks/pre-commit"),
        ("keytool -exportcert -alias a -file ~/.bashrc -keystore ks.jks", "write", "~/.bashrc"),
        ("certutil -L -d sql:db -o ~/.bashrc", "write", "~/.bashrc"),
        # the operands rewritten in place
        ("mlr -I --csv sort -f name people.csv", "write", "@/people.csv"),
        # a compressor replaces the file it reads
        ("gunzip -f .git/hooks/pre-commit.gz", "write", "@/.git/hooks/pre-commit"),
        ("gunzip -f .git/hooks/pre-commit.gz", "delete", "@/.git/hooks/pre-commit.gz"),
        ("gzip -d -S .z ~/.bashrc.z", "write", "~/.bashrc"),
        ("gzip notes.txt", "delete", "@/notes.txt"),
        ("gzip -r src", "delete", "@/src"),
        ("xz -d ~/.profile.xz", "write", "~/.profile"),
        ("unxz .git/hooks/post-checkout.xz", "write", "@/.git/hooks/post-checkout"),
        ("bunzip2 ~/.bashrc.bz2", "write", "~/.bashrc"),
        ("bzip2 ~/.bashrc", "delete", "~/.bashrc"),
        ("lzma ~/.zshrc", "delete", "~/.zshrc"),
        ("unzstd ~/.bashrc.zst", "write", "~/.bashrc"),
        ("zstd --rm ~/.bashrc", "delete", "~/.bashrc"),
        ("lz4 -d hook.lz4 .git/hooks/pre-commit", "write", "@/.git/hooks/pre-commit"),
        ("lz4 --rm ~/.bashrc", "delete", "~/.bashrc"),
    ],
)
def test_an_output_or_replaced_file_is_written(command: str, op: str, path: str, proj: Path) -> None:
    assert _has(command, proj, op, path)


@pytest.mark.parametrize(
    ("command", "code_file"),
    [
        ("highlight --plug-in=/tmp/p.lua main.c", "/tmp/p.lua"),
        ("highlight --config-file /tmp/p.lua main.c", "/tmp/p.lua"),
        ("exiftool -config /tmp/p.lua photo.jpg", "/tmp/p.lua"),
        ("pygmentize -x -l /tmp/p.lua:Evil main.c", "/tmp/p.lua"),
        ("pygmentize -f /tmp/p.lua:Evil -x -o out.html main.c", "/tmp/p.lua"),
    ],
)
def test_a_file_of_code_an_option_loads_runs(command: str, code_file: str, proj: Path) -> None:
    written = f"printf 'x = 1\\n' > {code_file} && {command}"
    loaded = [e for e in effects(written, proj) if e["op"] == "exec" and e.get("loaded")]
    assert [e["path"] for e in loaded] == [code_file]


@pytest.mark.parametrize(
    "command",
    [
        "exiftool -if 'system(\"id\")' -Comment photo.jpg",
        "sdiff --diff-program=./tool a.txt b.txt",
        "diff3 --diff-program=./tool a b c",
        "ag --pager ./tool TODO",
        "ugrep --pager=./tool TODO src",
        "bat --paging=always --pager ./tool README.md",
    ],
)
def test_an_option_that_runs_code_or_a_program_is_an_exec(command: str, proj: Path) -> None:
    assert any(e["op"] == "exec" for e in effects(command, proj))


def test_a_lexer_name_is_no_file_of_code_without_its_allowing_option(proj: Path) -> None:
    written = "printf 'x = 1\\n' > lexer.py && pygmentize -l lexer.py:L main.c"
    assert not [e for e in effects(written, proj) if e["op"] == "exec" and e.get("loaded")]
    assert catalogue().get("pygmentize") is not None
    assert catalogue().get("pygmentize").code_files([("-l", "python")]) == []  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("gzip -k dist/app.js", {("read", "@/dist/app.js"), ("write", "@/dist/app.js.gz")}),
        ("gunzip data.csv.gz", {("read", "@/data.csv.gz"), ("write", "@/data.csv"), ("delete", "@/data.csv.gz")}),
        ("gzip -t data.csv.gz", {("read", "@/data.csv.gz")}),
        ("xz -l data.xz", {("read", "@/data.xz")}),
        ("zstd data.csv", {("read", "@/data.csv"), ("write", "@/data.csv.zst")}),
        ("lz4 -m a b", {("read", "@/a"), ("write", "@/a.lz4"), ("read", "@/b"), ("write", "@/b.lz4")}),
        ("uniq sorted.txt", {("read", "@/sorted.txt")}),
        ("tree -L 2 src", {("list", "@/src")}),
        ("xmllint --noout f.xml", {("read", "@/f.xml")}),
        ("csplit log.txt /ERROR/ {3}", {("read", "@/log.txt")}),
        ("gzip - < notes.txt", {("read", "@/notes.txt")}),
    ],
)
def test_what_only_reads_or_keeps_stays_so(command: str, expected: set[tuple[str, str]], proj: Path) -> None:
    found = {(e["op"], e["path"]) for e in effects(command, proj) if e["path"].startswith(str(proj))}
    assert found == {(op, path.replace("@", str(proj))) for op, path in expected}


def test_a_decompressed_name_drops_the_suffix_or_its_extension() -> None:
    assert _unpacked("a/b.tar.gz", ".gz") == "a/b.tar"
    assert _unpacked("hook.z", ".gz") == "hook"
    assert _unpacked("dir.d/plain", ".gz") == "dir.d/plain"


def test_every_compressor_that_replaces_names_a_suffix_and_its_manual() -> None:
    own = json.loads((DATA / "programs.json").read_text())["programs"]
    replacing = {name: spec for name, spec in own.items() if "replaces" in spec}
    assert {"gzip", "gunzip", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd", "lz4", "lzma"} <= set(replacing)
    assert all(
        spec["replaces"]["suffix"].startswith(".") and "catalog39" in spec["source"] for spec in replacing.values()
    )


def test_an_option_whose_value_is_optional_takes_only_what_follows_its_equals_sign(proj: Path) -> None:
    assert not any(e["op"] == "exec" for e in effects("ugrep --pager TODO src", proj))
    assert _has("ugrep --pager TODO src", proj, "read", "@/src")


@pytest.mark.parametrize(
    ("command", "op"),
    [
        # a store its command changes is written, one its command only lists or exports from is read
        ("keytool -importcert -alias ca -file ca.pem -keystore /etc/ssl/java/cacerts", "write"),
        ("keytool -list -keystore /etc/ssl/java/cacerts", "read"),
        ("certutil -A -d /etc/pki/nssdb -n ca -t C,, -i ca.pem", "write"),
        ("certutil -L -d /etc/pki/nssdb", "read"),
    ],
)
def test_a_certificate_store_is_written_only_by_the_commands_that_change_it(command: str, op: str, proj: Path) -> None:
    stores = [e["op"] for e in effects(command, proj) if e["path"] in ("/etc/ssl/java/cacerts", "/etc/pki/nssdb")]
    assert stores == [op]


def test_a_single_dash_word_of_a_program_with_single_dash_options_is_one_flag() -> None:
    keytool = catalogue().get("keytool")
    assert keytool is not None
    parsed = parse(["keytool", "-list", "-v", "-keystore", "ks.jks"], keytool.table)
    assert parsed.options == [("-list", None), ("-v", None), ("-keystore", "ks.jks")]
    assert parsed.operands == []
