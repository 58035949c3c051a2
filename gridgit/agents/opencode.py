"""OpenCode: gridgit's hooks are a plugin, `.opencode/plugins/gridgit.js`, a file of gridgit's own.

OpenCode has no hook commands: it loads JavaScript plugins from `.opencode/plugins/`
(https://opencode.ai/docs/plugins), functions that get `{client, directory, ...}` and return
hooks (the `Hooks` type of @opencode-ai/plugin, `dispose` among them: OpenCode awaits it as it
shuts down, which `opencode run` does as soon as its session is idle). gridgit's is the
smallest that makes them the commands every other tool runs: each hook sends its event as JSON on stdin to `gridgit agent-hook opencode EVENT` (the same
PATH-found, fail-open shell line as the other tools' configs) and applies the answer the way
the plugin API and the SDK (https://opencode.ai/docs/sdk) document; the fields it applies are
the capability table's (gridgit.agents.capabilities). The JSON a hook sends is gridgit's own,
in the other tools' shape: `hook_event_name`, `session_id` (OpenCode's `sessionID`), `cwd`
(the plugin's `directory`), `tool_name` and `tool_input` (the tool's `args`), after a `write`
its `tool_response.exists` (the tool's metadata: whether the file was there before), and at
idle `stop_hook_active`. Edits are the `edit` and `write` tools (`args.filePath`) and `apply_patch`
(`args.patchText`, Codex's patch format: https://opencode.ai/docs/tools).
"""

from __future__ import annotations

import json

from gridgit.agents.codex import patch_edits
from gridgit.agents.tool import Edit, Hook, Tool, file_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_MS = 15_000

_PLUGIN = """\
// gridgit: its hooks for OpenCode, written by `gridgit setup opencode` (`--remove` takes them out again).
// Each hook sends its event as JSON to `gridgit agent-hook opencode EVENT` (found on PATH, or at $GRIDGIT_BIN) and
// applies the answer as the plugin API and the SDK document (https://opencode.ai/docs/plugins,
// https://opencode.ai/docs/sdk): a `deny` is thrown, so the tool does not run and its reason reaches the agent;
// `context` is appended to the tool's output, or at a session's start added to it without a reply; the reason of a
// `block` at idle is sent as the next prompt, and that session's next idle says `stop_hook_active`; OpenCode awaits
// the plugin's `dispose` before it exits (`opencode run` does at once after its idle), which waits for that prompt.
// Whatever fails on gridgit's side leaves OpenCode as it was: a warning in its log, and the hooks do nothing.
import { spawn } from "node:child_process"

const HOOKS = @HOOKS@
const TIMEOUT_MS = @TIMEOUT@

function ask(native, payload, directory, warn) {
  return new Promise((resolve) => {
    let out = ""
    let err = ""
    let child
    try {
      child = spawn("sh", ["-c", HOOKS[native].command], { cwd: directory, stdio: ["pipe", "pipe", "pipe"] })
    } catch (error) {
      warn(String(error))
      return resolve({})
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
    child.stdout.on("data", (chunk) => (out += chunk))
    child.stderr.on("data", (chunk) => (err += chunk))
    child.stdin.on("error", () => {})
    child.on("error", (error) => {
      clearTimeout(timer)
      warn(String(error))
      resolve({})
    })
    child.on("close", () => {
      clearTimeout(timer)
      if (err.trim()) warn(err.trim())
      try {
        const answer = JSON.parse(out.trim() || "{}")
        resolve(answer !== null && typeof answer === "object" ? answer : {})
      } catch {
        resolve({})
      }
    })
    child.stdin.end(JSON.stringify({ hook_event_name: native, cwd: directory, ...payload }))
  })
}

const said = (answer) => (typeof answer.context === "string" ? answer.context : "")

export const GridgitPlugin = async ({ client, directory }) => {
  const args = new Map() // a tool call's arguments, from before it runs to after
  const woken = new Set() // sessions a `block` kept going: their next idle says so
  const pending = new Set() // what an idle started (its hook, the prompt it sends): `dispose` waits for it
  const started = new Map() // a session's context pack on its way: its first message waits for it
  const delivering = new Set() // sessions whose pack is being added (that message itself must not wait)
  const keep = (work) => {
    pending.add(work)
    work.finally(() => pending.delete(work))
    return work
  }
  const warn = (message) =>
    Promise.resolve(client.app.log({ body: { service: "gridgit", level: "warn", message } })).catch(() => {})
  const edits = (native, tool) => new RegExp(`^(?:${HOOKS[native].tools})$`).test(tool)
  const hook = (native, sessionID, more) => ask(native, { session_id: sessionID, ...more }, directory, warn)
  return {
    "tool.execute.before": async (input, output) => {
      if (!edits("tool.execute.before", input.tool)) return
      args.set(input.callID, output.args)
      const call = { tool_name: input.tool, tool_input: output.args }
      const answer = await hook("tool.execute.before", input.sessionID, call)
      if (answer.decision === "deny") {
        args.delete(input.callID)
        throw new Error(answer.reason || "gridgit refused this edit")
      }
    },
    "tool.execute.after": async (input, output) => {
      if (!edits("tool.execute.after", input.tool)) return
      const toolInput = input.args ?? args.get(input.callID) ?? {}
      args.delete(input.callID)
      const call = { tool_name: input.tool, tool_input: toolInput }
      if (typeof output.metadata?.exists === "boolean") call.tool_response = { exists: output.metadata.exists }
      const context = said(await hook("tool.execute.after", input.sessionID, call))
      if (context) output.output = output.output ? `${output.output}\\n\\n${context}` : context
    },
    event: async ({ event }) => {
      if (event.type === "session.created" && event.properties?.info?.id) {
        const id = event.properties.info.id
        const pack = (async () => {
          const context = said(await hook("session.created", id, {}))
          if (!context) return
          const body = { noReply: true, parts: [{ type: "text", text: context }] }
          delivering.add(id)
          await Promise.resolve(client.session.prompt({ path: { id }, body })).catch((error) => warn(String(error)))
          delivering.delete(id)
        })()
        started.set(id, pack)
        await pack
      } else if (event.type === "session.idle" && event.properties?.sessionID) {
        const id = event.properties.sessionID
        const answer = await keep(hook("session.idle", id, { stop_hook_active: woken.delete(id) }))
        if (answer.decision === "block" && answer.reason) {
          woken.add(id)
          const body = { parts: [{ type: "text", text: answer.reason }] }
          // not awaited here: the prompt runs a whole turn, whose own idle comes back here; `dispose` waits for it
          keep(Promise.resolve(client.session.prompt({ path: { id }, body })).catch((error) => warn(String(error))))
        }
      }
    },
    // OpenCode awaits it before a new message goes on (`opencode run` sends its prompt as soon as the session
    // exists): the first turn has the context pack.
    "chat.message": async (input) => {
      const pack = started.get(input.sessionID)
      if (pack && !delivering.has(input.sessionID)) await pack
    },
    // OpenCode awaits it when it shuts down: `opencode run` exits as soon as its session is idle, which would
    // cut short the reason sent as the next prompt (a turn's idle can start another: wait until none is left).
    dispose: async () => {
      while (pending.size) await Promise.allSettled([...pending])
    },
  }
}
"""


def entry(hook: Hook, command: str) -> dict[str, Any]:
    """What the plugin needs of HOOK: its COMMAND, and for a tool's hook the tools it runs for."""
    item: dict[str, Any] = {"command": command}
    if hook.matcher:
        item["tools"] = hook.matcher
    return item


def plugin(entries: dict[str, Any]) -> str:
    """The plugin's text, with ENTRIES (a hook's native name -> its entry) on one line (tests read it back)."""
    hooks = json.dumps(entries, ensure_ascii=False, sort_keys=True)
    return _PLUGIN.replace("@HOOKS@", hooks).replace("@TIMEOUT@", str(TIMEOUT_MS))


def edits(payload: dict[str, Any]) -> list[Edit]:
    tool_input = payload.get("tool_input")
    patch = tool_input.get("patchText") if isinstance(tool_input, dict) else None
    if isinstance(patch, str):
        return patch_edits(patch)
    # The write tool's metadata says whether the file `exists`ed before it wrote (the plugin passes it on).
    response = payload.get("tool_response")
    created = isinstance(response, dict) and response.get("exists") is False
    return file_paths(tool_input, ("filePath",), created=created)


TOOL = Tool(
    name="opencode",
    title="OpenCode",
    config=".opencode/plugins/gridgit.js",
    edits=edits,
    entry=entry,
    plugin=plugin,
)
