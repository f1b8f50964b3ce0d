import json, sys, time, tempfile, statistics
from pathlib import Path
sys.path.insert(0, "bench")
import breakdown
from hookd import fastjson
project = Path(tempfile.mkdtemp())
samples = breakdown.handled_samples(Path("policies").resolve(), project)
from hookd.engines.rego_embedded import RegoEmbeddedEngine
eng = RegoEmbeddedEngine.load(Path("policies").resolve())
results = []
for h in samples:
    d = h.event.input_document(); eng._engine.set_input(d)
    results.append(eng._engine.eval_rule_as_json("data.hookd_router." + eng._router.rule_for(d)))
payloads = [breakdown.payload(i, project) for i in range(5)]
header = json.dumps({"client":"gemini","event":"BeforeTool","cwd":str(project),"ppid":123,"env":{"GEMINI_PROJECT_DIR":str(project),"HOME":"/root"}}).encode()
replies = [json.loads(h.reply.stdout) if h.reply.stdout else {} for h in samples]
def per_decision(loads, dumps):
    for p, r, rep in zip(payloads, results, replies):
        loads(p.decode()); loads(header); loads(r); dumps(rep)
stdl = (json.loads, lambda v: json.dumps(v, separators=(",", ":"), allow_nan=False).encode("ascii"))
fast = (fastjson.loads, fastjson.dumps_ascii)
def cpu(f, n=4000):
    s = time.process_time()
    for _ in range(n): f()
    return (time.process_time() - s) / n / 5 * 1e6
out = {"stdlib": [], "orjson": []}
for r in range(5):
    out["stdlib"].append(cpu(lambda: per_decision(*stdl)))
    out["orjson"].append(cpu(lambda: per_decision(*fast)))
for k, v in out.items(): print(k, "µs per decision (payload, header, rego result, reply):", round(statistics.median(v), 1), [round(x,1) for x in v])
