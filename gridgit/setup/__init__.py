"""Setting a repository up (layer 3): `gridgit init` creates .grid/ from the templates and
installs the git hooks.

Modules here may import any lower layer and the other integrations (gridgit.git for the
hooks); only the interface (gridgit.blackboard, gridgit.cli) imports them.
"""
