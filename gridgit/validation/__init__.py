"""Validation of .grid/ files (layer 2): the rules every Blackboard file must satisfy,
reported as Problems with a file, a line and a fix.

The same checks serve `gridgit validate`, the git hooks, the watcher and `doctor`. Modules
here may import the model layer and gridgit.store, never an integration or an interface.
"""
