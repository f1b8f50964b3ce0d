"""Worker processes: more than one core deciding hook-socket requests (`[daemon] workers = N`).

regorus holds the GIL while it evaluates, so one process decides on one core. With `workers = N` the
daemon starts N - 1 worker processes that accept connections on the daemon's own listening socket (the
kernel hands each connection to one of them) and decide them with the same pipeline, built from the same
configuration, and observes them (monitor and shadow layers, docs/rollout.md). Everything else stays in
the daemon: the control socket, the HTTP endpoint, bundle polling, metrics, the decision log and the
replay store. A worker builds and masks each decision's record and sends it to the daemon, whose single
writer chains and writes it, so the log stays one hash chain.

Nothing serves unaudited: a worker dies with its daemon (the kernel sends it SIGKILL when the daemon
exits, PR_SET_PDEATHSIG), and whichever comes first, a channel that ends or fails makes it refuse every
request (an `unavailable` error frame: the shim's fail mode) and exit. A worker holds a reply back while
more than `UNACKED_LIMIT` of its records have not reached the daemon's queue (refused at its deadline:
a daemon that stopped taking records gets no reply sent past it), so a crash loses at most that many of
its records (docs/decision-log.md). A restarted daemon waits for a killed one's
workers to be gone (`HookServer.start`).

A reload reaches the workers after the daemon has swapped: for that moment processes may decide on
different revisions, and each decision's record names the revision that decided it.

The daemon's side is hookd.procs.pool, a worker process's hookd.procs.child, and the channel between
them hookd.procs.channel.
"""
