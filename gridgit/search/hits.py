"""Running a search: what hits must be (Filters), the hits themselves, and the SQL that ranks them.

Ranking is two queries: the first orders the document ids by `bm25()` (with the column
weights of gridgit.search.index) under the filters; the second makes `snippet()`s for the
hits shown alone, since over every match of a common word it would cost seconds.
"""

from __future__ import annotations

import sqlite3
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput, GridError, LockTimeout
from gridgit.search import index

if TYPE_CHECKING:
    from gridgit.store.layout import Layout


@dataclass
class Hit:
    """One document found: where it is, what it is, why it matched (SNIPPET, SCORE: BM25, higher is better)."""

    kind: str
    path: str
    phase: str
    number: int | None
    id: str
    category: str
    topic: str
    agent: str
    timestamp: str
    title: str
    snippet: str
    score: float
    files: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)

    def where(self) -> str:
        """`01-foundation#3 (archive)`, `LEARNINGS.md`, `memory/compressed/phase-01.md`, ..."""
        if self.kind in ("entry", "archived"):
            return f"{self.phase}#{self.number}" + (" (archive)" if self.kind == "archived" else "")
        return self.path.removeprefix(".grid/")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "where": self.where()}


@dataclass
class SearchResult:
    query: str
    match: str | None
    hits: list[Hit]
    more: bool = False  # more hits than the limit
    refreshed: int = 0  # source files read again to bring the index up to date
    problems: list[str] = field(default_factory=list)  # source files the index could not read

    def render(self) -> str:
        """Each hit: where it is, what it is, who and when; the matching words in [brackets]; its files and id."""
        lines: list[str] = []
        for hit in self.hits:
            what = " | ".join(part for part in (hit.category, hit.topic) if part)
            head = "  ".join(part for part in (hit.where(), what, hit.agent, hit.timestamp) if part)
            lines.append(head + (f"  (score {hit.score:g})" if self.match else ""))
            lines.append(f"    {hit.snippet or hit.title}")
            tail = [f"files: {', '.join(hit.files)}"] if hit.files else []
            tail += [f"id: {hit.id}"] if hit.id else []
            if tail:
                lines.append("    " + "   ".join(tail))
        count = len(self.hits)
        lines.append(f"{count} hit{'' if count == 1 else 's'}" + (" (more: raise the limit)" if self.more else ""))
        lines += [f"not searched: {problem}" for problem in self.problems]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "match": self.match,
            "hits": [h.to_dict() for h in self.hits],
            "more": self.more,
            "refreshed": self.refreshed,
            "problems": self.problems,
        }


@dataclass
class Filters:
    """What a hit must be, besides matching: checked by the caller (search.check_filters)."""

    category: str | None = None
    agent: str | None = None
    phase: str | None = None
    file: str | None = None
    since: str | None = None
    kinds: tuple[str, ...] = ()
    exclude_phase: str | None = None

    def sql(self) -> tuple[str, list[Any]]:
        clauses: list[str] = []
        values: list[Any] = []
        for column, value in (("d.category", self.category), ("d.phase", self.phase)):
            if value:
                clauses.append(f"{column} = ?")
                values.append(value)
        if self.agent:
            clauses.append("instr(d.agents, ?) > 0")
            values.append(f" {self.agent} ")
        if self.since:
            clauses.append("d.ts >= ?")
            values.append(self.since)
        if self.file:
            prefix = self.file.endswith("/")
            clauses.append(
                "d.id IN (SELECT doc FROM cites WHERE " + ("substr(file, 1, ?) = ?)" if prefix else "file = ?)")
            )
            values += [len(self.file), self.file] if prefix else [self.file]
        if self.kinds:
            clauses.append(f"d.kind IN ({', '.join('?' for _ in self.kinds)})")
            values += list(self.kinds)
        if self.exclude_phase:
            clauses.append("NOT (d.phase = ? AND d.kind = 'entry')")
            values.append(self.exclude_phase)
        return (" AND " + " AND ".join(clauses)) if clauses else "", values


_COLUMNS = "d.id, d.kind, d.path, d.phase, d.number, d.uid, d.category, d.topic, trim(d.agents), d.ts, d.refs"


def _hit(row: tuple[Any, ...], rank: float) -> Hit:
    """A hit of the docs row ROW (its title, snippet and files are filled in for the hits kept)."""
    _, kind, rel, phase, number, uid, category, topic, agents, ts, refs = row
    return Hit(kind, f".grid/{rel}", phase, number, uid, category, topic, (agents.split() or [""])[0], ts, "", "",
               round(-rank, 3) + 0.0, [], refs.split())  # fmt: skip


def _ranked(conn: sqlite3.Connection, match: str | None, filters: Filters, fetch: int) -> list[tuple[int, float]]:
    """(document id, bm25) of the best FETCH matches; the newest first without a MATCH."""
    where, values = filters.sql()
    if match is None:
        sql = f"SELECT d.id, 0.0 FROM docs AS d WHERE 1{where} ORDER BY d.ts DESC, d.id DESC LIMIT ?"
        return conn.execute(sql, [*values, fetch]).fetchall()
    weights = ", ".join(str(w) for w in index.WEIGHTS)
    sql = (f"SELECT d.id, bm25(fts, {weights}) AS rank FROM fts AS f JOIN docs AS d ON d.id = f.rowid "
           f"WHERE fts MATCH ?{where} ORDER BY rank, d.ts DESC LIMIT ?")  # fmt: skip
    try:
        return conn.execute(sql, [match, *values, fetch]).fetchall()
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc) or "MATCH" in str(exc):  # every term is quoted: this should never be
            raise BadInput(f"cannot search for {match!r}: {exc}") from None
        raise


def _texts(conn: sqlite3.Connection, match: str | None, docs: list[int]) -> dict[int, tuple[str, str]]:
    """Document id -> (title, snippet: the matching words in [brackets]; the body's start without a MATCH).

    Asked only for the hits: snippet() over every match of a common word costs seconds.
    """
    marks = ", ".join("?" for _ in docs)
    if match is None:
        sql = f"SELECT rowid, title, substr(body, 1, 160) FROM fts WHERE rowid IN ({marks})"
        rows = conn.execute(sql, docs).fetchall()
    else:
        sql = (
            f"SELECT rowid, title, snippet(fts, 4, '[', ']', '…', 24) FROM fts WHERE fts MATCH ? AND rowid IN ({marks})"
        )
        rows = conn.execute(sql, [match, *docs]).fetchall()
    return {row: (title, snippet) for row, title, snippet in rows}


def run(conn: sqlite3.Connection, match: str | None, filters: Filters, limit: int) -> tuple[list[Hit], bool]:
    """The best LIMIT hits (and whether there were more): BM25 order with a MATCH, else the newest first.

    An item of a memory file that names an entry or learning also found is left out: the
    entry says it whole.
    """
    fetch = limit * 3 + 10
    ranked = _ranked(conn, match, filters, fetch)
    marks = ", ".join("?" for _ in ranked)
    rows = {row[0]: row for row in conn.execute(f"SELECT {_COLUMNS} FROM docs AS d WHERE d.id IN ({marks})",
                                                 [doc for doc, _ in ranked])}  # fmt: skip
    found = [(doc, _hit(rows[doc], rank)) for doc, rank in ranked]
    truth = {ref for _, hit in found if hit.kind != "memory" for ref in hit.refs}
    kept: list[tuple[int, Hit]] = []
    seen: set[str] = set()
    for doc, hit in found:
        if hit.kind == "memory" and hit.refs and (truth & set(hit.refs) or set(hit.refs) <= seen):
            continue
        seen.update(hit.refs)
        kept.append((doc, hit))
    shown = kept[:limit]
    docs = [doc for doc, _ in shown]
    texts, cited = _texts(conn, match, docs), _cited(conn, docs)
    for doc, hit in shown:
        title, snippet = texts.get(doc, ("", ""))
        hit.title, hit.snippet, hit.files = title, " ".join(snippet.split()), cited.get(doc, [])
    return [hit for _, hit in shown], len(kept) > limit or len(ranked) == fetch


def _cited(conn: sqlite3.Connection, docs: list[int]) -> dict[int, list[str]]:
    """The files each of DOCS cites (one query for all of them)."""
    found: dict[int, list[str]] = {}
    if docs:
        marks = ", ".join("?" for _ in docs)
        for doc, file in conn.execute(f"SELECT doc, file FROM cites WHERE doc IN ({marks}) ORDER BY rowid", docs):
            found.setdefault(doc, []).append(file)
    return found


def execute(layout: Layout, match: str | None, filters: Filters, limit: int) -> tuple[list[Hit], bool, int, list[str]]:
    """Refresh the index and run the query: (hits, more, files read again, files left out).

    A corrupt index is deleted and built again, once.
    """
    for fresh in (False, True):
        conn = index.connect(layout, fresh=fresh)
        try:
            refreshed = index.refresh(conn, layout)
            hits, more = run(conn, match, filters, limit)
            return hits, more, refreshed, index.problems(conn)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):  # another process held it past the lock timeout
                raise LockTimeout(f"{index.path(layout)}: the search index is busy ({exc})") from None
            if fresh:
                raise GridError(f"{index.path(layout)}: the search index failed ({exc})") from None
        except sqlite3.DatabaseError as exc:  # a corrupt file: built again from the files, once
            if fresh:
                raise GridError(f"{index.path(layout)}: the search index failed ({exc})") from None
        finally:
            conn.close()
    raise AssertionError("unreachable")  # pragma: no cover
