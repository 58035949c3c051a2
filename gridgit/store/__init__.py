"""Storage (layer 0): where things are and how bytes reach the disk.

Paths and the layout rules of `.grid/` (layout), atomic locked file I/O (fileio), the YAML
frontmatter codec (frontmatter), line escaping, the clock, config.json with its defaults,
secret redaction, .grid/.gitignore, and every git subprocess (gitcmd: all git access goes
through it). Modules here import nothing of gridgit but gridgit.errors and each other.
"""
