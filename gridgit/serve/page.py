"""The one page: page.html with page.css and page.js (beside this module) inlined, and the Content-Security-Policy that fits it.

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


@dataclass(frozen=True)
class Page:
    body: bytes
    policy: str


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


@functools.cache
def page() -> Page:
    here = resources.files("gridgit.serve")
    html, css, js = ((here / name).read_text(encoding="utf-8") for name in ("page.html", "page.css", "page.js"))
    html = html.replace("<!-- gridgit:style -->", f"<style>{css}</style>")
    html = html.replace("<!-- gridgit:script -->", f"<script>{js}</script>")
    policy = (
        f"default-src 'none'; style-src {_digest(css)}; script-src {_digest(js)}; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return Page(html.encode("utf-8"), policy)
