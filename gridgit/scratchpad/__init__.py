"""Phase scratchpads (L2, layer 1): one entry (entry) and its markdown (entry_markdown), a whole file as a value
(document), its index (index), the locked store with the one write path (store), reads
through the index (reads), the merge protocol for near-simultaneous writes (merge), the
archive file (archive) and what an entry's Evidence list cites (citations).

Modules here may import gridgit.store, gridgit.errors and the other layer-1 packages
(gridgit.model, gridgit.events); the phase-end workflows that use them live in gridgit.phases.
"""
