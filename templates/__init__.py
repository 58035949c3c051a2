"""Templates for the files `gridgit init` writes (shipped inside the package as gridgit.templates)."""
