"""config.json: user configuration with defaults for every key gridgit reads."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.store.layout import Layout, read_template

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

REPAIR = "run `gridgit doctor --repair` to restore it from the history"


@functools.cache
def defaults() -> dict[str, Any]:
    """Every key gridgit reads, with its default: templates/config.json is the one source."""
    data: dict[str, Any] = json.loads(read_template("config.json"))
    return data


def _copied(value: Any) -> Any:
    """A deep copy of a JSON value (copy.deepcopy's memo and dispatch cost ~1 ms per config load)."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def deep_merge(base: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """A copy of BASE with UPDATES merged in: mappings recursively, anything else replaced."""
    merged: dict[str, Any] = _copied(base)
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = _copied(value)
    return merged


def load(layout: Layout) -> dict[str, Any]:
    """config.json merged over the defaults; a missing file means all defaults.

    A value of the wrong type or out of its range is an error naming the key, raised here
    before any workflow reads it, so no command stops half-way on a bad setting. Unknown
    keys are left to `gridgit validate` (a newer gridgit's config still works with this one).
    Under `recovering()`, a config.json that does not load means the defaults (see there).
    """
    try:
        return deep_merge(defaults(), _checked(layout))
    except BadInput:
        if not _recovering:
            raise
        return deep_merge(defaults(), {})


def _checked(layout: Layout) -> dict[str, Any]:
    """config.json's own settings ({} when it is missing), or BadInput naming what is wrong and the fix."""
    try:
        text = layout.config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError as exc:
        raise BadInput(f"{layout.config}: not UTF-8 text ({exc.reason} at byte {exc.start}); {REPAIR}") from None
    try:
        data = json_object(text, str(layout.config))
    except BadInput as exc:
        raise BadInput(f"{exc}; {REPAIR}") from None
    for key, problem in problems(data):
        if problem != UNKNOWN:
            raise BadInput(f"{layout.config}: {key} {problem}")
    return data


def problem(layout: Layout) -> str | None:
    """What keeps config.json from loading (its line, or the setting), or None when it loads."""
    try:
        _checked(layout)
    except BadInput as exc:
        return str(exc).removesuffix(f"; {REPAIR}")
    return None


# Set while a command that must work whatever broke runs (doctor, restore, repair, init --force):
# a config.json that does not load then means the defaults, in memory only; the file is left as it is.
_recovering = False


@contextlib.contextmanager
def recovering() -> Iterator[None]:
    """Within it, load() gives the defaults for a config.json that does not parse or check, instead of failing."""
    global _recovering
    before, _recovering = _recovering, True
    try:
        yield
    finally:
        _recovering = before


_CURRENT: dict[Path, tuple[tuple[int, int, int, bool], dict[str, Any]]] = {}


def current(layout: Layout) -> dict[str, Any]:
    """load(LAYOUT), parsed again only when config.json changed: one parse per process on the hot
    paths (a write reads it, so does its event), and a long-lived process sees edits.

    The value is shared: read it, never change it (load() gives a copy of one's own).
    """
    try:
        status = os.stat(layout.config)
        key = (status.st_ino, status.st_mtime_ns, status.st_size, _recovering)
    except FileNotFoundError:
        key = (0, 0, 0, _recovering)
    cached = _CURRENT.get(layout.config)
    if cached is None or cached[0] != key:
        cached = (key, load(layout))
        _CURRENT[layout.config] = cached
    return cached[1]


UNKNOWN = "is not a setting gridgit knows"
# Settings whose range the type does not say: key -> (smallest value, what it must be).
_LOWEST: dict[str, tuple[float, str]] = {
    "events.rotate_bytes": (0, "0 (never rotate) or more"),
    "events.keep_segments": (0, "0 (keep all) or more"),
    "conflicts.window_minutes": (1e-9, "more than 0"),
    "claims.ttl_minutes": (1e-9, "more than 0"),
    "scratchpad.max_entries": (1, "1 or more"),
    "scratchpad.keep_recent": (0, "0 or more"),
    "scratchpad.merge_window_minutes": (0, "0 (never merge) or more"),
    "heartbeat.warning_minutes": (1e-9, "more than 0"),
    "heartbeat.stale_minutes": (1e-9, "more than 0"),
    "heartbeat.session_minutes": (0, "0 (a running agent tool is no sign of work) or more"),
    "hooks.timeout_seconds": (1e-9, "more than 0"),
    "watcher.debounce_ms": (0, "0 or more"),
    "watcher.sweep_seconds": (1e-9, "more than 0"),
    "foresight.debounce_seconds": (0, "0 or more"),
    "sync.auto_seconds": (1, "1 or more"),
    "sync.auto_max_seconds": (1, "1 or more"),
    "messages.stop_asks": (0, "0 (never) or more"),
    "promotion.min_validations": (0, "0 (promote on the first HIGH entry) or more"),
    "memory.compressed_tokens": (100, "100 or more (a compressed phase's frontmatter alone is ~80 tokens)"),
    "budget.mission_limit_usd": (0, "0 (no limit) or more"),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "conflicts.on_commit": ("warn", "block"),
    "claims.on_edit": ("ask", "deny", "allow"),
    "agents.grid_edits": ("deny", "warn", "allow"),
}


# config.json is shared: every clone's next sync takes a peer's version. So a setting git acts on names
# only gridgit's own: `sync.ref` is the Blackboard's branch, `grid` or `grid-NAME`, never a code branch
# (issue 39: a peer's `"ref": "main"` had every clone merge the Blackboard into main and push it).
_GRID_REF = r"(?:refs/heads/)?(grid(?:-[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?!\.|lock$|$))*)?)"
GRID_REF_RULE = (
    "must name gridgit's own branch: grid or grid-NAME (letters, digits, `.`, `_`, `-`), never a code branch"
)


def grid_ref(name: str | None) -> str:
    """`grid` -> `refs/heads/grid`: the branch of the Blackboard's history (`sync.ref`); anything else is refused."""
    match = re.fullmatch(_GRID_REF, (name or "grid").strip())
    if match is None:
        raise BadInput(f"sync.ref {str(name)[:80]!r} (config.json) {GRID_REF_RULE}")
    return f"refs/heads/{match.group(1)}"


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(dotted key, what is wrong) for every problem of config.json's DATA: the one set of rules."""
    found: list[tuple[str, str]] = []
    for section, value in data.items():
        if section not in defaults():
            found.append((section, UNKNOWN))
        elif not isinstance(value, dict):
            found.append((section, "must be an object"))
        else:
            found += _section_problems(section, value)
    merged = deep_merge(defaults(), {k: v for k, v in data.items() if isinstance(v, dict)})
    pad = merged["scratchpad"]
    if not any(k.startswith("scratchpad.") for k, _ in found) and pad["keep_recent"] >= pad["max_entries"]:
        found.append(("scratchpad.keep_recent", f"must be less than scratchpad.max_entries ({pad['max_entries']})"))
    return found


def _section_problems(section: str, values: dict[str, Any]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for key, value in values.items():
        dotted = f"{section}.{key}"
        if key not in defaults()[section]:
            found.append((dotted, UNKNOWN))
            continue
        default = defaults()[section][key]
        numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
        if numeric and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
            found.append((dotted, f"must be a number, got {json.dumps(value)[:60]}"))
        elif not numeric and type(value) is not type(default):
            found.append((dotted, f"must be {_TYPE_NAMES[type(default)]}, got {json.dumps(value)[:60]}"))
        elif numeric and dotted in _LOWEST and not value >= _LOWEST[dotted][0]:
            found.append((dotted, f"must be {_LOWEST[dotted][1]}, got {value!r}"))
        elif dotted == "sync.ref" and re.fullmatch(_GRID_REF, value) is None:
            found.append((dotted, f"{GRID_REF_RULE}, got {json.dumps(value)[:60]}"))
        elif dotted in _CHOICES and value not in _CHOICES[dotted]:
            found.append((dotted, f"must be one of {', '.join(_CHOICES[dotted])}, got {value!r}"))
        elif dotted == "agents.custom_types":
            found += _custom_type_problems(value)
        elif dotted == "budget.prices":
            found += _price_problems(value)
    return found


# The built-in agent types, whose rights gridgit.model.permissions holds (a layer above this one).
BUILT_IN_AGENT_TYPES = ("executor", "mc", "memory", "planner", "recognizer", "scout")
_TYPE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


def _custom_type_problems(types: dict[str, Any]) -> list[tuple[str, str]]:
    """`agents.custom_types`: a new type name (no `-`: it is an agent id's prefix) -> a built-in type."""
    found: list[tuple[str, str]] = []
    for name, rights in types.items():
        dotted = f"agents.custom_types.{name}"
        if not _TYPE_NAME.match(name) or name in BUILT_IN_AGENT_TYPES or name == "system":
            found.append((dotted, "must be a new lowercase type name (letters, digits, `_`; not a built-in type)"))
        elif rights not in BUILT_IN_AGENT_TYPES:
            found.append((dotted, f"must be the built-in type whose rights it has: {', '.join(BUILT_IN_AGENT_TYPES)}"))
    return found


_TYPE_NAMES = {
    bool: "true or false", str: "a string", int: "a number", float: "a number", list: "a list", dict: "an object",
}  # fmt: skip
_PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


def _price_problems(prices: dict[str, Any]) -> list[tuple[str, str]]:
    """`budget.prices`: model -> {input, output, cache_read, cache_write}, each USD per million tokens, 0 or more."""
    found: list[tuple[str, str]] = []
    for model, price in prices.items():
        where = f"budget.prices.{model}"
        if not isinstance(price, dict):
            found.append(
                (where, "must be an object of USD per million tokens (input, output, cache_read, cache_write)")
            )
            continue
        for key, value in price.items():
            number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            if key not in _PRICE_KEYS:
                found.append((f"{where}.{key}", f"{UNKNOWN} (one of {', '.join(_PRICE_KEYS)})"))
            elif not number or value < 0:
                found.append((f"{where}.{key}", f"must be a price of 0 or more, got {json.dumps(value)[:60]}"))
    return found


def json_object(text: str, source: str) -> dict[str, Any]:
    """TEXT parsed as one JSON object; anything else is an error naming SOURCE and the line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source} line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise BadInput(f"{source}: nested too deeply") from None
    if not isinstance(data, dict):
        raise BadInput(f"{source}: expected a JSON object, not {type(data).__name__}")
    return data


def get(config: dict[str, Any], dotted: str) -> Any:
    """The value at DOTTED (e.g. `conflicts.window_minutes`) in a loaded config."""
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node


def value(layout: Layout, dotted: str) -> Any:
    """The setting at DOTTED, config.json read for it (parsed once per process while it stays the same)."""
    return get(current(layout), dotted)
