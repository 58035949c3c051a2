"""The search index: SQLite FTS5 (the standard library's sqlite3) in `.grid/.cache/search.sqlite3`.

A cache, machine-local and never synced (`.grid/.gitignore` has `.cache/`, and the folder a
`.gitignore` of its own, so not even an older Blackboard's snapshot takes it). It follows the
files, not the writes: each search stats the source files (sources.SOURCES) and re-reads the
ones whose inode, mtime or size changed since they were indexed, in one transaction, so a
`gridgit write` pays nothing and a search after N writes re-reads the files they touched. A
file's stamp is taken before it is read: a file replaced meanwhile is read again next time,
never missed. A missing index is built, one of another schema rebuilt, a corrupt one (a
truncated or overwritten file: sqlite3.DatabaseError) deleted and built again.

It is written without fsyncs (`synchronous=OFF`) and with a rollback journal, not WAL: a cache
that a power cut may cost is rebuilt, and WAL would checkpoint on every close (measured: a search
after a write took 48 ms with WAL, 18 ms without). SQLite docs: FTS5 and its bm25() and snippet()
functions, https://www.sqlite.org/fts5.html; PRAGMA synchronous and journal_mode,
https://www.sqlite.org/pragma.html.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import sqlite3
from pathlib import Path

from gridgit.errors import BadInput, GridError
from gridgit.search.sources import SOURCES, Doc, Source
from gridgit.store import fileio, locks, progress
from gridgit.store.layout import Layout

FILE_NAME = "search.sqlite3"
SCHEMA_VERSION = 2
# Column weights of bm25(): a word in the title or topic says more than one in the body.
COLUMNS = ("title", "topic", "tags", "files", "body")
WEIGHTS = (4.0, 3.0, 3.0, 2.0, 1.0)
_SCHEMA = (
    "CREATE TABLE files(path TEXT PRIMARY KEY, stamp TEXT NOT NULL, problem TEXT NOT NULL)",
    "CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL,"
    " phase TEXT NOT NULL, number INTEGER, uid TEXT NOT NULL, refs TEXT NOT NULL, category TEXT NOT NULL,"
    " topic TEXT NOT NULL, agents TEXT NOT NULL, ts TEXT NOT NULL, relevance TEXT NOT NULL)",
    "CREATE INDEX docs_path ON docs(path)",
    "CREATE INDEX docs_ts ON docs(ts)",
    "CREATE TABLE cites(doc INTEGER NOT NULL, file TEXT NOT NULL)",
    "CREATE INDEX cites_file ON cites(file)",
    "CREATE INDEX cites_doc ON cites(doc)",
    # unicode61 folds case and, with remove_diacritics 2, accents; prefix indexes make `cook*` cheap.
    "CREATE VIRTUAL TABLE fts USING fts5(" + ", ".join(COLUMNS) + ","
    " tokenize='unicode61 remove_diacritics 2', prefix='2 3')",
)


def path(layout: Layout) -> Path:
    return layout.cache_dir / FILE_NAME


def _remove(database: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{database}{suffix}")


def _open(database: Path) -> sqlite3.Connection:
    """A connection to an index of this schema (made when the file is new); DatabaseError when corrupt."""
    conn = sqlite3.connect(database, timeout=locks.default_timeout(), isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=TRUNCATE")
        conn.execute("PRAGMA synchronous=OFF")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            conn.execute("BEGIN IMMEDIATE")
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have made it
            if version == 0:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
            if version not in (0, SCHEMA_VERSION):
                raise sqlite3.DatabaseError(f"schema version {version}, not {SCHEMA_VERSION}")
        return conn
    except BaseException:
        conn.close()
        raise


def connect(layout: Layout, fresh: bool = False) -> sqlite3.Connection:
    """The index of LAYOUT's Blackboard (FRESH: deleted and built anew first); in memory, for this search only,
    where this user may not write .grid/ (a read-only checkout), with a warning saying so."""
    folder = layout.cache_dir
    writable = os.access(folder if folder.is_dir() else layout.grid, os.W_OK)
    if writable and path(layout).exists():
        writable = os.access(path(layout), os.W_OK)
    if not writable:
        import logging

        logging.getLogger("gridgit.search").warning(
            "gridgit: warning: %s is read-only for this user: the search index is built in memory, for this search",
            layout.grid,
        )
        return _open(Path(":memory:"))
    if not folder.is_dir():
        folder.mkdir(exist_ok=True)
        # Ignored by git even where .grid/.gitignore predates `.cache/`: never in a snapshot.
        fileio.atomic_write(folder / ".gitignore", "*\n", durable=False)
    database = path(layout)
    if fresh:
        _remove(database)
    try:
        return _open(database)
    except sqlite3.DatabaseError:
        _remove(database)  # corrupt, or another schema: the files are the truth, build it again
        try:
            return _open(database)
        except sqlite3.DatabaseError as exc:
            raise GridError(f"{database}: cannot make the search index ({exc})") from None


# Folders of .grid/ that hold no source file: walked past (the event log, caches, machine-local state).
_SKIPPED = frozenset({"events", ".cache", ".daemon", ".git"})
_PATTERNS = [(re.compile(fnmatch.translate(source.pattern)), source) for source in SOURCES]


def _stamps(layout: Layout) -> dict[str, tuple[str, Source]]:
    """Every source file (path inside .grid/) with its stamp (inode, mtime, size) and its source.

    One scandir per folder, not a glob per source: this runs before every search.
    """
    found: dict[str, tuple[str, Source]] = {}
    folders = [(str(layout.grid), "")]
    while folders:
        folder, prefix = folders.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for item in entries:
            rel = prefix + item.name
            if item.is_dir(follow_symlinks=False):
                if item.name not in _SKIPPED:
                    folders.append((item.path, rel + "/"))
                continue
            source = next((src for pattern, src in _PATTERNS if pattern.match(rel)), None)
            if source is None or not item.is_file(follow_symlinks=False):
                continue  # gridgit never follows a symlink in .grid/
            try:
                info = item.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            found[rel] = (f"{info.st_ino}:{info.st_mtime_ns}:{info.st_size}", source)
    return found


def _forget(conn: sqlite3.Connection, rel: str) -> None:
    conn.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE path = ?)", (rel,))
    conn.execute("DELETE FROM cites WHERE doc IN (SELECT id FROM docs WHERE path = ?)", (rel,))
    conn.execute("DELETE FROM docs WHERE path = ?", (rel,))
    conn.execute("DELETE FROM files WHERE path = ?", (rel,))


def _insert(conn: sqlite3.Connection, rel: str, docs: list[Doc]) -> None:
    """The documents of file REL, in three batched inserts (ids given here, so the three tables agree)."""
    first = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
    numbered = list(enumerate(docs, start=first))
    conn.executemany(
        "INSERT INTO docs(id, path, kind, phase, number, uid, refs, category, topic, agents, ts, relevance)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(row, rel, d.kind, d.phase, d.number, d.uid, " ".join(d.refs), d.category, d.topic,
          f" {' '.join(d.agents)} ", d.timestamp, d.relevance) for row, d in numbered],
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO fts(rowid, title, topic, tags, files, body) VALUES (?, ?, ?, ?, ?, ?)",
        [(row, d.title, d.topic, " ".join(d.tags), " ".join(d.files), d.body) for row, d in numbered],
    )
    conn.executemany(
        "INSERT INTO cites(doc, file) VALUES (?, ?)",
        [(row, file) for row, d in numbered for file in dict.fromkeys(d.files)],
    )


def _documents(layout: Layout, rel: str, source: Source) -> tuple[list[Doc], str]:
    """(the documents of file REL, the problem that kept it out); a vanished file has none and no problem."""
    try:
        return source.documents(rel, fileio.read_text(layout.grid / rel)), ""
    except FileNotFoundError:
        return [], ""
    except (BadInput, UnicodeDecodeError, RecursionError) as exc:
        return [], str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def refresh(conn: sqlite3.Connection, layout: Layout) -> int:
    """Bring the index up to the files; returns how many files were read again."""
    current = _stamps(layout)
    known = dict(conn.execute("SELECT path, stamp FROM files").fetchall())
    if known.keys() == current.keys() and all(known[p] == stamp for p, (stamp, _) in current.items()):
        return 0
    read = 0
    conn.execute("BEGIN IMMEDIATE")  # one refresher at a time; the others wait, then find little to do
    try:
        known = dict(conn.execute("SELECT path, stamp FROM files").fetchall())
        for rel in sorted(known.keys() - current.keys()):
            _forget(conn, rel)
        stale = [(rel, item) for rel, item in sorted(current.items()) if known.get(rel) != item[0]]
        for rel, (stamp, source) in stale:
            _forget(conn, rel)
            docs, problem = _documents(layout, rel, source)
            _insert(conn, rel, docs)
            conn.execute("INSERT INTO files(path, stamp, problem) VALUES (?, ?, ?)", (rel, stamp, problem))
            read += 1
            progress.step("indexing .grid/ for search (files)", read, len(stale))
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    return read


def problems(conn: sqlite3.Connection) -> list[str]:
    """`.grid/PATH: what is wrong` of each source file the index could not read (it holds none of it)."""
    rows = conn.execute("SELECT path, problem FROM files WHERE problem != '' ORDER BY path").fetchall()
    return [problem if problem.startswith(".grid/") else f".grid/{rel}: {problem}" for rel, problem in rows]
