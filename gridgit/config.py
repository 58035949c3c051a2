"""config.json: user configuration with defaults for every key gridgit reads."""

from __future__ import annotations

import copy
import json
from typing import Any

from gridgit.errors import BadInput
from gridgit.layout import Layout

DEFAULTS: dict[str, Any] = {
    "events": {"commit": False, "rotate_bytes": 64 * 1024 * 1024},
    "conflicts": {"window_minutes": 5, "on_commit": "warn"},
    "scratchpad": {"max_entries": 50, "keep_recent": 25, "merge_window_minutes": 5},
    "heartbeat": {"warning_minutes": 5, "stale_minutes": 10},
    "commit": {"include_grid": True},
    "phases": {"auto_commit": False},
    "hooks": {"timeout_seconds": 10},
    "watcher": {"debounce_ms": 100, "sweep_seconds": 60},
    "locks": {"timeout_seconds": 5},
}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value
    return base


def load(layout: Layout) -> dict[str, Any]:
    """config.json merged over DEFAULTS; a missing file means all defaults."""
    merged = copy.deepcopy(DEFAULTS)
    try:
        text = layout.config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return merged
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{layout.config} line {exc.lineno}: {exc.msg}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{layout.config} line 1: expected a JSON object")
    return _merge(merged, data)


def get(config: dict[str, Any], dotted: str) -> Any:
    """The value at DOTTED (e.g. `conflicts.window_minutes`) in a loaded config."""
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node
