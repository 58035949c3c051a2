"""The memory agent's workspace, `.grid/memory/`: rebuild, show, compress a phase, write one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridgit.api.base import BoardBase

if TYPE_CHECKING:
    from gridgit.memory.workspace import MemoryResult


class MemoryAPI(BoardBase):
    """`.grid/memory/` (docs/formats.md): rebuilt from the scratchpads, archives, LEARNINGS.md and STATE."""

    def memory_rebuild(self, agent: str | None = None) -> MemoryResult:
        """Every memory file from the truth (memory agents and Master Control)."""
        from gridgit.memory import workspace

        return workspace.rebuild(self.layout, self.agent(agent))

    def memory_show(self, name: str | None = None) -> tuple[str, str]:
        """(path, text) of a memory file: INDEX.md by default, `gotchas`, `phase-01`, a phase id ..."""
        from gridgit.memory import workspace

        return workspace.show(self.layout, name)

    def memory_compress(self, phase: str, budget: int | None = None, agent: str | None = None) -> MemoryResult:
        """Compress PHASE to BUDGET tokens (default config memory.compressed_tokens), replacing an agent's version."""
        from gridgit.memory import workspace

        return workspace.compress_phase(self.layout, phase, self.agent(agent), budget)

    def memory_write(self, name: str, text: str, agent: str | None = None) -> MemoryResult:
        """A memory agent's own compressed phase (NAME: `compressed/phase-01.md` or the phase id), validated."""
        from gridgit.memory import workspace

        return workspace.write(self.layout, name, text, self.agent(agent))
