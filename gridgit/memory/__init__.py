"""The memory agent's workspace, `.grid/memory/` (layer 2, workflows): each completed phase
compressed to a token budget (compress), the learnings of one kind across phases and the tech
context (knowledge), the fast lookup INDEX.md (index), their validation (rules), the names of
the files (files), token estimates (budget), and the workspace's reads and writes (workspace).

Everything here is rebuilt from the files that are the truth: the scratchpads, their archives,
LEARNINGS.md and STATE.md. Modules here may import gridgit.store, gridgit.errors and the model
layer (gridgit.model, gridgit.scratchpad, gridgit.events); gridgit.phases calls in when a phase
completes, gridgit.validation to check the files; never gridgit.git, the views or the interface.
"""
