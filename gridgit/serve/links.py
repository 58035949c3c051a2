"""Where the page links a commit or a cited file: the repository's web host, else this server's `git show`.

When `origin` names a host whose URL patterns are known (GitHub, GitLab, Gitea and Forgejo, by
the host's name), a commit links to `<web>/commit/<sha>` (GitLab `/-/commit/`) and a file to
`<web>/blob/<rev>/<path>` (GitLab `/-/blob/`, Gitea `/src/commit/`). The web address is built
from the host and path alone, which must be plain (letters, digits, `._~-`): credentials in the
remote's URL, a port of ssh, anything odd, and the link is the local view instead,
`/show?rev=<sha>` or `/show?path=<path>`: `git show`'s text, served as plain text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput
from gridgit.store import gitcmd, usertext

if TYPE_CHECKING:
    from gridgit.store.layout import Layout

_REMOTE_RE = re.compile(
    r"^(?:(?:https?|ssh|git)://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/|(?:[^@/]+@)?(?P<scp>[^/:]+):)(?P<path>.+?)(?:\.git)?/?$"
)
_HOST_RE = re.compile(r"^[A-Za-z0-9.-]+$")
_PATH_RE = re.compile(r"^[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)+$")
_REV_RE = re.compile(r"^[0-9a-fA-F]{4,40}$")
# kind -> (commit pattern, file pattern), after the web address
PATTERNS = {
    "github": ("/commit/{sha}", "/blob/{rev}/{path}"),
    "gitlab": ("/-/commit/{sha}", "/-/blob/{rev}/{path}"),
    "gitea": ("/commit/{sha}", "/src/commit/{rev}/{path}"),
}
MAX_SHOWN = 2 * 1024 * 1024


def _kind(host: str) -> str | None:
    name = host.lower()
    if name == "github.com" or name.startswith("github."):
        return "github"
    if "gitlab" in name:
        return "gitlab"
    if "gitea" in name or "forgejo" in name or name == "codeberg.org":
        return "gitea"
    return None


def web_of(remote: str) -> tuple[str, str] | None:
    """(kind, https web address) of a remote's URL whose host is known, else None."""
    match = _REMOTE_RE.match(remote.strip())
    if match is None:
        return None
    host, path = match.group("host") or match.group("scp"), match.group("path")
    kind = _kind(host) if _HOST_RE.match(host) else None
    if kind is None or not _PATH_RE.match(path):
        return None
    return kind, f"https://{host.lower()}/{path}"


def repository(layout: Layout) -> dict[str, Any]:
    """{"kind": github|gitlab|gitea|local, "web", "commit", "file", "head"}: how the page makes links.

    COMMIT and FILE are patterns with `{sha}`, `{rev}` and `{path}`; HEAD is the commit files link at.
    """
    remote = gitcmd.config_get(layout.root, "remote.origin.url") or ""
    head = gitcmd.run(layout.root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip() or None
    found = web_of(remote) if remote else None
    if found is None:
        return {"kind": "local", "web": None, "commit": "/show?rev={sha}", "file": "/show?path={path}", "head": head}
    kind, web = found
    commit, file = PATTERNS[kind]
    return {"kind": kind, "web": web, "commit": web + commit, "file": web + file, "head": head}


def show(layout: Layout, rev: str | None, path: str | None) -> str:
    """`git show` of REV (a commit's hash), of PATH at REV, or of PATH at HEAD: text, at most MAX_SHOWN bytes."""
    if rev is not None and not _REV_RE.match(rev):
        raise BadInput(f"rev {rev[:60]!r}: expected a commit's hash (4 to 40 hex digits)")
    if rev is None and path is None:
        raise BadInput("give rev (a commit's hash) or path (a file of the repository)")
    if path is not None:
        text = usertext.check_path(path, "path").strip().lstrip("/")
        if not text or text.startswith("-") or ".." in text.split("/"):
            raise BadInput(f"path {path[:100]!r}: a file inside the repository")
        spec = f"{rev or 'HEAD'}:{text}"
        args = ["show", "--no-color", gitcmd.END_OF_OPTIONS, spec]
    else:
        args = ["show", "--no-color", "--stat", "--patch", gitcmd.END_OF_OPTIONS, str(rev)]
    proc = gitcmd.call(layout.root, *args, timeout=20)
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["not found"])[-1]
        raise BadInput(f"git show {args[-1][:100]}: {detail[:200]}")
    out = proc.stdout
    return out if len(out) <= MAX_SHOWN else out[:MAX_SHOWN] + "\n[… cut at 2 MiB]\n"
