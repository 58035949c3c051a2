"""Run the benchmarks and print one table (and the same as JSON with --json)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks import suite
from benchmarks.harness import Config, Row, fmt, workspace


def render_table(rows: list[Row]) -> str:
    header = ("operation", "n", "p50", "p95", "target", "verdict")
    body = [
        (r.operation, str(r.n), fmt(r.p50, r.unit), fmt(r.p95, r.unit), r.target_text() or "-", r.verdict) for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    right = {1, 2, 3}

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(cells) for cells in body]
    notes = [f"  {r.operation}: {r.error or r.note}" for r in rows if r.error or r.note]
    if notes:
        out += ["", "notes:", *notes]
    return "\n".join(out)


def report(rows: list[Row], cfg: Config, seconds: float) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "quick": cfg.quick,
        "started_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seconds": round(seconds, 1),
        "machine": {
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "loadavg": os.getloadavg(),
        },
        "rows": [r.to_dict() for r in rows],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes and repeats: a smoke test (< 60 s)")
    parser.add_argument("--json", metavar="FILE", help="also write the table as JSON to FILE")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="benchmarks or groups to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list benchmarks and groups, then exit")
    parser.add_argument("-q", "--silent", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)

    if args.list:
        for bench in suite.load_all().values():
            print(f"{bench.name:18} {bench.group:12} {bench.title}")
        return 0
    cfg = Config(quick=args.quick)
    selected = suite.select(args.only)

    def log(message: str) -> None:
        if not args.silent:
            print(message, file=sys.stderr, flush=True)

    start = time.perf_counter()
    rows: list[Row] = []
    with workspace() as ws:
        for bench in selected:
            rows += suite.run_one(bench, cfg, ws, log)
    seconds = time.perf_counter() - start
    print(render_table(rows))
    print(
        f"\n{len(rows)} rows in {seconds:.0f} s{' (--quick)' if cfg.quick else ''}; load average {os.getloadavg()[0]:.2f}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(report(rows, cfg, seconds), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
