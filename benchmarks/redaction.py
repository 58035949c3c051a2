"""Secret redaction, which runs on every write: this checkout's patterns against another revision's, side by side.

    python -m benchmarks.redaction [--base REV] [--repeats N]

REV's gridgit/store/redaction.py (default: the commit before the gitleaks rules were taken in) is
loaded beside this one, and each text is redacted by both in turn, round after round (A, B, A, B),
so the machine's load falls on both alike. Prints the median time of each, and the median of the
per-round ratios (this / base).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

# What agents write: prose with code words, paths and the words the patterns' hints look for
# ("key", "token", "pattern", "api"), but no secret. And one entry with a secret in it.
PROSE = (
    "Decision: keep the token refresh in the API layer.\nRationale: the pattern repeats in src/auth/keys.py, "
    "where `max_tokens=4096` is a count, not a secret; the sm_ prefix is our own naming.\n"
    "Affects: src/api/session.py, docs/ARCHITECTURE.md (see https://example.com/docs/api).\n"
)
TEXTS = {
    "1 KiB entry, no secret": (PROSE * 5)[:1024],
    "64 KiB entry, no secret": (PROSE * 300)[: 64 * 1024],
    "1 KiB entry with a key": (PROSE * 5)[:1000] + " AKIAIOSFODNN7EXAMPLE",
    "200-byte heartbeat": "heartbeat 40%: wiring the login route in src/auth/login.py",
}


def _module_at(rev: str) -> ModuleType:
    """gridgit/store/redaction.py as it was at REV, imported under a name of its own."""
    source = subprocess.run(
        ["git", "show", f"{rev}:gridgit/store/redaction.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="redaction-base-"))
    path = folder / "redaction_base.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("redaction_base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _time(func: object, text: str, calls: int) -> float:
    """Microseconds per call of FUNC(TEXT), over CALLS calls."""
    started = time.perf_counter()
    for _ in range(calls):
        func(text)  # type: ignore[operator]
    return (time.perf_counter() - started) * 1e6 / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.redaction", description=__doc__)
    parser.add_argument("--base", default="51f2e78", help="the revision to compare with (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=21, help="rounds of A/B timing (default: %(default)s)")
    args = parser.parse_args(argv)
    from gridgit.store import redaction

    base = _module_at(args.base)
    print(f"load {' '.join(f'{x:.2f}' for x in __import__('os').getloadavg())}; python {sys.version.split()[0]}")
    print(f"{'text':<26} {'base µs':>10} {'this µs':>10} {'this/base':>10}")
    for label, text in TEXTS.items():
        calls = 20 if len(text) > 10_000 else 400
        for func in (base.redact, redaction.redact):  # warm: lazy patterns compiled
            func(text)
        pairs = [(_time(base.redact, text, calls), _time(redaction.redact, text, calls)) for _ in range(args.repeats)]
        before = statistics.median(p[0] for p in pairs)
        after = statistics.median(p[1] for p in pairs)
        ratio = statistics.median(p[1] / p[0] for p in pairs)
        print(f"{label:<26} {before:>10.1f} {after:>10.1f} {ratio:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
