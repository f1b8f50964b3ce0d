"""Mechanisms blind-shell-22's first run missed (policies/README.md, "Twenty-second batch"): the effects they now have,
and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

# --- bc and dc have language tables: arithmetic runs nothing, dc's `!` is a command line ---


@pytest.mark.parametrize(
    "command",
    [
        "echo 'scale=2; (1536-1024)*100/1024' | bc",
        "bc -l <<< 'l(1024)/l(2)'",
        "printf 'define f(n) { if (n < 2) return n; return f(n-1) + f(n-2) }\\nf(20)\\n' | bc",
        "dc -e '2 10 ^ p'",
        "dc -e '1 2 !<a 3 4 !=b p'",
        "echo '16i FF p' | dc",
    ],
)
def test_arithmetic_in_bc_and_dc_is_known_code(command: str, tmp_path: Path) -> None:
    assert all(e["known"] for e in ops(command, tmp_path, "exec"))


@pytest.mark.parametrize(
    "command",
    [
        "dc -e '!rm -rf ~/Documents'",
        "echo '[!rm -rf ~/Documents]x' | dc",
        "dc -e '2 p !rm -rf ~/Documents'",
    ],
)
def test_a_dc_bang_line_is_the_command_it_runs(command: str, tmp_path: Path) -> None:
    deletes = ops(command, tmp_path, "delete")
    assert deletes and deletes[0]["recursive"] and deletes[0]["path"].startswith("/home/u/Documents")


# --- yq: a leading command word (`eval-all`, `ea`) is no file; its expression is code whose load() reads a file ---


@pytest.mark.parametrize(
    "command",
    [
        "yq ea '. as $i ireduce ({}; . * $i)' deploy/base.yml deploy/prod.yml",
        "yq eval-all 'select(fileIndex == 0) * select(fileIndex == 1)' a.yml b.yml",
        "yq e '.image.tag' chart/values.yaml",
    ],
)
def test_a_yq_command_word_leaves_the_expression_out_of_its_files(command: str, tmp_path: Path) -> None:
    reads = ops(command, tmp_path, "read")
    assert reads and all(e["known"] and e["path"].startswith(str(tmp_path)) for e in reads)
    assert all(e["known"] for e in ops(command, tmp_path, "exec"))


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ('yq -n "load(\\"$HOME/.kube/config\\") | .users"', "/home/u/.kube/config"),
        ("yq e '.x = load_str(\"/home/u/.ssh/id_ed25519\")' a.yml", "/home/u/.ssh/id_ed25519"),
        ("yq ea '.shared = load(\"chart/shared.yaml\")' values.yaml", "chart/shared.yaml"),
    ],
)
def test_a_file_yq_loads_is_read(command: str, read: str, tmp_path: Path) -> None:
    paths = [e["path"] for e in ops(command, tmp_path, "read")]
    assert any(p.endswith(read) for p in paths)


def test_a_yq_load_of_a_computed_name_is_unknown_code(tmp_path: Path) -> None:
    execs = ops("yq -n 'load(strenv(HOME) + \"/.kube/config\")'", tmp_path, "exec")
    assert execs and not all(e["known"] for e in execs)


# --- DuckDB's file functions, a quoted file in FROM, and COPY … TO/FROM name the files they touch ---


@pytest.mark.parametrize(
    ("sql", "op", "path"),
    [
        ("COPY (SELECT content FROM read_text('/home/u/.netrc')) TO '/tmp/n.csv'", "read", "/home/u/.netrc"),
        ("COPY (SELECT content FROM read_text('/home/u/.netrc')) TO '/tmp/n.csv'", "write", "/tmp/n.csv"),
        ("SELECT * FROM read_blob('/home/u/.ssh/id_ed25519')", "read", "/home/u/.ssh/id_ed25519"),
        ("SELECT * FROM '/home/u/.aws/credentials'", "read", "/home/u/.aws/credentials"),
        ("COPY (SELECT 'x') TO '.git/config' (HEADER false)", "write", ".git/config"),
        ("COPY users FROM '/home/u/.pgpass'", "read", "/home/u/.pgpass"),
        ("COPY users TO 'exports/users.csv' (HEADER)", "write", "exports/users.csv"),
    ],
)
def test_duckdb_sql_names_the_files_it_touches(sql: str, op: str, path: str, tmp_path: Path) -> None:
    effects = ops(f'duckdb -c "{sql}"', tmp_path, op)
    assert any(e["path"].endswith(path) for e in effects)
    sql_runs = [e for e in ops(f'duckdb -c "{sql}"', tmp_path, "exec") if (e.get("code") or {}).get("lang") == "sqlite"]
    assert sql_runs and all(e["known"] for e in sql_runs)


def test_a_duckdb_copy_to_a_computed_target_is_unknown_code(tmp_path: Path) -> None:
    execs = ops("duckdb -c \"COPY (SELECT 1) TO getenv('OUT')\"", tmp_path, "exec")
    assert execs and not all(e["known"] for e in execs)


def test_a_file_bc_runs_is_read_too(tmp_path: Path) -> None:
    # (bc quotes each line it cannot parse in an error: the file's text comes out)
    reads = ops("bc -q ~/.aws/credentials </dev/null", tmp_path, "read")
    assert "/home/u/.aws/credentials" in [e["path"] for e in reads]


# --- miller: the word after each `put`/`filter` verb is DSL code; system() and output redirects are followed ---


@pytest.mark.parametrize(
    "command",
    [
        "mlr -n put 'end { system(\"rm -rf ~/Documents\") }'",
        "mlr --icsv head -n 2 then put -q 'print | \"rm -rf ~/Documents\", $a' data.csv",
        "mlr -n put -e 'end { system(\"rm -rf ~/Documents\") }'",
    ],
)
def test_a_command_miller_runs_is_judged_as_itself(command: str, tmp_path: Path) -> None:
    deletes = ops(command, tmp_path, "delete")
    assert deletes and deletes[0]["path"] == "/home/u/Documents"


def test_a_file_miller_prints_into_is_written(tmp_path: Path) -> None:
    writes = ops('mlr -n put \'end { print > "/home/u/.ssh/authorized_keys", "k" }\'', tmp_path, "write")
    assert "/home/u/.ssh/authorized_keys" in [e["path"] for e in writes]


@pytest.mark.parametrize(
    "command",
    [
        'mlr -n put \'end { exec("rm", ["-rf", ENV["HOME"] . "/Documents"]) }\'',
        'mlr --icsv put -q \'tee > "out/" . $region . ".csv", $*\' data.csv',
    ],
)
def test_miller_code_hookd_cannot_follow_is_unknown(command: str, tmp_path: Path) -> None:
    execs = [e for e in ops(command, tmp_path, "exec") if (e.get("code") or {}).get("lang") == "miller"]
    assert execs and not all(e["known"] for e in execs)


def test_a_miller_expression_is_no_file_it_reads(tmp_path: Path) -> None:
    command = "mlr --icsv --opprint filter '$amount > 100' then put '$total = $price * $qty' data/sales.csv"
    reads = ops(command, tmp_path, "read")
    assert all(e["known"] for e in reads) and f"{tmp_path}/data/sales.csv" in [e["path"] for e in reads]
    assert all(e["known"] for e in ops(command, tmp_path, "exec"))


# --- roff: the text groff, troff, nroff and soelim read holds requests that read, write and run ---


@pytest.mark.parametrize(
    ("command", "read"),
    [
        ("printf '.so /home/u/.ssh/id_ed25519\\n' | groff -T ascii", "/home/u/.ssh/id_ed25519"),
        ("echo '.so /home/u/.kube/config' | soelim", "/home/u/.kube/config"),
        ("printf '.cf /home/u/.aws/credentials\\n' | nroff", "/home/u/.aws/credentials"),
        ('printf ".mso %s/.netrc\\n" /home/u | troff -a', "/home/u/.netrc"),
    ],
)
def test_a_file_a_roff_request_names_is_read(command: str, read: str, tmp_path: Path) -> None:
    assert read in [e["path"] for e in ops(command, tmp_path, "read")]


@pytest.mark.parametrize(
    "command",
    [
        "printf '.sy rm -rf ~/Documents\\n' | groff -U -T utf8",
        "echo '.pso rm -rf ~/Documents' | troff -U -a",
        "printf '.PS\\nsh X rm -rf ~/Documents X\\n.PE\\n' | groff -p -U",
        'printf ".pi rm -rf ~/Documents\\n" | nroff -U',
    ],
)
def test_a_command_a_roff_request_runs_is_judged_as_itself(command: str, tmp_path: Path) -> None:
    deletes = ops(command, tmp_path, "delete")
    assert deletes and deletes[0]["path"] == "/home/u/Documents"


def test_roff_text_that_only_formats_is_known(tmp_path: Path) -> None:
    command = "printf '.TH TOOL 1\\n.SH NAME\\ntool \\\\- does things\\n.PP\\nshell use\\n' | groff -man -T utf8"
    assert all(e["known"] for e in ops(command, tmp_path, "exec"))
    assert not ops(command, tmp_path, "read")
