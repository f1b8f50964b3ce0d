"""The channel between the daemon and a worker process (hookd.procs).

The channel between them is a socketpair of newline-delimited JSON:
  worker → daemon  {"t": "ready", "pid": P}             once serving
                   {"t": "d", "c": [event, outcome, latency_ms, engine_error],
                    "o": TALLY, "p": REPLAY_LINE}      what it observed, its replay line (hookd.rollout.relay),
                   then the record in two lines, its canonical JSON cut where `seq` goes (audit.chain.Encoded):
                   the daemon's writer numbers and seals it without decoding it
                   {"t": "s", "requests": N, "errors": {code: N}, "dropped": N, "lane": N}   since the last
                                                        one, each second ("lane": requests the lane took)
                   {"t": "st", "k": [uid, client, session, response], "x": TEXT, "cut": B, "f": B, "c": [...]}
                                                        the stream lane, before it answers a chunk: the
                                                        chunk's text (its end), for the daemon's copy of the
                                                        open responses' texts, and the chunk's counts
  daemon → worker  {"t": "reload"}                      load the policies (and kept bundles) again
                   {"t": "ack", "n": N}                 N more records are in the daemon's log queue
The daemon hands the configuration over on the worker's stdin (a pickle of `Config`: the same program,
the same user), and to the stream lane, after it, its copy of the open responses' texts (hookd.enrich.stream,
`Kept`). A worker that dies is started again after a pause; its end of the channel closing tells the daemon.
"""

from __future__ import annotations

import json
from typing import Any

import structlog

log = structlog.get_logger("hookd.workers")
STOP_TIMEOUT_S = 10.0
LANE_FD, STREAM_LANE_FD = -1, -2  # the listening fd a lane is started with: it binds a socket of its own


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
