"""The Python API's parts (layer 4, interface): gridgit.Blackboard is composed of one mixin
per concern (state, scratchpad, phases, events, coordination, messages, repository, foresight,
history, memory, search) over a shared base (layout, identity, phase and config defaults).

Each method is a thin call into the library below (any lower layer may be imported, lazily,
so that importing the API stays cheap); the CLI, the MCP server and the web view call these.
"""
