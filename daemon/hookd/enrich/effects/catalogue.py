"""The program catalogue: what ordinary programs do with their arguments, read once from `data/*.json`
(docs/policies.md, "The effect model"). `programs.json` is hookd's own table, each entry with its public
source; `gtfobins.json` is derived from GTFOBins (scripts/gtfobins_catalogue.py) and adds, for every
binary there, where it takes a command or code to run (`runs`) and whether it can read or write files;
an entry of programs.json replaces the derived `runs` of its program. `git.json` holds git's executing
configuration keys, environment variables and options, and what git commands throw away; `languages.json`
what code in other languages does that reaches the system (hookd.enrich.effects.languages)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.enrich.effects.options import OptionTable
from hookd.enrich.effects.program import (
    EnvironmentTable,
    Hook,
    Launcher,
    Loaded,
    Modules,
    Program,
    ShellSetup,
    StartupFiles,
)

__all__ = ["DATA", "Catalogue", "Hook", "Modules", "Program", "ShellSetup", "StartupFiles", "catalogue"]

DATA = Path(__file__).parent / "data"


def _hooks(items: Any, *, derived: bool = False) -> tuple[Hook, ...]:
    hooks = []
    for item in items or ():
        hooks.append(
            Hook(
                kind=str(item.get("kind", "")),
                option=str(item.get("option", "")),
                prefix=str(item.get("prefix", "")),
                code=bool(item.get("code", False)),
                lang=str(item.get("lang", "")),
                index=int(item.get("index", 0)),
                name=str(item.get("name", "")),
                subcommands=tuple(item.get("subcommands", ())),
                same_shell=bool(item.get("same_shell", False)),
                derived=derived,
                argv=str(item.get("argv", "")),
                setting=bool(item.get("setting", False)),
                binds=tuple(str(w) for w in item.get("binds", ())),
                leading=str(item.get("leading", "")),
            )
        )
    return tuple(hooks)


def _traces(spec: Any) -> Mapping[str, Any] | None:
    """A `traces_memory` entry: `true` (every attach prints the process's data) or its filters (effects/traced.py)."""
    return dict(spec) if isinstance(spec, Mapping) else {} if spec is True else None


def _table(spec: Mapping[str, Any], hooks: tuple[Hook, ...]) -> OptionTable:
    long_value = set(spec.get("long_value", ()))
    option_names = [h.option for h in hooks if h.kind == "option"] + list(spec.get("option_ops", {}))
    long_value.update(o[2:] for o in option_names if o.startswith("--"))
    same = dict(spec.get("same", {}))
    long_value.update(
        v[2:] for k, v in same.items() if v.startswith("--") and len(k) == 2 and k[1] in spec.get("short_value", "")
    )
    whole = {o for o in [*option_names, *same] if o.startswith("-") and not o.startswith("--") and len(o) > 2}
    single_dash = bool(spec.get("single_dash_long"))
    if single_dash:  # every word is one option, none a cluster of letters (`exiftool -Comment<=F` holds no `-o`)
        whole.update("-" + n for n in spec.get("long_value", ()))
        whole.update(o for o in option_names if o.startswith("-") and not o.startswith("--"))
    short_value = set(spec.get("short_value", ""))
    short_value.update(o[1] for o in option_names if len(o) == 2 and o[0] == "-" and o[1] != "-" and not single_dash)
    optional = frozenset(spec.get("long_optional", ()))  # `--pager[=CMD]`: a value only after `=`
    return OptionTable(
        short_value=frozenset(short_value),
        long_value=frozenset(long_value) - optional,
        long_flags=(frozenset(spec.get("long", ())) - long_value) | optional,
        same=same,
        whole=frozenset(whole),
        arity=dict(spec.get("arity", {})),
        whole_flags=frozenset("-" + n for n in spec.get("long", ())) if single_dash else frozenset(),
        ends=frozenset([spec["module_option"]]) if spec.get("module_option") else frozenset(),
        short_optional={k: re.compile(v) for k, v in dict(spec.get("short_optional", {})).items()},
        verbs=frozenset(spec.get("verbs", ())),
    )


def _environment_writes(spec: Mapping[str, Any]) -> list[tuple[tuple[str, ...], frozenset[str], bool]]:
    return [
        (tuple(e["words"]), frozenset(e.get("options", ())), bool(e.get("own")))
        for e in spec.get("environment_writes", ())
    ]


def _modules(spec: Any) -> Modules | None:
    if not isinstance(spec, Mapping):
        return None
    table = {
        str(name): (tuple(entry.get("keys", ())), str(entry.get("op", "")), str(entry.get("absent", "")))
        for name, entry in dict(spec.get("table", {})).items()
    }
    return Modules(str(spec["option"]), str(spec["args"]), frozenset(spec.get("local", ())), table)


def _program(name: str, spec: Mapping[str, Any], derived: Mapping[str, Any] | None) -> Program:
    hooks = _hooks(spec["runs"]) if "runs" in spec else _hooks((derived or {}).get("runs"), derived=True)
    hooks = tuple(h if h.lang or not h.code else Hook(**{**_fields(h), "lang": name}) for h in hooks)
    launcher_spec = spec.get("launcher")
    if launcher_spec is None and "launcher" not in spec and derived is not None:
        argv_hooks = [h for h in hooks if h.kind == "argv"]
        if argv_hooks:
            launcher_spec = {"subcommands": [" ".join(h.subcommands) for h in argv_hooks if h.subcommands]}
    launcher = (
        Launcher(
            tuple(tuple(str(s).split()) for s in launcher_spec.get("subcommands", ())),
            int(launcher_spec.get("fixed", 0)),
            tuple(launcher_spec.get("after", ())),
        )
        if isinstance(launcher_spec, Mapping)
        else None
    )
    runs = tuple(h for h in hooks if h.kind != "argv")
    return Program(
        name=name,
        source=str(spec.get("source") or (derived or {}).get("url", "")),
        table=_table(spec, hooks),
        operands=str(spec.get("operands", "")),
        first=str(spec.get("first", "")),
        rest=str(spec.get("rest", "")),
        last=str(spec.get("last", "")),
        option_ops=dict(spec.get("option_ops", {})),
        makes={option: frozenset(modes) for option, modes in spec.get("makes", {}).items()},
        prints_none={k: frozenset(v) for k, v in spec.get("prints_none", {}).items() if k != "source"},
        filter_lang=str(spec.get("filter_lang", "")),
        output=str(spec.get("output", "")),
        keyword_ops=dict(spec.get("keyword_ops", {})),
        recursive=_recursive(spec),
        recursive_always=bool(spec.get("recursive_always", False)),
        runs=runs,
        launcher=launcher,
        script_operand=str(spec.get("script_operand", "")),
        pattern_first=bool(spec.get("pattern_first", False)),
        pattern_options=frozenset(spec.get("pattern_options", ())),
        lists_names=frozenset(spec.get("lists_names", ())),
        follows_links=frozenset(spec.get("follows_links", ())),
        target_options=frozenset(spec.get("target_option", ())),
        target_deletes=frozenset(spec.get("target_deletes", ())),
        privilege=bool(spec.get("privilege", False)),
        privilege_options=frozenset(spec.get("privilege_options", ())),
        mount_options=frozenset(spec.get("mount_options", ())),
        container_runs=frozenset(spec.get("container_runs", ())),
        grants=str(spec.get("grants", "")),
        compiles=str(spec.get("compiles", "")),
        deletes_named=tuple(
            (tuple(e["words"]), str(e["what"]), str(e.get("op", "delete")), frozenset(e.get("when", ())))
            for e in spec.get("deletes_named", ())
        ),
        environment_writes=tuple(_environment_writes(spec)),
        manager_environment=tuple((tuple(e["words"]), str(e["form"])) for e in spec.get("manager_environment", ())),
        abbreviated_commands=frozenset(spec.get("abbreviated_commands", ())),
        env_tables=tuple(dict(e) for e in spec.get("env_tables", ())),
        unit_files=dict(spec.get("unit_files", {})),
        removes_below=tuple(
            (tuple(e["words"]), str(e["directory"]), str(e.get("match", "name"))) for e in spec.get("removes_below", ())
        ),
        clears_stores={option: tuple(stores) for option, stores in spec.get("clears_stores", {}).items()},
        link_farm=dict(spec.get("link_farm", {})),
        members_below=dict(spec.get("members_below", {})),
        sets_code=tuple(
            (
                tuple(e["words"]),
                tuple(e["keys"]),
                str(e.get("file", "")),
                str(e.get("value", "program")),
                str(e.get("args_option", "")),
            )
            for e in spec.get("sets_code", ())
        ),
        removes=frozenset(spec.get("removes", ())),
        subcommand_ops=dict(spec.get("subcommand_ops", {})),
        local_backends=frozenset(spec.get("local_backends", ())),
        word_ops={tuple(words.lower().split()): str(op) for words, op in spec.get("word_ops", {}).items()},
        signal=str(spec.get("signal", "")),
        regex_options=frozenset(spec.get("regex_options", ())),
        pid_options=frozenset(spec.get("pid_options", ())),
        select_options=frozenset(spec.get("select_options", ())),
        pid_changes=frozenset(spec.get("pid_changes", ())),
        reads_memory=bool(spec.get("reads_memory", False)),
        traces_memory=_traces(spec.get("traces_memory")),
        process_options=dict(spec.get("process_options", {})),
        pid_operand_with=frozenset(spec.get("pid_operand_with", ())),
        implicit_files=tuple(spec.get("implicit_files", ())),
        link_options=frozenset(spec.get("link_options", ())),
        task_modules=_modules(spec.get("task_modules")),
        rewrites_configured=frozenset(spec["rewrites_configured"]) if "rewrites_configured" in spec else None,
        stop_words=frozenset(spec.get("stop_words", ())),
        own_unit=bool(spec.get("own_unit", False)),
        stop_all=frozenset(spec.get("stop_all", ())),
        stop_all_units=(
            frozenset(spec.get("stop_all_units", {}).get("words", ())),
            frozenset(spec.get("stop_all_units", {}).get("units", ())),
        ),
        power=frozenset(spec.get("power", ())),
        schedules=str(spec.get("schedules", "")),
        makes_empty=bool(spec.get("makes_empty", False)),
        passes_input=bool(spec.get("passes_input", False)),
        append_options=frozenset(spec.get("append_options", ())),
        in_place_silent=dict(spec.get("in_place_silent", {})),
        sized_by=frozenset(spec.get("sized_by", ())),
        size_options=frozenset(spec.get("size_options", ())),
        installs_code=tuple(tuple(str(w) for w in words) for words in spec.get("installs_code", ())),
        schedule_inert=frozenset(spec.get("schedule_inert", ())),
        writes_files=tuple(_written(entry) for entry in spec.get("writes_files", ())),
        state_dir=dict(spec.get("state_dir", {})),
        device_read_only=frozenset(spec.get("device_read_only", ())),
        remote_name=frozenset(spec.get("remote_name", ())),
        at_file_options=frozenset(spec.get("at_file_options", ())),
        at_file_args=bool(spec.get("at_file_args", False)),
        writes_in_place=frozenset(spec.get("writes_in_place", ())),
        reads_in_loop=frozenset(spec.get("reads_in_loop", ())),
        replaces=dict(spec.get("replaces", {})),
        empties_in_place=frozenset(spec.get("empties_in_place", ())),
        like=str(spec.get("like", "")),
        prints_secret=tuple(
            (tuple(p["words"]), str(p["path"]), frozenset(p.get("unless", ()))) for p in spec.get("prints_secret", ())
        ),
        workdir_option=str(spec.get("workdir_option", "")),
        prints_shell=tuple(
            ShellSetup(tuple(p["words"]), bool(p.get("shell")), bool(p.get("names")), frozenset(p.get("options", ())))
            for p in spec.get("prints_shell", ())
        ),
        secret_stdin=frozenset(spec.get("secret_stdin", ())),
        network=bool(spec.get("network", False)),
        sends=bool(spec.get("sends", False)),
        remote_operands=bool(spec.get("remote_operands", False)),
        sends_words=tuple(tuple(str(w) for w in words) for words in spec.get("sends_words", ())),
        batch_puts=bool(spec.get("batch_puts", False)),
        gtfobins=frozenset((derived or {}).get("functions", ())),
        find=bool(spec.get("find", False)),
        archive=bool(spec.get("archive", False)),
        plus_code=str(spec.get("plus_code", "")),
        stdin_lang=str(spec.get("stdin_lang", "")),
        stdin_script=spec.get("stdin_script", bool(spec.get("script_operand"))) is True,
        stdin_script_named=spec.get("stdin_script") == "named",
        script_after=frozenset(spec.get("script_after", ())),
        pipe_prefixes=tuple(spec.get("pipe_prefixes", ())),
        stdin_script_options=frozenset(spec.get("stdin_script_options", ())),
        bare_commands=bool(spec.get("bare_commands", False)),
        modules=dict(spec.get("modules", {})),
        include_options=frozenset(spec.get("include_options", ())),
        stdin_names=frozenset(spec.get("stdin_names", ())),
        stdin_copies=frozenset(spec.get("stdin_copies", ())),
        copy_when=frozenset(spec.get("copy_when", ())),
        code_file_options=frozenset(spec.get("code_file_options", ())),
        library_options=frozenset(spec.get("library_options", ())),
        code_file_lang=str(spec.get("code_file_lang", "")),
        code_file_when=frozenset(spec.get("code_file_when", ())),
        code_file_named=bool(spec.get("code_file_named", False)),
        signal_options=frozenset(spec.get("signal_options", ())),
        space_options=frozenset(spec.get("space_options", ())),
        file_prefix=str(spec.get("file_prefix", "")),
        reads_code=tuple(dict(e) for e in spec.get("reads_code", ())),
        editor=bool(spec.get("editor", False)),
        remote_command=bool(spec.get("remote_command", False)),
        socat=bool(spec.get("socat", False)),
        host_copy=str(spec.get("host_copy", "")),
        builds=tuple(tuple(str(words).split()) for words in spec.get("builds", ())),
        rest_api=dict(spec.get("rest_api", {})),
        serves=dict(spec.get("serves", {})),
        hosted=dict(spec.get("hosted", {})),
        retention=dict(spec.get("retention", {})),
        sweeps=dict(spec.get("sweeps", {})),
        decrypts=dict(spec.get("decrypts", {})),
        clear_outputs=dict(spec.get("clear_outputs", {})),
        parameters=dict(spec.get("parameters", {})),
        url_scripts=tuple(tuple(str(w) for w in words) for words in spec.get("url_scripts", ())),
        url_options=frozenset(spec.get("url_options", ())),
        url_packages=tuple(tuple(str(w) for w in words) for words in spec.get("url_packages", ())),
        index_options=dict(spec.get("index_options", {})),
        index_variables=dict(spec.get("index_variables", {})),
        property_command=(
            str(spec.get("property_command", {}).get("program", "")),
            str(spec.get("property_command", {}).get("args", "")),
        ),
        project_runs=tuple(
            (tuple(str(w) for w in e["words"]), frozenset(str(k) for k in e["kinds"]))
            for e in spec.get("project_runs", ())
        ),
        implicit=tuple(
            (tuple(str(w) for w in e.get("words", ())), tuple(e["files"]), str(e["lang"]))
            for e in spec.get("implicit", ())
        ),
        code_operand=any(h.kind == "operand" for h in runs),
        code_options=frozenset(spec.get("code_file_options", ())).difference(spec.get("library_options", ()))
        | {h.option for h in runs if h.kind == "option" and h.code},
    )


def _written(entry: str | Mapping[str, Any]) -> tuple[tuple[str, ...], str]:
    """A file a program writes: a path, or `{"words", "path"}` for one a subcommand writes (`hookd shim build`)."""
    if isinstance(entry, str):
        return (), entry
    return tuple(str(w) for w in entry["words"]), str(entry["path"])


def _recursive(spec: Mapping[str, Any]) -> frozenset[str]:
    """The options that make a program recursive as the parser names them (`-r`'s long name, or each letter)."""
    given = set(spec.get("recursive", ()))
    same = spec.get("same", {})
    return frozenset(given | {same[o] for o in given if o in same})


def _startup_files(data: Mapping[str, Any]) -> StartupFiles:
    names, below, system, patterns = (data.get(key, ()) for key in ("names", "below", "system", "patterns"))
    return StartupFiles(frozenset(names), tuple(below), tuple(system), tuple(patterns))


def _fields(hook: Hook) -> dict[str, Any]:
    return {name: getattr(hook, name) for name in Hook.__slots__}


# hookd's own command line: what its words name it reads (`hookd log verify FILE`, `hookd eval < F`); what changes
# hookd's set-up (`uninstall`, `stop`, `service install` from another config) is protected_paths' to judge; what its
# subcommands write is theirs: `bundle build|sign -o FILE`, `shim build --out DIR` (by default the native shim's own
# directory, README.md "Native shim"); `--cc` is the compiler it runs; `uninstall` and `stop` stop the guard
_OWN_COMMAND: Mapping[str, Mapping[str, Any]] = {
    "hookd": {
        "operands": "read",
        "long_value": [
            "config", "revision", "root", "signing-key", "signing-alg", "key-id", "scope", "verification-key",
            "output", "out", "cc", "policies", "runtime-dir", "client", "project-dir", "shim", "transport", "event",
            "decision", "tool", "session", "unit-dir", "run-as", "bundle", "store", "fail-on", "first", "engine",
            "opa-url", "calls", "workers", "only", "trace-scale", "compare",
        ],
        "short_value": "on",
        "option_ops": {"-o": "write", "--output": "write", "--out": "write-tree", "--cc": "exec-file",
                       "--signing-key": "use", "--verification-key": "use"},
        "writes_files": [{"words": ["shim", "build"], "path": "~/.local/share/hookd/bin/hookd-shim"}],
        "signal": "unit",  # `hookd uninstall`, `hookd stop`: the guard itself taken away, wherever the line runs
        "stop_words": ["uninstall", "stop"],
        "own_unit": True,  # `hookd service uninstall` removes hookd's own units, whatever other words it has
        "source": "hookd.cli (this daemon's own command: README.md, Commands; docs/bundles.md, CLI)",
    }
}  # fmt: skip


class Catalogue:
    """The programs, each built from its data the first time a command names it, and git's table."""

    __slots__ = (
        "_built", "_derived", "_specs", "address_names", "admin_ports", "admin_sockets", "bin_dirs", "code_extensions",
        "command_directives", "config_environment", "environment",
        "forge_apis", "git", "guarded_names", "host_environment", "instruction_files", "languages", "member_files",
        "metadata_hosts",
        "metadata_local", "metadata_paths", "number_outputs", "plain_environment",
        "power_files", "prefixes", "process_files", "program_configs", "runs_later",
        "search_paths", "settings_files", "signal_files", "startup_files", "system_programs")  # fmt: skip

    def __init__(
        self,
        own: Mapping[str, Any],
        derived: Mapping[str, Any],
        git: Mapping[str, Any],
        languages: Mapping[str, Any] | None = None,
    ) -> None:
        self._specs: dict[str, Mapping[str, Any]] = {**_OWN_COMMAND, **own["programs"]}
        self._derived: Mapping[str, Any] = derived["programs"]
        self._built: dict[str, Program | None] = {}
        self.prefixes = tuple(sorted(own.get("prefixes", {}).items(), key=lambda p: -len(p[0])))
        self.git = git
        self.environment = EnvironmentTable(
            {
                name: Loaded(
                    str(e["loads"]),
                    str(e.get("lang", "sh")),
                    frozenset(e.get("programs", ())),
                    frozenset(e.get("options", ())),
                    frozenset(e.get("commands", ())),
                )
                for name, e in own.get("environment", {}).items()
                if name != "source"
            }
        )
        # the variables that point a hosted store's client at a server (DOCKER_HOST): an `export` earlier on the line
        # sets them for every later command, as a prefix assignment does for one
        self.host_environment = frozenset(
            str(v) for spec in self._specs.values() for v in (spec.get("hosted") or {}).get("host_env", ())
        )
        self.metadata_hosts = frozenset(own.get("metadata_hosts", {}).get("hosts", ()))
        local = own.get("metadata_hosts", {})  # a metadata service on the loopback: (its ports, its credential paths)
        self.metadata_local = (frozenset(local.get("local_ports", ())), tuple(local.get("local_paths", ())))
        self.metadata_paths = tuple(local.get("protocol_paths", ()))  # served only by a metadata service, any host
        admin = own.get("local_admin", {}).get("services", ())  # Docker's API, the kubelet, Consul, …: by port, socket
        self.admin_ports = {int(p): str(s["service"]) for s in admin for p in s.get("ports", ())}
        self.admin_sockets = {str(k): str(s["service"]) for s in admin for k in s.get("sockets", ())}
        names = own.get("address_names", {})  # nip.io spells its address, localtest.me is the loopback
        self.address_names = (tuple(names.get("spelling", ())), tuple(names.get("loopback", ())))
        self.power_files = frozenset(own.get("power_files", {}).get("paths", ()))  # a write there powers off
        self.signal_files = frozenset(own.get("signal_files", {}).get("names", ()))  # cgroup.kill: its processes end
        self.process_files = frozenset(own.get("process_files", {}).get("names", ()))  # /proc/PID/mem: acts on PID
        self.member_files = frozenset(own.get("member_files", {}).get("names", ()))  # cgroup.procs: moves a PID
        self.number_outputs: Mapping[str, Any] = own.get("number_outputs", {})  # pgrep, id -u: print numbers only
        self.startup_files = _startup_files(own.get("startup_files", {}))
        self.runs_later = _startup_files(own.get("runs_later", {}))
        self.search_paths = frozenset(own.get("search_paths", {}).get("names", ()))  # PATH and its like
        self.plain_environment = frozenset(own.get("plain_environment", {}).get("words", ()))  # proxy, lang, …
        self.command_directives = frozenset(own.get("command_directives", {}).get("words", ()))  # a Dockerfile's RUN
        bins = own.get("bin_dirs", {})
        self.bin_dirs = (tuple(bins.get("home", ())), tuple(bins.get("system", ())))  # (home-relative, absolute)
        self.system_programs = tuple(bins.get("system_programs", ()))
        self.guarded_names = frozenset(bins.get("guarded_names", ()))
        self.instruction_files = frozenset(own.get("instruction_files", {}).get("names", ()))  # CLAUDE.md, …
        configs = own.get("program_configs", {}).get("files", ())
        self.program_configs = {  # a configuration file's name -> its keys whose value the program runs
            name: frozenset(entry["keys"]) for entry in configs for name in entry["names"]
        }
        self.config_environment = {  # a configuration file's name -> key -> the environment variable it sets
            name: dict(entry.get("environment", {})) for entry in configs for name in entry["names"]
        }
        self.languages: Mapping[str, Any] = (languages or {}).get("languages", {})
        self.forge_apis: Mapping[str, Any] = own.get("forge_apis", {})  # REST APIs where DELETE removes a hosted thing
        self.settings_files: Mapping[str, Mapping[str, Any]] = {  # a file's name -> how its lines of settings read
            name: entry for entry in own.get("settings_files", {}).get("files", ()) for name in entry["names"]
        }
        # a file's extension -> the programming language it is code in (`.go`, `.lua`, `.cow`)
        self.code_extensions: Mapping[str, str] = (languages or {}).get("extensions", {}).get("code", {})

    def get(self, name: str) -> Program | None:
        try:
            return self._built[name]
        except KeyError:
            pass
        found = self._build(name)
        if found is None:
            base = next((b for prefix, b in self.prefixes if name.startswith(prefix)), None)
            if base is None and (versioned := _VERSIONED.fullmatch(name)) is not None:
                base = versioned.group(1)  # `tclsh8.6`, `gcc-12`, `ruby3.2`: the program of that name
            found = self.get(base) if base is not None else None
        if found is not None or len(self._built) < _MAX_REMEMBERED:  # (a miss per distinct word of every text
            self._built[name] = found  # the daemon reads would grow without end: past the bound misses are not kept)
        return found

    @property
    def programs(self) -> dict[str, Program]:
        """Every program of the catalogue, built (for tests and tools; the hot path uses `get`)."""
        names = {*self._specs, *self._derived}
        return {name: program for name in sorted(names) if (program := self.get(name)) is not None}

    def _build(self, name: str) -> Program | None:
        spec = self._specs.get(name)
        derived = self._derived.get(name)
        if spec is None and derived is None:
            return None
        spec = spec or {}
        like = spec.get("like")
        if isinstance(like, str) and like in self._specs:
            spec = {**self._specs[like], **spec}
        return _program(name, spec, derived)


# a program installed under its version (`lua5.4`, `gcc-12`, `perl5.36.0`); the prefixes of programs.json
# name the rest (the dynamic loader's `ld-linux-x86-64.so.2`, ld.so(8))
_MAX_REMEMBERED = 8192  # programs and misses kept; the catalogue names some 1,300 programs
_VERSIONED = re.compile(r"(.*[A-Za-z+])-?[0-9]+(?:\.[0-9]+)*")


def _read(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


_CATALOGUE = Catalogue(
    _read("programs.json"), _read("gtfobins.json"), _read("git.json"), _read("languages.json")
)  # read once, at import


def catalogue() -> Catalogue:
    return _CATALOGUE


def runs_anything(program: str) -> bool:
    """Does a program run whatever words it is given, as the catalogue has it: a shell or an interpreter (its first
    operand a script, an option's value code), a launcher (the program after it), a program whose words are code
    (`eval`)? An allow rule for one approves every call (hookd.dialects.approvals)."""
    found = catalogue().get(program)
    if found is None:
        return False
    code = any(not hook.derived and (hook.code or hook.kind in _RUNS_WORDS) for hook in found.runs)
    return bool(found.script_operand) or found.launcher is not None or code


_RUNS_WORDS = frozenset({"argv", "argv-code", "words", "shell-args"})
