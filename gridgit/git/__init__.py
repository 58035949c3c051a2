"""git integration (layer 3): hook installation and the hook bodies, commit evidence, the
merge driver of an earlier design (its merges are gridgit.history's); foresight: merge
conflicts predicted between agents' branches (git merge-tree) and evidence gone stale.

Modules here may import any lower layer (workflows, model, storage) and the other
integrations (the Blackboard's own history is gridgit.history); git itself is reached only
through gridgit.store.gitcmd. Nothing below imports this package.
"""
