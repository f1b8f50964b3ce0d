"""Monitor and shadow layers in a real daemon: the enforced answers stay what the enforced set decides, the
decision records say what the monitor layer and the shadow set would have decided, and status and the
Prometheus scrape count it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from load_support import HEADER, ask

from hookd import wire
from hookd.rollout.store import read_entries
from support import DEMO_POLICIES, eventually, free_port, gemini_payload, run_shim, scrape, start_daemon

TIMEOUT = 30
PROJECT_RULE = """
deny contains {"id": "no-fine", "reason": "the project would refuse fine.txt"} if {
\tinput.tool.kind == "write"
\tendswith(input.tool.input.file_path, "fine.txt")
}
"""
CANDIDATE_RULE = """
deny contains {"id": "no-new", "reason": "the candidate refuses new.txt"} if {
\tinput.tool.kind == "write"
\tendswith(input.tool.input.file_path, "new.txt")
}
"""


def write(name: str, cwd: Path) -> dict[str, object]:
    return gemini_payload(
        "BeforeTool", cwd=str(cwd), tool_name="write_file", tool_input={"file_path": name, "content": "x"}
    )


def hookd(daemon: Any, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hookd", *args, "--runtime-dir", str(daemon.runtime_dir)],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
    )  # fmt: skip
    return done.stdout


def project_and_candidate(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose policy (monitored) refuses fine.txt, and a candidate set: the demo policies without
    their secret.txt rule and with a new.txt one."""
    project = tmp_path / "project"
    (project / ".hookd" / "policies" / "proj").mkdir(parents=True)
    (project / ".hookd" / "policies" / "proj" / "policy.rego").write_text(f"package hookd.proj\n{PROJECT_RULE}")
    candidate = tmp_path / "candidate"
    shutil.copytree(DEMO_POLICIES, candidate)
    rego = candidate / "demo" / "policy.rego"
    text = rego.read_text().replace('endswith(input.tool.input.file_path, "secret.txt")', "false")
    rego.write_text(text + CANDIDATE_RULE)
    return project, candidate


def test_monitor_layer_and_shadow_set_are_recorded_and_counted_never_enforced(tmp_path: Path) -> None:
    project, candidate = project_and_candidate(tmp_path)
    port = free_port()
    config = (
        f'[layers]\nprojects = ["{project}"]\nproject_mode = "monitor"\n'
        f'[rollout]\nshadow_policies = "{candidate}"\nshadow_replaces = "default"\ncpu_budget_percent = 100\n'
        f'[metrics]\nlisten = "127.0.0.1:{port}"\n'
    )
    daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config)
    try:
        answers = {}
        for name in ("secret.txt", "new.txt", "fine.txt"):
            done = run_shim(daemon.socket, "BeforeTool", write(name, project))
            assert done.returncode == 0, done.stderr
            answers[name] = json.loads(done.stdout or b"{}").get("decision", "allow")
        records = {r["input"]["tool"]["input"]["file_path"]: r for r in daemon.decisions(at_least=3)}
        status = hookd(daemon, "status")
        status_json = json.loads(hookd(daemon, "status", "--json"))
        metrics = scrape(f"127.0.0.1:{port}")
    finally:
        assert daemon.stop() == 0

    # enforced: the user's set alone; the monitor layer's deny of fine.txt and the candidate change nothing
    assert answers == {"secret.txt": "deny", "new.txt": "allow", "fine.txt": "allow"}
    assert [r["decision"] for r in records.values()] == ["deny", "allow", "allow"]
    layer = f"project:{project}"
    fine = records["fine.txt"]
    assert fine["monitor"] == [
        {
            "layer": layer,
            "decision": "deny",
            "rules": ["hookd.proj:no-fine"],
            "reasons": ["the project would refuse fine.txt"],
        }
    ]
    assert fine["shadow"]["differs"] is False and fine["shadow"]["decision"] == "allow"
    assert records["secret.txt"]["monitor"][0]["decision"] == "allow"
    secret, new = records["secret.txt"]["shadow"], records["new.txt"]["shadow"]
    assert (secret["transition"], secret["enforced_rules"], secret["rules"]) == (
        "deny-to-allow",
        ["hookd.demo:no-secret"],
        [],
    )
    assert (new["transition"], new["rules"]) == ("allow-to-deny", ["hookd.demo:no-new"])

    modes = {p["name"]: p.get("mode") for p in status_json["policy_sets"]}
    assert modes == {"default": "enforce", layer: "monitor", "shadow": "shadow"}
    assert f"policies:  {layer} (monitor)" in status
    assert "policies:  shadow (shadow, candidate for default)" in status
    assert f"monitor:   {layer} would have decided: allow 2, deny 1" in status
    assert "shadow:    shadow: 3 evaluated, 2 differ (allow-to-deny 1, deny-to-allow 1)" in status

    def value(name: str, **labels: str) -> float:
        return metrics[(name, tuple(sorted(labels.items())))]

    assert value("hookd_monitor_decisions_total", layer=layer, decision="deny") == 1
    assert value("hookd_shadow_evaluations_total") == 3
    assert value("hookd_shadow_disagreements_total", transition="deny-to-allow") == 1
    assert value("hookd_shadow_disagreements_total", transition="allow-to-deny") == 1


def test_bundles_fetched_in_monitor_and_shadow_mode_are_recorded_never_enforced(tmp_path: Path) -> None:
    from bundle_support import BundleServer, make_key, named, policy_dir, start, wait_for

    from hookd.bundle.build import build
    from hookd.bundle.signing import Key

    key = make_key("RS256")
    pub = key.write(tmp_path / "keys")[1]
    signing = Key(key.algorithm, key.private)
    no_shred = (
        'deny contains {"id": "no-shred", "reason": "no"} if { some c in input.shell.commands; c.name == "shred" }'
    )
    watched = (
        'deny contains {"id": "watched", "reason": "would refuse"} if endswith(input.tool.input.file_path, "w.txt")'
    )
    bundles = {  # name: (package, rules, mode line); the shadow owns the same root as the bundle it replaces
        "acme": ("org", no_shred, ""),
        "acme-next": ("org", "", 'mode = "shadow"\nreplaces = "acme"\n'),
        "watch": ("watch", watched, 'mode = "monitor"\n'),
    }
    server = BundleServer()
    config = f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n'
    for name, (package, rules, mode) in bundles.items():
        source = policy_dir(tmp_path / f"src-{name}", package, rules or "default allow := true")
        server.publish(f"{name}.tar.gz", build(source, revision=f"{name}-1", roots=[f"hookd/{package}"], key=signing))
        config += f'\n[bundles.{name}]\nurl = "{server.url(name + ".tar.gz")}"\nkey = "org"\n{mode}'
    daemon = start(tmp_path, DEMO_POLICIES, config=config)
    try:
        for name in bundles:
            wait_for(daemon, named("bundle_activated", source=name))
        shell = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "shred x"})
        write_w = write("w.txt", tmp_path)
        answers = [json.loads(run_shim(daemon.socket, "BeforeTool", p).stdout or b"{}") for p in (shell, write_w)]
        rm, watched_write = daemon.decisions(at_least=2)[-2:]
        status = json.loads(hookd(daemon, "status", "--json"))
    finally:
        assert daemon.stop() == 0
        server.close()

    assert answers[0]["decision"] == "deny" and answers[1].get("decision", "allow") == "allow"
    assert rm["shadow"]["transition"] == "deny-to-allow", (rm["shadow"], rm["verdicts"])
    assert rm["shadow"]["enforced_rules"] == ["hookd.org:no-shred"]
    assert watched_write["decision"] == "allow"
    assert next(m for m in watched_write["monitor"] if m["layer"] == "watch")["rules"] == ["hookd.watch:watched"]
    modes = {p["name"]: (p["mode"], p["replaces"]) for p in status["policy_sets"]}
    assert modes["acme"] == ("enforce", "") and modes["watch"] == ("monitor", "")
    assert modes["acme-next"] == ("shadow", "acme")
    assert status["rollout"]["shadow"] == "acme-next"
    assert int(status["rollout"]["disagreements"]["deny-to-allow"]) == 1


def stored_lines(store: Path, at_least: int) -> list[dict[str, Any]] | None:
    lines = [line for _, line in read_entries(store)]
    return lines if len(lines) >= at_least else None


def test_with_two_workers_every_process_observes_stores_and_counts(tmp_path: Path) -> None:
    """`[daemon] workers = 2`: the worker process observes its own decisions (monitor and shadow), sends its
    replay lines to the daemon's one store, and the daemon's counters add up both processes' observations."""
    project, candidate = project_and_candidate(tmp_path)
    store = tmp_path / "replay"
    config = (
        f'[daemon]\nworkers = 2\n[layers]\nprojects = ["{project}"]\nproject_mode = "monitor"\n'
        f'[rollout]\nshadow_policies = "{candidate}"\nshadow_replaces = "default"\ncpu_budget_percent = 100\n'
        f'[replay]\nenabled = true\npath = "{store}"\n'
    )
    names = [("secret.txt" if n % 2 else "fine.txt") for n in range(120)]
    daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config)
    try:
        eventually(lambda: '"worker_serving"' in daemon.log(), timeout=TIMEOUT, what="the worker serving")
        for name in names:  # one at a time, so that neither process sheds the observation for load
            frame = wire.encode_request({**HEADER, "cwd": str(project)}, json.dumps(write(name, project)).encode())
            assert ask(daemon.socket, frame).status is wire.Status.OK
        records = daemon.decisions(at_least=len(names))
        stored = eventually(lambda: stored_lines(store, len(names)), timeout=TIMEOUT, what="every line stored")
        status = json.loads(hookd(daemon, "status", "--json"))
        text = hookd(daemon, "status")
    finally:
        assert daemon.stop() == 0

    rollout, replay = status["rollout"], status["replay"]
    assert (int(replay["written"]), int(replay.get("dropped", 0)), int(replay["segments"])) == (len(names), 0, 1)
    assert f"replay:    {store}: written {len(names)}, dropped 0, write errors 0; 1 segments" in text
    assert len(records) == len(names)
    by_process = {r["id"]: int(r["id"], 16) % 64 for r in records}
    assert set(by_process.values()) == {0, 1}, "both processes must have decided"
    assert sorted(e["id"] for e in stored) == sorted(by_process)  # every request, from either process, once
    assert all(e["input"]["tool"]["input"]["file_path"] in ("secret.txt", "fine.txt") for e in stored)

    observed = [r for r in records if "shadow" in r]
    skipped = [r for r in records if "rollout" in r]
    assert len(observed) + len(skipped) == len(records)
    assert {by_process[r["id"]] for r in observed} == {0, 1}, "the worker's decisions must be observed too"
    differ = [r for r in observed if r["shadow"]["transition"]]
    assert {r["shadow"]["transition"] for r in differ} == {"deny-to-allow"}
    assert {r["input"]["tool"]["input"]["file_path"] for r in differ} == {"secret.txt"}
    assert {by_process[r["id"]] for r in differ} == {0, 1}
    # the daemon's counters hold what both processes observed, exactly as their records say
    assert int(rollout["shadow_evaluated"]) == len(observed)
    assert {k: int(v) for k, v in rollout["disagreements"].items()} == {"deny-to-allow": len(differ)}
    monitor = {(m["layer"], m["decision"]): int(m["count"]) for m in rollout["monitor"]}
    fine = sum(1 for r in observed if r["input"]["tool"]["input"]["file_path"] == "fine.txt")
    assert monitor == {
        (f"project:{project}", "deny"): fine,
        (f"project:{project}", "allow"): len(observed) - fine,
    }
    assert sum(int(n) for n in rollout.get("skipped", {}).values()) == len(skipped)
