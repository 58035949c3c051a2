"""Blackboard: the Python API. Everything the CLI does, an agent can do in-process."""

from __future__ import annotations

from gridgit.api.coordination import CoordinationAPI
from gridgit.api.events import EventsAPI
from gridgit.api.foresight import ForesightAPI
from gridgit.api.history import HistoryAPI
from gridgit.api.memory import MemoryAPI
from gridgit.api.messages import MessagesAPI
from gridgit.api.phases import PhasesAPI
from gridgit.api.repository import RepositoryAPI
from gridgit.api.scratchpad import ScratchpadAPI
from gridgit.api.search import SearchAPI
from gridgit.api.state import StateAPI
from gridgit.api.work import WorkAPI


class Blackboard(
    StateAPI,
    ScratchpadAPI,
    PhasesAPI,
    EventsAPI,
    CoordinationAPI,
    MessagesAPI,
    RepositoryAPI,
    ForesightAPI,
    HistoryAPI,
    MemoryAPI,
    SearchAPI,
    WorkAPI,
):
    """The Blackboard of the repository around PATH (default: the current directory).

    AGENT is the default agent id for writes (else GRID_AGENT_ID). One mixin per concern
    (gridgit.api); everything they need in common is gridgit.api.base.BoardBase.
    """
