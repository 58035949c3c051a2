"""`gridgit conflicts predict` (merges of agents' branches, before they happen) and `gridgit evidence check`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import json_option, output, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


def _lines(span: Any) -> str:
    if not span:
        return "-"
    start, end = span
    return str(start) if start == end else f"{start}-{end}"


def describe_prediction(prediction: Any) -> str:
    """The pairs that would conflict or overlap, file by file, and a count of all pairs."""
    out = [f"base: {prediction.base.name} ({prediction.base.commit[:10]})"]
    if not prediction.pairs:
        out.append(
            "no agent branches to compare: register agents' work trees in STATE (agents.active[].worktree) "
            "or pass --branches"
        )
        return "\n".join(out)
    for pair in prediction.pairs:
        if pair.error:
            out.append(f"error     {pair.summary()}")
            continue
        if not pair.severity:
            continue
        mark = " (new)" if pair.new else ""
        out.append(f"{pair.severity:<9} {pair.left.label()} x {pair.right.label()}{mark}")
        for item in pair.files:
            if not item.regions:
                out.append(f"  {item.path}  {item.kind}" + (f": {item.message}" if item.message else ""))
            for region in item.regions:
                out.append(
                    f"  {item.path}  {item.kind}  lines {_lines(region.left)} / {_lines(region.right)} "
                    f"(base {_lines(region.base)})  {region.function}".rstrip()
                )
    clean = len(prediction.pairs) - len(prediction.conflicts) - len(prediction.overlaps)
    out.append(
        f"{len(prediction.pairs)} merge(s): {len(prediction.conflicts)} conflict, {len(prediction.overlaps)} overlap, "
        f"{clean} clean or unknown; {prediction.announced} new prediction(s) announced"
    )
    return "\n".join(out)


@click.command("predict")
@click.argument("extra", nargs=-1, metavar="[BRANCH]...")
@click.option("--base", default=None, metavar="BRANCH", help="Merge target (config foresight.base, else main's).")
@click.option(
    "--branches",
    "branches",
    multiple=True,
    metavar="BRANCH",
    help="Compare these branches instead of the agents' (`--branches A B C`).",
)
@json_option
@with_board
def predict(
    board: Blackboard, extra: tuple[str, ...], base: str | None, branches: tuple[str, ...], as_json: bool
) -> int:
    """Predict the merges of agents' branches: exit 6 when one would conflict (git merge-tree, git 2.38+).

    Every pair of agent branches (those checked out in registered agents' work trees, or the
    BRANCHes given) and each against the base. A file git would merge cleanly but whose
    changes on both sides fall in one function is reported as an overlap (exit 0).
    """
    prediction = board.predict_conflicts(base, [*branches, *extra] or None)
    output(prediction, as_json, describe_prediction)
    from gridgit.errors import ConflictFound

    return ConflictFound.exit_code if prediction.conflicts else 0


def describe_evidence(report: Any) -> str:
    if not report.findings:
        return "no evidence with a commit to check"
    out = []
    for key, findings in report.stale_keys().items():
        source = findings[0].source
        out.append(f"stale  {key}  {source.title}" + (f" ({source.agent})" if source.agent else ""))
        for finding in findings:
            out.append(f"  {finding.describe()}")
            out += [f"    {hunk}" for hunk in finding.hunks]
    for finding in report.unverified:
        out.append(f"unverified  {finding.source.key}  {finding.citation.where()}: {'; '.join(finding.reasons)}")
    out.append(
        f"{len(report.findings)} citation(s) checked against HEAD {str(report.head)[:10]}: "
        f"{len(report.stale)} stale, {len(report.unverified)} unverified"
    )
    return "\n".join(out)


@click.group("evidence")
def evidence() -> None:
    """Evidence: the files, lines and commits entries and learnings cite."""


@evidence.command("check")
@click.option("--phase", default=None, help="This phase's entries (default: the current phase and LEARNINGS.md).")
@click.option("--learnings", is_flag=True, help="LEARNINGS.md's learnings.")
@json_option
@with_board
def check(board: Blackboard, phase: str | None, learnings: bool, as_json: bool) -> None:
    """List entries and learnings whose cited lines changed after the cited commit (or whose file went).

    Stale evidence is knowledge to review, not an error: the exit code is 0 and `validate` ignores it.
    """
    output(board.check_evidence(phase, learnings), as_json, describe_evidence)
