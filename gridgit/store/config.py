"""config.json: user configuration with defaults for every key gridgit reads."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from gridgit.errors import BadInput
from gridgit.store.layout import Layout, read_template


@functools.cache
def defaults() -> dict[str, Any]:
    """Every key gridgit reads, with its default: templates/config.json is the one source."""
    data: dict[str, Any] = json.loads(read_template("config.json"))
    return data


def deep_merge(base: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """A copy of BASE with UPDATES merged in: mappings recursively, anything else replaced."""
    merged = copy.deepcopy(base)
    for key, value in updates.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def load(layout: Layout) -> dict[str, Any]:
    """config.json merged over the defaults; a missing file means all defaults."""
    try:
        text = layout.config.read_text(encoding="utf-8")
    except FileNotFoundError:
        return copy.deepcopy(defaults())
    return deep_merge(defaults(), json_object(text, str(layout.config)))


def json_object(text: str, source: str) -> dict[str, Any]:
    """TEXT parsed as one JSON object; anything else is an error naming SOURCE and the line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source} line {exc.lineno} column {exc.colno}: {exc.msg}") from None
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
    """The setting at DOTTED, config.json read for it: for a workflow that needs one setting."""
    return get(load(layout), dotted)
