"""Running agent-tool hooks as the tools do: the command `gridgit setup` wrote, a fixture payload on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import Repo

FIXTURES = Path(__file__).parent.parent / "fixtures" / "agents"
BIN_ON_PATH = str(Path(sys.executable).parent)  # where gridgit is installed: never in a config setup writes
TOOLS = ("claude", "codex", "gemini", "cursor", "copilot", "opencode")
JSON_TOOLS = TOOLS[:-1]  # the tools whose hooks are in a JSON config (OpenCode's are a plugin gridgit writes)
CONFIG = {
    "claude": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
    "copilot": ".github/hooks/gridgit.json",
    "opencode": ".opencode/plugins/gridgit.js",
}
# gridgit's event -> the tool's own event name in its config
NATIVE = {
    "claude": {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "before-edit": "PreToolUse",
               "after-edit": "PostToolUse", "end": "Stop"},
    "codex": {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "before-edit": "PreToolUse",
              "after-edit": "PostToolUse", "end": "Stop"},
    "gemini": {"session-start": "SessionStart", "prompt": "BeforeAgent", "before-edit": "BeforeTool",
               "after-edit": "AfterTool", "end": "AfterAgent"},
    "cursor": {"session-start": "sessionStart", "before-edit": "preToolUse", "after-edit": "postToolUse",
               "end": "stop"},
    "copilot": {"session-start": "sessionStart", "before-edit": "preToolUse", "after-edit": "postToolUse",
                "end": "agentStop"},
    "opencode": {"session-start": "session.created", "before-edit": "tool.execute.before",
                 "after-edit": "tool.execute.after", "end": "session.idle"},
}  # fmt: skip


def payload(tool: str, event: str, **values: str) -> str:
    """The documented payload of TOOL's EVENT with {session}, {cwd}, {file}, {rel} filled in."""
    text = (FIXTURES / tool / f"{event}.json").read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{" + key + "}", json.dumps(value)[1:-1])
    json.loads(text)  # still JSON
    return text


def command(root: Path, tool: str, event: str) -> str:
    """The command TOOL's config (as `gridgit setup` wrote it) runs for gridgit's EVENT."""
    text = (root / CONFIG[tool]).read_text(encoding="utf-8")
    if tool == "opencode":  # the plugin keeps its commands on one line: `const HOOKS = {...}`
        line = next(line for line in text.splitlines() if line.startswith("const HOOKS = "))
        return str(json.loads(line[len("const HOOKS = ") :])[NATIVE[tool][event]]["command"])
    config = json.loads(text)
    for entry in config["hooks"][NATIVE[tool][event]]:
        for hook in entry.get("hooks", [entry]):
            line = hook.get("bash", hook.get("command"))  # Copilot CLI's is `bash`
            if f"agent-hook {tool} {event}" in line:
                return str(line)
    raise AssertionError(f"no gridgit hook for {tool} {event}")


def run(cmd: str, stdin: str | bytes, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run CMD through the shell with STDIN, as an agent tool runs a hook (gridgit on PATH: tests/conftest.py)."""
    full = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(["sh", "-c", cmd], input=data, cwd=cwd, capture_output=True, env={**full, **(env or {})})
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def hook(repo: Repo, tool: str, event: str, cwd: Path, session: str, file: str = "", **env: str) -> Any:
    """Run TOOL's EVENT hook from REPO's config in CWD; returns the completed process."""
    rel = os.path.relpath(file, cwd) if file else ""
    text = payload(tool, event, session=session, cwd=str(cwd), file=file, rel=rel)
    return run(command(repo.path, tool, event), text, cwd, env)


SCHEMAS = {tool: json.loads((FIXTURES / "schemas" / f"{tool}.json").read_text(encoding="utf-8")) for tool in TOOLS}


def answer(tool: str, event: str, out: str) -> dict[str, Any]:
    """TOOL's answer to gridgit's EVENT on stdout, checked against the tool's documented output schema."""
    import jsonschema

    schema = SCHEMAS[tool]
    if not out.strip():
        assert not schema["json_only"], f"{tool} reads JSON only: an empty stdout is an error there"
        return {}
    data = json.loads(out)
    jsonschema.validate(data, schema["events"][NATIVE[tool][event]])
    assert isinstance(data, dict)
    return data


def context(tool: str, data: dict[str, Any]) -> str:
    """The text an answer adds to the model's context (without replacing anything)."""
    if tool == "cursor":
        return str(data.get("additional_context", ""))
    if tool == "copilot":
        return str(data.get("additionalContext", ""))
    if tool == "opencode":
        return str(data.get("context", ""))
    return str(data.get("hookSpecificOutput", {}).get("additionalContext", ""))
