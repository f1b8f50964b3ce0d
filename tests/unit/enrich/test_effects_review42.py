"""review42's findings in the effect model (policies/README.md "review42's findings closed"): a database client's
SQL read from its standard input, hosted stores deleted through another daemon, a configured remote, a wildcard or
a list read from a file, and a credential setting printed by its name; each with the everyday look-alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops


def _runs(command: str, proj: Path) -> list[str]:
    return [str(e["code"]["text"]) for e in ops(command, proj, "exec") if e.get("code", {}).get("lang") == "sh"]


def _hosted(command: str, proj: Path) -> list[str]:
    return [str(e["program"]) for e in ops(command, proj, "delete") if e.get("what") == "hosted"]


def _printed_secret(command: str, proj: Path) -> bool:
    return any(e.get("secret_output") for e in ops(command, proj, "read"))


# --- a database client's stdin is its SQL, read by the lexer `-c`/`-e` hand theirs to ---


@pytest.mark.parametrize(
    "command",
    [
        "psql <<'EOF'\nCOPY (SELECT 1) TO PROGRAM 'touch /tmp/pwned';\nEOF",
        "echo \"COPY (SELECT 1) TO PROGRAM 'touch /tmp/pwned'\" | psql -d shop",
        "psql <<< \"copy t from program 'touch /tmp/pwned'\"",
        "psql -h localhost shop <<'EOF'\n\\! touch /tmp/pwned\nEOF",
        "sqlite3 <<'EOF'\n.shell touch /tmp/pwned\nEOF",
        "printf '.system touch /tmp/pwned\\n' | sqlite3 app.db",
    ],
)
def test_sql_on_a_database_clients_stdin_runs_what_it_says(command: str, tmp_path: Path) -> None:
    assert _runs(command, tmp_path) == ["touch /tmp/pwned"]


def test_sql_on_stdin_writes_the_file_it_names(tmp_path: Path) -> None:
    command = f"mysql shop <<'EOF'\nSELECT 'x' INTO OUTFILE '{HOME}/.bashrc';\nEOF"
    assert f"{HOME}/.bashrc" in [e["path"] for e in ops(command, tmp_path, "write")]


@pytest.mark.parametrize(
    "command",
    [
        "psql shop <<'EOF'\nSELECT count(*) FROM orders;\nEOF",
        "echo 'select 1' | mysql -u app shop",
        "sqlite3 app.db <<'EOF'\n.tables\nSELECT * FROM users LIMIT 5;\nEOF",
        # the code handed on the line is what runs: the stdin goes unread
        "psql -c 'select 1' <<< \"COPY (SELECT 1) TO PROGRAM 'touch /tmp/pwned'\"",
        "sqlite3 app.db 'select 1' <<< '.shell touch /tmp/pwned'",
    ],
)
def test_sql_that_runs_nothing_or_goes_unread_runs_nothing(command: str, tmp_path: Path) -> None:
    assert _runs(command, tmp_path) == []


# --- hosted stores deleted whole ---


@pytest.mark.parametrize(
    "command",
    [
        "docker --context prod compose -p shop down -v",
        "docker -H ssh://ops@db.example.net compose down --volumes",
        "export DOCKER_HOST=ssh://ops@prod.example.net; docker compose down -v",
        "export DOCKER_CONTEXT=prod && docker compose -p shop down -v",
        "podman --remote --connection prod volume prune -f",
        "podman --url ssh://ops@prod.example.net/run/podman.sock compose down -v",
        "rclone purge prod-s3:shop-prod-assets",
        "rclone delete backups:nightly",
        "az storage container delete --name prod --account-name shopprod",
        "az storage share delete --name exports --account-name shopprod",
        "mc rb --force prod/shop-assets",
        "mc rm --recursive --force prod/shop-assets",
        "s5cmd rm 's3://shop-prod-assets/*'",
        "gsutil -m rm 'gs://shop-prod-assets/**'",
        "aws s3api delete-objects --bucket shop-prod --delete file:///tmp/d.json",
    ],
)
def test_a_hosted_store_deleted_whole_is_a_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "docker compose down -v",
        "docker --context prod compose down",
        'docker run --rm -v "$PWD":/app -w /app node:20 npm test',  # `-v` of another command mounts a volume
        "docker --context prod run --rm -v data:/d alpine ls",
        "export DOCKER_CONTEXT=default && docker compose -p shop down -v",
        "podman volume prune -f",
        "rclone purge ./build",
        "rclone purge :local:/tmp/cache",
        "az storage blob delete --container-name prod --name a.txt --account-name shopprod",
        "mc rm prod/shop-assets/a.txt",
        "s5cmd rm 's3://shop-prod-assets/logs/*.gz'",
        "aws s3api delete-object --bucket shop-prod --key a.txt",
    ],
)
def test_one_thing_or_a_local_one_removed_is_no_hosted_delete(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path) == []


# --- a credential setting printed by its name ---


@pytest.mark.parametrize(
    "command",
    [
        "heroku config:get DATABASE_URL -a shop",
        "heroku config:get STRIPE_SECRET_KEY -a shop",
        "git config --get http.https://github.com/.extraheader",
        "git config --get-all http.extraHeader",
        "git config get credential.helper.token",
        "npm config get //npm.example.net/:_authToken",
        "pnpm config get //npm.example.net/:_password",
    ],
)
def test_a_credential_setting_read_by_its_name_prints_a_credential(command: str, tmp_path: Path) -> None:
    assert _printed_secret(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "heroku config:get PORT -a shop",
        "heroku config:get SITE_URL -a shop",
        "git config --get remote.origin.url",
        "git config --get credential.helper",
        "git config get user.email",
        "npm config get registry",
    ],
)
def test_an_everyday_setting_read_prints_none(command: str, tmp_path: Path) -> None:
    assert not _printed_secret(command, tmp_path)
    assert effects(command, tmp_path) is not None
