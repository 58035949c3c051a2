"""Value classes without dataclasses: equality, repr, replace, and hashing only where frozen."""

from __future__ import annotations

import pytest

from gridgit.agents.tool import Edit
from gridgit.scratchpad.entry import Entry


def test_a_frozen_record_is_a_value_and_a_record_is_not_hashable() -> None:
    moved = Edit("src/new.py", "moved", "src/old.py")
    assert moved == Edit("src/new.py", "moved", "src/old.py") and moved != Edit("src/new.py")
    assert list(dict.fromkeys([moved, Edit("src/new.py", "moved", "src/old.py"), Edit("a.py")])) == [
        moved,
        Edit("a.py"),
    ]
    assert repr(moved) == "Edit(path='src/new.py', operation='moved', old_path='src/old.py')"
    assert moved.replace(operation="created", old_path=None) == Edit("src/new.py", "created")
    with pytest.raises(TypeError, match="no field 'size'"):
        moved.replace(size=1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(Entry.__new__(Entry))
