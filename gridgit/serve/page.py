"""The one page: page.html with page.css and its script (page.js, panels.js, board.js, console.js) inlined, and the policy that fits it.

The page carries no Blackboard data (it fetches everything from the API and inserts it as
text), so it is built once. The policy allows exactly the inlined style and script, by
their sha256, and connections to this server only: text an agent wrote can never run.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from dataclasses import dataclass
from importlib import resources

# Every response that is not the page: nothing may load, nothing may frame it.
API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
# The page's icon (a browser asks for one; without it every load logged a 404): a grid of four cells.
ICON_PATH = "/favicon.svg"
ICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2b6cb0"/>'
    b'<path d="M3 3h4v4H3zM9 3h4v4H9zM3 9h4v4H3z" fill="#fff"/><path d="M9 9h4v4H9z" fill="#9ae6b4"/></svg>'
)


@dataclass(frozen=True)
class Page:
    body: bytes
    policy: str


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


# The script's parts, in order, share one scope: the core (reads, actions), the panels, the board, the controls.
SCRIPTS = ("page.js", "panels.js", "board.js", "console.js")


@functools.cache
def page() -> Page:
    here = resources.files("gridgit.serve")
    html, css = ((here / name).read_text(encoding="utf-8") for name in ("page.html", "page.css"))
    parts = "\n".join((here / name).read_text(encoding="utf-8") for name in SCRIPTS)
    js = f'(() => {{\n"use strict";\n{parts}\n}})();\n'
    html = html.replace("<!-- gridgit:style -->", f"<style>{css}</style>")
    html = html.replace("<!-- gridgit:script -->", f"<script>{js}</script>")
    policy = (
        f"default-src 'none'; style-src {_digest(css)}; script-src {_digest(js)}; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return Page(html.encode("utf-8"), policy)
