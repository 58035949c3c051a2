"""Announcing predicted merge conflicts once: a `merge_conflict_predicted` event per new prediction.

A prediction is new when its pair has no record yet, or when the record names other files or
other blobs (someone changed a conflicting file again). The record is `.grid/predictions.json`,
machine-local and gitignored like the event log it dedupes: pair -> the files, severities and
blobs last announced. A pair that merges cleanly again loses its record, so a conflict that
comes back is announced again.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gridgit.events import bus
from gridgit.git.branches import Side
from gridgit.git.predict import PairPrediction, Prediction
from gridgit.store import fileio, locks
from gridgit.store.layout import Layout

RECORD = "predictions.json"


def payload(pair: PairPrediction, base: Side) -> dict[str, Any]:
    """What an agent needs to act on: who, which branches and files, how bad, one line to show."""
    return {
        "agents": pair.agents(),
        "branches": [pair.left.name, pair.right.name],
        "commits": [pair.left.commit, pair.right.commit],
        "base": base.name,
        "merge_base": pair.merge_base,
        "severity": pair.severity,
        "files": [f.path for f in pair.files],
        "conflicts": [f.path for f in pair.files if f.severity == "conflict"],
        "summary": pair.summary(),
    }


def _load(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}  # a damaged record only means announcing again
    return data if isinstance(data, dict) else {}


def announce(layout: Layout, prediction: Prediction) -> int:
    """Record PREDICTION's pairs and emit an event for each new one (marked `new`); how many were new.

    Where this user may not write .grid/ (a read-only checkout), nothing: the prediction stands, unannounced.
    """
    if not os.access(layout.grid, os.W_OK):
        prediction.announced = 0
        return 0
    path = layout.grid / RECORD
    fresh: list[PairPrediction] = []
    with locks.locked(path):
        text = fileio.read_text(path) if path.exists() else ""
        record = _load(text)
        pairs = record.setdefault("pairs", {})
        if not isinstance(pairs, dict):
            pairs = record["pairs"] = {}
        for pair in prediction.pairs:
            if pair.error:
                continue  # nothing is known about this pair now: keep what was announced
            if not pair.files:
                pairs.pop(pair.key, None)
            elif pairs.get(pair.key) != pair.fingerprint():
                pairs[pair.key] = pair.fingerprint()
                pair.new = True
                fresh.append(pair)
        updated = json.dumps(record, indent=1, sort_keys=True) + "\n"
        if updated != text:
            fileio.atomic_write(path, updated, durable=False)
    for pair in fresh:  # after the record's lock: the events lock is a leaf
        bus.emit(layout, "merge_conflict_predicted", payload(pair, prediction.base))
    prediction.announced = len(fresh)
    return len(fresh)
