"""An agent's settings that set variables for every session of it and for the hooks it starts (Claude Code's `env`:
"environment variables applied to every session", its settings page; blind-tamper-14, policies/README.md).

Such a key is a startup file of that agent's own: `"env": {"XDG_RUNTIME_DIR": "/tmp/rt"}` sends every later hook's
shim to whatever listens there, `"env": {"CLAUDE_CODE_SIMPLE": "1"}` switches hooks off. A file tool's write of a
settings file that keeps hookd's hooks as they were is judged again by the variables its `env` leaves, as the same
variables left in `.bashrc` are (hookd.selfprotect_later.starts_with_set); a model or a proxy setting passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookd.dialects.spec import Surface, settings_doc
from hookd.enrich.edit_texts import read_text, texts_after
from hookd.selfprotect_edits import event_texts
from hookd.selfprotect_later import starts_with_set
from hookd.types import JSON, NormalisedEvent, ToolKind

ENV_KEY = "env"


def settings_env_starts(event: NormalisedEvent, written: list[str], judged: Mapping[str, Surface]) -> list[JSON]:
    """The later starts the `env` of each agent settings file the call writes makes unguarded or moved."""
    tool = event.tool
    if tool is None or tool.spec is None:
        return []
    starts: list[JSON] = []
    for path in written:
        surface = judged.get(path)
        if surface is None or not surface.keys:
            continue
        shell = tool.kind is ToolKind.SHELL  # an in-place edit's text (selfprotect_edits), as a file tool's
        texts = (
            event_texts(event, path, read_text(path)[1]) if shell else texts_after(path, tool.input, tool.spec, True)
        )
        for text in texts or []:
            try:
                env = settings_doc(Path(path), text, surface.jsonc).get(ENV_KEY)
            except ValueError:
                continue
            if isinstance(env, dict) and env:
                starts += starts_with_set(event, path, env, daemon=False)
    return starts
