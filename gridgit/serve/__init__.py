"""`gridgit serve`: a live web view of the Blackboard, and Master Control's console (layer 4, an interface).

One self-contained page (`page.html`, `page.css` and its script: `page.js`, `panels.js`, `board.js`,
`console.js`, inlined: no network), a JSON API in the `--json` envelope whose routes call the
library the CLI uses (`routes`), actions that are the CLI's library calls made as the person's
Master Control id (`actions`) behind the write guard (`guard`: the run's token, a same origin, a
JSON body), links to the repository's web host (`links`), and Server-Sent Events fed by one
forward reader of the event log (`feed`), on the standard library's threading HTTP server
(`handler`, `server`). It may import every lower layer and the Blackboard; nothing but
`gridgit.cli.serve` imports it, so the CLI's other commands, the hooks and the daemon never load it.
"""
