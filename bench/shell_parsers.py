"""tree-sitter-bash against hookd's shell parser (the one-pass lexer, then the full path for the rest):
which commands each cannot parse, and what a parse costs, over every command of the policy corpus and
case files; then the full path itself, tree-sitter-bash converted (hookd.enrich.shell.sitter) against
bashlex, over the same commands after a comment line (which sends every one of them down the full path).

  .cache/venv/bin/python bench/shell_parsers.py [--rounds 15]

Timing is per command, interleaved (both contenders in every round, the order alternating), as medians
and their ratio. The first table's tree-sitter figure is its syntax tree only; the full-path table's
includes the conversion and the words. hookd's parses are uncached (the daemon caches per script text).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tree_sitter
import tree_sitter_bash

from hookd.enrich.shell import parse_shell
from hookd.enrich.shell import parser as shell_parser
from hookd.enrich.shell.parser import _parse_uncached

ROOT = Path(__file__).resolve().parent.parent
HARD = [
    'if [ -f x ]; then for f in *.py; do echo "$f"; done; fi; case $1 in a) b;; esac',
    "select x in a; do b; done",
    "coproc cat",
    "a && " * 2000 + "b",
]


def commands() -> list[str]:
    found: list[str] = []
    for path in sorted((ROOT / "policies").rglob("corpus/*.jsonl")):
        for line in path.read_text().splitlines():
            case = json.loads(line)
            if "command" in case:
                found.append(case["command"])
    for path in sorted((ROOT / "policies").rglob("cases/*.json")):
        for case in json.loads(path.read_text()):
            command = case.get("payload", {}).get("tool_input", {}).get("command")
            if isinstance(command, str):
                found.append(command)
    return list(dict.fromkeys(found))


def per_command_us(parse: Callable[[str], Any], sources: list[str]) -> float:
    start = time.perf_counter()
    for source in sources:
        parse(source)
    return (time.perf_counter() - start) / len(sources) * 1e6


def interleaved(contenders: dict[str, Callable[[str], Any]], sources: list[str], rounds: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for round_ in range(rounds):
        order = list(contenders) if round_ % 2 == 0 else list(reversed(contenders))
        for name in order:
            samples[name].append(per_command_us(contenders[name], sources))
    return {name: statistics.median(values) for name, values in samples.items()}


def full_path(name: str) -> Callable[[str], Any]:
    def parse(source: str) -> Any:
        shell_parser.FULL_PARSER = name
        return _parse_uncached(source, "/h")

    return parse


def full_path_table(sources: list[str], rounds: int) -> None:
    scripts = [f"# note\n{s}" for s in sources]
    medians = interleaved({"tree-sitter": full_path("tree-sitter"), "bashlex": full_path("bashlex")}, scripts, rounds)
    errors = {name: sum(full_path(name)(s)[1] is not None for s in scripts) for name in medians}
    shell_parser.FULL_PARSER = "tree-sitter"
    print(f"full path over {len(scripts)} scripts (a comment line, then each command):")
    for name, median in medians.items():
        print(f"  {name:12} {median:8.1f} µs a script, {errors[name]} parse errors")
    print(f"  ratio bashlex / tree-sitter: {medians['bashlex'] / medians['tree-sitter']:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    ts = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    sources = commands()
    hookd_errors = [s for s in sources if parse_shell(s, home="/h", base_dir="/p", project_dir="/p")["parse_error"]]
    ts_errors = [s for s in sources if ts.parse(s.encode()).root_node.has_error]
    contenders: dict[str, Callable[[str], Any]] = {
        "tree-sitter": lambda s: ts.parse(s.encode()),
        "hookd": lambda s: _parse_uncached(s, "/h"),
    }
    medians = interleaved(contenders, sources, args.rounds)
    print(f"{len(sources)} commands")
    print(f"parse errors: hookd {len(hookd_errors)}, tree-sitter {len(ts_errors)}")
    print(f"  hookd only: {[s for s in hookd_errors if s not in ts_errors]}")
    print(f"  tree-sitter only: {[s for s in ts_errors if s not in hookd_errors]}")
    for name, median in medians.items():
        print(f"{name:12} {median:8.1f} µs a command (median of {args.rounds} rounds)")
    print(f"ratio hookd / tree-sitter: {medians['hookd'] / medians['tree-sitter']:.1f}")
    for source in HARD:
        ts_us = per_command_us(contenders["tree-sitter"], [source])
        hookd_us = per_command_us(contenders["hookd"], [source])
        error = _parse_uncached(source, "/h")[1] is not None
        print(
            f"{source[:40]!r:44} tree-sitter error={ts.parse(source.encode()).root_node.has_error} {ts_us:8.0f} µs;"
            f" hookd error={error} {hookd_us:8.0f} µs"
        )
    full_path_table(sources, args.rounds)


if __name__ == "__main__":
    main()
