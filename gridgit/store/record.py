"""Value classes for the hot paths: fields in `__slots__`, equality and repr from them.

Why not dataclasses: `import dataclasses` and the methods each dataclass compiles at import
cost ~0.5 ms per class and ~1 ms for the module, on every gridgit process (a write builds a
Layout, Entries, a Scratchpad): a quarter of what `gridgit write` may add to the interpreter.
A Record subclass names its fields, in order, in FIELDS (its `__slots__` too) and writes its
own typed `__init__`; a FrozenRecord is one whose fields are never assigned after `__init__`,
hashable like a frozen dataclass (a set member, a dict key).

Neither imports `typing` at run time (~2.5 ms of an agent hook's start): the names it gives
are for the type checker only, which reads `TYPE_CHECKING = False` as true.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    R = TypeVar("R", bound="Record")


class Record:
    """Two records are equal when their type and their FIELDS are."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def fields(self) -> dict[str, Any]:
        """The fields as a dict (values as they are: lists and nested records are not copied)."""
        return {name: getattr(self, name) for name in self.FIELDS}

    def replace(self: R, **changes: Any) -> R:
        """A copy with CHANGES (field -> value), like dataclasses.replace; other fields are shared."""
        clone = object.__new__(type(self))
        for name in self.FIELDS:
            setattr(clone, name, changes.pop(name) if name in changes else getattr(self, name))
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return clone

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    # Records are mutable (a write assigns an entry's id): unhashable, as a dataclass is.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({shown})"


class FrozenRecord(Record):
    """A Record never changed after `__init__` (by convention, as nothing enforces it): hashable by its FIELDS."""

    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(getattr(self, name) for name in self.FIELDS))
