"""The shell analysis's entry points: `input.shell` and `input.effects` of a command line (hookd.enrich.shell.build
walks it), and the enricher that adds them to a shell tool's event."""

from __future__ import annotations

from typing import Any

from hookd.enrich.effects.discards import out_of_order
from hookd.enrich.effects.model import EffectModel
from hookd.enrich.facts import add_arg_facts
from hookd.enrich.later_code import written_later
from hookd.enrich.paths import PathResolver, event_home
from hookd.enrich.shell.build import _Builder
from hookd.enrich.shell.fallback import _fallback
from hookd.enrich.shell.parser import _one_line
from hookd.enrich.shell.state import _Cwd, walked_too_far
from hookd.types import NormalisedEvent, ToolKind


def parse_shell(command: str, *, home: str, base_dir: str, project_dir: str, max_depth: int = 4) -> dict[str, Any]:
    """The `input.shell` object of docs/policies.md for `command`, run in `base_dir`. Never raises."""
    return analyse_shell(command, home=home, base_dir=base_dir, project_dir=project_dir, max_depth=max_depth)[0]


def analyse_shell(
    command: str, *, home: str, base_dir: str, project_dir: str, max_depth: int = 4
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """`input.shell` for `command` and its effects (`input.effects`, hookd.enrich.effects). Never raises."""
    readings = None
    try:
        builder = _Builder(home=home, project_dir=project_dir, max_depth=max_depth)
        readings = builder.model.ledger.readings
        builder.model.ledger.unordered = out_of_order(command)
        start = _Cwd(builder.state.resolver.absolute(base_dir or project_dir, project_dir))
        base = start.path  # (a `cd` moves `start` itself)
        builder.state.source = command
        builder.run_script(command, 0, start, False)
        for walked in builder.commands:  # `cwd`: only a directory other than the line's own, and known
            if walked.get("cwd") in ("", base):
                del walked["cwd"]
        if (stopped := walked_too_far(builder.state)) is not None:  # the rest is not known: what runs, unknown code
            builder.fail(stopped)  # (callers that read the effects alone, a tool's command line, see it too)
            builder.model.ledger.add("exec", None, "sh", code={"lang": "sh", "text": ""}, known=False)
        shell = {
            "source": command,
            "parse_error": builder.error is not None,
            "error": builder.error,
            "commands": builder.commands,
        }
        later = written_later(builder.model, home=home, project=project_dir)  # first: it may settle an effect
        return shell, [*builder.model.effects, *later]
    except Exception as exc:  # never on the hot path: report it, and still show the words
        commands: list[dict[str, Any]] = []
        model: EffectModel | None = None
        try:
            fallback = _Builder(home=home, project_dir=project_dir, max_depth=0)
            if readings is not None:  # the line's repositories, read and bounded once whichever walk reads them
                fallback.model.ledger.readings = readings
            fallback.model.ledger.unordered = True
            unknown = _Cwd(fallback.state.resolver.project, known=False)
            fallback.walk(_fallback(command, home), 0, unknown, None, [], False)
            commands, model = [{k: v for k, v in c.items() if k != "cwd"} for c in fallback.commands], fallback.model
        except Exception:
            commands = []
        shell = {"source": command, "parse_error": True, "error": _one_line(exc, command), "commands": commands}
        later = written_later(model, home=home, project=project_dir) if model else []
        return shell, [*model.effects, *later] if model else []


def enrich_shell(event: NormalisedEvent) -> NormalisedEvent:
    """Adds `shell` (with the facts of hookd.enrich.facts) and its `effects` to events of shell tools; other
    events pass unchanged. The command runs in the tool's working-directory argument when it gives one (its
    ToolSpec's cwd_args), else in the session's `cwd`."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.SHELL:
        return event
    command = tool.input.get("command")
    if not isinstance(command, str):
        return event
    home = event_home(event)
    project_dir = event.project_dir
    base_dir = event.cwd or project_dir
    cwd_args = tool.spec.cwd_args if tool.spec is not None else ()
    dir_path = next((tool.input[arg] for arg in cwd_args if arg in tool.input), None)
    if isinstance(dir_path, str) and dir_path:
        base_dir = PathResolver(home=home, project_dir=project_dir).absolute(dir_path, project_dir)
    shell, effects = analyse_shell(command, home=home, base_dir=base_dir, project_dir=project_dir)
    earlier = event.facts.get("effects")
    if isinstance(earlier, list):
        effects = [*earlier, *effects]
    return event.with_facts(
        shell=add_arg_facts(shell, home=event.facts.get("home"), project_dir=project_dir), effects=effects
    )
