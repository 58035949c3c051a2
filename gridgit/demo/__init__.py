"""`gridgit demo` (layer 3): a real mission in a fresh repository, agent processes in linked
worktrees driving the real CLI, and a check of the result read back from the repository.

mission runs it, actor is one agent's process, project is the toy code base, verify reads
the outcome. Modules here import lower layers only for verification; the agents go through
the CLI like any user. Only the interface imports this package.
"""
