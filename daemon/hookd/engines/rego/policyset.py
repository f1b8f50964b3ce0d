"""A Rego policy directory loaded and checked, as both Rego engines serve it (embedded regorus, or OPA).

At load time hookd reads every package under `data.hookd`, its verdict rules and its constant
`routing`, and generates a router module with one entry point per distinct set of packages that can
apply to an (event, tool kind, tool name), and for shell calls to the program names and traits of the
command line (`commands`, `shell`, `text`: a package that declares them is left out of a shell call
that holds none of them). A request evaluates just that entry point, so packages that do not apply are
never evaluated, and the answer is one object {package: {rule: [elements]}}, which
`verdicts_from_result` maps to verdicts.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import regorus

from hookd.engines.rego.gates import FactGate
from hookd.engines.rego.reads import calls_only_itself, module_reads, package_reads, route_inputs, union_of
from hookd.engines.rego.verdicts import VERDICT_RULES
from hookd.errors import PolicyLoadError, one_line
from hookd.types import JSON, Event, PackageInfo, ToolKind
from hookd.wire import jsonstrict

POLICY_ROOT = "hookd"
ROUTER_PACKAGE = "hookd_router"
ROUTER_MODULE = "<hookd-router>"
# `stream_text`: the strings a streamed chunk's text must hold for the package to answer it (hookd.policy.stream_cues)
_ROUTING_KEYS = frozenset({"events", "kinds", "tools", "commands", "shell", "text", "input", "facts", "stream_text"})
# The top-level keys of the input document (hookd.types.NormalisedEvent.input_document and the enrichers'
# facts) that `routing.input` may name: a package that declares the keys it reads gets only those.
INPUT_KEYS = frozenset(
    {"client", "event", "client_event", "tool", "session", "cwd", "project_dir", "caller", "raw", "home"}
    | {"shell", "paths", "stream", "effects", "hookd", "carried_secrets"}
)
_SHELL_KEYS = ("commands", "shell", "text")  # what a shell call must hold for the package to be evaluated
# The traits of a shell call a package can ask to be evaluated for (`routing.shell`), from input.shell:
SHELL_TRAITS = frozenset(
    {
        "redirect-out",  # a redirect whose operator holds `>` (`>`, `>>`, `2>&1`, `&>`, `<>`)
        "redirect-in",  # a redirect whose operator holds `<` (`<`, `<<`, `<<<`, `<&`, `<>`)
        "wrapped",  # a command run through a wrapper or runner (`wrappers` not empty) or with `sudo`
        "dynamic-program",  # a command whose program word holds `$` or a backtick
        "inline",  # a command with inline interpreter code (`inline`)
        # from input.effects (docs/policies.md, "The effect model"):
        "effect-read",  # a read, copy, move or link of a file (its source)
        "effect-write",  # a write, delete, mode change, move or link of a file
        "effect-unknown",  # an effect whose target or code is only known at run time (`known: false`), a flow, or
        # code left to run later, outside the hooks (`deferred`: an allowed `.envrc`'s settings in the user's shell)
        "effect-device",  # a device formatted, erased or written
        "effect-privilege",  # a command run with other privileges (sudo, sudoedit, pkexec, …)
        "effect-config",  # a configuration key that runs a command, written (`git config core.pager …`)
        "effect-signal",  # a signal sent (kill, pkill, killall)
        "effect-fork",  # processes started without bound (a shell function run as an element of its own pipeline)
    }
)
_EFFECT_TRAITS = {
    "device": "effect-device",
    "privilege": "effect-privilege",
    "signal": "effect-signal",
    "fork": "effect-fork",
}
_READS = frozenset({"read", "copy", "move", "link"})
_CHANGES = frozenset({"write", "delete", "chmod", "move", "link"})
MAX_SHELL_ROUTED = 6  # shell-routed packages of one route beyond these are evaluated for every shell call
RouteKey = tuple[str, str | None, str | None]  # (event, tool kind, tool name)


@dataclass(frozen=True, slots=True)
class RegoModule:
    path: Path
    package: str  # dotted, without "data."
    source: str
    rules: Mapping[str, str]  # rule name -> head kind ("Set", "Compr", "Func", "Default")
    reads: frozenset[str] | None = None  # the top-level input keys it reads; None: any (hookd.engines.rego.reads)
    calls_only_itself: bool = False  # no rule of another package is named in it (reads.calls_only_itself)


def discover(policy_dir: Path, *, include_tests: bool) -> tuple[list[Path], list[Path]]:
    """The .rego files and data.json files of a policy directory, in a stable order."""
    if not policy_dir.is_dir():
        raise PolicyLoadError(f"policy directory {policy_dir} does not exist")
    rego, data = [], []
    for root, dirs, files in os.walk(policy_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith(".rego") and (include_tests or not name.endswith("_test.rego")):
                rego.append(path)
            elif name == "data.json":
                data.append(path)
    return rego, data


def new_engine() -> Any:
    engine = regorus.Engine()
    engine.set_rego_v0(False)
    return engine


def read_modules(files: Iterable[Path], base: Path) -> list[tuple[str, str]]:
    """Each .rego file as (its path relative to `base`, its source)."""
    sources = []
    for path in files:
        rel = str(path.relative_to(base)) if path.is_relative_to(base) else str(path)
        try:
            sources.append((rel, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyLoadError(f"cannot read {path}: {exc}") from None
    return sources


def load_modules(engine: Any, files: Iterable[Path], base: Path) -> list[RegoModule]:
    return add_modules(engine, read_modules(files, base))


def add_modules(engine: Any, sources: Iterable[tuple[str, str]]) -> list[RegoModule]:
    modules = []
    for rel, source in sources:
        try:
            engine.add_policy(rel, source)
        except Exception as exc:  # regorus raises plain RuntimeError/ValueError with a parse message
            raise PolicyLoadError(f"{rel}: {one_line(str(exc))}") from None
    entries = [(e, _ref_to_dotted(e["ast"]["package"]["refr"])) for e in json.loads(engine.get_ast_as_json())]
    roots = {package.partition(".")[0] for _, package in entries}
    for entry, package in entries:
        ast = entry["ast"]
        modules.append(
            RegoModule(
                path=Path(entry["source"]["file"]),
                package=package,
                source=entry["source"]["contents"],
                rules=_rule_heads(ast.get("rules", [])),
                reads=module_reads(ast, entry["source"]["contents"]),
                calls_only_itself=calls_only_itself(ast, package, roots),
            )
        )
    return modules


@dataclass(frozen=True, slots=True)
class DataDocument:
    """One data.json: its value and where it sits under `data` (policies/x/data.json sits at ("x",))."""

    path: tuple[str, ...]
    value: JSON

    def rooted(self) -> dict[str, JSON]:
        value = self.value
        for part in reversed(self.path):
            value = {part: value}
        return value  # type: ignore[no-any-return]


def read_data(files: Iterable[Path], base: Path) -> list[DataDocument]:
    documents = []
    for path in files:
        try:
            value = jsonstrict.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise PolicyLoadError(f"{path}: not valid JSON: {one_line(str(exc))}") from None
        prefix = path.parent.relative_to(base).parts if path.parent.is_relative_to(base) else ()
        if not prefix and not isinstance(value, dict):
            raise PolicyLoadError(f"{path}: a data.json at the root of the policy directory must hold an object")
        documents.append(DataDocument(tuple(prefix), value))
    return documents


def load_data(engine: Any, files: Iterable[Path], base: Path) -> list[DataDocument]:
    documents = read_data(files, base)
    for document in documents:
        engine.add_data(jsonstrict.well_formed(document.rooted()))  # regorus crashes on a lone surrogate
    return documents


def _ref_to_dotted(ref: Mapping[str, Any]) -> str:
    if "Var" in ref:
        return str(ref["Var"]["value"])
    if "RefDot" in ref:
        inner = ref["RefDot"]
        return f"{_ref_to_dotted(inner['refr'])}.{inner['field'][1]}"
    if "RefBrack" in ref:
        inner = ref["RefBrack"]
        index = inner.get("index", {})
        key = index.get("String", {}).get("value", "?") if isinstance(index, dict) else "?"
        return f"{_ref_to_dotted(inner['refr'])}.{key}"
    raise PolicyLoadError(f"unsupported reference in a package or rule head: {sorted(ref)}")


def _rule_heads(rules: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    heads: dict[str, str] = {}
    for rule in rules:
        ((kind, body),) = rule.items()
        if kind == "Default":
            heads.setdefault(_ref_to_dotted(body["refr"]).split(".")[0], "Default")
            continue
        head = body.get("head", {})
        if not head:
            continue
        ((head_kind, head_body),) = head.items()
        name = _ref_to_dotted(head_body["refr"]).split(".")[0]
        heads[name] = head_kind if name not in heads or heads[name] == "Default" else heads[name]
    return heads


@dataclass(frozen=True, slots=True)
class PolicySet:
    """A policy directory loaded and checked: its modules and data, the packages under `data.hookd` with
    their routing, and the generated router. Both Rego engines serve one: regorus in process, or OPA."""

    policy_dir: Path
    engine: Any  # the regorus engine holding the modules, the data and the router
    modules: tuple[RegoModule, ...]
    data: tuple[DataDocument, ...]
    packages: tuple[PackageInfo, ...]
    router: Router
    router_source: str
    revision: str
    reads: frozenset[str] | None  # the input keys any of its modules reads; None: any key


@dataclass(frozen=True, slots=True)
class PolicySources:
    """A policy directory read but not compiled: what an isolated engine's workers compile
    (hookd.engines.rego.isolated), read by the daemon, which may read what they may not."""

    policy_dir: Path
    modules: tuple[tuple[str, str], ...]  # (path relative to the directory, source)
    data: tuple[DataDocument, ...]

    @property
    def revision(self) -> str:
        return _revision_of(self.modules)


def read_policy_sources(policy_dir: Path) -> PolicySources:
    policy_dir = policy_dir.resolve()
    rego_files, data_files = discover(policy_dir, include_tests=False)
    return PolicySources(
        policy_dir, tuple(read_modules(rego_files, policy_dir)), tuple(read_data(data_files, policy_dir))
    )


def load_policy_set(policy_dir: Path) -> PolicySet:
    return compile_policy_set(read_policy_sources(policy_dir))


def compile_policy_set(sources: PolicySources) -> PolicySet:
    policy_dir = sources.policy_dir
    engine = new_engine()
    modules = add_modules(engine, sources.modules)
    for document in sources.data:
        engine.add_data(document.rooted())
    packages = _packages(engine, modules)
    gates = [gate for package in packages if (gate := FactGate.of(package, INPUT_KEYS)) is not None]
    reads = union_of([*(module.reads for module in modules), *(gate.keys for gate in gates)])
    routes, router_source = build_router(packages, reads, package_reads(modules, gates, reads))
    try:
        engine.add_policy(ROUTER_MODULE, router_source)
        engine.set_input({})
        router = Router(routes)
        for rule in router.rules():
            engine.eval_rule_as_json(f"data.{ROUTER_PACKAGE}.{rule}")  # compile, and catch conflicts now
    except Exception as exc:
        raise PolicyLoadError(f"policies in {policy_dir} do not evaluate: {one_line(str(exc))}") from None
    return PolicySet(
        policy_dir,
        engine,
        tuple(modules),
        sources.data,
        tuple(packages),
        router,
        router_source,
        _revision(modules),
        reads,
    )


@dataclass(frozen=True, slots=True)
class ShellCondition:
    """When a package that declares `commands`, `shell` or `text` is evaluated for a shell call: a command
    of one of these names (or beginning with one of `prefixes`: `mkfs*`; or of a name with one of its
    words in argv: `git push`), one of these traits, or one of these texts in the command line."""

    package: str
    names: frozenset[str]
    prefixes: tuple[str, ...]
    words: frozenset[tuple[str, str]]
    traits: frozenset[str]
    texts: tuple[str, ...]

    @classmethod
    def of(cls, package: PackageInfo) -> ShellCondition | None:
        if not any(key in package.routing for key in _SHELL_KEYS):
            return None
        commands = package.routing.get("commands", frozenset())
        plain = {c for c in commands if " " not in c}
        return cls(
            package.name,
            frozenset(c for c in plain if not c.endswith("*")),
            tuple(sorted(c[:-1] for c in plain if c.endswith("*"))),
            frozenset((name, word) for name, word in (c.split(" ", 1) for c in commands if " " in c)),
            package.routing.get("shell", frozenset()),
            tuple(sorted(package.routing.get("text", ()))),
        )

    def holds(self, line: ShellLine) -> bool:
        return (
            not self.names.isdisjoint(line.names)
            or not self.traits.isdisjoint(line.traits)
            or not self.words.isdisjoint(line.words)
            or any(name.startswith(self.prefixes) for name in line.names)
            or any(text in line.source for text in self.texts)
        )


@dataclass(frozen=True, slots=True)
class ShellLine:
    """What the shell conditions look at in `input.shell`, found in one pass over its commands."""

    names: frozenset[str]
    traits: frozenset[str]
    words: frozenset[tuple[str, str]]  # (name, word of its argv), for the names in `word_names` only
    source: str

    @classmethod
    def of(
        cls, shell: Mapping[str, Any], word_names: frozenset[str] = frozenset(), effects: object = None
    ) -> ShellLine:
        names: set[str] = set()
        traits: set[str] = set()
        words: set[tuple[str, str]] = set()
        for command in shell["commands"]:
            if not isinstance(command, dict):
                continue
            name = command.get("name")
            argv = command.get("argv")
            if isinstance(name, str):
                names.add(name)
                if name in word_names and isinstance(argv, list):
                    words.update((name, w) for w in argv if isinstance(w, str))
            if isinstance(argv, list) and argv and isinstance(argv[0], str) and ("$" in argv[0] or "`" in argv[0]):
                traits.add("dynamic-program")
            if command.get("inline") not in (None, False):
                traits.add("inline")
            if command.get("sudo") is True or command.get("wrappers"):
                traits.add("wrapped")
            for redirect in command.get("redirects") or ():
                op = redirect.get("op") if isinstance(redirect, dict) else None
                if isinstance(op, str):
                    if ">" in op:
                        traits.add("redirect-out")
                    if "<" in op:
                        traits.add("redirect-in")
        source = shell.get("source")
        _effect_traits(effects, traits)
        return cls(frozenset(names), frozenset(traits), frozenset(words), source if isinstance(source, str) else "")


def _effect_traits(effects: object, traits: set[str]) -> None:
    """The `effect-*` traits of a call's effects (input.effects)."""
    if not isinstance(effects, list):
        return
    for effect in effects:
        if not isinstance(effect, dict):
            continue
        op = effect.get("op")
        if op in _READS:
            traits.add("effect-read")
        if op in _CHANGES:
            traits.add("effect-write")
        elif isinstance(op, str) and op in _EFFECT_TRAITS:
            traits.add(_EFFECT_TRAITS[op])
        if effect.get("known") is False or "flow" in effect or effect.get("deferred") is True:
            traits.add("effect-unknown")
        if effect.get("executes") is True:
            traits.add("effect-config")


def parsed_shell(document: Mapping[str, JSON]) -> Mapping[str, Any] | None:
    """`input.shell` when it holds a clean parse (commands, no parse error), else None: then a package is
    evaluated whatever it declares, so that a rule about what could not be read still runs."""
    shell = document.get("shell")
    if (
        not isinstance(shell, dict)
        or shell.get("parse_error") is not False
        or not isinstance(shell.get("commands"), list)
    ):
        return None
    return shell


@dataclass(frozen=True, slots=True)
class Route:
    """The router rules of one (event, tool kind, tool name): `every` holds every package that applies; for
    a shell call, `by_held` is the rule for each set of the shell-routed packages whose conditions hold."""

    every: str
    conditions: tuple[ShellCondition, ...] = ()
    by_held: Mapping[frozenset[str], str] = field(default_factory=dict)
    gates: tuple[FactGate, ...] = ()  # packages evaluated only when a fact they name holds (routing.facts)
    word_names: frozenset[str] = frozenset()  # the names of the conditions' `name word` entries
    # The input keys every applying package reads when each declares them (`routing.input`), else None: the
    # whole document. A streamed chunk's policies then do not get the conversation its request carries.
    inputs: frozenset[str] | None = None

    def project(self, document: Mapping[str, JSON]) -> Mapping[str, JSON]:
        """The part of `document` the applying packages read."""
        if self.inputs is None:
            return document
        return {key: document[key] for key in self.inputs if key in document}

    def rule_for(self, document: Mapping[str, JSON]) -> str:
        """The rule of the applying packages, a routed one where its shell condition (or a gate's fact) holds."""
        if not self.by_held:
            return self.every
        held = {c.package for c in self.conditions} | {g.package for g in self.gates}
        shell = parsed_shell(document) if self.conditions else None
        if shell is not None:
            line = ShellLine.of(shell, self.word_names, document.get("effects"))
            held.difference_update(c.package for c in self.conditions if not c.holds(line))
        held.difference_update(g.package for g in self.gates if not g.holds(document))
        return self.by_held[frozenset(held)]


class Router:
    """Which router rule decides a document: one per (event, tool kind, tool name) and, for shell calls, per
    set of the packages whose `commands`/`shell`/`text` the command line holds; "" when no package applies."""

    def __init__(self, routes: Mapping[RouteKey, Route]) -> None:
        self._routes = dict(routes)
        self._cache: dict[RouteKey, Route] = {}

    def route_for(self, document: Mapping[str, JSON]) -> Route:
        tool = document.get("tool")
        kind, name = (tool.get("kind"), tool.get("name")) if isinstance(tool, dict) else (None, None)
        key = (
            str(document.get("event")),
            kind if isinstance(kind, str) else None,
            name if isinstance(name, str) else None,
        )
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        route = self._routes.get(key)
        if route is None:
            route = self._routes.get((key[0], key[1], None), _NO_ROUTE)
        if len(self._cache) < 4096:
            self._cache[key] = route
        return route

    def rule_for(self, document: Mapping[str, JSON]) -> str:
        return self.route_for(document).rule_for(document)

    def rule_for_every(self, document: Mapping[str, JSON]) -> str:
        """The rule of every package the (event, kind, tool) applies to, shell conditions aside (what a
        command line hookd could not parse gets)."""
        return self.route_for(document).every

    def rules(self) -> set[str]:
        found = set()
        for route in self._routes.values():
            found.add(route.every)
            found.update(route.by_held.values())
        return found - {""}


_NO_ROUTE = Route("")


def _packages(engine: Any, modules: Sequence[RegoModule]) -> list[PackageInfo]:
    rules_by_package: dict[str, dict[str, str]] = {}
    for module in modules:
        if module.package == POLICY_ROOT or module.package.startswith(POLICY_ROOT + "."):
            rules_by_package.setdefault(module.package, {}).update(module.rules)
    packages = []
    for name in sorted(rules_by_package):
        rules = rules_by_package[name]
        routing = _routing(engine, name) if "routing" in rules else {}
        packages.append(PackageInfo(name=name, rules=rules, routing=routing))
    return packages


def _routing(engine: Any, package: str) -> dict[str, frozenset[str]]:
    try:
        engine.set_input({})
        value = engine.eval_rule(f"data.{package}.routing")
    except Exception as exc:
        raise PolicyLoadError(f"{package}.routing must be a constant object: {one_line(str(exc))}") from None
    if value is None:
        return {}
    if not isinstance(value, dict) or not set(value) <= _ROUTING_KEYS:
        raise PolicyLoadError(
            f"{package}.routing must be an object with keys {', '.join(sorted(_ROUTING_KEYS))}; got {value!r}"
        )
    routing: dict[str, frozenset[str]] = {}
    for key, items in value.items():
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise PolicyLoadError(f"{package}.routing.{key} must be a list of strings")
        routing[key] = frozenset(items)
    unknown_traits = routing.get("shell", frozenset()) - SHELL_TRAITS
    if unknown_traits:
        raise PolicyLoadError(
            f"{package}.routing.shell names unknown traits {sorted(unknown_traits)}; known: {sorted(SHELL_TRAITS)}"
        )
    unknown_inputs = routing.get("input", frozenset()) - INPUT_KEYS
    if unknown_inputs:
        raise PolicyLoadError(
            f"{package}.routing.input names unknown input keys {sorted(unknown_inputs)}; known: {sorted(INPUT_KEYS)}"
        )
    unknown_events = routing.get("events", frozenset()) - {e.value for e in Event}
    unknown_kinds = routing.get("kinds", frozenset()) - {k.value for k in ToolKind}
    if unknown_events or unknown_kinds:
        raise PolicyLoadError(f"{package}.routing names unknown events/kinds: {sorted(unknown_events | unknown_kinds)}")
    return routing


def build_router(
    packages: Sequence[PackageInfo],
    reads: frozenset[str] | None = None,
    by_package: Mapping[str, frozenset[str] | None] | None = None,
) -> tuple[dict[RouteKey, Route], str]:
    """One router rule per distinct set of applicable packages over every (event, kind, tool) and, for
    shell calls, over every subset of the packages that declare shell conditions. `reads`: the input keys
    the modules were found to read (None: any), for the packages that do not declare theirs; `by_package`: those
    of a package whose rules call no other package's (reads.package_reads), its own modules'."""
    tools: list[str | None] = [None, *sorted({t for p in packages for t in p.routing.get("tools", ())})]
    kinds: list[str | None] = [None, *(k.value for k in ToolKind)]
    routes: dict[RouteKey, Route] = {}
    rule_of_set: dict[tuple[str, ...], str] = {}

    def rule(names: Sequence[str]) -> str:
        return rule_of_set.setdefault(tuple(names), f"r{len(rule_of_set)}") if names else ""

    for event in Event:
        for kind in kinds:
            for tool in tools:
                applying = [p for p in packages if p.applies(event.value, kind, tool)]
                every = rule([p.name for p in applying])
                shell = kind == ToolKind.SHELL.value
                conditions = [c for p in applying if shell and (c := ShellCondition.of(p)) is not None]
                gates = [g for p in applying if (g := FactGate.of(p, INPUT_KEYS)) is not None]
                inputs = route_inputs(applying, reads, by_package)
                if not conditions and not gates:
                    routes[(event.value, kind, tool)] = Route(every, inputs=inputs)
                    continue
                conditioned = {c.package for c in conditions} | {g.package for g in gates}
                # the rest are evaluated for every call of the route
                routed = set([p.name for p in applying if p.name in conditioned][:MAX_SHELL_ROUTED])
                conditions = [c for c in conditions if c.package in routed]
                gates = [g for g in gates if g.package in routed]
                by_held = {}
                for size in range(len(routed) + 1):
                    for held in combinations(sorted(routed), size):
                        chosen = [p.name for p in applying if p.name not in routed or p.name in held]
                        by_held[frozenset(held)] = rule(chosen)
                word_names = frozenset(name for c in conditions for name, _ in c.words)
                routes[(event.value, kind, tool)] = Route(
                    every, tuple(conditions), by_held, tuple(gates), word_names, inputs
                )
    by_name = {p.name: p for p in packages}
    lines = [f"package {ROUTER_PACKAGE}", ""]
    for names, name in rule_of_set.items():
        # One package a line: regorus refuses a line longer than 1,024 columns.
        entries = "".join(f"\t{_package_entry(by_name[n])},\n" for n in names)
        lines.append(f"{name} := {{\n{entries}}}")
    return routes, "\n".join(lines) + "\n"


def _package_entry(package: PackageInfo) -> str:
    parts = []
    for rule, head in sorted(package.rules.items()):
        if rule not in VERDICT_RULES:
            continue
        ref = f"data.{package.name}.{rule}"
        body = f"[m | some m in {ref}]" if head == "Set" else f"[m | m := {ref}]"
        parts.append(f'"{rule}": {body}')
    return f'"{package.name}": {{{", ".join(parts)}}}'


def _revision(modules: Sequence[RegoModule]) -> str:
    return _revision_of([(str(module.path), module.source) for module in modules])


def _revision_of(modules: Iterable[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for path, source in sorted(modules):
        digest.update(path.encode() + b"\0" + source.encode() + b"\0")
    return digest.hexdigest()[:12]
