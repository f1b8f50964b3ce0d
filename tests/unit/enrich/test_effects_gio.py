"""blind-shell-18: GLib's `gio remove` deletes what it names, past the trash (programs.json `gio`
`subcommand_ops`); `gio trash` and `gio list` delete nothing."""

from __future__ import annotations

from pathlib import Path

from effect_support import HOME, ops


def test_gio_remove_deletes_its_locations(proj: Path) -> None:
    deleted = ops("gio remove -f ~/Documents/report.odt ~/notes", proj, "delete")
    assert [e["path"] for e in deleted] == [f"{HOME}/Documents/report.odt", f"{HOME}/notes"]


def test_gio_trash_and_list_delete_nothing(proj: Path) -> None:
    assert not ops("gio trash ~/Documents/report.odt", proj, "delete")
    assert not ops("gio list ~/Documents", proj, "delete")
