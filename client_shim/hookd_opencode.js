// hookd's plugin for OpenCode and Kilo Code CLI, written by `hookd install --client opencode|kilo` (the
// HOOKS line below is filled in by install: do not edit it by hand, install again instead).
//
// OpenCode has no command hooks: its plugins run in-process. This one hands each tool call to hookd's
// shim (the same program every other agent runs, so the same socket protocol, checks and deadlines) and
// applies the answer: a deny throws (OpenCode then does not run the tool, and the model gets the
// reason), a rewrite replaces the call's arguments. Anything that keeps hookd from answering (the shim
// missing, killed, past its time, an answer that is not hookd's) throws too: fail closed.
import { spawn } from "node:child_process";

// event -> {argv: the shim and its arguments, timeout_ms}
const HOOKS = {}; // HOOKD-HOOKS

function denied(reason) {
  return new Error(reason);
}

function runShim(hook, payload, directory) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(hook.argv[0], hook.argv.slice(1), {
        cwd: directory,
        env: { ...process.env, OPENCODE_PROJECT_DIR: directory },
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      reject(denied(`hookd could not start its shim (${error.message}): the call is denied`));
      return;
    }
    const out = [];
    const err = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), hook.timeout_ms);
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(denied(`hookd could not start its shim (${error.message}): the call is denied`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal !== null) {
        reject(denied(`hookd's shim did not answer within ${hook.timeout_ms} ms: the call is denied`));
        return;
      }
      resolve({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.on("error", () => {}); // a shim that exits before reading is judged by its answer
    child.stdin.end(JSON.stringify(payload));
  });
}

async function decide(event, payload, directory) {
  const hook = HOOKS[event];
  if (hook === undefined) return null;
  const run = await runShim(hook, payload, directory);
  const text = run.stdout.trim();
  if (run.code !== 0) {
    const why = run.stderr.trim().split("\n")[0] || `exit ${run.code}`;
    throw denied(`hookd's shim failed (${why}): the call is denied`);
  }
  if (text === "") return null;
  let reply;
  try {
    reply = JSON.parse(text);
  } catch {
    throw denied("hookd's shim answered something that is not JSON: the call is denied");
  }
  if (reply === null || typeof reply !== "object") throw denied("hookd's answer is not an object: the call is denied");
  return reply;
}

export const HookdPlugin = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const payload = {
      hook_event_name: "tool.execute.before",
      session_id: input.sessionID,
      call_id: input.callID,
      tool_name: input.tool,
      tool_input: output.args,
      cwd: directory,
    };
    const reply = await decide("tool.execute.before", payload, directory);
    if (reply === null) return;
    if (reply.decision === "deny") throw denied(typeof reply.reason === "string" ? reply.reason : "denied by hookd");
    if (reply.args !== undefined) {
      if (reply.args === null || typeof reply.args !== "object") throw denied("hookd's rewrite is not an object: denied");
      for (const key of Object.keys(output.args)) delete output.args[key];
      Object.assign(output.args, reply.args);
    }
  },
});
