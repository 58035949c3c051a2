"""`gridgit serve`: a live, read-only web view of the Blackboard (layer 4, an interface).

One self-contained page (`page.html`, `page.css`, `page.js`, inlined: no network), a JSON API in the `--json`
envelope whose routes call the library the CLI uses (`routes`), and Server-Sent Events fed
by one forward reader of the event log (`feed`), on the standard library's threading HTTP
server (`handler`, `server`). It may import every lower layer and the Blackboard; nothing
but `gridgit.cli.serve` imports it, so the CLI's other commands, the hooks and the daemon
never load it.
"""
