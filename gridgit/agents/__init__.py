"""The agent tools' integration (layer 3): Claude Code, Codex CLI, Gemini CLI and Cursor.

One module per tool (its config file, events, payload and answer format), `setup` and
`jsonconfig` to merge gridgit's hooks into a tool's project config and take them out again,
`runner` (the hook entry point, `python -m gridgit.agents TOOL EVENT`), `handlers` (what
each event does), `identity` (the agent a session is), `statusline`, and `attributed` (what
the watcher asks so it does not report an edit twice). It may import the layers below and
views (the context pack); nothing here imports click, so a hook starts fast.
"""
