#!/usr/bin/env python3
"""Fake OpenAI-compatible model server for offline agent tests (stdlib only).

Serves, on 127.0.0.1 only:
  POST .../responses          OpenAI Responses API, SSE (Codex CLI)
  POST .../chat/completions   OpenAI Chat Completions, SSE or JSON (Qwen Code, Copilot BYOK)
  GET  .../models             an empty or one-model list
  POST .../hook-deny          a PreToolUse deny JSON (for HTTP-hook tests); .../hook-deny-flat: the
                              flat Copilot form; .../hook-500 -> 500
  anything else               200 {} (logged)

Script (stateless, decided per request):
  * if the newest input item is a tool result -> answer text "Done."
  * else if the request offers a shell tool and fewer than MAX_CALLS tool calls were
    already made in this conversation -> call the shell tool with COMMAND
  * else -> answer text "Done."

Usage: fake_llm.py PORT LOGFILE COMMAND      (PORT 0 = pick one; prints "READY <port>")
       COMMAND "-": the command is the one the conversation names as RUN<<command>>RUN (one server
       for many runs, each with its own prompt)
       A conversation naming PATCH<<patch text>>PATCH is answered with one call of Codex's apply_patch
       tool (a freeform `custom_tool_call` whose input is the patch), when the request offers it.
       A conversation naming DELEGATE<<base64 of {"tool": name, "args": {...}}>>DELEGATE (a sub-agent test) is
       answered with one call of that tool (the agent's sub-agent spawner) with those arguments, or with
       text when the request does not offer it: never the shell, the command must run in the sub-agent,
       whose own conversation (its prompt, in args, names RUN<<command>>RUN and no DELEGATE) gets it.
       A conversation naming CODE<<base64 of JavaScript>>CODE is answered with one call of Codex's code-mode
       `exec` tool (a freeform tool in the `functions` namespace that the request's `additional_tools`
       input item offers) running that script.
Env:   FAKE_TOOL=<name>   force the tool name (else the first known shell tool offered)
       FAKE_ARGS=<json>   force the argument object (COMMAND is then ignored)
       FAKE_MAX_CALLS=N   default 1
Every request is appended to LOGFILE as one JSON line: {"n","method","path","headers","body"}.
"""

import base64
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1])
LOG = sys.argv[2]
COMMAND = sys.argv[3]
MAX_CALLS = int(os.environ.get("FAKE_MAX_CALLS", "1"))
FORCE_TOOL = os.environ.get("FAKE_TOOL")
FORCE_ARGS = os.environ.get("FAKE_ARGS")
LOCK = threading.Lock()
COUNTER = [0]

# name -> function building the arguments object for COMMAND
SHELL_TOOLS = {
    "shell_command": lambda c: {"command": c},  # codex
    "exec_command": lambda c: {"cmd": c},  # codex unified exec
    "shell": lambda c: {"command": ["bash", "-lc", c]},  # codex legacy
    "run_shell_command": lambda c: {"command": c, "description": "test", "is_background": False},  # qwen
    "bash": lambda c: {"command": c, "description": "test"},  # copilot
    "Bash": lambda c: {"command": c, "description": "test"},
    # Factory Droid: Execute requires summary, riskLevelReason and riskLevel (low|medium|high)
    "Execute": lambda c: {
        "summary": "Create the marker file now",
        "command": c,
        "riskLevelReason": "This touch command creates one scratch file.",
        "riskLevel": "medium",
    },
}


def command_for(body):
    if COMMAND != "-":
        return COMMAND
    found = re.search(r"RUN<<(.*?)>>RUN", json.dumps(body))
    return json.loads('"' + found.group(1) + '"') if found else "true"


def patch_for(body):
    """The patch text a conversation names as PATCH<<patch>>PATCH, or None."""
    found = re.search(r"PATCH<<(.*?)>>PATCH", json.dumps(body))
    return json.loads('"' + found.group(1) + '"') if found else None


def delegation_for(body):
    """The DELEGATE<<base64 of {"tool", "args"}>>DELEGATE spec a conversation names, or None."""
    found = re.search(r"DELEGATE<<([A-Za-z0-9+/=]*)>>DELEGATE", json.dumps(body))
    return json.loads(base64.b64decode(found.group(1))) if found else None


def delegate(body, tool, calls, last_output):
    """In a delegating conversation: the call to make now as (name, step), else no tool at all. The
    spawner first, then the spec's `then` steps (Codex's wait_agent: its exec ends with the main turn),
    whose "{output.KEY}" strings take KEY of the previous call's JSON output. A spec may name the
    `namespace` tool that holds these tools (Codex's multi_agent_v1)."""
    spec = delegation_for(body)
    if spec is None:
        return tool, None
    steps = [spec, *spec.get("then", [])]
    if calls >= len(steps) or (calls == 0) != (last_output is None):
        return None, None
    if spec.get("namespace", spec["tool"]) not in tool_names(body):
        return None, None
    try:
        previous = json.loads(last_output) if last_output else {}
    except ValueError:
        previous = {}

    def filled(value):
        if isinstance(value, list):
            return [filled(v) for v in value]
        if isinstance(value, str) and value.startswith("{output.") and isinstance(previous, dict):
            return str(previous.get(value[len("{output.") : -1], value))
        return value

    step = steps[calls]
    args = {k: filled(v) for k, v in step["args"].items()}
    return step["tool"], {"args": args, **({"namespace": spec["namespace"]} if "namespace" in spec else {})}


def code_for(body):
    """The script a conversation names as CODE<<base64>>CODE, when the request offers Codex's code-mode
    `exec` (in an `additional_tools` input item), else None."""
    found = re.search(r"CODE<<([A-Za-z0-9+/=]*)>>CODE", json.dumps(body))
    offered = [t for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "additional_tools"
               for t in i.get("tools") or [] if isinstance(t, dict)]  # fmt: skip
    has_exec = any(t.get("name") == "functions" and any(f.get("name") == "exec" for f in t.get("tools") or [])
                   for t in offered)  # fmt: skip
    return base64.b64decode(found.group(1)).decode() if found and has_exec else None


def tool_names(body):
    """The tools a request offers: its `tools`, and those of Codex's `additional_tools` input items (code
    mode: namespaces such as `functions` and `collaboration`, by the namespace's name)."""
    names = []
    extra = [t for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "additional_tools"
             for t in i.get("tools") or []]  # fmt: skip
    for t in [*(body.get("tools") or []), *extra]:
        if not isinstance(t, dict):
            continue
        if "function" in t and isinstance(t["function"], dict):
            names.append(t["function"].get("name"))
        elif "custom" in t and isinstance(t["custom"], dict):  # a freeform tool (Chat Completions)
            names.append(t["custom"].get("name"))
        elif "name" in t:
            names.append(t.get("name"))
    return [n for n in names if n]


def pick_tool(body):
    names = tool_names(body)
    if FORCE_TOOL:
        return FORCE_TOOL if FORCE_TOOL in names else None
    for n in SHELL_TOOLS:
        if n in names:
            return n
    return None


def args_for(tool, body):
    if FORCE_ARGS:
        return json.loads(FORCE_ARGS)
    return SHELL_TOOLS.get(tool, lambda c: {"command": c})(command_for(body))


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except Exception:
            return raw.decode("utf-8", "replace")

    def _log(self, body):
        with LOCK:
            COUNTER[0] += 1
            n = COUNTER[0]
            with open(LOG, "a") as f:
                f.write(
                    json.dumps(
                        {
                            "n": n,
                            "t": time.time(),
                            "method": self.command,
                            "path": self.path,
                            "headers": dict(self.headers),
                            "body": body,
                        }
                    )
                    + "\n"
                )
        return n

    def _send(self, code, ctype, data):
        if isinstance(data, str):
            data = data.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._log(None)
        if self.path.rstrip("/").endswith("/models"):
            return self._send(
                200,
                "application/json",
                json.dumps(
                    {
                        "object": "list",
                        "data": [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}],
                    }
                ),
            )
        return self._send(200, "application/json", "{}")

    def do_HEAD(self):
        self._log(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self._body()
        n = self._log(body)
        path = self.path.split("?")[0]
        if not isinstance(body, dict):
            return self._send(200, "application/json", "{}")
        if path.endswith("/responses"):
            return self.api_responses(body, n)
        if path.endswith("/chat/completions"):
            return self.api_chat(body, n)
        if path.endswith("/hook-deny"):  # HTTP-hook endpoint for tests: Claude-style deny
            return self._send(
                200,
                "application/json",
                json.dumps(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": "blocked by HTTP hook (hookd offline test)",
                        }
                    }
                ),
            )
        if path.endswith("/hook-deny-flat"):  # Copilot camelCase-style deny
            return self._send(
                200,
                "application/json",
                json.dumps(
                    {
                        "permissionDecision": "deny",
                        "permissionDecisionReason": "blocked by HTTP hook (hookd offline test)",
                    }
                ),
            )
        if path.endswith("/hook-500"):
            return self._send(500, "application/json", "{}")
        return self._send(200, "application/json", "{}")

    # ---------------- Responses API (Codex) ----------------
    def api_responses(self, body, n):
        items = body.get("input") or []
        last = items[-1] if items else {}
        calls = sum(
            1
            for i in items
            if isinstance(i, dict) and i.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
        )
        tool = pick_tool(body)
        rid = f"resp_{n}"
        ev = [{"type": "response.created", "response": {"id": rid}}]
        if isinstance(last, dict) and last.get("type", "").endswith("_output"):
            tool = None
        output = last.get("output") if isinstance(last, dict) and last.get("type", "").endswith("_output") else None
        tool, delegated = delegate(body, tool, calls, output)
        patch = patch_for(body) if tool else None
        code = code_for(body) if output is None and calls < MAX_CALLS else None
        if code is not None:
            item = {"type": "custom_tool_call", "call_id": f"call_fake_{n}", "name": "exec", "namespace": "functions"}
            ev.append({"type": "response.output_item.done", "item": item | {"input": code}})
        elif patch is not None and "apply_patch" in tool_names(body) and calls < MAX_CALLS:
            ev.append(
                {
                    "type": "response.output_item.done",
                    "item": {
                        "type": "custom_tool_call",
                        "call_id": f"call_fake_{n}",
                        "name": "apply_patch",
                        "input": patch,
                    },
                }
            )
        elif tool and (delegated or calls < MAX_CALLS):
            ev.append(
                {
                    "type": "response.output_item.done",
                    "item": {
                        "type": "function_call",
                        "call_id": f"call_fake_{n}",
                        "name": tool,
                        "arguments": json.dumps(delegated["args"] if delegated else args_for(tool, body)),
                        **({"namespace": delegated["namespace"]} if delegated and "namespace" in delegated else {}),
                    },
                }
            )
        else:
            ev.append(
                {
                    "type": "response.output_item.done",
                    "item": {
                        "type": "message",
                        "role": "assistant",
                        "id": f"msg_{n}",
                        "content": [{"type": "output_text", "text": "Done."}],
                    },
                }
            )
        ev.append(
            {
                "type": "response.completed",
                "response": {
                    "id": rid,
                    "usage": {
                        "input_tokens": 10,
                        "input_tokens_details": None,
                        "output_tokens": 5,
                        "output_tokens_details": None,
                        "total_tokens": 15,
                    },
                },
            }
        )
        out = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in ev)
        return self._send(200, "text/event-stream", out)

    # ---------------- Chat Completions (Qwen, Copilot BYOK) ----------------
    def api_chat(self, body, n):
        msgs = body.get("messages") or []
        last = msgs[-1] if msgs else {}
        calls = sum(
            len(m.get("tool_calls") or []) for m in msgs if isinstance(m, dict) and m.get("role") == "assistant"
        )
        tool = pick_tool(body)
        if isinstance(last, dict) and last.get("role") == "tool":
            tool = None
        output = last.get("content") if isinstance(last, dict) and last.get("role") == "tool" else None
        tool, delegated = delegate(body, tool, calls, json.dumps(output) if isinstance(output, list) else output)
        model = body.get("model", "fake-model")
        cid = f"chatcmpl-{n}"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        patch = patch_for(body) if tool else None
        if patch is not None and "apply_patch" in tool_names(body) and calls < MAX_CALLS:
            tc = {
                "index": 0,
                "id": f"call_fake_{n}",
                "type": "custom",
                "custom": {"name": "apply_patch", "input": patch},
            }
            msg = {"role": "assistant", "content": None, "tool_calls": [tc]}
            finish = "tool_calls"
        elif tool and (delegated or calls < MAX_CALLS):
            tc = {
                "index": 0,
                "id": f"call_fake_{n}",
                "type": "function",
                "function": {
                    "name": tool,
                    "arguments": json.dumps(delegated["args"] if delegated else args_for(tool, body)),
                },
            }
            msg = {"role": "assistant", "content": None, "tool_calls": [tc]}
            finish = "tool_calls"
        else:
            msg = {"role": "assistant", "content": "Done."}
            finish = "stop"
        if body.get("stream"):
            chunks = [
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "delta": msg, "finish_reason": None}],
                },
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                    "usage": usage,
                },
            ]
            out = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            return self._send(200, "text/event-stream", out)
        m = dict(msg)
        if "tool_calls" in m:
            m["tool_calls"] = [{k: v for k, v in tc.items() if k != "index"} for tc in m["tool_calls"]]
        return self._send(
            200,
            "application/json",
            json.dumps(
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": m, "finish_reason": finish}],
                    "usage": usage,
                }
            ),
        )


def main():
    srv = ThreadingHTTPServer(("127.0.0.1", PORT), H)
    print(f"READY {srv.server_address[1]}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
