"""Coordination between agents (layer 2): heartbeats and staleness, file changes and
write-conflict detection, advisory claims, and CHECKPOINT.md.

These are the workflows agents run against each other's work. Modules here may import the
model layer (gridgit.model, gridgit.scratchpad, gridgit.events), gridgit.store and other
workflows, never an integration (git hooks, watcher, agent tools) or an interface.
"""
