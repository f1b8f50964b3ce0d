"""The stream lane's journal (hookd.procs.journal): what a stream lane started again goes on from."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from hookd.enrich.stream import MAX_TEXT, Kept, MemoryTexts
from hookd.procs import journal
from hookd.procs.journal import Journal

KEY = (1000, "gemini", "s1", "r1")
OTHER = (1000, "gemini", "s2", "r2")


@pytest.fixture
def files() -> Iterator[journal.Files]:
    made = journal.create([])
    yield made
    journal.close(made)


class Lane:
    """A stream lane's texts and journal, the two kept together as the lane keeps them."""

    def __init__(self, files: journal.Files) -> None:
        self.texts = MemoryTexts()
        self.texts.seed(journal.read(files))
        self.journal = Journal(files, self.texts.kept)
        self.texts.journal = self.journal.append

    def chunk(self, key: tuple[int, str, str, str], text: str, final: bool = False) -> None:
        self.texts.add(key, text, final)


def test_a_new_journal_holds_the_texts_it_was_made_with() -> None:
    kept: Kept = [(KEY, "the key is AKIA", False, 3), (OTHER, "tail", True, 9)]
    made = journal.create(kept)
    try:
        assert journal.read(made) == kept
    finally:
        journal.close(made)


def test_the_journal_holds_every_chunk_and_forgets_a_finished_response(files: journal.Files) -> None:
    lane = Lane(files)
    lane.chunk(KEY, "the key is ")
    lane.chunk(OTHER, "done soon")
    lane.chunk(KEY, "AKIAIOSF")
    lane.chunk(OTHER, " now", final=True)
    assert journal.read(files) == [(KEY, "the key is AKIAIOSF", False, 2)] == lane.texts.kept()


def test_a_line_the_crash_cut_short_is_not_read(files: journal.Files) -> None:
    lane = Lane(files)
    lane.chunk(KEY, "first ")
    size = os.fstat(files[0]).st_size
    os.pwrite(files[0], b'{"c":[1000,"gemini","s1","r1"],"x":"sec', size)  # no newline: the write never ended
    assert journal.read(files) == [(KEY, "first ", False, 1)]


def test_compaction_keeps_the_texts_and_bounds_the_files(files: journal.Files, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(journal, "MIN_BOUND", 4096)
    lane = Lane(files)
    for n in range(2000):
        lane.chunk((1000, "gemini", f"s{n % 3}", "r"), f"word{n} ")
        if n % 97 == 0:  # after every chunk, compacted or not, the journal holds what the lane holds
            assert journal.read(files) == lane.texts.kept()
    assert journal.read(files) == lane.texts.kept()
    assert max(os.fstat(fd).st_size for fd in files) < 3 * 4096 + 3 * (MAX_TEXT + 200)


def test_a_lane_that_dies_inside_a_compaction_leaves_the_journal_before_it(
    files: journal.Files, monkeypatch: pytest.MonkeyPatch
) -> None:
    lane = Lane(files)
    lane.chunk(KEY, "the key is AKIAIOSF")
    before = journal.read(files)

    write = os.pwrite

    def dies_before_the_header(fd: int, data: bytes, offset: int) -> int:
        if offset == 0 and data.startswith(b"HKDJ") and data[8:16] != bytes(8):
            raise SystemExit("killed")  # the snapshot is written, its generation never is
        return write(fd, data, offset)

    monkeypatch.setattr(journal.os, "pwrite", dies_before_the_header)
    with pytest.raises(SystemExit):
        lane.journal._compact()
    monkeypatch.undo()
    assert journal.read(files) == before


def test_a_journal_of_no_valid_file_holds_nothing(files: journal.Files) -> None:
    for fd in files:
        os.ftruncate(fd, 0)
    assert journal.read(files) == []


def test_a_long_chunk_is_kept_by_its_end(files: journal.Files) -> None:
    lane = Lane(files)
    lane.chunk(KEY, "a" * (MAX_TEXT + 10) + "AKIAIOSF")
    ((key, text, truncated, chunks),) = journal.read(files)
    assert (key, text.endswith("AKIAIOSF"), len(text), truncated, chunks) == (KEY, True, MAX_TEXT, True, 1)


def test_a_journal_someone_else_wrote_into_is_taken_over_as_far_as_it_reads() -> None:
    """The lane's uid can open its journal through /proc/PID/fd: a line nested past the parser's depth is
    skipped, not a crash of the daemon's reader, and the texts before it are kept."""
    files = journal.create([])
    lane = Lane(files)
    lane.chunk(KEY, "first ")
    size = os.fstat(files[0]).st_size
    os.pwrite(files[0], b"[" * 100_000 + b"\n" + b'{"c": 1}\n', size)
    assert journal.taken_over(files) == [(KEY, "first ", False, 1)]
    with pytest.raises(OSError):
        os.fstat(files[0])  # closed


def test_a_journal_that_cannot_be_read_gives_the_next_lane_nothing() -> None:
    files = journal.create([])
    Lane(files).chunk(KEY, "first ")
    for fd in files:
        os.close(fd)
    assert journal.taken_over(files) == []


def test_a_chunks_line_is_the_json_of_its_fields() -> None:
    """The line a chunk appends, its response's part written once, is `{"c": key, "x": text, "cut", "f"}` as JSON."""
    import random

    from hookd.procs.journal import _LINE

    rng = random.Random(30)
    files = journal.create([])
    try:
        appender = Journal(files, list)
        for _ in range(300):
            key = (rng.randint(0, 70000), rng.choice(["gemini", "g\u00e9", 'q"']), rng.choice(["s", "s\n", ""]), "r")
            text = "".join(rng.choice(["a", "\u00e9", "\U0001f600", '"', "\\", "\n", "\ud83d"]) for _ in range(9))
            text = text * rng.choice([1, 1, 2000])
            final, before, active = rng.random() < 0.2, appender._size, appender._active
            appender.append(key, text, final)
            if appender._active != active:
                continue  # compacted: the line is in the snapshot
            kept = text[-MAX_TEXT:]
            line = os.pread(files[appender._active], appender._size - before, before)
            assert line == _LINE({"c": list(key), "x": kept, "cut": len(kept) < len(text), "f": final}).encode() + b"\n"
    finally:
        journal.close(files)
