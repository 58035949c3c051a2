"""The demo's project: a small shop's source tree and what each phase's agents do to it."""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput

PHASES: list[tuple[str, str]] = [
    ("01-foundation", "Foundation"),
    ("02-api", "API"),
    ("03-storage", "Storage"),
    ("04-checkout", "Checkout"),
    ("05-release", "Release"),
]

# Per phase: the topic, the file two agents share (the write conflict), and what they learn.
WORK: dict[str, dict[str, str]] = {
    "01-foundation": {
        "topic": "config",
        "title": "Settings",
        "function": "load_settings",
        "decision": "settings come from environment variables layered over DEFAULTS",
        "finding": "DEFAULTS is read at import time, so tests must patch it before importing the app",
        "gotcha": "an empty CURRENCY variable overrides the default with ''",
        "question": "should a missing DATABASE_URL fall back to SQLite in development?",
        "pattern": "every module reads its settings through one loader that merges env over DEFAULTS",
        "next_step": "wire load_settings into the API layer",
    },
    "02-api": {
        "topic": "api",
        "title": "API",
        "function": "handle_request",
        "decision": "handlers take plain dicts and return plain dicts; HTTP stays at the edge",
        "finding": "every handler needs the settings, so they are passed in, not imported",
        "gotcha": "a handler that mutates its input dict changes the caller's request",
        "question": "do we version the API in the path or in a header?",
        "pattern": "handlers are pure functions of (request, settings)",
        "next_step": "persist orders through the storage layer",
    },
    "03-storage": {
        "topic": "storage",
        "title": "Storage",
        "function": "save_order",
        "decision": "orders are stored as JSON lines, one file per day",
        "finding": "two writers appending to one file need O_APPEND writes of whole lines",
        "gotcha": "a partial last line after a crash must be skipped, not parsed",
        "question": "how long do we keep order files?",
        "pattern": "append-only files with whole-line writes",
        "next_step": "build checkout on save_order",
    },
    "04-checkout": {
        "topic": "checkout",
        "title": "Checkout",
        "function": "checkout",
        "decision": "prices are integers in cents end to end",
        "finding": "float prices round differently on the two code paths",
        "gotcha": "summing floats of cents loses a cent on large carts",
        "question": "which taxes apply to digital goods?",
        "pattern": "money as integer cents with one formatting function",
        "next_step": "prepare the release notes",
    },
}

_SHARED_TEMPLATE = '''"""{title} of the demo shop."""

# recognizer: checks go below this line
DEFAULTS = {{
    "debug": False,
    "currency": "EUR",
    "page_size": 20,
}}


def describe() -> str:
    """One line about this module, for the README."""
    return "{title}: defaults " + ", ".join(sorted(DEFAULTS))


# executor: new code goes below this line
'''


def shared_file(phase_id: str) -> str:
    return f"src/shop/{WORK[phase_id]['topic']}.py"


def files(phases: list[tuple[str, str]]) -> dict[str, str]:
    """The initial commit: a README, an architecture note, and one module per phase."""
    tree = {
        "README.md": "# demo shop\n\nA tiny shop that gridgit's demo agents work on.\n",
        "docs/ARCHITECTURE.md": "# Architecture\n\nNotes the agents keep as they go.\n",
        "src/shop/__init__.py": '"""The demo shop."""\n',
    }
    for phase_id, _name in phases:
        if phase_id in WORK:
            tree[shared_file(phase_id)] = _SHARED_TEMPLATE.format(title=WORK[phase_id]["title"])
    return tree


def task(agent_id: str, phase_id: str) -> str:
    work = WORK.get(phase_id, WORK["01-foundation"])
    kind = agent_id.split("-")[0]
    return {
        "executor": f"implement {work['function']}",
        "recognizer": f"review {shared_file(phase_id)}",
        "memory": f"record {work['topic']} patterns",
        "scout": f"survey {work['topic']} for the planner",
    }[kind]


def agent_spec(agent_id: str, ids: list[str], phase_id: str, worktree: str) -> dict[str, Any]:
    """Everything one agent process needs to know (the JSON on its stdin)."""
    work = WORK[phase_id]
    kind, number = agent_id.split("-")
    first_pair = {"executor-001": "recognizer-001", "recognizer-001": "executor-001"}
    partner = first_pair.get(agent_id)
    suffix = "" if number == "001" else f"-{number}"
    function = work["function"] + suffix.replace("-", "_")
    return {
        **work,
        "id": agent_id,
        "type": kind,
        "worktree": worktree,
        "phase_id": phase_id,
        "task": task(agent_id, phase_id),
        "query": f"{work['topic']} {work['function']} defaults",
        "shared_file": shared_file(phase_id),
        "partner": partner if partner in ids else None,
        "suffix": suffix,
        "own_file": f"src/shop/{work['topic']}{suffix.replace('-', '_')}.py",
        "executor_change": (
            f"\n\ndef {function}(values: dict[str, str]) -> dict[str, object]:\n"
            f'    """{work["decision"].capitalize()} (added by {agent_id})."""\n'
            "    merged: dict[str, object] = dict(DEFAULTS)\n"
            "    merged.update({k: v for k, v in values.items() if k in DEFAULTS})\n"
            "    return merged\n"
        ),
        "own_change": (
            f'"""{work["title"]}: {function} (added by {agent_id})."""\n\n\n'
            f"def {function}(values: dict[str, str]) -> dict[str, str]:\n"
            "    return dict(values)\n"
        ),
        "recognizer_change": f'REQUIRED = ("currency",)  # added by {agent_id}: must never be empty\n',
    }


def block_plan(spec: dict[str, Any]) -> dict[str, Any]:
    """The block Master Control plans for the agent of SPEC: its name, the files it claims, the plan.

    The recognizer's block claims nothing: it reviews the executor's file, and a block naming a file
    of a block in progress would wait for it (gridgit.work.readiness); its edit there is the write
    conflict the demo runs into.
    """
    files = {
        "executor": spec["shared_file"] if spec.get("partner") else spec["own_file"],
        "recognizer": spec["shared_file"],
        "memory": "docs/ARCHITECTURE.md",
    }[spec["type"]]
    plan = f"## Goal\n{spec['task'].capitalize()}.\n\n## Done when\n- {files} is changed, committed and reported\n"
    claimed = [] if spec["type"] == "recognizer" else [files]
    return {"name": spec["task"].capitalize(), "files": claimed, "plan": plan}


# What each agent type uses in one phase, as the demo reports it (`gridgit budget add`): tokens in, out.
USAGE = {"executor": (42_000, 3_100), "recognizer": (28_000, 1_400), "memory": (19_000, 900)}
MODEL = "claude-sonnet-4-5"

TYPE_ORDER = ("executor", "recognizer", "memory", "scout")


def agent_ids(count: int) -> list[str]:
    """executor-001, recognizer-001, memory-001, scout-001, then more executors."""
    if count < 2:
        raise BadInput("the demo needs at least 2 agents (two of them share a file)")
    if count > 12:
        raise BadInput("the demo runs at most 12 agents")
    ids = [f"{kind}-001" for kind in TYPE_ORDER[:count]]
    ids += [f"executor-{n:03d}" for n in range(2, count - len(ids) + 2)]
    return ids
