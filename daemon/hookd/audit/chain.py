"""The hash chain of the decision log, and `hookd log verify`.

Each line of the log is one JSON object: the record's own fields, then `"prev"` (the hash of the record
before it) and `"hash"`:

    hash = sha256( prev + "\\n" + canonical_json(record without prev and hash) )   (hex)

canonical_json is `json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)`. `seq` counts
records from 1 across files and restarts; the first record ever has prev = 64 zeros. Rotation keeps the
chain going: the first record of a new file carries the last hash of the file before it.

Verification walks the files oldest first and reports each problem by position (file, line, seq):
an edited record (its hash does not match its content), a removed one (a hole in seq, and the next
record's prev names no record that is there), an inserted one (the record after it links past it),
a reordered one (its prev names a record that comes later, or seq goes backwards).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.types import JSON
from hookd.wire import jsonstrict

GENESIS = "0" * 64


# A record is a tree (the masker copies the input, the rest is built for it): no need to look for cycles.
_canonical_strict = jsonstrict.encoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, check_circular=False)


def canonical(record: dict[str, JSON]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def chain_hash(prev: str, body: str) -> str:
    return hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()


def seal(record: dict[str, JSON], prev: str) -> tuple[str, str]:
    """(line without newline, hash) for `record` (which must hold `seq` and neither `prev` nor `hash`).
    Written as strict JSON: a non-finite number becomes null (verification reads what was written)."""
    body = _canonical_strict(record)
    digest = chain_hash(prev, body)
    return f'{body[:-1]},"prev":"{prev}","hash":"{digest}"}}', digest


@dataclass(frozen=True, slots=True)
class Encoded:
    """A record (without `seq`, `prev`, `hash`) already in canonical JSON, cut where `seq` goes: the fields
    sorted before it and those after. A worker process encodes its records so; the daemon's writer only
    numbers and seals them (`seal_encoded`), never decoding and encoding them again."""

    before: str  # '{"a":…,"r":…}' or '{}'
    after: str  # '{"session":…,"type":…}' or '{}'
    kept: bool = True  # also to the kept log: not an allow (the worker says; unknown is kept)

    @classmethod
    def of(cls, record: dict[str, JSON]) -> Encoded:
        before = {k: v for k, v in record.items() if k < "seq"}
        after = {k: v for k, v in record.items() if k > "seq"}
        return cls(_canonical_strict(before), _canonical_strict(after), kept(record))

    def body(self, seq: int) -> str:
        """The canonical JSON of the record with its `seq`: what `seal` would hash."""
        head = self.before[:-1] + "," if len(self.before) > 2 else "{"
        tail = "," + self.after[1:] if len(self.after) > 2 else "}"
        return f'{head}"seq":{seq}{tail}'

    def record(self, seq: int) -> dict[str, JSON]:
        """The fields, decoded (for the live streams, the shipper and the outlets; only when one is there)."""
        value: dict[str, JSON] = json.loads(self.body(seq))
        return value


def seal_encoded(encoded: Encoded, seq: int, prev: str) -> tuple[str, str]:
    """`seal` for a record already encoded: the same line and hash, without encoding anything."""
    body = encoded.body(seq)
    digest = chain_hash(prev, body)
    return f'{body[:-1]},"prev":"{prev}","hash":"{digest}"}}', digest


def log_files(path: Path) -> list[Path]:
    """The current log and its rotated files, oldest first: decisions.log.N … decisions.log.1, decisions.log."""
    rotated = []
    pattern = re.compile(re.escape(path.name) + r"\.(\d+)")
    if path.parent.is_dir():
        for entry in path.parent.iterdir():
            match = pattern.fullmatch(entry.name)
            if match:
                rotated.append((int(match.group(1)), entry))
    files = [p for _, p in sorted(rotated, reverse=True)]
    if path.exists():
        files.append(path)
    return files


@dataclass(frozen=True, slots=True)
class Line:
    file: Path
    number: int  # 1-based
    seq: int | None
    prev: str | None
    stored: str | None  # the hash the line says it has
    computed: str | None  # the hash of its content (None: not a record)
    error: str = ""

    @property
    def where(self) -> str:
        seq = f" (seq {self.seq})" if self.seq is not None else ""
        return f"{self.file.name}:{self.number}{seq}"


def read_lines(files: Sequence[Path]) -> Iterator[Line]:
    for path in files:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, 1):
                text = raw.decode("utf-8", errors="replace").rstrip("\n")
                if not text.strip():
                    continue
                yield parse_line(path, number, text)


def parse_line(path: Path, number: int, text: str) -> Line:
    try:
        record: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        return Line(path, number, None, None, None, None, f"not JSON ({exc.msg}): a torn or damaged line")
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("hash"), str)
        or not isinstance(record.get("prev"), str)
    ):
        return Line(path, number, None, None, None, None, "not a decision log record (no prev/hash)")
    stored, prev = record.pop("hash"), record.pop("prev")
    seq = record.get("seq")
    return Line(path, number, seq if isinstance(seq, int) else None, prev, stored, chain_hash(prev, canonical(record)))


@dataclass
class Report:
    records: int = 0
    files: int = 0
    head: str = ""
    first_seq: int | None = None
    last_seq: int | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(path: Path) -> Report:
    """Check the chain of the log at `path` and its rotated files."""
    files = log_files(path)
    report = Report(files=len(files))
    lines = list(read_lines(files))
    records = [line for line in lines if line.computed is not None]
    report.problems += [f"{line.where}: {line.error}" for line in lines if line.computed is None]
    report.records = len(records)
    if not records:
        return report
    report.first_seq, report.last_seq, report.head = records[0].seq, records[-1].seq, records[-1].stored or ""
    edited = set()
    for i, line in enumerate(records):
        if line.stored != line.computed:
            edited.add(i)
            report.problems.append(f"{line.where}: edited: its content does not match its hash")
    first = records[0]
    if first.prev != GENESIS:
        report.notes.append(
            f"the chain starts at {first.where}, whose predecessor is not here (rotated away, or the log was cut)"
        )
    report.problems += _links(records, edited)
    return report


def _links(records: Sequence[Line], edited: set[int]) -> list[str]:
    """Walk the chain: `anchor` is the last record that belongs to it. A record that does not link to the
    anchor is diagnosed; an inserted one is skipped, a swapped pair is reported once, and anything else
    re-anchors the walk there so that one break is reported once."""
    problems = []
    first_of: dict[str | None, int] = {}
    for i, line in enumerate(records):
        first_of.setdefault(line.stored, i)
    last_of = {line.stored: i for i, line in enumerate(records)}
    anchor, i = 0, 1
    while i < len(records):
        line, before = records[i], records[anchor]
        if line.prev == before.stored:
            if line.seq is not None and before.seq is not None and line.seq != before.seq + 1 and anchor not in edited:
                problems.append(f"{line.where}: edited: seq {line.seq} follows seq {before.seq}")
            anchor, i = i, i + 1
            continue
        after = records[i + 1] if i + 1 < len(records) else None
        copy = first_of.get(line.stored, i)
        if copy < i:
            problems.append(f"{line.where}: inserted: a copy of {records[copy].where}")
            i += 1
            continue
        if after is not None and line.prev == after.stored and after.prev == before.stored:
            problems.append(f"{line.where}: reordered: swapped with {after.where}, which comes before it in the chain")
            anchor, i = i, i + 2
            continue
        if after is not None and after.prev == before.stored:
            target = last_of.get(line.prev)
            if target is None:
                problems.append(
                    f"{line.where}: inserted: it is not part of the chain (the next record links to the one before it)"
                )
            else:
                problems.append(f"{line.where}: reordered: it belongs right after {records[target].where}")
            i += 1
            continue
        problems.append(_diagnose(records, i, anchor, last_of.get(line.prev), edited))
        anchor, i = i, i + 1
    return problems


def _diagnose(records: Sequence[Line], i: int, anchor: int, target: int | None, edited: set[int]) -> str:
    """Why records[i] does not link to records[anchor], the last record of the chain before it."""
    line, before = records[i], records[anchor]
    if target is not None and target > i:
        return f"{line.where}: reordered: it comes before {records[target].where}, which it follows in the chain"
    if target is not None:
        return f"{line.where}: reordered: it follows {records[target].where} in the chain, not {before.where}"
    if line.prev == GENESIS:
        return (
            f"{line.where}: the chain starts again here: a record was inserted, or the log was restarted from scratch"
        )
    if anchor in edited:
        return f"{line.where}: the record before it ({before.where}) was edited"
    if line.seq is not None and before.seq is not None:
        missing = line.seq - before.seq - 1
        if missing > 0:
            plural = "records" if missing > 1 else "record"
            span = f"seq {before.seq + 1}" + (f"-{line.seq - 1}" if missing > 1 else "")
            return f"{line.where}: removed: {missing} {plural} ({span}) missing just before it"
        if missing == 0:
            return f"{before.where}: edited: its hash was rewritten (the next record links to another hash)"
    return f"{line.where}: broken link: its prev names no record in the log (a record before it was removed or edited)"


def kept_path(path: Path) -> Path:
    """The kept log beside the decision log at `path`: decisions.log -> decisions.kept.log."""
    return path.with_name(f"{path.stem}.kept{path.suffix}")


def kept(record: dict[str, JSON]) -> bool:
    """Whether a record goes to the kept log too: every one but an allow decision (gaps included)."""
    return not (record.get("type") == "decision" and record.get("decision") == "allow")


def verify_kept(path: Path) -> Report:
    """Check the kept log of the decision log at `path` (and its rotated files): a copy of the chain's records
    that are not allows, so not a chain of its own; each record must match its hash (its `prev` is the hash of
    the record before it in the whole chain) and `seq` must grow."""
    files = log_files(kept_path(path))
    report = Report(files=len(files))
    records: list[Line] = []
    for line in read_lines(files):
        if line.computed is None:
            report.problems.append(f"{line.where}: {line.error}")
            continue
        if line.stored != line.computed:
            report.problems.append(f"{line.where}: edited: its content does not match its hash")
        if records and line.seq is not None and records[-1].seq is not None and line.seq <= records[-1].seq:
            report.problems.append(f"{line.where}: seq {line.seq} does not follow seq {records[-1].seq}")
        records.append(line)
    report.records = len(records)
    if records:
        report.first_seq, report.last_seq, report.head = records[0].seq, records[-1].seq, records[-1].stored or ""
    return report


def last_record(path: Path) -> tuple[int, str] | None:
    """(seq, hash) of the newest record in the log at `path` or its rotated files, or None."""
    for file in reversed(log_files(path)):
        for text in _lines_backwards(file):
            line = parse_line(file, 0, text)
            if line.computed is not None and line.seq is not None and line.stored:
                return line.seq, line.stored
    return None


def _lines_backwards(path: Path, chunk: int = 1 << 16) -> Iterator[str]:
    with path.open("rb") as handle:
        end = handle.seek(0, 2)
        buffer = b""
        while end > 0:
            start = max(0, end - chunk)
            handle.seek(start)
            buffer = handle.read(end - start) + buffer
            end = start
            parts = buffer.split(b"\n")
            buffer = parts[0]  # maybe incomplete: keep for the next chunk
            for part in reversed(parts[1:]):
                if part.strip():
                    yield part.decode("utf-8", errors="replace")
        if buffer.strip():
            yield buffer.decode("utf-8", errors="replace")
