"""Messages between agents through the real CLI: send, ack, thread, the inbox until acked, and every bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridgit import Blackboard
from gridgit.coordination import mailbox
from gridgit.history.grid_merge import merge_grid
from gridgit.store.layout import Layout
from gridgit.validation import rules
from tests.conftest import Repo

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def files(repo: Repo) -> dict[str, str]:
    """The message files of REPO's mailbox by their path inside .grid/ (lock files aside)."""
    return {
        p.relative_to(repo.grid).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((repo.grid / "messages").rglob("*.md"))
    }


def test_a_message_is_sent_held_in_the_inbox_until_acked_and_read_in_its_thread(repo: Repo) -> None:
    repo.gridgit("agent", "register", "executor-002", "--block", "01-02", agent="executor-002")
    proc = repo.gridgit(
        "send", "--to", "executor-002", "--content", "-", "--json", agent="executor-001",
        input="Don't touch the schema\nuntil I push.\n",
    )  # fmt: skip
    sent = json.loads(proc.stdout)["data"]
    assert sent["from"] == "executor-001" and sent["to"] == "executor-002" and sent["held"] is False
    assert (
        sent["thread"] == sent["id"]
        and sent["acks"] == {}
        and sent["content"] == "Don't touch the schema\nuntil I push."
    )
    ((path, text),) = files(repo).items()
    assert path == f"messages/executor-002/{sent['id']}.md"
    event = repo.events("message_sent")[-1]["payload"]
    assert (event["message_id"], event["agent"], event["to"]) == (sent["id"], "executor-001", "executor-002")
    assert mailbox.parse(text, path).content == sent["content"]

    # In the inbox on every look (peeked or not) until acknowledged; the other events once.
    for _ in range(2):
        (item,) = repo.gridgit_json("inbox", agent="executor-002")
        assert item["type"] == "message" and sent["id"] in item["summary"] and "from executor-001" in item["summary"]
        assert f"gridgit ack {sent['id']}" in item["summary"]
    answer = repo.gridgit_json(
        "send", "--to", "executor-001", "--thread", sent["id"], "--content", "OK, waiting", agent="executor-002"
    )
    assert answer["thread"] == sent["id"]
    acked = repo.gridgit_json("ack", sent["id"].lower(), agent="executor-002")  # ids are case-insensitive
    assert acked["already"] is False and list(acked["acks"]) == ["executor-002"]
    assert repo.gridgit_json("inbox", agent="executor-002") == []
    again = repo.gridgit("ack", sent["id"], agent="executor-002")
    assert again.stdout.strip() == f"{sent['id']} was already acknowledged by executor-002"
    assert [e["payload"]["message_id"] for e in repo.events("message_acked")] == [sent["id"]]

    # The thread, by any of its messages or as JSON; executor-001 still has the answer to read.
    shown = repo.gridgit("thread", answer["id"]).stdout
    assert shown.index(sent["id"]) < shown.index(answer["id"]) and "acks: executor-002 " in shown
    assert [m["id"] for m in repo.gridgit_json("thread", sent["id"])] == [sent["id"], answer["id"]]
    named = repo.gridgit_json("send", "--to", "01-02", "--thread", "schema", "--content", "v2?", agent="mc")
    assert named["thread"] == "schema" and repo.gridgit_json("thread", "schema")[0]["id"] == named["id"]
    assert [i["type"] for i in repo.gridgit_json("inbox", agent="executor-002")] == ["message"]  # to its block
    assert "OK, waiting" in repo.gridgit("inbox", agent="executor-001").stdout
    assert rules.validate_text(path, text) == []


def test_broadcasts_blocks_and_unknown_agents(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.register_agent("executor-002", block="01-02", agent="executor-002")
    board.register_agent("executor-003", block="01-03", agent="executor-003")
    to_all = board.send("@ALL", "Freeze main at 17:00", agent="mc")
    to_block = board.send("01-03", "Your block owns the schema", agent="executor-002")
    held = board.send("executor-009", "Start with the parser", agent="mc")
    assert (to_all.message.to, to_all.held, to_block.held, held.held) == ("@all", False, False, True)
    assert {p.split("/")[1] for p in files(repo)} == {"@all", "@01-03", "executor-009"}

    def waiting(agent: str) -> list[str]:
        return [m.id for m in board.messages(agent)]

    assert waiting("executor-002") == [to_all.message.id]  # not its own block message
    assert waiting("executor-003") == [to_all.message.id, to_block.message.id]
    assert waiting("mc") == []  # its own broadcast is not for it
    board.ack(to_all.message.id, agent="executor-003")
    assert waiting("executor-003") == [to_block.message.id] and waiting("executor-002") == [to_all.message.id]

    # Held: the agent that registers later (here or in a clone that syncs) finds it.
    assert waiting("executor-009") == [to_all.message.id, held.message.id]
    board.register_agent("executor-009", agent="executor-009")
    assert [i.type for i in board.inbox(agent="executor-009")] == ["message", "message"]
    assert (
        "held: no registered agent is executor-010 yet"
        in repo.gridgit("send", "--to", "executor-010", "--content", "x", agent="mc").stdout
    )


@pytest.mark.parametrize(
    ("args", "stdin", "agent", "code", "said"),
    [
        (["send", "--to", "@all", "--content", "all hands"], None, "scout-001", 4, "scouts may message an agent"),
        (["send", "--to", "executor-002", "--content", "-"], "x" * (10 * 1024 * 1024), "executor-001", 1, "limit"),
        (["send", "--to", "executor-002", "--content", "  "], None, "executor-001", 1, "the message is empty"),
        (["send", "--to", "executor-001", "--content", "me"], None, "executor-001", 1, "to itself"),
        (["send", "--to", "bogus-1", "--content", "x"], None, "executor-001", 1, "expected an agent id"),
        (["send", "--to", "../etc", "--content", "x"], None, "executor-001", 1, "expected an agent id"),
        (["send", "--to", "executor-002", "--content", "x"], None, "nobody", 1, "invalid agent id"),
        (["send", "--to", "executor-002", "--thread", "a b", "--content", "x"], None, "mc", 1, "--thread"),
        (["send", "--to", "executor-002", "--thread", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--content", "x"], None, "mc", 7,
         "no message"),
        (["ack", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], None, "executor-002", 7, "no message"),
        (["ack", "../../STATE"], None, "executor-002", 1, "invalid message id"),
        (["thread", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], None, None, 7, "no message"),
        (["thread", "never-used"], None, None, 7, "no thread"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_with_its_exit_code_and_changes_nothing(
    repo: Repo, args: list[str], stdin: str | None, agent: str | None, code: int, said: str
) -> None:
    Blackboard(repo.path).send("executor-002", "a message that stays as it is", agent="mc")
    before = repo.snapshot()
    result = repo.gridgit(*args, agent=agent, input=stdin, check=False)
    assert result.returncode == code, result.stderr
    assert said in result.stderr and len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("setting", "said"),
    [
        ({"sync": {"auto_seconds": 0}}, "sync.auto_seconds must be 1 or more"),
        ({"sync": {"auto": "yes"}}, "sync.auto must be true or false"),
        ({"messages": {"stop_asks": -1}}, "messages.stop_asks must be 0 (never) or more"),
    ],
)
def test_a_bad_setting_stops_send_and_ack_before_anything_is_written(
    repo: Repo, setting: dict[str, object], said: str
) -> None:
    sent = Blackboard(repo.path).send("executor-002", "acked once the config is fixed", agent="mc")
    (repo.grid / "config.json").write_text(json.dumps(setting), encoding="utf-8")
    before = repo.snapshot()
    for args, agent in (
        (["send", "--to", "mc", "--content", "x"], "executor-002"),
        (["ack", sent.message.id], "executor-002"),
    ):
        result = repo.gridgit(*args, agent=agent, check=False)
        assert result.returncode == 1 and said in result.stderr and len(result.stderr.splitlines()) == 1
    assert repo.snapshot() == before


def test_acking_someone_elses_message_is_refused_and_changes_nothing(repo: Repo) -> None:
    sent = Blackboard(repo.path).send("executor-002", "only for 002", agent="executor-001")
    before = repo.snapshot()
    for agent in ("executor-003", "executor-001", "scout-001"):  # another agent, the sender itself, a scout
        result = repo.gridgit("ack", sent.message.id, "--json", agent=agent, check=False)
        assert result.returncode == 4
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "permission_denied" and "only an addressee acknowledges it" in error["message"]
    assert repo.snapshot() == before
    assert Blackboard(repo.path).ack(sent.message.id, agent="executor-002").already is False


def test_control_characters_and_secrets_never_reach_the_file(repo: Repo) -> None:
    text = f"token {SECRET}\x1b[31m red\x00 \x07bell\nsecond line"
    sent = Blackboard(repo.path).send("scout-001", text, agent="executor-001")  # a scout may be messaged
    stored = mailbox.load(repo.grid / "messages" / "scout-001" / f"{sent.message.id}.md")
    assert SECRET not in stored.content and "[REDACTED" in stored.content
    assert stored.content.endswith(" red bell\nsecond line") and "\x1b" not in stored.content
    assert SECRET not in json.dumps(repo.events("message_sent"))
    assert Blackboard(repo.path).ack(sent.message.id, agent="scout-001").already is False  # a scout may ack its own


def test_two_clones_acks_merge_and_a_broken_message_file_is_reported(repo: Repo) -> None:
    board = Blackboard(repo.path)
    sent = board.send("@all", "Standup in 5", agent="mc")
    path = f"messages/@all/{sent.message.id}.md"
    base = (repo.grid / path).read_bytes()
    board.ack(sent.message.id, agent="executor-001")
    ours = (repo.grid / path).read_bytes()
    theirs = base.replace(b"acks: {}", b"acks:\n  executor-002: '2026-01-01T00:00:00Z'")
    for a, b in ((ours, theirs), (theirs, ours)):  # whichever side is ours
        merged = merge_grid({path: base}, {path: a}, {path: b})
        assert merged.conflicts == []
        assert mailbox.parse(merged.files[path].decode(), path).acks.keys() == {"executor-001", "executor-002"}

    bad = repo.grid / "messages" / "executor-002" / "01ARZ3NDEKTSV4RRFFQ69G5FAV.md"
    bad.parent.mkdir()
    bad.write_text(base.decode().replace("to: '@all'", "to: executor-002"), encoding="utf-8")  # the id of another
    result = repo.gridgit("validate", check=False)
    assert result.returncode == 1 and f"message {sent.message.id} is in a file named" in result.stdout
    assert [m.id for m in board.messages("executor-003")] == [sent.message.id]  # the others are still read


def test_messages_in_the_context_pack(repo: Repo) -> None:
    board = Blackboard(repo.path)
    sent = board.send("executor-002", "Rebase on main before you push", agent="executor-001")
    pack = board.context("executor-002").render()
    assert "## Messages to you" in pack and sent.message.id in pack and "Rebase on main" in pack
    board.ack(sent.message.id, agent="executor-002")
    assert "## Messages to you" not in board.context("executor-002").render()


def test_the_urgent_fetch_tells_each_item_once_and_holds_the_rest_for_the_next_look(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.register_agent("executor-002", agent="executor-002")
    board.subscribe(["auth"], "LOW", agent="executor-002")
    board.touch("src/a.py", agent="executor-002")
    sent = board.send("executor-002", "stop touching src/a.py", agent="executor-001")
    board.write("discovery", "auth", "Found: f\nImpact: i\nEvidence: e", agent="executor-001")  # not urgent
    board.claim(["src/a.py"], agent="executor-001", reason="mine now")
    board.touch("src/a.py", agent="executor-001")  # another's write conflict with executor-002

    from gridgit.agents import inboxpeek
    from gridgit.coordination import inbox

    layout = Layout.find(repo.path)
    urgent = inbox.fetch(layout, "executor-002", urgent=True)
    assert [i.type for i in urgent] == ["message", "claim", "conflict"]
    assert inbox.fetch(layout, "executor-002", urgent=True) == []  # told once
    # The hooks' look from the files alone agrees: nothing urgent is left, though the entry waits.
    assert inboxpeek.inbox_quiet(str(layout.grid), "executor-002", urgent=True)
    assert not inboxpeek.inbox_quiet(str(layout.grid), "executor-002")
    later = inbox.fetch(layout, "executor-002")  # the prompt: the message until acked, and what was held
    assert [i.type for i in later] == ["message", "entry"] and later[1].entry is not None
    assert [i.type for i in inbox.fetch(layout, "executor-002")] == ["message"]
    board.ack(sent.message.id, agent="executor-002")
    assert inbox.fetch(layout, "executor-002") == []
    cursor = json.loads(Path(inbox.cursor_path(layout, "executor-002")).read_text())
    assert "held" not in cursor and "told" not in cursor  # nothing left to remember
