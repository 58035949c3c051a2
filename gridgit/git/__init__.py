"""git integration (layer 3): hook installation and the hook bodies, commit evidence, the
three-way merges of .grid/ files and the merge driver that runs them; foresight: merge
conflicts predicted between agents' branches (git merge-tree) and evidence gone stale.

Modules here may import any lower layer (workflows, model, storage) and the other
integrations; git itself is reached only through gridgit.store.gitcmd. Nothing below
imports this package.
"""
