"""The work agents take: blocks (their PLAN and SUMMARY files, the queue of ready blocks, an atomic take),
`budget.json` (token usage and cost, fed by the agents' transcripts or by hand) and debug sessions
(`debug/<session>/investigation.md`).

A workflow layer (2): it may import storage (store/), the model (model/, scratchpad/, events/) and the
other workflows of its layer (coordination/ for agents and claims); git/ and everything above import it.
"""
