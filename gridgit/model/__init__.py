"""The model (layer 1): STATE.md (L3), LEARNINGS.md (L4) and the spec's permission matrices.

Each file format is parsed and rendered by pure functions and changed through one locked
write path. Modules here may import gridgit.store, gridgit.errors and the other layer-1
packages (gridgit.events, gridgit.scratchpad), never a workflow, integration or interface.
"""
