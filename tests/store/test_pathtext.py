"""File names as text: bytes that are not UTF-8 become `\\xNN`, everything else is unchanged."""

from __future__ import annotations

import json
import os

from gridgit.store.pathtext import as_text, as_text_obj


def test_names_as_text() -> None:
    assert as_text("src/caf\u00e9 a.py") == "src/caf\u00e9 a.py"
    assert as_text(os.fsdecode(b"caf\xe9.txt")) == "caf\\xe9.txt"
    assert as_text("\ud800x") == "\\ud800x"  # a lone surrogate no decoder made (from JSON)
    payload = as_text_obj({"files": [os.fsdecode(b"\xff\xfe"), "ok"], os.fsdecode(b"k\xff"): 1})
    assert payload == {"files": ["\\xff\\xfe", "ok"], "k\\xff": 1}
    json.dumps(payload, ensure_ascii=False).encode("utf-8")  # writable as UTF-8
