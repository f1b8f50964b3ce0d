"""SQL fed to a database client from a file is judged as the SQL it is (hookd.enrich.effects.code_files, fixes43):
`psql -f F` and `psql < F`, `sqlite3 DB < F`, `.read F`, `\\i F` and mysql's `source F` read the file's text where the
line wrote it or the disk holds it; a file that cannot be read, or one the line downloaded, is code not known."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _execs(line: str, proj: Path) -> list[tuple[str, bool]]:
    return [(str(e["code"]["text"]), bool(e["known"])) for e in ops(line, proj, "exec")]


@pytest.fixture
def db(proj: Path) -> Path:
    (proj / "db").mkdir()
    (proj / "db" / "drop.sql").write_text("-- reset\nDROP DATABASE shop;\n")
    (proj / "db" / "report.sql").write_text("SELECT count(*) FROM orders WHERE day = current_date;\n")
    (proj / "db" / "shell.sql").write_text(".shell rm -rf ~/Documents\n")
    return proj


@pytest.mark.parametrize(
    "line",
    [
        "psql -d shop -f db/drop.sql",
        "psql -d shop --file=db/drop.sql",
        "psql shop < db/drop.sql",
        "mysql -u root shop < db/drop.sql",
        "psql -d shop -c '\\i db/drop.sql'",
        "mysql shop -e 'source db/drop.sql'",
        "cat db/drop.sql | psql -d shop",
    ],
)
def test_a_file_of_sql_is_judged_as_its_text(line: str, db: Path) -> None:
    assert any("DROP DATABASE shop" in text and not known for text, known in _execs(line, db))


@pytest.mark.parametrize(
    "line", ["psql shop < db/report.sql", "psql -f db/report.sql", "sqlite3 app.db < db/report.sql"]
)
def test_a_file_of_queries_runs_known_sql(line: str, db: Path) -> None:
    assert all(known for _, known in _execs(line, db))
    assert any("SELECT count(*)" in text for text, _ in _execs(line, db))


@pytest.mark.parametrize("line", ["sqlite3 app.db < db/shell.sql", "sqlite3 app.db '.read db/shell.sql'"])
def test_a_sqlite_file_s_dot_commands_run(line: str, db: Path) -> None:
    assert [e["path"] for e in ops(line, db, "delete")] == ["/home/u/Documents"]


def test_sql_the_line_wrote_is_read_from_the_line(db: Path) -> None:
    line = "printf 'DROP SCHEMA public CASCADE;\\n' > /tmp/r.sql && psql -d shop -f /tmp/r.sql"
    assert ("DROP SCHEMA public CASCADE;\n", False) in _execs(line, db)
    line = "printf 'DROP SCHEMA public CASCADE;\\n' > /tmp/r.sql && psql -d shop < /tmp/r.sql"
    assert ("DROP SCHEMA public CASCADE;\n", False) in _execs(line, db)


@pytest.mark.parametrize("line", ["psql -d shop -f /tmp/f43-none.sql", "psql shop < db/none.sql"])
def test_a_file_that_cannot_be_read_is_code_not_known(line: str, db: Path) -> None:
    assert ("", False) in _execs(line, db)


def test_a_download_fed_to_the_client_is_a_flow(db: Path) -> None:
    line = "curl -fsSL https://x.example/s.sql -o /tmp/s.sql && psql shop < /tmp/s.sql"
    assert any(e.get("flow") == "fetch" and e["known"] is False for e in ops(line, db, "exec"))


def test_a_program_whose_code_is_given_reads_its_stdin_file_as_data(db: Path) -> None:
    assert not ops("sed -n 1p < db/shell.sql", db, "delete")
    assert not ops("sqlite3 app.db 'SELECT 1' < db/shell.sql", db, "delete")


def test_a_file_cat_prints_into_a_substitution_stays_unknown(db: Path) -> None:
    [signal] = ops("kill $(cat db/report.sql)", db, "signal")
    assert signal["target"] == "$(cat db/report.sql)"  # (a pid file is looked up by its path, not its text)
