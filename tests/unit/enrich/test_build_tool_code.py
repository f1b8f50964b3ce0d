"""Code a build tool evaluates, handed to it as a command's argument (`sbt 'eval EXPR'`, `sbt 'set …'`): the
catalogue's `command-code` hook (effects/code.py) and Scala's table in languages.json."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.enrich.effects.languages import follow_code


def _scala_runs(command: str, proj: Path) -> list[bool]:
    runs = [e for e in effects(command, proj) if e["op"] == "exec"]
    return [bool(e.get("known")) for e in runs if (e.get("code") or {}).get("lang") == "scala"]


@pytest.mark.parametrize(
    ("command", "known"),
    [
        ("""sbt 'eval scala.sys.process.Process(Seq("cat", sys.props("user.home") + "/.netrc")).!'""", False),
        ("""sbt ';clean ;eval "cat /etc/hostname".!!'""", False),
        ("""sbt 'set name := { "id".!!; "api" }' compile""", False),
        ("sbt 'eval 1 + 1'", True),
        ("""sbt 'set scalaVersion := "2.13.12"' test""", True),
    ],
)
def test_sbt_evaluates_the_argument_of_eval_and_set(command: str, known: bool, tmp_path: Path) -> None:
    assert _scala_runs(command, tmp_path) == [known]


@pytest.mark.parametrize("command", ["sbt 'testOnly com.example.ParserSpec'", "sbt -batch clean test"])
def test_other_sbt_commands_hand_it_no_code(command: str, tmp_path: Path) -> None:
    assert _scala_runs(command, tmp_path) == []


@pytest.mark.parametrize(
    "code",
    [
        '"ls".lazyLines.toList',  # a string's member taken without parentheses runs it
        's"${"rm -rf x".!}"',  # an interpolated string's text is code
        "sys.env",
        "Future { 1 }",
        'scala.io.Source.fromFile("/etc/passwd").mkString',
    ],
)
def test_scala_that_reaches_the_system_is_not_known(code: str) -> None:
    assert not follow_code("scala", code).known


@pytest.mark.parametrize("code", ["println(2 * 21)", "scala.util.Properties.versionString", '"a" + "b"'])
def test_scala_that_only_computes_is_known(code: str) -> None:
    assert follow_code("scala", code).known
