"""Derive hookd's launcher catalogue (daemon/hookd/enrich/effects/data/gtfobins.json) from a GTFOBins checkout.

GTFOBins (https://github.com/GTFOBins/GTFOBins.github.io, GPL-3.0 data, https://gtfobins.org) lists, per
binary, example command lines that spawn a shell (`shell`), run a command (`command`, `reverse-shell`,
`bind-shell`), read or write files, upload or download. From each example's line that invokes the binary
this keeps WHERE the binary takes what it runs, not the example itself:

* `option`: an option whose value is a command line (`rsync -e CMD`, `tar --checkpoint-action=exec=CMD`,
  `ssh -o ProxyCommand=CMD`) or code in the binary's own language (`vim -c ':!…'`, `make --eval=…`);
* `operand`: an operand that is code in the binary's language (`awk 'BEGIN{system(…)}'`, `sqlite3 DB '.shell …'`);
* `argv`: the binary runs the words after its subcommand words as a command (`uv run CMD`, `nice CMD`);
* `env`: an environment variable whose value it runs (`PAGER=… git -p`, `LESSOPEN=… less`).

Usage: python scripts/gtfobins_catalogue.py CHECKOUT_DIR COMMIT > daemon/hookd/enrich/effects/data/gtfobins.json
(the `fetch` tool gives the checkout; the commit is recorded as the source).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import yaml

MARKERS = ("/bin/sh", "/path/to/command")
RUNS = ("shell", "command", "reverse-shell", "bind-shell")
# Lines whose marker runs elsewhere (a remote host, a container image) or only through a file written first.
SKIP_FIRST = frozenset({"echo", "cat", "cp", "mkdir", "ln", "touch", "chmod", "printf", "sudo", "export"})


def _hook(binary: str, line: str) -> dict[str, Any] | None:
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    env: list[str] = []
    while words and "=" in words[0] and not words[0].startswith("-") and words[0].split("=", 1)[0].isidentifier():
        env.append(words.pop(0))
    if not words or not _invokes(words[0].rsplit("/", 1)[-1], binary):
        return None
    for assignment in env:
        name, value = assignment.split("=", 1)
        if any(m in value for m in MARKERS):
            return {"kind": "env", "name": name}
    for k, word in enumerate(words[1:], start=1):
        if not any(m in word for m in MARKERS):
            continue
        start = min(word.find(m) for m in MARKERS if m in word)
        before = words[k - 1] if k > 1 else ""
        if word.startswith("--") and "=" in word:
            option, value = word.split("=", 1)
            prefix = value[: value.find(next(m for m in MARKERS if m in value))]
            return {
                "kind": "option",
                "option": option,
                "prefix": prefix,
                "code": bool(prefix.strip(";")) and "=" not in prefix,
            }
        if word.startswith("-") and not word.startswith("--") and len(word) > 2:
            return {"kind": "option", "option": word[:2], "prefix": word[2:start], "code": start > 2}
        if before.startswith("-") and before != "--":
            return {
                "kind": "option",
                "option": before.split("=", 1)[0],
                "prefix": word[:start],
                "code": _is_code(word[:start]),
            }
        if start == 0:
            subcommands = [w for w in words[1:k] if w.isalpha() and w.islower()]
            return {"kind": "argv", "subcommands": subcommands}
        return {"kind": "operand", "index": sum(1 for w in words[1:k] if not w.startswith("-"))}
    return None


def _invokes(program: str, binary: str) -> bool:
    """The example runs the binary, or its command-line front end (`octave-cli` of `octave`)."""
    return program == binary or program.startswith(binary + "-")


def _invoked(binary: str, lines: list[str]) -> set[str]:
    """The names other than the binary's own under which its examples run it (`octave-cli`)."""
    names = set()
    for line in lines:
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words and _invokes(program := words[0].rsplit("/", 1)[-1], binary) and program != binary:
            names.add(program)
    return names


def _is_code(prefix: str) -> bool:
    """A prefix that is not a key (`ProxyCommand=`, `exec=`) nor punctuation (`;`): code in the binary's language."""
    stripped = prefix.strip(" ;'\"")
    return (bool(stripped) and not stripped.endswith("=") and not stripped.endswith(":")) or "(" in prefix


def derive(checkout: Path, commit: str) -> dict[str, Any]:
    programs: dict[str, Any] = {}
    fronts: dict[str, str] = {}
    for path in sorted((checkout / "_gtfobins").iterdir()):
        documents = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]
        entry = next((d for d in documents if "functions" in d), None)
        if entry is None:
            continue
        name = path.name
        functions = sorted(entry["functions"])
        hooks: list[dict[str, Any]] = []
        every_line = [
            line.strip()
            for examples in entry["functions"].values()
            for example in examples or ()
            for line in str(example.get("code", "")).splitlines()
        ]
        for function in RUNS:
            for example in entry["functions"].get(function) or ():
                lines = str(example.get("code", "")).splitlines()
                for line in lines:
                    hook = _hook(name, line.strip())
                    if hook is not None and hook not in hooks:
                        hooks.append(hook)
        programs[name] = {"functions": functions, "runs": hooks, "url": f"https://gtfobins.github.io/gtfobins/{name}/"}
        fronts.update(dict.fromkeys(_invoked(name, every_line), name))
        for alias_doc in documents:
            alias = alias_doc.get("alias") if isinstance(alias_doc, dict) else None
            if alias:
                programs[name]["alias_of"] = alias
    for front, name in sorted(fronts.items()):
        if front not in programs:  # the examples' program name: the same entry
            programs[front] = {**programs[name], "alias_of": name}
    return {
        "source": "https://github.com/GTFOBins/GTFOBins.github.io",
        "commit": commit,
        "derived_by": "scripts/gtfobins_catalogue.py",
        "programs": programs,
    }


if __name__ == "__main__":
    json.dump(derive(Path(sys.argv[1]), sys.argv[2]), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
