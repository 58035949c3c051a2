"""What each agent tool's hooks can do, as its own documentation says: one entry per tool and gridgit event.

An entry names the tool's event (and its matcher) that runs gridgit's event, the decisions
that event *enforces* (a decision a tool parses but does not enforce is not listed: Codex
marks a PreToolUse `ask` as a failed hook run and goes on, Cursor accepts `ask` on preToolUse
and does not enforce it), where a decision and its reason are written, the channel that puts
text in front of the model without replacing a tool's result, the channel that reaches the
user, and what stdout says when gridgit has nothing to say. Every answer gridgit gives is
written by gridgit.agents.answer from this table, and only into channels listed here.

The table is plain data (no typing, no dataclasses): the hooks' fast path reads it before
deciding whether to load anything else. Sources, cited in docs/agent-tools.md too:

- Claude Code: https://code.claude.com/docs/en/hooks ("PreToolUse decision control",
  "PostToolUse decision control": `additionalContext` "for Claude to consider", as for
  SessionStart and UserPromptSubmit; `systemMessage` is shown to the user; Stop `decision:
  "block"` with a `reason` keeps Claude going, and the next Stop's `stop_hook_active` says so).
- OpenAI Codex: https://developers.openai.com/codex/hooks and the output schemas in
  https://github.com/openai/codex/tree/main/codex-rs/hooks/schema/generated (PreToolUse:
  `permissionDecision: "ask"` is "parsed but not supported yet", so only deny is enforced and
  silence allows; PostToolUse `decision: "block"` replaces the tool result, `additionalContext`
  adds; Stop `decision: "block"` needs a non-empty `reason`, which Codex sends on as the next
  prompt, and its payload's `stop_hook_active` says a Stop hook kept the turn going already).
- Gemini CLI: https://geminicli.com/docs/hooks/reference (stdout must be JSON; BeforeTool
  `decision` is allow or deny, its `reason` goes to the agent; AfterTool and BeforeAgent
  `hookSpecificOutput.additionalContext` is appended; `systemMessage` is shown to the user;
  AfterAgent `decision: "deny"` rejects the response and "forces a retry" with `reason` "sent
  to the agent as a new prompt", and `stop_hook_active` says the hook runs in such a retry).
- Cursor: https://cursor.com/docs/hooks (preToolUse `permission` allow or deny, "ask is
  accepted by the schema but not enforced for preToolUse today"; `agent_message` and
  `user_message` are delivered only with a deny; postToolUse and sessionStart
  `additional_context` is added to the conversation; afterFileEdit carries nothing back; stop's
  `followup_message` is submitted as the next user message, its payload's `loop_count` counts
  the follow-ups hooks already sent, and the hook's `loop_limit` (default 5) caps them; no
  event runs before each prompt with a way to add context).
- GitHub Copilot CLI: https://docs.github.com/en/copilot/reference/hooks-reference (`.github/hooks/*.json`;
  preToolUse `permissionDecision` allow, deny or ask, with `permissionDecisionReason` "shown to
  the agent"; postToolUse `additionalContext` is "appended to textResultForLlm", `modifiedResult`
  replaces it; sessionStart `additionalContext` is injected into the session; the output of
  command userPromptSubmitted hooks is dropped; agentStop `decision: "block"` "forces another
  agent turn using `reason` as the prompt", `stop_hook_active` says this turn was forced already,
  and the CLI ends the turn anyway after 8 blocks in a row; no field reaches the user).
- OpenCode: https://opencode.ai/docs/plugins (a JS plugin, not commands: `tool.execute.before`
  blocks a tool by throwing, `tool.execute.after` can change the tool's `output`, `event` sees
  `session.created` and `session.idle`) and https://opencode.ai/docs/sdk (`session.prompt`, with
  `noReply` to add context without a turn). gridgit's plugin (gridgit.agents.opencode) sends each
  event's JSON to `gridgit agent-hook opencode EVENT` and applies the fields below: `reason`
  of a `deny` becomes the thrown error, `context` is appended to the tool's output (or, at
  session start, added with `noReply`), the `reason` of a `block` is sent as the next prompt,
  and the next `session.idle` of that session carries `stop_hook_active: true`.
"""

from __future__ import annotations

# gridgit's events, whatever the tool calls them.
EVENTS = ("session-start", "prompt", "before-edit", "after-edit", "end")
TOOLS = ("claude", "codex", "gemini", "cursor", "copilot", "opencode")


class Capability:
    """TOOL's NATIVE event (filtered by MATCHER) runs gridgit's EVENT; what it can say, and where.

    DECISIONS: the decisions the tool enforces there; at the end, the one that keeps the agent
    going. DECIDE: the JSON paths a decision is written to, the decision first (None where the
    tool reads the decision from the reason alone: Cursor's `followup_message`), then every
    field its reason goes to. MODEL: the channel that adds text to the model's context, None
    when none does. USER: the channel shown to the person, None when none is. SILENT: stdout
    with nothing to say. WOKEN: the payload field that says a stop hook kept the agent going
    already (true, or a count above 0), where the end event can keep it going.
    """

    __slots__ = ("decide", "decisions", "event", "matcher", "model", "native", "silent", "tool", "user", "woken")

    def __init__(
        self,
        tool: str,
        event: str,
        native: str,
        matcher: str | None = None,
        decisions: tuple[str, ...] = (),
        decide: tuple[str | None, ...] = (),
        model: str | None = None,
        user: str | None = None,
        silent: str = "",
        woken: str | None = None,
    ) -> None:
        self.tool = tool
        self.event = event
        self.native = native
        self.matcher = matcher
        self.decisions = decisions
        self.decide = decide
        self.model = model
        self.user = user
        self.silent = silent
        self.woken = woken

    @property
    def adds_context(self) -> bool:
        """Whether text reaches the model here without replacing anything (a tool's result included)."""
        return self.model is not None

    def __repr__(self) -> str:
        return f"Capability({self.tool} {self.event}: {self.native})"


_CLAUDE_EDITS = "Edit|Write|MultiEdit|NotebookEdit"
_PERMISSION = ("hookSpecificOutput.permissionDecision", "hookSpecificOutput.permissionDecisionReason")
_CONTEXT = "hookSpecificOutput.additionalContext"
_BLOCK = ("decision", "reason")
_ACTIVE = "stop_hook_active"
_COPILOT_EDITS = "create|edit"  # the file-writing tools its hooks reference names (matched as ^(?:...)$)
_OPENCODE_EDITS = "edit|write|apply_patch"  # its file-writing tools (https://opencode.ai/docs/tools)

TABLE = (
    Capability("claude", "session-start", "SessionStart", model=_CONTEXT, user="systemMessage"),
    Capability("claude", "prompt", "UserPromptSubmit", model=_CONTEXT, user="systemMessage"),
    Capability("claude", "before-edit", "PreToolUse", _CLAUDE_EDITS, ("allow", "deny", "ask"), _PERMISSION,
               _CONTEXT, "systemMessage"),
    Capability("claude", "after-edit", "PostToolUse", _CLAUDE_EDITS, model=_CONTEXT, user="systemMessage"),
    Capability("claude", "end", "Stop", decisions=("block",), decide=_BLOCK, user="systemMessage", woken=_ACTIVE),
    Capability("codex", "session-start", "SessionStart", model=_CONTEXT, user="systemMessage"),
    Capability("codex", "prompt", "UserPromptSubmit", model=_CONTEXT, user="systemMessage"),
    Capability("codex", "before-edit", "PreToolUse", "apply_patch", ("deny",), _PERMISSION, _CONTEXT,
               "systemMessage"),
    Capability("codex", "after-edit", "PostToolUse", "apply_patch", model=_CONTEXT, user="systemMessage"),
    Capability("codex", "end", "Stop", decisions=("block",), decide=_BLOCK, user="systemMessage", woken=_ACTIVE),
    Capability("gemini", "session-start", "SessionStart", model=_CONTEXT, user="systemMessage", silent="{}"),
    Capability("gemini", "prompt", "BeforeAgent", model=_CONTEXT, user="systemMessage", silent="{}"),
    Capability("gemini", "before-edit", "BeforeTool", "write_file|replace", ("allow", "deny"), ("decision", "reason"),
               user="systemMessage", silent="{}"),
    Capability("gemini", "after-edit", "AfterTool", "write_file|replace", model=_CONTEXT, user="systemMessage",
               silent="{}"),
    Capability("gemini", "end", "AfterAgent", decisions=("deny",), decide=_BLOCK, user="systemMessage", silent="{}",
               woken=_ACTIVE),
    Capability("cursor", "session-start", "sessionStart", model="additional_context", silent="{}"),
    Capability("cursor", "before-edit", "preToolUse", "Write", ("allow", "deny"),
               ("permission", "agent_message", "user_message"), silent='{"permission": "allow"}'),
    Capability("cursor", "after-edit", "postToolUse", "Write", model="additional_context", silent="{}"),
    Capability("cursor", "end", "stop", decisions=("followup",), decide=(None, "followup_message"), silent="{}",
               woken="loop_count"),
    Capability("copilot", "session-start", "sessionStart", model="additionalContext"),
    Capability("copilot", "before-edit", "preToolUse", _COPILOT_EDITS, ("allow", "deny", "ask"),
               ("permissionDecision", "permissionDecisionReason")),
    Capability("copilot", "after-edit", "postToolUse", _COPILOT_EDITS, model="additionalContext"),
    Capability("copilot", "end", "agentStop", decisions=("block",), decide=_BLOCK, woken=_ACTIVE),
    Capability("opencode", "session-start", "session.created", model="context"),
    Capability("opencode", "before-edit", "tool.execute.before", _OPENCODE_EDITS, ("deny",), _BLOCK),
    Capability("opencode", "after-edit", "tool.execute.after", _OPENCODE_EDITS, model="context"),
    Capability("opencode", "end", "session.idle", decisions=("block",), decide=_BLOCK, woken=_ACTIVE),
)  # fmt: skip

# Where each tool's payload names its session, and a sub-agent inside it (a session of its own):
# Claude Code and Codex put `agent_id` and `agent_type` in a sub-agent's payloads.
SESSION_KEYS = {"claude": ("session_id",), "codex": ("session_id",), "gemini": ("session_id",),
                "cursor": ("conversation_id", "session_id"), "copilot": ("sessionId",),
                "opencode": ("session_id",)}  # fmt: skip
SUBAGENT_KEYS = {"claude": ("agent_id", "agent_type"), "codex": ("agent_id", "agent_type")}
DOCS = {
    "claude": ("https://code.claude.com/docs/en/hooks", "https://code.claude.com/docs/en/statusline"),
    "codex": ("https://developers.openai.com/codex/hooks",),
    "gemini": ("https://geminicli.com/docs/hooks/reference",),
    "cursor": ("https://cursor.com/docs/hooks",),
    "copilot": ("https://docs.github.com/en/copilot/reference/hooks-reference",),
    "opencode": ("https://opencode.ai/docs/plugins", "https://opencode.ai/docs/sdk", "https://opencode.ai/docs/tools"),
}


def get(tool: str, event: str) -> Capability | None:
    """TOOL's entry for gridgit's EVENT, or None when no event of the tool runs it."""
    for entry in TABLE:
        if entry.tool == tool and entry.event == event:
            return entry
    return None


def of(tool: str) -> tuple[Capability, ...]:
    """Every entry of TOOL, in the table's order."""
    return tuple(entry for entry in TABLE if entry.tool == tool)
