"""The channel between the daemon and a worker process (hookd.procs).

The channel between them is a socketpair of newline-delimited JSON:
  worker → daemon  {"t": "ready", "pid": P}             once serving
                   {"t": "d", "c": [event, outcome, latency_ms, engine_error],
                    "o": TALLY, "p": REPLAY_LINE}      what it observed, its replay line (hookd.rollout.relay),
                   then the record in two lines, its canonical JSON cut where `seq` goes (audit.chain.Encoded):
                   the daemon's writer numbers and seals it without decoding it
                   {"t": "s", "requests": N, "errors": {code: N}, "dropped": N, "lane": N, "cs": [[...]]}
                                                        since the last one, each second ("lane": requests the
                                                        lane took; "cs": the stream lane's chunks' counts)
  daemon → worker  {"t": "reload"}                      load the policies (and kept bundles) again
                   {"t": "ack", "n": N}                 N more records are in the daemon's log queue
The daemon hands the configuration over on the worker's stdin (a pickle of `Config`: the same program,
the same user), and to the stream lane, after it, the descriptors of its journal (hookd.procs.journal: the
open responses' texts, which a stream lane started again goes on from). A worker that dies is started again
after a pause; its end of the channel closing tells the daemon.
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
