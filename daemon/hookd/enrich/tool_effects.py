"""What a call of an agent's file, search, patch or web tool does, as effects (`input.effects`, the effect model
of docs/policies.md): appended to the list the shell's analysis (enrich/effects) fills for shell tools.

Built from the tool's `input.paths` entries (enrich/paths.py, which must run first): each path a file tool
reads or writes, each file a search tool's filter reaches, each file a patch adds, changes, deletes or moves
(a move is a `move` of its source with `to`, and, as in the shell's effects, a `write` of its destination:
what a file there does when it lands, a startup file run later, is judged on that write). Where the tool names
its target in a way that cannot be resolved now (a glob past its caps, a patch tool whose patch is in no
argument hookd knows), the effect says `"known": false`: a policy asks on it."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Any

from hookd.enrich.aliases import linked, other_names
from hookd.enrich.build_files import is_users_started_file
from hookd.enrich.caller_homes import caller_homes
from hookd.enrich.ci_workflows import untrusted_checkouts
from hookd.enrich.cli_tools import cli_line, pod_lines
from hookd.enrich.command_files import frontmatter, is_command_file, is_markdown
from hookd.enrich.edit_texts import changed_lines, inserted_text, moved_texts, patch_added_text, texts_after
from hookd.enrich.effects.configtext import quiet_setting
from hookd.enrich.effects.env_files import environment_set
from hookd.enrich.effects.tmpfiles import configured_changes, is_tmpfiles_config
from hookd.enrich.effects.words import may_run_at_start, shadows, startup_language, startup_languages
from hookd.enrich.env_template import mark_templates
from hookd.enrich.gitconfig_plain import mark_plain_git_configs
from hookd.enrich.gitconfig_text import (
    executing_keys,
    included_configs,
    is_git_config,
    may_set_executing_key,
    unjudged_write,
)
from hookd.enrich.holdings import mark_holdings
from hookd.enrich.home_reach import added_lines
from hookd.enrich.hosted_deletes import hosted_deletes
from hookd.enrich.later_code import left_for_later
from hookd.enrich.notebook_code import cells_run
from hookd.enrich.package_sources import redirected_sources
from hookd.enrich.patches import CODEX_MARK
from hookd.enrich.paths import PathResolver, _patch_entries
from hookd.enrich.shell.analysis import analyse_shell
from hookd.enrich.shell_aliases import unaliased
from hookd.enrich.sibling_entries import sibling_commands
from hookd.enrich.ssh_config import mark_plain_ssh_configs
from hookd.enrich.tool_args import command_lines, inferred, new_texts, url_texts, words
from hookd.enrich.tool_entries import (
    path_effect,
    too_long,
    unknown_effect,
    written_paths,
)
from hookd.enrich.tool_imports import import_reads
from hookd.enrich.tool_later import (
    build_file_effects,
    configured_commands,
    judged_later,
    may_run_later,
    program_config_keys,
)
from hookd.enrich.tool_nesting import expanded, inner_tool, unpacked_trees
from hookd.enrich.tool_urls import url_effects
from hookd.types import JSON, NormalisedEvent, ToolKind, ToolSpec


def tool_effects(event: NormalisedEvent) -> list[dict[str, JSON]]:
    """The effects of the event's (non-shell) tool call, from its `paths` fact."""
    tool = event.tool
    if tool is None or tool.spec is None or tool.kind is ToolKind.SHELL:
        return []
    guess = inferred(tool)
    spec = guess.spec if guess is not None else tool.spec
    kind = spec.kind if guess is not None else tool.kind  # an MCP tool that writes is judged as a write tool
    home = event.facts.get("home")
    home_dir = home.removesuffix("/") if isinstance(home, str) else None
    project = event.project_dir.removesuffix("/")
    given = expanded(tool.input) if tool.kind in _UNTABLED else tool.input  # a call inside a call: its arguments
    called = f"{tool.name} {inner_tool(given)}".rstrip()
    ran = _command_effects(called, given, home_dir, project) if tool.kind in _UNTABLED else []
    opened = url_effects(url_texts(given, web=tool.kind is ToolKind.WEB), tool.name, home_dir, project, given)
    if tool.kind is ToolKind.WEB:
        return opened
    entries = event.facts.get("paths")
    out = [
        path_effect(e, spec, tool.name, home=home_dir, project=project)
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping)
    ]
    if guess is not None:  # an MCP server's unzip into a directory writes a tree whose names the archive holds
        unpacked_trees(out, words(tool.name), os.path.isdir)
    if guess is not None and guess.searches:  # an MCP server's search: every file below a directory it is given
        out = [{**e, "recursive": os.path.isdir(str(e["path"]))} if e["op"] == "read" else e for e in out]
    if spec.patches and not any(isinstance(tool.input.get(a), str) for a in spec.patches):
        out.append(unknown_effect("write", tool.name))  # a patch tool whose patch hookd cannot find
    elif kind in (ToolKind.WRITE, ToolKind.EDIT) and not spec.paths and not spec.patches:
        out.extend(_unnamed_write(tool.input, tool.name, spec, home=home_dir, project=project))
    out.extend(_aliased(out, home_dir, project))
    mark_templates(out, _one_text(out, tool.input), lambda p: texts_after(p, tool.input, spec, guess is None))
    mark_plain_ssh_configs(out, lambda p: texts_after(p, tool.input, spec, guess is None))  # `plain: ssh_config`
    mark_plain_git_configs(out, lambda p: texts_after(p, tool.input, spec, guess is None))  # `plain: git_config`
    if home_dir and kind in (ToolKind.WRITE, ToolKind.EDIT):
        out.extend(_runs_at_start(out, tool.input, spec, tool.name, caller_homes(home_dir, event.caller.uid), project))
    writes = kind in (ToolKind.WRITE, ToolKind.EDIT) or any(e["op"] == "write" for e in out)
    new = new_texts(tool.input) if writes else []  # once a call: the steps below each judge them
    out.extend(
        _git_keys(out, tool.input, spec, tool.name, declared=guess is None, home=home_dir, project=project, new=new)
    )
    front = any(is_markdown(p) for p in written_paths(out)) and any(frontmatter(t) is not None for t in new)
    if home_dir and kind in (ToolKind.WRITE, ToolKind.EDIT) and (front or may_run_later(out, home_dir, project)):
        out.extend(configured_commands(out, tool.input, spec, tool.name, home_dir, project))
        out.extend(program_config_keys(out, tool.input, tool.name))
        written = written_paths(out)
        out.extend(build_file_effects(written, tool.input, spec, tool.name, home_dir, project, declared=guess is None))
        whole = functools.partial(texts_after, tool_input=tool.input, spec=spec, declared=guess is None)
        for later in (functools.partial(redirected_sources, project=project), untrusted_checkouts):
            out.extend(later(written, lambda p: [added_lines(t) for t in whole(p) or new], tool.name))
        for path in written:  # a sibling's entry named by its label (launch.json's preLaunchTask), a notebook's cells
            run = sibling_commands(path, new) + cells_run(path, whole(path) or new, tool.input)
            out.extend(judged_later(run, path, tool.name, home_dir, project))
        # a shell's startup file was judged above, asked or found to only set variables (`set -gx EDITOR nvim`)
        started = {str(e["startup"]) for e in out if e["op"] == "exec" and e.get("startup")}
        started |= {p for p in written if startup_language(p, home_dir) == "sh"}
        # an edit that completes a command's marker (`!`echo X`` with `echo X` replaced) shows it in the whole text only
        texts = new + [
            t
            for p in written
            if is_command_file(p)
            for t in texts_after(p, tool.input, spec, guess is None) or []
            if t not in new
        ]
        texts += moved_texts(out, written) + changed_lines(written, tool.input, spec, guess is None)  # whole lines
        out.extend(left_for_later(written, texts, tool.name, home=home_dir, project=project, known=started))
    out.extend(
        import_reads(out, tool.input, tool.name, f"{home_dir}/.{event.client}" if home_dir else "", home_dir, project)
    )
    return out + opened + ran


def _aliased(effects: list[dict[str, JSON]], home: str | None, project: str) -> list[dict[str, JSON]]:
    """Each effect again under every other name its file has (enrich/aliases.py: `~/dotfiles/bashrc` is
    `~/.bashrc` where that is a link to it; a `.git` file's directory is the project's `.git`), `alias` holding
    the canonical path: a rule that knows `~/.bashrc` or `.git/hooks` by its shape judges it under that name."""
    if not any(effect["path"] for effect in effects):
        return []
    names = linked(home, project)  # the stats once for every effect
    if not names:
        return []
    return [
        {**effect, "path": name, "alias": path}
        for effect in effects
        if isinstance(path := effect["path"], str) and path
        for name in other_names(path, home, project, names)
    ]


_UNTABLED = (ToolKind.MCP, ToolKind.OTHER)
_CWD_ARGS = ("cwd", "workdir", "working_directory", "workingDirectory", "directory", "dir")


def _command_effects(program: str, tool_input: Mapping[str, Any], home: str | None, project: str) -> list[JSON]:
    """What the command lines an MCP server's tool runs do (tool_args.command_lines: its name says it runs one and
    an argument holds it, or its SQL runs one): the shell's effects of each, in the tool's own directory argument
    when it gives one, as the tool's effects (`via: tool`), so that a recursive delete of the home, a write into
    `~/.ssh` or a read of a key through `start_process` is judged as through the agent's shell."""
    out: list[dict[str, JSON]] = []
    for line in [*command_lines(program, tool_input, cli_line), *pod_lines(tool_input)]:
        if too_long(line):
            return [unknown_effect("write", program)]  # a line past what hookd analyses: what it changes is not known
        resolver = PathResolver(home=home or "/", project_dir=project)
        where = next((v for a in _CWD_ARGS if isinstance(v := tool_input.get(a), str) and v), "")
        base = resolver.absolute(where, project) if where else project
        _shell, analysed = analyse_shell(line, home=home or "/", base_dir=base, project_dir=project)
        out.extend({**e, "via": "tool"} for e in analysed)
    return [*out, *hosted_deletes(program, tool_input)]


def _one_text(effects: list[dict[str, JSON]], tool_input: Mapping[str, Any]) -> dict[str, str]:
    """The text of the one file a call writes whole (a write's content, a patch's one added file), by its path."""
    writes = [e["path"] for e in effects if e["op"] == "write" and isinstance(e["path"], str) and e["path"]]
    texts = new_texts(tool_input)
    return {writes[0]: added_lines(texts[0])} if len(writes) == 1 and len(texts) == 1 else {}


def _git_keys(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    declared: bool,
    *,
    home: str | None = None,
    project: str = "",
    new: list[str] | None = None,
) -> list[dict[str, JSON]]:
    """A write into a git configuration file (`~/.gitconfig`, a repository's `config`): judged on the text the
    file will hold, one `write` effect per key whose value git runs (`key`, `value`, `executes`), as the
    shell's `git config` has. Where that text cannot be known whole (a move or copy onto it, an edit of a file
    that cannot be read, a patch, a text that a tool hookd has no table for may append or insert: not
    `declared` by the agent's module), an exec of code not known (asked), and the new texts judged alone."""
    landed = {str(e["to"]) for e in effects if e["op"] in ("move", "copy", "link") and e.get("to")}
    out: list[dict[str, JSON]] = []
    writes = [e for e in effects if e["op"] == "write"]
    new = new_texts(tool_input) if new is None else new  # `new`: new_texts(tool_input), when the caller has it
    written = new if writes else []
    # a key git runs in the text, else no include could take one (a long text: the includes are cheaper)
    asks = home and any(len(t) > 4096 or may_set_executing_key(t) for t in written)
    included = included_configs(home, project) if asks and home else frozenset()
    configs = {str(e["path"]): e for e in writes if is_git_config(str(e["path"])) or e["path"] in included}
    for target in configs.values():
        path = str(target["path"])
        texts = None if path in landed else texts_after(path, tool_input, spec, declared)
        if texts is None:
            out.append(unjudged_write(path, program, "tool"))
            texts = new  # each key by its name, whatever its section
        for text in texts:
            out.extend(_keyed(target, path, text, home))
    return out


def _keyed(target: dict[str, JSON], path: str, text: str, home: str | None) -> list[dict[str, JSON]]:
    keys = executing_keys(text, path, home or "")
    if keys is None:
        return [{**target, "op": "write", "path": path, "to": "", "key": "", "value": "", "executes": True,
                 "known": False}]  # fmt: skip
    return [{**target, "op": "write", "path": path, "to": "", "key": k, "value": v, "executes": True} for k, v in keys]


def _runs_at_start(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    homes: tuple[str, ...],
    project: str,
) -> list[dict[str, JSON]]:
    """A write into a file a shell or session runs at start (`~/.bashrc`), or the system runs or trusts later (a
    `.pth`): code run later (`deferred`), unless the text written into a shell's file only sets variables or aliases."""
    argument = spec.content or (pairs[0][1] if (pairs := spec.replace_pairs(tool_input)) else "")
    given = tool_input.get(argument) if argument else "\n".join(new_texts(tool_input)) or None  # a MultiEdit's
    later: list[dict[str, JSON]] = []
    for effect in effects:
        path = effect["path"]
        if effect["op"] == "write" and isinstance(path, str):
            _environment_kept(effect, path, tool_input, spec)
            later += _configured_later(path, tool_input, spec, program, homes[0])
        if effect["op"] != "write" or not isinstance(path, str) or not may_run_at_start(path, homes):
            continue
        if spec.patches:  # a patch: what it adds there
            text = patch_added_text(path, tool_input, spec)
        else:  # an edit that only adds lines is judged on them: the lines it keeps were in the file before it
            text = inserted_text(path, tool_input, spec) if effect["via"] == "tool" else None
            text = given if text is None else text
        if is_users_started_file(path) and texts_after(path, tool_input, spec, True) is not None:
            continue  # a user's unit seen whole: its commands are judged as a build file's (judged_unit)
        langs = startup_languages(path, homes)
        when = next((w for h in homes if (w := shadows(path, h))), None) if langs <= {None} else None
        if when:  # a program before the system's, under a system program's name: any text there is asked
            code = {"lang": "text", "text": text if isinstance(text, str) else ""}
            later.append({**unknown_effect("exec", program), "known": isinstance(text, str), "code": code,
                          "deferred": True, "startup": path, "when": when})  # fmt: skip
            continue
        if langs <= {None}:
            continue
        lang = "sh" if "sh" in langs else "text"  # another program's file (`/etc/sudoers.d/x`): no shell settings
        text = unaliased(text, homes[0], project) if lang == "sh" and isinstance(text, str) else text
        if isinstance(text, str) and quiet_setting(effect, path, text, lang, homes[0]):
            continue
        code = {"lang": lang, "text": text if isinstance(text, str) else ""}
        later.append({**unknown_effect("exec", program), "known": isinstance(text, str), "code": code, "deferred": True,
                      "startup": path})  # fmt: skip
    return later


def _environment_kept(effect: dict[str, JSON], path: str, tool_input: Mapping[str, Any], spec: ToolSpec) -> None:
    """The variables the file the tool leaves hands every later session (mise's `[env]`, fish's universal
    variables, VS Code's terminal environment: env_files), kept on the write as a startup file's are (`sets`)."""
    found: dict[str, JSON] = {}
    for text in texts_after(path, tool_input, spec, True) or []:
        found.update(environment_set(path, text))
    if found:
        effect["sets"] = found


def _configured_later(
    path: str, tool_input: Mapping[str, Any], spec: ToolSpec, program: str, home: str
) -> list[dict[str, JSON]]:
    """A tmpfiles.d configuration the tool leaves: the changes systemd-tmpfiles makes of what it names, later."""
    if not is_tmpfiles_config(path):
        return []
    texts = texts_after(path, tool_input, spec, True) or []
    return [
        {**unknown_effect(op, program), "path": target, "known": True, "recursive": tree, "class": "",
         "deferred": True, "startup": path}
        for text in texts for op, target, tree in configured_changes(path, text, home)
    ]  # fmt: skip


def _unnamed_write(
    tool_input: Mapping[str, Any], program: str, spec: ToolSpec, *, home: str | None, project: str
) -> list[dict[str, JSON]]:
    """A write or edit tool whose arguments hookd does not know (Droid's ApplyPatch): the files of a patch in
    any of its arguments, else one write it cannot name (asked)."""
    resolver = PathResolver(home=home or "/", project_dir=project)
    for arg, text in tool_input.items():
        if isinstance(text, str) and (CODEX_MARK in text or "\n+++ " in text):
            entries = _patch_entries(resolver, arg, text, project)
            if entries:
                return [path_effect(e, spec, program, home=home, project=project) for e in entries]
    return [unknown_effect("write", program)]


def enrich_tool_effects(event: NormalisedEvent) -> NormalisedEvent:
    """Appends the effects of a file, search, patch or web tool call to `effects`; other events pass unchanged."""
    effects = tool_effects(event)
    before = event.facts.get("effects")
    every = [*(before if isinstance(before, list) else []), *effects]
    marked = mark_holdings(every, event.facts.get("home"), event.project_dir.removesuffix("/"))
    return event if marked is every and not effects else event.with_facts(effects=marked)
