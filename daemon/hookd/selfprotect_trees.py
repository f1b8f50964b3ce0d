"""An agent started on the line in a directory the same line wrote whole (`git clone URL d && cd d && gemini`, `git
worktree add ../r BRANCH && cd ../r && claude`): the project settings it reads there are whatever the line put
there, hooks switched off among them. The session's own project and the directories above it are protected
places already (selfprotect.project_dirs), so only a tree outside them counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def written_trees(effects: Sequence[Mapping[str, Any]], cwd: str) -> list[str]:
    """The directories the line writes whole (a clone's, a worktree's, an extraction's), but the session's own
    directory and those above it."""
    trees: list[str] = []
    for effect in effects:
        path = str(effect.get("path") or "")
        if effect.get("op") == "write" and effect.get("recursive") and path and not _within(cwd, path):
            trees.append(path)
    return trees


def start_dirs(commands: Sequence[Mapping[str, Any]], cwd: str) -> list[str]:
    """The directory each command runs in, as the shell's analysis gives it (`cwd`: after `cd` or `pushd`, in a
    subshell's `cd` only inside it, under `env -C DIR`, `sudo -D DIR`, whatever launchers stand in front; none
    given, the line's own)."""
    return [str(command.get("cwd") or cwd) for command in commands]


def started_in_written(start_dir: str, trees: Sequence[str]) -> str:
    """Why an agent started in `start_dir` reads settings the line itself wrote; '' when it does not."""
    tree = next((t for t in trees if _within(start_dir, t)), "")
    if not tree:
        return ""
    return f"started in {tree}, which the line itself writes: the project settings it reads there are the line's"


def _within(path: str, directory: str) -> bool:
    base = directory.rstrip("/") or "/"
    return path == base or path.startswith(base if base == "/" else base + "/")
