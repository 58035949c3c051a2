"""Whether Codex runs gridgit's hooks: read, and granted, through Codex's own app server, as its `/hooks` does.

Codex runs a non-managed hook only once the person trusted it ("Non-managed command hooks
must be reviewed and trusted before they run", https://developers.openai.com/codex/hooks,
"Review and trust hooks"), and a project's `.codex/` hooks only in a project the person
trusts. Its trust is the hook's hash, kept in the user's config.toml as
`[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash = "sha256:..."`; a
hook whose definition changed since is `modified` and skipped like a new one
(openai/codex codex-rs/hooks/src/engine/discovery.rs, `hook_trust_status`).

Codex's app server (`codex app-server`, JSON-RPC over stdio:
https://developers.openai.com/codex/app-server) answers `hooks/list` with each hook's `key`,
`currentHash` and `trustStatus` (untrusted, modified, trusted, managed). Trusting is what the
TUI's `/hooks` does (codex-rs/tui/src/hooks_rpc.rs, `write_hook_trusts`): `config/batchWrite`
upserting `hooks.state` with `{key: {"trusted_hash": currentHash}}`. gridgit asks the same
server, so Codex computes the hash and writes its own file; gridgit trusts only the hooks
whose command is its own (`gridgit.agents.tool.is_ours`) and reads the list again to check.

What gridgit does not do: trust the project itself (that also lets the project's config and
MCP commands run), which stays the person's step. In a linked worktree Codex reads the main
worktree's `.codex/hooks.json`, and only where the worktree has a `.codex/` of its own (seen
with Codex 0.171.0: `hooks/list` from a linked worktree names the main worktree's file, and
nothing without the folder): gridgit writes both, and the trust is the main file's hooks'.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from pathlib import Path

from gridgit.agents.tool import is_ours
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_SECONDS = 30.0  # for one answer of the app server (it answers hooks/list in well under a second)
NEEDS_REVIEW = ("untrusted", "modified")
TRUST_STEP = (
    "open Codex in {root} and trust gridgit's hooks in `/hooks` (Codex runs a project's hooks only once "
    "each is trusted)"
)
PROJECT_STEP = (
    "Codex does not trust {root} yet, so it loads no hook of its .codex/: start `codex` there and trust the "
    "folder (or run `codex exec --trust` there once), then run `gridgit setup codex` again to trust gridgit's hooks"
)


class CodexUnavailable(Exception):
    """Codex is not installed, or its app server did not answer as documented."""


class Trust(Record):
    """What Codex says of gridgit's hooks in ROOT's project: HOOKS (key -> trustStatus, gridgit's only),
    whether it loads the project's hooks at all (PROJECT_TRUSTED), and what was TRUSTED by this call."""

    FIELDS = ("root", "hooks", "project_trusted", "trusted")
    __slots__ = FIELDS

    def __init__(
        self, root: Path, hooks: dict[str, str], project_trusted: bool, trusted: list[str] | None = None
    ) -> None:
        self.root = root
        self.hooks = hooks
        self.project_trusted = project_trusted
        self.trusted = trusted or []

    @property
    def review(self) -> list[str]:
        """gridgit's hooks Codex skips until they are trusted (new, or changed since they were)."""
        return [key for key, status in self.hooks.items() if status in NEEDS_REVIEW]

    def step(self) -> str:
        """The one step left for the person before Codex runs gridgit's hooks ('' when none is)."""
        if not self.project_trusted:
            return PROJECT_STEP.format(root=self.root)
        return TRUST_STEP.format(root=self.root) if self.review else ""

    def to_dict(self) -> dict[str, Any]:
        return {**self.fields(), "root": str(self.root), "review": self.review, "step": self.step()}


class _AppServer:
    """One `codex app-server` process in ROOT, spoken to over stdio; its answers read on a thread of their own."""

    def __init__(self, binary: str, root: Path) -> None:
        self.proc = subprocess.Popen(
            [binary, "app-server"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise CodexUnavailable(f"codex app-server stopped reading ({exc})") from None

    def request(self, method: str, params: dict[str, Any]) -> Any:
        """The result of METHOD; notifications on the way are passed over."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT_SECONDS)
            except queue.Empty:
                raise CodexUnavailable(f"codex app-server gave no answer to {method} in {TIMEOUT_SECONDS:g}s") from None
            if line is None:
                raise CodexUnavailable(f"codex app-server ended before it answered {method}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == self.next_id:
                if "error" in message:
                    detail = (message.get("error") or {}).get("message", message["error"])
                    raise CodexUnavailable(f"codex app-server refused {method}: {detail}")
                return message.get("result")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def binary() -> str | None:
    """The `codex` this machine's PATH finds, or None."""
    return shutil.which("codex")


def _ours(root: Path, server: _AppServer) -> tuple[list[dict[str, Any]], bool]:
    """gridgit's hooks as `hooks/list` reports them for ROOT's project, and whether it lists any of the project's."""
    result = server.request("hooks/list", {"cwds": [str(root)]})
    entries = result.get("data") if isinstance(result, dict) else None
    if not isinstance(entries, list):
        raise CodexUnavailable("codex app-server answered hooks/list without `data`")
    hooks = [h for entry in entries if isinstance(entry, dict) for h in entry.get("hooks") or [] if isinstance(h, dict)]
    project = [h for h in hooks if h.get("source") == "project"]
    return [h for h in project if is_ours(h.get("command"))], bool(project)


def _session(root: Path, work: Any) -> Trust:
    found = binary()
    if found is None:
        raise CodexUnavailable("codex is not on PATH")
    try:
        server = _AppServer(found, root)
    except OSError as exc:
        raise CodexUnavailable(f"codex app-server did not start ({exc})") from None
    try:
        server.request(
            "initialize", {"clientInfo": {"name": "gridgit", "title": "gridgit setup", "version": _version()}}
        )
        server.send({"method": "initialized"})
        trust: Trust = work(server)
        return trust
    finally:
        server.close()


def _version() -> str:
    from gridgit import __version__

    return __version__


def _trust_of(root: Path, hooks: list[dict[str, Any]], listed: bool, trusted: list[str] | None = None) -> Trust:
    statuses = {str(h.get("key")): str(h.get("trustStatus")) for h in hooks}
    return Trust(root, statuses, project_trusted=listed, trusted=trusted)


def survey(root: Path) -> Trust:
    """What Codex says of gridgit's hooks in the project at ROOT (CodexUnavailable: it cannot say)."""

    def look(server: _AppServer) -> Trust:
        return _trust_of(root, *_ours(root, server))

    return _session(root, look)


def trust(root: Path) -> Trust:
    """Trust gridgit's hooks of ROOT's project that Codex holds as new or changed, as `/hooks` does; what Codex says after.

    A project Codex does not trust lists no hook: nothing is written (the Trust's step says what to do).
    """

    def grant(server: _AppServer) -> Trust:
        hooks, listed = _ours(root, server)
        review = {str(h["key"]): str(h["currentHash"]) for h in hooks
                  if h.get("trustStatus") in NEEDS_REVIEW and h.get("key") and h.get("currentHash")}  # fmt: skip
        if not review:
            return _trust_of(root, hooks, listed)
        value = {key: {"trusted_hash": digest} for key, digest in review.items()}
        edit = {"keyPath": "hooks.state", "value": value, "mergeStrategy": "upsert"}
        server.request("config/batchWrite", {"edits": [edit], "reloadUserConfig": True})
        after, listed = _ours(root, server)
        return _trust_of(root, after, listed, trusted=sorted(review))

    return _session(root, grant)


def home() -> str:
    """Where Codex keeps the user's config.toml (its trust), for what gridgit says: $CODEX_HOME, else ~/.codex."""
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
