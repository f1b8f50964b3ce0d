"""The command line a tool that wraps one program's subcommands amounts to: an MCP git server's `git_reset`,
`git_push`, `git_clean`, `git_diff` (mcp-server-git, cyanheads' git-mcp-server), a package manager server's
`install` (npm-mcp), a Kubernetes server's `kubectl_get` (and a manifest's containers: pod_lines). Part of what an
MCP tool runs (tool_args.command_lines), judged by the shell's analysis of the line as the same command typed into
the agent's shell is.

The tool's name says the program (a word of it naming git, a package manager hookd knows packages of: the
catalogue's `url_packages`, or a program whose subcommands the catalogue says print secrets or set code: kubectl's
`get secrets -o yaml`) and the subcommand (the next word of the name, which for a package manager must be one of its
install words). A string argument named for one of the program's long options that take a value is that option with
its value (`namespace: "all"` → `--namespace all`). Its arguments are the subcommand's options and operands as such
a server builds its argv from them: a boolean that is true is the long option of its name (`force` → `--force`,
`saveExact` → `--save-exact`); a string that is one of the subcommand's long options is that option (`mode: "hard"`
→ `--hard`); an argument naming the repository or directory is where the line runs (`cd DIR &&`); an argument named
for a value (`value`: the value a `git_config` tool sets, which may hold blanks) is an operand whatever it holds; any
other string without blanks, and each string of a list, is an operand, in the order given (a message with blanks is
none). For
git the subcommand's long options are git.json's `subcommand_long_options`: a boolean option it does not list
(`directories`, spelled `-d` by git) is left out, so the line says no more than git would be told."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.config_commands import parsed_settings
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.tool_args import compose_words, container_line

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Words of an argument's name that make it the repository or directory the subcommand runs in
_PLACE_WORDS = frozenset({"path", "repo", "repository", "cwd", "dir", "directory", "workdir", "project", "root"})
# Words of an argument's name that make it the value the subcommand sets (`git config KEY VALUE`): an operand
_VALUE_WORDS = frozenset({"value"})
MAX_NAME = 200
MAX_OPERANDS = 64


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name[:MAX_NAME])]


_Said = tuple[str, str, frozenset[str] | None, frozenset[str]]


def _program(said: list[str]) -> _Said | None:
    """The program, subcommand, (for git) that subcommand's long options, and the long options taking a value
    that arguments may name (for a program whose subcommands print secrets or set code), or None."""
    for at, word in enumerate(said[:-1]):
        sub = next((w for w in said[at + 1 :] if w != word), "")
        if word == "git" and sub:  # the first word git has as a subcommand: `git_set_config` is `git config`
            known = catalogue().git["subcommand_long_options"]
            sub = next((w for w in said[at + 1 :] if w in known), sub)
            return word, sub, frozenset(known.get(sub, [])), frozenset()
        program = catalogue().get(word)
        if program is not None and sub in {words[0] for words in program.url_packages}:
            return word, sub, None, frozenset()
        if program is not None and sub and not program.url_packages and (program.prints_secret or program.sets_code):
            return word, sub, None, program.table.long_value  # `kubectl_get`
    return None


def _kebab(name: str) -> str:
    return "-".join(_words(name))


def _option(key: str, said: tuple[str, str], options: frozenset[str] | None) -> str:
    """The long option a true boolean argument sets: its name (`force_with_lease`), or its name without the words
    the tool's name already says (`forcePush` of `git_push` is `--force`); for git only one the subcommand takes."""
    whole = _kebab(key)
    bare = "-".join(w for w in _words(key) if w not in said)
    if options is None:
        return whole
    return whole if whole in options else bare if bare in options else ""


def _operand(key: str, value: str) -> bool:
    """A string argument that is an operand: one named for a value (`value`), or any other without blanks."""
    return bool(value) and (bool(set(_words(key)) & _VALUE_WORDS) or not any(c.isspace() for c in value))


def cli_line(tool: str, tool_input: Mapping[str, Any]) -> str | None:
    """The shell line the tool amounts to (the module doc), or None: a tool whose name says no such program."""
    said = _program(_words(tool))
    if said is None:
        return None
    program, sub, options, valued = said
    flags: list[str] = []
    operands: list[str] = []
    where = ""
    for key, value in tool_input.items():
        if isinstance(value, str) and set(_words(key)) & _PLACE_WORDS:
            where = where or value
        elif value is True and (option := _option(key, (program, sub), options)):
            flags.append(f"--{option}")
        elif isinstance(value, str) and options is not None and value.strip().lower() in options:
            flags.append(f"--{value.strip().lower()}")
        elif isinstance(value, str) and value and _kebab(key) in valued:
            flags += [f"--{_kebab(key)}", value]  # `namespace: "all"`, `output: "yaml"`: the option and its value
        elif isinstance(value, str) and _operand(key, value):
            operands.append(value)
        elif isinstance(value, list):
            operands += [v for v in value if isinstance(v, str) and v and not any(c.isspace() for c in v)]
    argv = [*operands[:MAX_OPERANDS], *flags] if valued else [*flags, *operands[:MAX_OPERANDS]]
    line = shlex.join([program, sub, *argv])  # (kubectl's table words name the resource before the options)
    return f"cd {shlex.quote(where)} && {line}" if where else line


_POD_KINDS = {
    "Pod": ("spec",),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}  # any other kind that runs pods: `spec.template.spec` (a Deployment's, a Job's, a DaemonSet's)
MAX_MANIFEST = 64 * 1024
MAX_CONTAINERS = 16


def pod_lines(tool_input: Mapping[str, Any]) -> list[str]:
    """The `docker run` line of each container a Kubernetes manifest given as text starts (`kubectl_apply`'s
    `manifest`, a Pod, a workload's pod template): its image, command and args, `securityContext.privileged`, and
    each `hostPath` volume at its `mountPath`, so that what the command does through the node's files is judged as
    a container run's is (https://kubernetes.io/docs/concepts/storage/volumes/#hostpath)."""
    out: list[str] = []
    for manifest in (m for v in tool_input.values() for m in _manifests(v)):
        for spec in _pod_specs(manifest):
            hosts = {v.get("name"): v["hostPath"].get("path") for v in _maps(spec.get("volumes"))
                     if isinstance(v.get("hostPath"), Mapping)}  # fmt: skip
            for box in [*_maps(spec.get("initContainers")), *_maps(spec.get("containers"))][:MAX_CONTAINERS]:
                mounts = [
                    f"{hosts[m.get('name')]}:{m.get('mountPath')}"
                    for m in _maps(box.get("volumeMounts"))
                    if isinstance(hosts.get(m.get("name")), str) and isinstance(m.get("mountPath"), str)
                ]
                security = box.get("securityContext")
                given = {"image": box.get("image"), "volumes": mounts, "command": [
                    *compose_words(box.get("command")), *compose_words(box.get("args"))],
                    "privileged": isinstance(security, Mapping) and security.get("privileged") is True}  # fmt: skip
                out.extend([line] if (line := container_line("container", given)) is not None else [])
    return out


def _manifests(value: Any) -> list[Any]:
    """The objects a manifest holds: each document of a YAML stream (`---`), each item of a `kind: List`, one
    given as an object rather than text."""
    if isinstance(value, str):
        text = value[:MAX_MANIFEST]
        found = [parsed_settings(d) for d in _DOCUMENT.split(text)] if "containers" in text else []
    else:
        found = [value] if isinstance(value, Mapping) else []
    listed = [i for f in found if isinstance(f, Mapping) and f.get("kind") == "List" for i in _maps(f.get("items"))]
    return [*found, *listed][:MAX_CONTAINERS]


_DOCUMENT = re.compile(r"^---[^\S\n]*$", re.M)  # a YAML stream's document separator


def _pod_specs(parsed: Any) -> list[Mapping[str, Any]]:
    """The pod spec of a manifest of a kind that runs one (a Pod, a Job's or CronJob's template, any workload
    with `spec.template.spec`)."""
    if not isinstance(parsed, Mapping):
        return []
    node: Any = parsed
    for key in _POD_KINDS.get(str(parsed.get("kind")), ("spec", "template", "spec")):
        node = node.get(key) if isinstance(node, Mapping) else None
    return [node] if isinstance(node, Mapping) else []


def _maps(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []
