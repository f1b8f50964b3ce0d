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

import json
import os
import re
import shlex
from collections.abc import Sequence

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.compose import service_runs
from hookd.enrich.effects.languages import follow_code
from hookd.enrich.effects.ledger import Ledger, Place
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
    return settled_lines(lines)


def settled_lines(lines: Sequence[str]) -> list[str]:
    """The command lines whose words are all known before they run: one holding an expansion other than the
    home's, or a command substitution, takes its value from the environment (left out, as project code's are)."""
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


# Where a configuration's commands are: a terraform block (`provisioner "local-exec"`, `data "external"`) up to the
# next block of the file; its `command = "…"` (or a here-document) and `program = ["…", …]`
# (https://developer.hashicorp.com/terraform/language/resources/provisioners/local-exec,
# https://registry.terraform.io/providers/hashicorp/external/latest/docs/data-sources/external)
_TF_BLOCK = re.compile(
    r'(?:provisioner|data)\s+"(local-exec|external)"[^{]*\{(.*?)(?=^[^\S\n]*(?:resource|data|provisioner|module|output|variable|locals)\b|\Z)',
    re.S | re.M,
)
_TF_COMMAND = re.compile(r'\bcommand\s*=\s*(?:"((?:[^"\\\n]|\\.)*)"|<<-?(\w+)\n(.*?)\n[^\S\n]*\2\b)', re.S)
_TF_PROGRAM = re.compile(r"\bprogram\s*=\s*\[([^\]]*)\]")
_TF_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_COMPOSE_NAMES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
_MAX_FILES = 32  # the configuration files of one directory read
_MAX_ENTRIES = 256  # the entries of a directory listed to find them
_ELSEWHERE = re.compile(
    r"^[^\S\n]*(?:include|extends)[^\S\n]*:", re.M
)  # Compose keys that read another file's services


def leads(words: tuple[str, ...], argv: Sequence[str]) -> bool:
    """`words` are the program's first operands, options and their values anywhere between them (`docker compose
    -f a.yml -f b.yml up`, `terraform -chdir=infra apply`); no words: every run (`make`, whatever its goals). A
    word after an option without `=` is taken for its value, so another operand first (`compose logs up`) is not."""
    expected, after_option = list(words), False
    for word in argv[1:]:
        if not expected:
            break
        if word == expected[0]:
            expected.pop(0)
        elif word.startswith("-"):
            after_option = "=" not in word
            continue
        elif not after_option:
            return False
        after_option = False
    return not expected


def project_lines(kinds: frozenset[str], argv: Sequence[str], place: Place, ledger: Ledger) -> tuple[list[str], bool]:
    """The command lines the project's own configuration in the working directory holds that the program runs
    now (the catalogue's `project_runs`): terraform's `local-exec` commands and `external` programs (`*.tf`), a
    Compose file's services (`-f FILE`, else compose.yaml and its other names), each service as the `docker run`
    with its bind mounts that it amounts to (the shell builder puts its paths through them). Read as project
    scripts are (sourced_text's bounds); a line holding an expansion is left out, as project_code leaves it. The
    flag: whether all of it was read (terraform's `-chdir=DIR` is where it reads; more files or services than
    are read leave code unknown)."""
    project = ledger.project
    chdir = next((w.partition("=")[2] for w in argv if w.startswith("-chdir=")), ".")
    here = str(place(chdir).get("path") or "")
    lines: list[str] = []
    complete = True
    if kinds & {"local-exec", "external"}:
        found = _terraform_lines(kinds, here, project)
        lines, complete = (found, True) if found is not None else ([], False)
    if "compose" in kinds:
        found = _compose_lines(argv, place, here, ledger)
        lines, complete = lines + (found or []), complete and found is not None
    return settled_lines(lines), complete


def _compose_lines(argv: Sequence[str], place: Place, here: str, ledger: Ledger) -> list[str] | None:
    """The services of the Compose files the command names (`-f F`, `-fF`, `--file F`, `--file=F`), else of
    the one Compose finds and its override, the text the line wrote into one first; None when not all of them
    are read: a named file there that hookd cannot read (one nowhere makes Compose fail), more than _MAX_FILES,
    more services than are read, or one that takes more from elsewhere (`include`, `extends`)."""
    named = [argv[k + 1] for k, w in enumerate(argv[:-1]) if w in ("-f", "--file")]
    named += [w[len("--file=") :] if w.startswith("--file=") else w[2:] for w in argv if _attached_file(w)]
    files = list(dict.fromkeys(str(place(n).get("path") or "") for n in named)) or _default_compose_files(here)
    texts = [_compose_text(f, ledger) for f in files[:_MAX_FILES]]
    known = [t for t in texts if isinstance(t, str)]
    if len(files) > _MAX_FILES or False in texts or any(_ELSEWHERE.search(t) for t in known):
        return None
    return service_runs(known, ledger.home, os.path.dirname(files[0]) if files else here)


def _compose_text(path: str, ledger: Ledger) -> str | bool | None:
    """A Compose file's text: the line's own (`printf … > c.yml && docker compose -f c.yml up`) or the project's;
    None where there is none (Compose fails on a named one); False where there is one hookd cannot read."""
    if path in ledger.contents:
        return ledger.contents[path]
    if ledger.made(path) or not path:
        return False
    text = sourced_text(path, ledger.project)
    return text if text is not None else (False if os.path.lexists(path) else None)


def _attached_file(word: str) -> bool:
    return word.startswith("--file=") or (word.startswith("-f") and len(word) > 2 and not word.startswith("--"))


def _default_compose_files(directory: str) -> list[str]:
    """The file Compose reads without `-f` (the first of its names found) and that file's override, which it
    reads too (https://docs.docker.com/compose/how-tos/multiple-compose-files/merge/)."""
    for name in _COMPOSE_NAMES:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            stem, suffix = os.path.splitext(path)
            return [path, *(f"{stem}.override{s}" for s in (suffix, ".yml" if suffix == ".yaml" else ".yaml"))]
    return []


def _terraform_lines(kinds: frozenset[str], directory: str, project: str) -> list[str] | None:
    """The commands of the directory's `*.tf` files; None when they are more than are read."""
    try:
        with os.scandir(directory) as entries:
            listed = [e.name for _, e in zip(range(_MAX_ENTRIES + 1), entries, strict=False)]
    except OSError:
        return []
    names = sorted(n for n in listed if n.endswith(".tf"))
    if len(listed) > _MAX_ENTRIES or len(names) > _MAX_FILES:
        return None
    lines: list[str] = []
    for text in (sourced_text(os.path.join(directory, n), project) for n in names):
        for kind, body in _TF_BLOCK.findall(text or ""):
            if kind not in kinds:
                continue
            for quoted, _tag, heredoc in _TF_COMMAND.findall(body) if kind == "local-exec" else ():
                lines.append(heredoc if heredoc else _hcl_string(quoted))
            for listed in _TF_PROGRAM.findall(body) if kind == "external" else ():
                lines.append(shlex.join(_hcl_string(w) for w in _TF_STRING.findall(listed)))
    return lines


def _hcl_string(text: str) -> str:
    """An HCL quoted string's text (its escapes are JSON's, https://github.com/hashicorp/hcl/blob/main/hclsyntax/spec.md)."""
    try:
        return str(json.loads(f'"{text}"'))
    except ValueError:
        return text
