"""`gridgit mcp`: the Blackboard as an MCP server over stdio (the optional extra `gridgit[mcp]`).

Layer 4, beside the CLI: its tools and resources call the Python API (gridgit.Blackboard), so
permissions, redaction and locks are the CLI's. It may import everything; only
`gridgit.cli.mcp` imports it, and the MCP SDK is imported inside it only, so the CLI, the hooks
and the daemon never load the SDK.
"""
