"""gridgit's benchmarks: `python -m benchmarks [--quick] [--json FILE] [--only NAME...]` (see README.md)."""
