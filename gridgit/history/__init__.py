"""The Blackboard's own history (layer 3, integrations): `.grid/` committed onto its ref
(`refs/heads/grid`) with git plumbing, snapshots, `gridgit sync` with a remote and the
three-way merges it runs (values, lines, scratchpads, whole files, the whole Blackboard),
`gridgit migrate` from a tracked `.grid/`, and `gridgit log` / `gridgit diff`.

Modules here may import any lower layer (workflows, model, storage) and the other
integrations; git itself is reached only through gridgit.store.gitcmd. Nothing below
imports this package.
"""
