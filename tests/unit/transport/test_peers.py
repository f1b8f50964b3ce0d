"""The stream lane's places per session: a session's parent read from /proc only when places run short."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from hookd.transport import peers


class _Peer:
    """What `_Places` asks of a connection: its session (counted when read) and whether it is a worker."""

    def __init__(self, session: int, worker: bool = False) -> None:
        self._session, self._worker, self.reads = session, worker, 0

    def session(self) -> int:
        self.reads += 1
        return self._session

    def from_own_daemon(self) -> bool:
        self.reads += 1
        return self._worker


def _places() -> tuple[peers.Places, Callable[[_Peer], bool], Callable[[_Peer], None]]:
    places = peers.Places()
    return places, places.take, places.leave


def test_the_stream_lane_reads_no_session_while_no_session_can_be_at_its_cap() -> None:
    cap = peers.DIRECT_PER_SESSION
    _, take, leave = _places()
    first = [_Peer(7) for _ in range(cap)]
    assert all(take(peer) for peer in first)
    assert [peer.reads for peer in first] == [0] * cap  # /proc read for none of them
    flooding, other = _Peer(7), _Peer(8)
    assert not take(flooding)  # the session's places are taken: read now, once each
    assert take(other)
    assert all(0 < peer.reads <= 2 for peer in first)
    leave(first[0])
    assert take(_Peer(7))  # a place of the session is free again
    assert not take(_Peer(7))


def test_the_daemons_workers_hold_no_place_at_the_stream_lane_when_places_run_short() -> None:
    cap = peers.DIRECT_PER_SESSION
    _, take, _ = _places()
    workers = [_Peer(1, worker=True) for _ in range(cap)]
    assert all(take(peer) for peer in workers)
    assert all(take(_Peer(1, worker=True)) for _ in range(3 * cap))  # never `busy`
    assert all(take(_Peer(9)) for _ in range(cap)) and not take(_Peer(9))


def test_places_read_lazily_admit_and_refuse_as_places_counted_by_session_from_the_start() -> None:
    """Random takes and leaves over a few sessions: the same answers as counting every connection's session
    at once (the lane before), with far fewer reads."""
    cap, rng = peers.DIRECT_PER_SESSION, random.Random(30)
    for _ in range(200):
        _, take, leave = _places()
        held: list[_Peer] = []
        counted: Counter[int] = Counter()
        for _ in range(60):
            if held and rng.random() < 0.45:
                peer = held.pop(rng.randrange(len(held)))
                leave(peer)
                counted[peer._session] -= 1
                continue
            peer = _Peer(rng.choice((1, 2, 3)))
            expected = counted[peer._session] < cap
            assert take(peer) is expected
            if expected:
                held.append(peer)
                counted[peer._session] += 1
