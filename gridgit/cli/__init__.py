"""The command line: a thin click shell over gridgit.Blackboard."""
