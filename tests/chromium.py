"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`): stdlib only.

Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and events on fd 4;
no TCP port, so no port race. Used by the web view's browser tests and its benchmark: a person's clicks,
typing and drags are real input events (Input.dispatchMouseEvent, insertText, dispatchDragEvent).
Recipe and pitfalls: Debian's `chromium` package, `--no-sandbox` when running as root,
`close_fds=False` or subprocess closes fd 4 again after preexec_fn.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
    "--remote-debugging-pipe",
)  # fmt: skip


def find_browser() -> str | None:
    """$GRIDGIT_CHROMIUM, else the first Chromium on PATH."""
    chosen = os.environ.get("GRIDGIT_CHROMIUM")
    if chosen:
        return shutil.which(chosen) or chosen
    for name in ("chromium", "chromium-headless-shell", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless browser process; `with Chromium(binary) as browser:` closes it (and its profile) at the end."""

    def __init__(self, binary: str, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        self.profile = tempfile.mkdtemp(prefix="gridgit-chromium-")
        to_chrome_r, self._write = os.pipe()
        self._read, from_chrome_w = os.pipe()
        # Move the child's ends above 10 so the two dup2 calls onto 3 and 4 cannot clobber each other.
        child_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def child_fds() -> None:
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,
            close_fds=False,  # True would close fd 4 after preexec_fn: chromium would exit at once
        )
        os.close(child_r)
        os.close(child_w)
        self._buffer = b""
        self._next_id = 0
        self._targets: dict[str, str] = {}  # session id -> target id
        # Events that arrive between answers (exceptions thrown in a page, an intercepted drag), newest last.
        self.events: collections.deque[dict[str, Any]] = collections.deque(maxlen=500)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout: float = 20
    ) -> Any:
        """One DevTools command; its result (events in between are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            if "method" in reply:
                self.events.append(reply)

    def open_page(self, url: str, before_load: str | None = None) -> str:
        """A new tab at URL (BEFORE_LOAD: a script run in it before the page's own); its session id."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session: str = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self._targets[session] = target
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)  # its exceptionThrown events land in `events`
        self.resize(session, self.width, self.height)
        if before_load:
            self.send("Page.addScriptToEvaluateOnNewDocument", {"source": before_load}, session=session)
        self.send("Page.navigate", {"url": url}, session=session)
        return session

    def resize(self, session: str, width: int, height: int, mobile: bool = False) -> None:
        """The tab's viewport: WIDTH x HEIGHT CSS pixels (MOBILE: as a phone lays a page out)."""
        metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}
        self.send("Emulation.setDeviceMetricsOverride", metrics, session=session)

    def exceptions(self, session: str) -> list[str]:
        """What the page's scripts threw, uncaught, since the tab opened."""
        found = [e for e in self.events if e.get("sessionId") == session and e["method"] == "Runtime.exceptionThrown"]
        return [
            str(e["params"]["exceptionDetails"].get("exception", {}).get("description", e["params"])) for e in found
        ]

    def _center(self, session: str, selector: str) -> tuple[float, float]:
        """The middle of SELECTOR's element, scrolled into view (viewport coordinates)."""
        found = self.evaluate(
            session,
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center', inline: 'center'}); const r = e.getBoundingClientRect();"
            " const x = r.left + r.width / 2, y = r.top + r.height / 2; const top = document.elementFromPoint(x, y);"
            " return [x, y, r.width, r.height, Boolean(top && (top === e || e.contains(top)))]; })()",
        )
        if not found or not found[2] or not found[3]:
            raise LookupError(f"{selector!r}: no such element shown")
        if not found[4]:
            raise LookupError(f"{selector!r}: covered by another element at its middle")
        return float(found[0]), float(found[1])

    def _mouse(self, session: str, kind: str, x: float, y: float, buttons: int = 0) -> None:
        event = {"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}
        self.send("Input.dispatchMouseEvent", event, session=session)

    def click(self, session: str, selector: str, tries: int = 5) -> None:
        """A person's click on SELECTOR's element: the mouse moves there, presses and releases (real input events).

        A page that moved under the mouse between finding the element and the click (a panel drawn again
        above it) got the click elsewhere: as a person would, it looks again and clicks again.
        """
        watch = (
            "window.__hit = false; document.addEventListener('click', e => { window.__hit = "
            f"Boolean(e.target.closest({json.dumps(selector)})); }}, {{capture: true, once: true}});"
        )
        for _ in range(tries):
            self.evaluate(session, watch)
            try:
                x, y = self._center(session, selector)
            except LookupError:  # gone or covered for a moment (drawn again): look again
                time.sleep(0.2)
                continue
            self._mouse(session, "mouseMoved", x, y)
            self._mouse(session, "mousePressed", x, y, 1)
            self._mouse(session, "mouseReleased", x, y)
            if self.evaluate(session, "window.__hit"):
                return
            time.sleep(0.2)
        raise LookupError(f"{selector!r}: {tries} clicks, none reached it")

    def type(self, session: str, selector: str, text: str) -> None:
        """Click SELECTOR's field and type TEXT into it (as an input method inserts it)."""
        self.click(session, selector)
        self.send("Input.insertText", {"text": text}, session=session)

    def select(self, session: str, selector: str, value: str) -> None:
        """Choose VALUE in SELECTOR's <select>, as a person's choice fires it (input, change)."""
        self.evaluate(
            session,
            f"(() => {{ const s = document.querySelector({json.dumps(selector)}); s.focus(); s.value = {json.dumps(value)};"
            " s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); })()",
        )

    def drag(self, session: str, source: str, target: str, timeout: float = 10) -> None:
        """Drag SOURCE's element onto TARGET's with the mouse: the browser starts a real drag (HTML drag and drop),
        which the protocol intercepts and then drops on TARGET (Input.setInterceptDrags, Input.dispatchDragEvent)."""
        self.send("Input.setInterceptDrags", {"enabled": True}, session=session)
        try:
            x, y = self._center(session, source)
            self._mouse(session, "mouseMoved", x, y)
            self._mouse(session, "mousePressed", x, y, 1)
            deadline = time.monotonic() + timeout
            step = 0
            data = None
            while data is None:
                step += 1
                self._mouse(session, "mouseMoved", x + 5 * step, y + 5 * step, 1)
                data = next((e["params"]["data"] for e in self.events if e["method"] == "Input.dragIntercepted"), None)
                if data is None and time.monotonic() > deadline:
                    raise TimeoutError(f"dragging {source!r} started no drag")
            self.events = collections.deque(
                (e for e in self.events if e["method"] != "Input.dragIntercepted"), maxlen=500
            )
            tx, ty = self._center(session, target)
            for kind in ("dragEnter", "dragOver", "drop"):
                self.send("Input.dispatchDragEvent", {"type": kind, "x": tx, "y": ty, "data": data}, session=session)
            self._mouse(session, "mouseReleased", tx, ty)
        finally:
            self.send("Input.setInterceptDrags", {"enabled": False}, session=session)

    def close_page(self, session: str) -> None:
        self.send("Target.closeTarget", {"targetId": self._targets.pop(session)})

    def evaluate(self, session: str, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, session: str, expression: str, timeout: float = 20, interval: float = 0.02) -> Any:
        """Evaluate EXPRESSION until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.evaluate(session, expression)
            if last:
                return last
            time.sleep(interval)
        raise TimeoutError(f"{expression!r} still {last!r} after {timeout}s")

    def screenshot(self, session: str, path: Path, whole: bool = True) -> Path:
        """A PNG of the page: WHOLE, or what the viewport shows."""
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": whole}, session=session)
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError, TimeoutError, RuntimeError):  # already gone
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
