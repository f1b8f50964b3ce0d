"""The hash chain and `verify`: each kind of tampering is reported, by position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.audit.chain import GENESIS, canonical, chain_hash, last_record, log_files, seal, verify


def write_log(path: Path, count: int, *, first_seq: int = 1, prev: str = GENESIS) -> list[str]:
    lines = []
    for seq in range(first_seq, first_seq + count):
        line, prev = seal({"type": "decision", "id": f"{seq:016x}", "seq": seq, "decision": "allow"}, prev)
        lines.append(line)
    path.write_text("".join(f"{line}\n" for line in lines))
    return lines


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines()


class TestSeal:
    def test_the_hash_covers_prev_and_the_canonical_record(self) -> None:
        record = {"seq": 1, "b": [1, "é"], "a": {"y": 2, "x": 1.5}}
        line, digest = seal(dict(record), GENESIS)
        assert digest == chain_hash(GENESIS, canonical(record))
        assert canonical(record) == '{"a":{"x":1.5,"y":2},"b":[1,"\\u00e9"],"seq":1}'
        parsed = json.loads(line)
        assert (parsed.pop("prev"), parsed.pop("hash")) == (GENESIS, digest)
        assert parsed == record

    def test_non_finite_numbers_are_written_as_null_and_verify(self, tmp_path: Path) -> None:
        record = {"seq": 1, "input": {"n": float("nan"), "m": [float("inf"), -float("inf"), 1.5]}}
        line, _ = seal(dict(record), GENESIS)
        parsed = json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the log line"))
        assert parsed["input"] == {"n": None, "m": [None, None, 1.5]}
        (tmp_path / "d.log").write_text(line + "\n")
        assert verify(tmp_path / "d.log").ok

    def test_each_record_links_to_the_one_before(self, tmp_path: Path) -> None:
        lines = write_log(tmp_path / "d.log", 3)
        hashes = [json.loads(line)["hash"] for line in lines]
        prevs = [json.loads(line)["prev"] for line in lines]
        assert prevs == [GENESIS, hashes[0], hashes[1]]


class TestVerify:
    def test_an_intact_log(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        lines = write_log(path, 5)
        report = verify(path)
        assert report.ok, report.problems
        assert (report.records, report.first_seq, report.last_seq) == (5, 1, 5)
        assert report.head == json.loads(lines[-1])["hash"]
        assert report.notes == []

    def test_an_edited_record(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        lines[2] = lines[2].replace('"decision":"allow"', '"decision":"deny"')
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == ["d.log:3 (seq 3): edited: its content does not match its hash"]

    def test_an_edited_record_whose_hash_was_recomputed(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        record = json.loads(lines[2])
        prev = record.pop("prev")
        record.pop("hash")
        record["decision"] = "deny"
        lines[2] = seal(record, prev)[0]
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == [
            "d.log:3 (seq 3): edited: its hash was rewritten (the next record links to another hash)"
        ]

    def test_a_removed_record(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        del lines[2]
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == ["d.log:3 (seq 4): removed: 1 record (seq 3) missing just before it"]

    def test_several_removed_records(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 6)
        lines = lines_of(path)
        del lines[1:4]
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == ["d.log:2 (seq 5): removed: 3 records (seq 2-4) missing just before it"]

    def test_an_inserted_record(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        forged, _ = seal({"type": "decision", "id": "f" * 16, "seq": 3, "decision": "allow"}, "1" * 64)
        lines.insert(2, forged)
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == [
            "d.log:3 (seq 3): inserted: it is not part of the chain (the next record links to the one before it)"
        ]

    def test_two_records_swapped(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        lines[1], lines[2] = lines[2], lines[1]
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == [
            "d.log:2 (seq 3): reordered: swapped with d.log:3 (seq 2), which comes before it in the chain"
        ]

    def test_a_record_moved_further_down(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 6)
        lines = lines_of(path)
        lines.insert(4, lines.pop(1))  # seq 2 now after seq 4
        path.write_text("\n".join(lines) + "\n")
        problems = verify(path).problems
        assert (
            problems[0] == "d.log:2 (seq 3): reordered: it comes before d.log:5 (seq 2), which it follows in the chain"
        )
        assert all(": reordered: " in problem for problem in problems), problems

    def test_a_duplicated_record(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 5)
        lines = lines_of(path)
        lines.insert(4, lines[1])
        path.write_text("\n".join(lines) + "\n")
        assert verify(path).problems == ["d.log:5 (seq 2): inserted: a copy of d.log:2 (seq 2)"]

    def test_a_damaged_line(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 3)
        path.write_text(path.read_text() + '{"type":"decis')
        assert verify(path).problems == ["d.log:4: not JSON (Unterminated string starting at): a torn or damaged line"]

    def test_the_chain_runs_across_rotated_files_oldest_first(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        first = write_log(tmp_path / "d.log.2", 2)
        second = write_log(tmp_path / "d.log.1", 2, first_seq=3, prev=json.loads(first[-1])["hash"])
        write_log(path, 2, first_seq=5, prev=json.loads(second[-1])["hash"])
        assert log_files(path) == [tmp_path / "d.log.2", tmp_path / "d.log.1", path]
        report = verify(path)
        assert report.ok, report.problems
        assert (report.files, report.records, report.first_seq, report.last_seq) == (3, 6, 1, 6)

    def test_a_log_whose_oldest_files_rotated_away_is_noted_not_failed(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        write_log(path, 3, first_seq=40, prev="a" * 64)
        report = verify(path)
        assert report.ok
        assert report.notes == [
            "the chain starts at d.log:1 (seq 40), whose predecessor is not here (rotated away, or the log was cut)"
        ]

    def test_a_removed_rotated_file_is_reported_where_the_chain_resumes(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        first = write_log(tmp_path / "d.log.2", 2)
        second = write_log(tmp_path / "d.log.1", 2, first_seq=3, prev=json.loads(first[-1])["hash"])
        write_log(path, 2, first_seq=5, prev=json.loads(second[-1])["hash"])
        (tmp_path / "d.log.1").unlink()
        (tmp_path / "d.log.2").rename(tmp_path / "d.log.1")
        assert verify(path).problems == ["d.log:1 (seq 5): removed: 2 records (seq 3-4) missing just before it"]


class TestLastRecord:
    def test_the_newest_record_of_the_newest_file(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        lines = write_log(tmp_path / "d.log.1", 3)
        assert last_record(path) == (3, json.loads(lines[-1])["hash"])
        more = write_log(path, 2, first_seq=4, prev=json.loads(lines[-1])["hash"])
        assert last_record(path) == (5, json.loads(more[-1])["hash"])

    def test_a_torn_last_line_is_skipped(self, tmp_path: Path) -> None:
        path = tmp_path / "d.log"
        lines = write_log(path, 2)
        path.write_text(path.read_text() + '{"type":"deci')
        assert last_record(path) == (2, json.loads(lines[-1])["hash"])

    @pytest.mark.parametrize("size", [10, 70_000, 200_000])
    def test_long_lines_are_read_whole(self, tmp_path: Path, size: int) -> None:
        path = tmp_path / "d.log"
        line, digest = seal({"seq": 1, "blob": "x" * size}, GENESIS)
        path.write_text(line + "\n")
        assert last_record(path) == (1, digest)

    def test_no_log(self, tmp_path: Path) -> None:
        assert last_record(tmp_path / "d.log") is None


@pytest.mark.parametrize(
    "record",
    [
        {"type": "decision", "caller": {"pid": 1}, "input": {"text": 'é \n \u2028 "q"'}, "session": "s", "time": "t"},
        {"a": 1},  # nothing after seq
        {"z": [1, 2.5, None, True]},  # nothing before seq
        {},
        {"n": float("nan"), "type": "decision"},  # strict: written as null, like seal
        {"se": 1, "seqq": 2, "sep": {"seq": 3}},  # keys next to seq, and a nested seq left alone
    ],
)
def test_a_workers_encoded_record_seals_to_the_same_line_and_hash(record: dict[str, object]) -> None:
    from hookd.audit.chain import Encoded, seal_encoded

    prev = chain_hash(GENESIS, "x")
    encoded = Encoded.of(record)  # type: ignore[arg-type]
    assert "\n" not in encoded.before + encoded.after  # each half crosses the worker channel as one line
    assert seal_encoded(encoded, 42, prev) == seal({**record, "seq": 42}, prev)  # type: ignore[dict-item]
    line = json.loads(seal({**record, "seq": 42}, prev)[0])
    assert encoded.record(42) == {k: v for k, v in line.items() if k not in ("prev", "hash")}
