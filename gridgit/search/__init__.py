"""`gridgit search` (layer 3, integrations): one ranked full-text search over everything the
Blackboard holds. What is indexed, one line per kind of file (sources), the machine-local
SQLite FTS5 cache that holds it and follows the files (index), a user's query made into a
safe match expression with its filters checked (query), and the hits, ranked by BM25 (hits).

Modules here may import any lower layer (gridgit.store, the model layer, gridgit.memory);
the views, the Python API, the CLI, the MCP server and the web view call them. The index is
a cache: the files stay the truth, and a missing, stale or corrupt index is rebuilt from them.
"""
