"""Project scripts an interpreter runs (docs/policies.md, "The effect model"): `python3 tools/x.py`, `node
scripts/postinstall.js`, `perl Makefile.PL`, and the project files it loads by an option before its code,
`python3 -m tools.bootstrap`, `ruby -Ilib -rsetup -e …`, `node -r ./preload.js app.js`. A file below the project
that no command of the line wrote is read as a sourced shell file is (its real path below the project, at most
MAX_SOURCED bytes of UTF-8: enrich/sourced.py) and followed as inline code of its language is (languages.json,
pycode.py): the commands it runs and the files it touches, named by literals, are walked as the line's own, so
`shutil.rmtree(Path.home() / "Documents")` in a project script is judged as `rm -r -f ~/Documents`.

What it does with values known only when it runs is not judged, nor its reads of the environment: a project's
own scripts are everyday work, and the file is still run as known, as before. A command line holding an
expansion (`$DIR`, a backtick) is left out for the same reason: its value comes from the environment."""

from __future__ import annotations

import os.path
import re
import shlex
from collections.abc import Sequence

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.languages import follow_code
from hookd.enrich.effects.ledger import Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.pycode import UNKNOWN, python_effects
from hookd.enrich.sourced import sourced_text

# an expansion other than the home's (`$HOME` is where the code named the home) or a command substitution
_EXPANDS = re.compile(r"\$(?!HOME\b|\{HOME\})|`")
# The options by which an interpreter loads a file before its code: (options, search-path options, suffixes)
_LOADS: dict[str, tuple[frozenset[str], frozenset[str], tuple[str, ...]]] = {
    "ruby": (frozenset({"-r"}), frozenset({"-I"}), (".rb",)),  # https://docs.ruby-lang.org/en/master/ruby_1.html
    "node": (frozenset({"--require", "--import"}), frozenset(), ("", ".js", ".cjs", ".mjs")),  # nodejs.org/api/cli
    "perl": (frozenset({"-M", "-m"}), frozenset({"-I"}), (".pm",)),  # https://perldoc.perl.org/perlrun
}


def project_code(path: str, lang: str, project: str) -> list[str]:
    """The command lines that do what the project file `path`, code in `lang`, does by literals."""
    text = sourced_text(path, project) if lang != "sh" else None
    if text is None:
        return []
    if lang == "python":
        effects = python_effects(text)
        lines = [_shell_line(argv) for argv in effects.commands if argv and UNKNOWN not in argv]
        lines += effects.scripts
    elif lang in catalogue().languages:
        followed = follow_code(lang, text)
        lines = [*followed.commands, *(f for f in followed.files if f != "env" and not f.startswith("printenv "))]
    else:
        return []
    return [line for line in lines if line.strip() and not _EXPANDS.search(line)]


def loaded_files(lang: str, parsed: Parsed, place: Place) -> list[str]:
    """The project files an interpreter loads before its code: `python -m pkg.mod` (pkg/mod.py or its
    __main__.py), `ruby -I DIR -r NAME`, `node -r ./x.js`, `perl -I lib -MName`; each path as placed."""
    if lang == "python":
        module = next((v for o, v in parsed.options if o == "-m" and v), "")
        base = module.replace(".", "/")
        return _existing([f"{base}.py", f"{base}/__main__.py"], place)[:1] if module else []
    loads, searches, suffixes = _LOADS.get(lang, (frozenset(), frozenset(), ()))
    dirs = [v for o, v in parsed.options if o in searches and v] + ["."]
    found: list[str] = []
    for option, value in parsed.options:
        if option not in loads or not value:
            continue
        name = value.split("=", 1)[0].replace("::", "/") if lang == "perl" else value
        if lang == "node" and not name.startswith(("./", "../", "/")):
            continue  # a package name: node_modules, not the project's own file
        bases = [name] if name.startswith("/") else [f"{d}/{name}" for d in dirs]
        found += _existing([f"{b}{s}" for b in bases for s in suffixes], place)[:1]
    return found


def _existing(candidates: Sequence[str], place: Place) -> list[str]:
    paths = (str(place(c).get("path") or "") for c in candidates)
    return [p for p in paths if p and os.path.isfile(p)]


def _shell_line(argv: Sequence[str]) -> str:
    """An argv as a shell line, a leading `~` left for the shell to expand (the home the code names)."""
    return " ".join(
        "~/" + shlex.quote(w[2:]) if w.startswith("~/") else "~" if w == "~" else shlex.quote(w) for w in argv
    )
