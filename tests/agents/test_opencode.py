"""OpenCode: the plugin `gridgit setup opencode` wrote, run by node the way OpenCode runs a plugin
(https://opencode.ai/docs/plugins): its hooks get OpenCode's documented inputs (`tool.execute.before` and
`.after` with `{tool, sessionID, callID}` and the tool's `args` / `output`; `session.created` and
`session.idle` events), call the real gridgit, and apply its answers through the documented ways: a thrown
error refuses a tool, text appended to the tool's output, `client.session.prompt` (https://opencode.ai/docs/sdk)
to add context without a reply or to send the next prompt. The command side, with the JSON the plugin sends,
runs in the tests every tool shares (test_hooks, test_grid_edits, test_mid_turn)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import CONFIG, FIXTURES
from tests.conftest import Repo

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node runs the plugin as OpenCode's Bun would")
DRIVE = FIXTURES / "opencode" / "drive.mjs"
ME = "executor-007"


def drive(repo: Repo, steps: list[dict[str, Any]], **env: str) -> list[dict[str, Any]]:
    """Each step through the plugin's hooks in one node process (one OpenCode run); what each hook did."""
    assert NODE is not None
    full = {**{k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}, "GRID_AGENT_ID": ME, **env}
    done = subprocess.run(
        [NODE, str(DRIVE), str(repo.path / CONFIG["opencode"]), str(repo.path)],
        input=json.dumps(steps), capture_output=True, text=True, cwd=repo.path, env=full, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["exports"] == ["GridgitPlugin"]
    return list(result["steps"])


def edit(hook: str, call: str, args: dict[str, Any], tool: str = "edit", session: str = "ses_a") -> dict[str, Any]:
    """A `tool.execute.before` or `.after` step, with OpenCode's input and output shapes."""
    if hook == "tool.execute.before":
        return {"hook": hook, "input": {"tool": tool, "sessionID": session, "callID": call}, "output": {"args": args}}
    output = {"title": args.get("filePath", ""), "output": "Edit applied successfully.", "metadata": {}}
    return {"hook": hook, "input": {"tool": tool, "sessionID": session, "callID": call}, "output": output}


def idle(session: str = "ses_a") -> dict[str, Any]:
    return {"event": {"type": "session.idle", "properties": {"sessionID": session}}}


def prompts(step: dict[str, Any]) -> list[dict[str, Any]]:
    return [call["prompt"] for call in step["calls"] if "prompt" in call]


def test_a_session_through_the_plugin(repo: Repo) -> None:
    repo.gridgit("setup", "opencode")
    app = repo.write("src/app.py", "a = 1\n")
    repo.gridgit("touch", "src/app.py", agent="executor-002")  # another agent changed it a moment ago
    created = {"event": {"type": "session.created", "properties": {"info": {"id": "ses_a", "title": "parser"}}}}
    args = {"filePath": str(app), "oldString": "a = 1", "newString": "a = 2"}
    start, before, after, read = drive(repo, [
        created,
        edit("tool.execute.before", "call_1", args),
        edit("tool.execute.after", "call_1", args),  # its input has no args: the plugin kept them from before
        edit("tool.execute.before", "call_2", {"filePath": str(app)}, tool="read"),
    ])  # fmt: skip

    (pack,) = prompts(start)  # the context pack, added to the session without a reply
    assert pack["path"] == {"id": "ses_a"} and pack["body"]["noReply"] is True
    assert f"you are {ME}" in pack["body"]["parts"][0]["text"] and "# Context for" in pack["body"]["parts"][0]["text"]
    assert before["threw"] is None and before["calls"] == []
    event = repo.events("file_modified")[-1]["payload"]
    assert [event[k] for k in ("path", "agent", "tool", "session_id")] == ["src/app.py", ME, "opencode", "ses_a"]
    told = after["output"]["output"]  # the tool's own output first, the conflict after it
    assert told.startswith("Edit applied successfully.\n\ngridgit: ") and "write conflict on src/app.py" in told
    assert "executor-002" in told and "gridgit conflicts resolve src/app.py" in told
    assert read == {"threw": None, "output": {"args": {"filePath": str(app)}}, "calls": []}  # not an edit

    # the other agent claims the file and writes to this one: the edit is refused with the claim's reason,
    # a patch's files are recorded, the news rides on its output, and the agent is kept going at idle
    repo.gridgit("claim", "src/app.py", "--reason", "moving it", agent="executor-002")
    sent = repo.gridgit_json("send", "--to", ME, "--content", "Hold off src/app.py", agent="executor-002")
    patch = {"patchText": "*** Begin Patch\n*** Add File: src/new.py\n+b = 1\n*** End Patch\n"}
    after_patch = edit("tool.execute.after", "call_4", patch, tool="apply_patch")
    after_patch["input"]["args"] = patch
    refused, patched, first, woken, second, third = drive(repo, [
        edit("tool.execute.before", "call_3", args),
        after_patch,
        idle(), idle(), idle(), idle(),
    ])  # fmt: skip
    assert refused["threw"].startswith("src/app.py is claimed by executor-002") and "moving it" in refused["threw"]
    assert "gridgit release src/app.py --agent executor-002" in refused["threw"]
    assert repo.events("file_modified")[-1]["payload"]["path"] == "src/new.py"
    news = patched["output"]["output"]
    assert news.startswith("Edit applied successfully.\n\ngridgit: new for") and sent["id"] in news
    (wake,) = prompts(first)  # the next prompt, which runs a turn (no noReply)
    assert wake["path"] == {"id": "ses_a"} and "noReply" not in wake["body"]
    assert sent["id"] in wake["body"]["parts"][0]["text"] and "gridgit ack" in wake["body"]["parts"][0]["text"]
    assert prompts(woken) == []  # the idle after the turn it forced: stop_hook_active, never a loop
    assert len(prompts(second)) == 1 and prompts(third) == []  # messages.stop_asks (2) per session


def test_without_gridgit_the_plugin_does_nothing_and_says_so_in_opencodes_log(repo: Repo) -> None:
    repo.gridgit("setup", "opencode")
    state = {"filePath": str(repo.grid / "STATE.md"), "oldString": "a", "newString": "b"}
    before = repo.snapshot()
    (step,) = drive(repo, [edit("tool.execute.before", "call_1", state)], PATH="/usr/bin:/bin")
    assert step["threw"] is None  # an edit gridgit would refuse goes ahead: the hooks fail open
    (log,) = [call["log"] for call in step["calls"]]
    assert log["service"] == "gridgit" and log["level"] == "warn" and "pip install gridgit" in log["message"]
    assert repo.snapshot() == before


def test_setup_writes_a_plugin_of_its_own_and_leaves_a_users_file_alone(bare_repo: Repo) -> None:
    path = bare_repo.path / CONFIG["opencode"]
    assert bare_repo.gridgit("setup", "opencode", "--check", check=False).returncode == 1
    bare_repo.gridgit("setup", "opencode")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("// gridgit: ") and str(Path.home()) not in text and "const HOOKS = {" in text
    assert bare_repo.gridgit_json("setup", "opencode")["changed"] is False  # twice is once
    assert bare_repo.gridgit("setup", "opencode", "--check").returncode == 0
    path.write_text(text.replace("TIMEOUT_MS = 15000", "TIMEOUT_MS = 9000"), encoding="utf-8")  # another version's
    check = bare_repo.gridgit("setup", "opencode", "--check", "--json", check=False)
    assert check.returncode == 1 and json.loads(check.stdout)["data"]["outdated"] == ["gridgit.js"]
    assert bare_repo.gridgit_json("setup", "opencode")["changed"] and path.read_text(encoding="utf-8") == text

    mine = "export const Mine = async () => ({})\n"
    path.write_text(mine, encoding="utf-8")  # a plugin of the user's at gridgit's path: never written over
    refused = bare_repo.gridgit("setup", "opencode", check=False)
    assert refused.returncode == 1 and str(path) in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert bare_repo.gridgit("setup", "opencode", "--remove").returncode == 0
    assert path.read_text(encoding="utf-8") == mine
    mcp = bare_repo.gridgit("setup", "opencode", "--mcp", check=False)
    assert mcp.returncode == 1 and "--mcp" in mcp.stderr and path.read_text(encoding="utf-8") == mine


def test_opencode_run_waits_for_the_reason_sent_at_idle(repo: Repo) -> None:
    """`opencode run` exits once its session is idle (issue 34, finding 4): OpenCode awaits the plugin's
    `dispose` as it shuts down, which waits for the turn the end hook's reason started."""
    repo.gridgit("setup", "opencode")
    created = {"event": {"type": "session.created", "properties": {"info": {"id": "ses_a", "title": "t"}}}}
    drive(repo, [created])
    sent = repo.gridgit_json("send", "--to", ME, "--content", "Review the parser first", agent="executor-002")
    woke, stopped = drive(repo, [idle(), {"dispose": True}])
    (wake,) = prompts(woke)
    assert sent["id"] in wake["body"]["parts"][0]["text"]
    assert {"turn_done": "ses_a"} not in woke["calls"]  # the idle hook did not wait for the turn
    assert {"turn_done": "ses_a"} in stopped["calls"]  # shutting down did


def test_the_first_message_waits_for_the_context_pack(repo: Repo) -> None:
    """`opencode run` sends its prompt as soon as the session exists: its first message waits (chat.message,
    which OpenCode awaits) until the pack is in the session, so the first turn has it."""
    repo.gridgit("setup", "opencode")
    created = {"start": True, "event": {"type": "session.created", "properties": {"info": {"id": "ses_b"}}}}
    message = {"hook": "chat.message", "input": {"sessionID": "ses_b"}, "output": {"message": {}, "parts": []}}
    _, first = drive(repo, [created, message])
    assert first["threw"] is None
    (pack,) = prompts(first)  # delivered while the message waited
    assert pack["body"]["noReply"] is True and f"you are {ME}" in pack["body"]["parts"][0]["text"]


def test_a_file_the_write_tool_made_is_created(repo: Repo) -> None:
    """The write tool's metadata says whether the file `exists`ed before it wrote: the plugin passes it on."""
    repo.gridgit("setup", "opencode")
    new = repo.write("src/new.py", "b = 1\n")
    step = edit("tool.execute.after", "call_9", {"filePath": str(new), "content": "b = 1\n"}, tool="write")
    step["input"]["args"] = {"filePath": str(new), "content": "b = 1\n"}
    step["output"]["metadata"] = {"exists": False, "filepath": str(new), "diagnostics": {}}
    drive(repo, [step])
    assert repo.events("file_modified")[-1]["payload"]["operation"] == "created"
