"""SQL a database client runs from a file or its words, whatever client and spelling (review47, fixes43's SQL from
files by other programs): psql's long options by an unambiguous prefix (getopt_long), MariaDB's client as mysql's,
DuckDB's shell as sqlite3's."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "drop.sql").write_text("-- reset\nDROP DATABASE shop;\n")
    return tmp_path


def _code(line: str, proj: Path) -> list[tuple[str, str]]:
    return [(e["code"]["lang"], e["code"]["text"]) for e in effects(line, proj) if e["op"] == "exec" and "code" in e]


@pytest.mark.parametrize(
    "line",
    ["psql --fil db/drop.sql shop", "psql --fi=db/drop.sql shop", "mariadb -u root shop < db/drop.sql"],
)
def test_a_clients_file_of_sql_is_the_code_it_runs(line: str, proj: Path) -> None:
    if "--fi=" in line:  # `--fi` is ambiguous (--file, --field-separator): psql refuses it, nothing runs
        assert ("sql", "-- reset\nDROP DATABASE shop;\n") not in _code(line, proj)
        return
    assert ("sql", "-- reset\nDROP DATABASE shop;\n") in _code(line, proj)


@pytest.mark.parametrize(
    "line",
    ["psql -d shop --comm 'DROP TABLE t'", "mariadb shop -e 'DROP TABLE t'", "mariadb shop --exec 'DROP TABLE t'"],
)
def test_a_clients_sql_words_are_the_code_it_runs(line: str, proj: Path) -> None:
    assert ("sql", "DROP TABLE t") in _code(line, proj)


@pytest.mark.parametrize(
    "line", ["duckdb x.db '.shell rm -rf ~/Documents'", "duckdb x.db -c '.shell rm -rf ~/Documents'"]
)
def test_duckdbs_dot_commands_run_as_sqlite3s(line: str, proj: Path) -> None:
    assert ("sh", "rm -rf ~/Documents") in _code(line, proj)
