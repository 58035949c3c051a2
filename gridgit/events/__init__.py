"""The event log (layer 1): the live pub/sub and conflict-detection feed.

bus appends events (and rotates the log), segments lists the live and rotated files, lines
reads complete lines forward or backward, scan reads events backwards by time or forward
from a position, cursors keeps each agent's durable position. Modules here import only
gridgit.store, gridgit.errors and gridgit.model's permission helpers.
"""
