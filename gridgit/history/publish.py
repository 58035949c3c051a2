"""A record that must reach the remote first: the compare-and-swap that settles a take across clones.

Each clone decides under its own lock (a take under the queue lock), so two clones that have
not exchanged their grid refs can both decide the same thing. The remote's grid ref is where
they meet, and git's push is a compare-and-swap on it: a push is accepted only when the
remote still holds the commit this clone built on. So a record is published in rounds
(gridgit.history.sync.exchange), under the clone's sync lock:

1. fetch the remote's grid ref and merge it into `.grid/`: this clone now sees every record
   the remote holds (the block is taken already: the write says so);
2. WRITE the record (the take) on top of that, and push;
3. the push is accepted: the remote holds the record and nothing before it that says
   otherwise, so it is **confirmed**. Refused (another clone pushed meanwhile): WITHDRAW the
   record, and start again from 1 after a random pause, up to ATTEMPTS rounds.

**The total order** of such records is the order in which they reached the remote, which a
fetch never reorders: a record a clone confirmed is first for good. A record that could not be
confirmed (no network, the remote kept moving, `blocks.push_on_take` off) is **provisional**:
it stands in this clone, and the next sync settles it against the remote, where a record the
remote already holds wins (gridgit.work.contest.published_first) whatever the two clocks said,
and the loser is told. Only records that reach the remote in one merge without either being on
it first (two clones merged through another path) are ordered by their own fields, for takes
(taken_at, clone id), the same answer in every clone; a clock that is off only changes which
of those two wins, never that a confirmed one loses. docs/sync.md says the same for users.

An exclusive claim is published the same way (gridgit.api.events.claim; its order: gridgit.coordination.claimfile).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gridgit.errors import GridError
from gridgit.history import sync
from gridgit.history.boardgit import BoardGit
from gridgit.store.layout import Layout

# Rounds before a record is left provisional: more than a sync's, since every clone racing for the
# same blocks pushes a take at once (16 agents in 2 clones for 10 blocks win within a few rounds each).
ATTEMPTS = 20


@dataclass
class Published:
    """A record and where it stands: CONFIRMED on the remote first, PROVISIONAL (a remote exists, and did
    not confirm it: REASON says why), or neither (no remote: this clone's lock decided, there is no other)."""

    record: Any
    confirmed: bool = False
    provisional: bool = False
    remote: str | None = None
    reason: str = ""
    attempts: int = 0  # rounds it took on the remote: each one after the first follows a refused push


class _Refused(Exception):
    """WRITE's own refusal (nothing ready, bad input): the caller's answer, not a network failure."""

    def __init__(self, error: GridError) -> None:
        super().__init__(str(error))
        self.error = error


def publish(
    layout: Layout,
    write: Callable[[], Any],
    withdraw: Callable[[Any], None],
    agent: str,
    ref: str | None = None,
    push: bool = True,
) -> Published:
    """WRITE a record and confirm it on the remote first (see the module docstring).

    WRITE() makes the record in this clone (and may raise: a GridError of its own is re-raised
    as it is); WITHDRAW(record) undoes it when the remote took another first. PUSH=False (a
    setting that keeps the record from the remote until the next sync) leaves it provisional.
    """
    remote = sync.remote_of(layout)
    if remote is None:
        return Published(write())
    if not push:
        return Published(write(), provisional=True, remote=remote, reason="not pushed (it goes with the next sync)")
    made: list[Any] = []

    def write_once() -> Any:
        try:
            made[:] = [write()]
        except GridError as exc:
            raise _Refused(exc) from None
        return made[0]

    def withdraw_once(record: Any) -> None:
        withdraw(record)
        made.clear()

    try:
        sync.check_remote(layout, remote)
        bg = BoardGit.open(layout, ref)
        result = sync.exchange(bg, remote, agent, True, write_once, withdraw_once, ATTEMPTS)
    except _Refused as refused:
        raise refused.error from None
    except GridError as exc:  # the remote unreachable, or always ahead: the record stands here, unconfirmed
        record = made[0] if made else write()
        return Published(record, provisional=True, remote=remote, reason=str(exc).splitlines()[0])
    return Published(result.record, confirmed=True, remote=remote, attempts=result.attempts)
