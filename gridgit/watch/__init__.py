"""The watcher daemon (layer 3): an observer on .grid/ and the work trees, debounced,
telling git's own changes from agents' edits, validating and re-indexing .grid/ files,
sweeping heartbeats; plus the daemon's one-per-repository lifecycle.

Modules here may import any lower layer and the other integrations. Nothing below imports
this package, and nothing needs the daemon to run.
"""
