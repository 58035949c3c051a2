"""`python -m gridgit` runs the CLI."""

from gridgit.cli.main import main

main()
