"""budget.json: usage reported by hand and at once by real processes, priced, limited, merged across clones."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gridgit.errors import BadInput
from gridgit.history.work_merge import merge_budget
from gridgit.work import budget
from tests.conftest import Repo


def report(repo: Repo) -> Any:
    return repo.gridgit_json("budget")


def test_usage_by_agent_phase_and_model_priced_from_config(repo: Repo) -> None:
    repo.gridgit("budget", "add", "--tokens-in", "1000000", "--tokens-out", "100000", "--model",
                 "claude-sonnet-4-5-20250929", agent="executor-001")  # fmt: skip
    repo.gridgit("budget", "add", "--tokens-in", "10", "--tokens-out", "5", "--cost", "0.5", "--model", "gpt-x",
                 "--session", "s-2", agent="recognizer-001")  # fmt: skip
    data = report(repo)
    assert data["by_model"]["claude-sonnet-4-5-20250929"]["cost_usd"] == 4.5  # $3/M in + $15/M out
    assert data["total"]["cost_usd"] == 5.0 and data["total"]["messages"] == 2
    assert set(data["by_agent"]) == {"executor-001", "recognizer-001"}
    assert set(data["by_phase"]) == {"01-foundation"}
    assert data["unpriced_models"] == ["gpt-x"] and data["limit_usd"] == 0 and data["warning"] is None
    stored = json.loads((repo.grid / "budget.json").read_text())
    assert set(stored["usage"]) == {"executor-001|manual|01-foundation|claude-sonnet-4-5-20250929",
                                    "recognizer-001|s-2|01-foundation|gpt-x"}  # fmt: skip
    state = repo.gridgit_json("state", "show")
    assert state["budget"]["total_cost_usd"] == 5.0 and state["budget"]["session_cost_usd"] == 5.0
    assert "Cost: $5.0000, 2 messages" in repo.gridgit("status").stdout
    assert [e["payload"]["cost_usd"] for e in repo.events("budget_added")] == [4.5, 0.5]
    assert repo.gridgit("validate").returncode == 0


def test_bad_counts_and_names_are_refused(repo: Repo) -> None:
    before = repo.snapshot()
    # Numbers out of their range are usage errors (exit 2, docs/cli.md); names and phases 1 and 7.
    cases = [
        (["--tokens-in", "-5", "--tokens-out", "1"], 2, "'--tokens-in': -5 is not in the range"),
        (["--tokens-in", "1", "--tokens-out", "5000000000"], 2, "'--tokens-out': 5000000000 is not in the range"),
        (["--tokens-in", "1", "--tokens-out", "1", "--cache-read", "-1"], 2, "'--cache-read': -1 is not in the range"),
        (["--tokens-in", "1", "--tokens-out", "1", "--cost", "-0.01"], 2, "'--cost': -0.01 is not in the range"),
        (["--tokens-in", "1", "--tokens-out", "1", "--cost", "nan"], 2, "'--cost': 'nan' is not a finite number"),
        (["--tokens-in", "1", "--tokens-out", "1", "--cost", "1e9"], 2, "'--cost': 1000000000.0 is not in the range"),
        (["--tokens-in", "1", "--tokens-out", "1", "--model", "a b"], 1, "invalid model"),
        (["--tokens-in", "1", "--tokens-out", "1", "--session", "../x"], 1, "invalid session"),
        (["--tokens-in", "1", "--tokens-out", "1", "--phase", "09-none"], 7, "no phase 09-none"),
    ]
    for args, code, said in cases:
        result = repo.gridgit("budget", "add", *args, agent="executor-001", check=False)
        assert result.returncode == code and said in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert repo.snapshot() == before


def test_two_agents_adding_at_once_lose_nothing(repo: Repo) -> None:
    """Real processes: 2 agents × 6 reports at once; every token is in budget.json and STATE's total."""
    commands = [["budget", "add", "--tokens-in", "1000", "--tokens-out", "100", "--cost", "0.25", "--agent", agent]
                for agent in ("executor-001", "executor-002") for _ in range(6)]  # fmt: skip
    assert {r.returncode for r in repo.gridgit_at_once(commands)} == {0}
    data = report(repo)
    assert data["total"]["tokens_in"] == 12_000 and data["total"]["messages"] == 12
    assert data["total"]["cost_usd"] == 3.0
    assert {a: row["messages"] for a, row in data["by_agent"].items()} == {"executor-001": 6, "executor-002": 6}
    assert repo.gridgit_json("state", "show")["budget"]["total_cost_usd"] == 3.0


def test_the_mission_limit_warns_at_80_percent_and_tells_every_agent_at_100(repo: Repo) -> None:
    config = json.loads((repo.grid / "config.json").read_text())
    config["budget"] = {"mission_limit_usd": 10}
    (repo.grid / "config.json").write_text(json.dumps(config))
    for agent in ("executor-001", "executor-002"):
        repo.gridgit("agent", "register", agent, agent=agent)  # their inboxes open now
    repo.gridgit("budget", "add", "--tokens-in", "1", "--tokens-out", "1", "--cost", "8.5", agent="executor-001")
    assert "WARNING: mission budget near: $8.50 of $10.00 (85%)" in repo.gridgit("status").stdout
    assert repo.gridgit_json("status")["budget"]["percent"] == 85.0
    assert repo.events("budget_limit_reached") == []
    repo.gridgit("budget", "add", "--tokens-in", "1", "--tokens-out", "1", "--cost", "2", agent="executor-001")
    repo.gridgit("budget", "add", "--tokens-in", "1", "--tokens-out", "1", "--cost", "1", agent="executor-001")
    (reached,) = repo.events("budget_limit_reached")  # once, when the total crossed the limit
    assert reached["payload"]["limit_usd"] == 10 and reached["payload"]["total_usd"] == 10.5
    for agent in ("executor-001", "executor-002"):  # the one whose report crossed it hears too
        told = [i["summary"] for i in repo.gridgit_json("inbox", agent=agent) if i["type"] == "budget"]
        assert told == ["the mission reached its budget: $10.50 of $10.00 (config.json budget.mission_limit_usd): "
                        "finish what you are doing and report"], agent  # fmt: skip
    assert "mission budget reached: $11.50 of $10.00 (115%)" in repo.gridgit("budget").stdout


def test_prices_in_config_are_checked(repo: Repo) -> None:
    config = json.loads((repo.grid / "config.json").read_text())
    config["budget"] = {"prices": {"my-model": {"input": -1, "outputs": 2}}, "mission_limit_usd": -3}
    (repo.grid / "config.json").write_text(json.dumps(config))
    problems = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]["problems"]
    messages = {p["message"] for p in problems}
    assert "budget.prices.my-model.input must be a price of 0 or more, got -1" in messages
    assert any(m.startswith("budget.prices.my-model.outputs is not a setting gridgit knows") for m in messages)
    assert "budget.mission_limit_usd must be 0 (no limit) or more, got -3" in messages
    refused = repo.gridgit("budget", "add", "--tokens-in", "1", "--tokens-out", "1", agent="executor-001", check=False)
    assert refused.returncode == 1 and "config.json" in refused.stderr


def _file(usage: dict[str, dict[str, Any]], offset: int = 0) -> str:
    data = budget.empty()
    data["usage"] = usage
    if offset:
        data["transcripts"] = {"s1": {"agent": "executor-001", "offset": offset, "tail": {}}}
    return budget.render(data)


def _bucket(tokens: int, cost: float) -> dict[str, Any]:
    return {"agent": "executor-001", "session": "s1", "phase": "01-foundation", "model": "m", "tokens_in": tokens,
            "tokens_out": 0, "cache_read": 0, "cache_write": 0, "messages": tokens // 100, "cost_usd": cost}  # fmt: skip


def test_clones_merge_budget_json_by_adding_what_each_side_added() -> None:
    base = _file({"a|s|p|m": _bucket(100, 0.1)})
    ours = _file({"a|s|p|m": _bucket(300, 0.3), "b|s|p|m": _bucket(100, 1.0)}, offset=50)
    theirs = _file({"a|s|p|m": _bucket(600, 0.6)}, offset=20)
    merged = json.loads(merge_budget(base, ours, theirs, "budget.json"))
    assert merged["usage"]["a|s|p|m"]["tokens_in"] == 800 and merged["usage"]["a|s|p|m"]["cost_usd"] == 0.8
    assert merged["usage"]["b|s|p|m"]["tokens_in"] == 100
    assert merged["transcripts"]["s1"]["offset"] == 50  # the furthest count of one transcript
    assert merge_budget(base, theirs, ours, "budget.json") == merge_budget(base, ours, theirs, "budget.json")
    with pytest.raises(BadInput, match="tokens_in"):
        budget.parse(_file({"x": {**_bucket(1, 0), "tokens_in": -1}}), "budget.json")


def test_a_model_is_priced_by_its_longest_key_past_a_providers_prefix() -> None:
    prices = {"claude-sonnet-4": {"input": 3}, "claude-sonnet-4-5": {"input": 2}, "claude-opus-4": {"input": 15}}
    assert budget.price_of(prices, "claude-sonnet-4-5-20250929") == {"input": 2}
    assert budget.price_of(prices, "claude-sonnet-4-20250514") == {"input": 3}
    assert budget.price_of(prices, "us.anthropic.claude-opus-4-1-20250805-v1:0") == {"input": 15}
    assert budget.price_of(prices, "claude-sonnet-40") is None  # a prefix counts only up to a separator
    assert budget.price_of(prices, "gpt-5") is None
