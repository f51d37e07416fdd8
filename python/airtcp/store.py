"""The results store: one SQLite database (WAL mode) holding every run of every sweep.

A run is keyed by ``(scenario_hash, seed)``: the SHA-256 of the fully resolved scenario (grid
point applied, seed left out, see :meth:`airtcp.Scenario.hash`) and the seed it ran with. Only
the process that drives a sweep writes; it commits the runs of each finished task (a chunk of
runs) in one transaction before it counts them as done, so killing the sweep at any moment
loses at most the runs that were in flight, and never leaves a half-written or duplicated run
(the key is the primary key of every table).

Tables
------

``runs``        one row per run: key, status (``ok``/``failed``), error, grid point (JSON),
                full scenario (JSON), run-level results (events, packet_hops, fairness,
                duration_s, packets and drops as JSON, the whole summary as JSON), airtcp
                version, wall time, finish time, the sweep that first ran it, and the name of
                its time-series file (when it recorded any)
``flows``       one row per flow of an ``ok`` run: the run key plus every column of the
                result's flow table
``links``       one row per link direction of an ``ok`` run, likewise; both carry
                ``backend``: ``sim`` (simulated) or ``linux`` (kernel TCP, emulated links)
(any other)     every other table the core reports (``agents``, ...), created when a run first
                carries it: the run key, ``row`` (position in the result) and its columns
``sweeps``      one row per named sweep: its base scenario, grid and seeds
``sweep_runs``  which runs belong to which sweep, with the grid point they came from

Columns of ``flows`` and ``links`` follow the core's result tables: a column the core starts
reporting is added to the table when a run first carries it (older rows read as null).

Time series (cwnd, queue) go beside the database, in ``<db stem>-series/<hash>-<seed>.parquet``,
one long table per run with columns ``kind`` (``cwnd``/``queue``), ``name``, ``t``, ``value``
and ``ssthresh``.
"""

from __future__ import annotations

import datetime as _dt
import functools
import itertools
import json
import os
import re
import sqlite3
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .result import SERIES_COLUMNS, result_tables, series_frame

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

__all__ = ["MixedSweepsWarning", "RunRecord", "Store", "StoreError", "run_key", "run_record"]

SCHEMA_VERSION = 1

#: run-level columns of ``runs`` besides the key, in order
RUN_COLUMNS = (
    "status",
    "error",
    "error_kind",
    "name",
    "sweep",
    "params",
    "scenario",
    "events",
    "packet_hops",
    "fairness",
    "duration_s",
    "packets",
    "drops",
    "summary",
    "airtcp_version",
    "wall_s",
    "finished_at",
    "series",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs (
    scenario_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    error_kind TEXT,
    name TEXT,
    sweep TEXT,
    params TEXT NOT NULL,
    scenario TEXT NOT NULL,
    events INTEGER,
    packet_hops INTEGER,
    fairness REAL,
    duration_s REAL,
    packets TEXT,
    drops TEXT,
    summary TEXT,
    airtcp_version TEXT,
    wall_s REAL,
    finished_at TEXT,
    series TEXT,
    PRIMARY KEY (scenario_hash, seed)
);
CREATE TABLE IF NOT EXISTS flows (
    scenario_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (scenario_hash, seed, name)
);
CREATE TABLE IF NOT EXISTS links (
    scenario_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (scenario_hash, seed, name)
);
CREATE TABLE IF NOT EXISTS sweeps (
    name TEXT PRIMARY KEY,
    base_scenario TEXT NOT NULL,
    grid TEXT NOT NULL,
    seeds TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sweep_runs (
    sweep TEXT NOT NULL,
    scenario_hash TEXT NOT NULL,
    seed INTEGER NOT NULL,
    params TEXT NOT NULL,
    PRIMARY KEY (sweep, scenario_hash, seed)
);
CREATE INDEX IF NOT EXISTS sweep_runs_key ON sweep_runs (scenario_hash, seed);
"""

_KEY_COLUMNS = ("scenario_hash", "seed")
# Keys of a result row that are not columns of its own: the store sets them.
_NOT_DATA = frozenset((*_KEY_COLUMNS, "row"))
# Cell values SQLite takes as they are (see _cell).
_SCALARS = frozenset((type(None), bool, int, float, str))
# Tables of the store itself; every other table holds one kind of result row.
_OWN_TABLES = ("runs", "sweeps", "sweep_runs", "meta")
_TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class StoreError(Exception):
    """The store cannot be opened or does not hold what was asked for."""


class MixedSweepsWarning(UserWarning):
    """Rows of several sweeps (possibly of different base scenarios) were read together."""


def run_key(scenario_hash: str, seed: int) -> str:
    """The text form of a run key, used for series file names: ``<hash>-<seed>``."""
    return f"{scenario_hash}-{int(seed)}"


class RunRecord(NamedTuple):
    """A finished run as the store writes it (see :func:`run_record`): the ``runs`` row
    without its grid point, scenario, sweep and series file, and every result table's rows.
    Sweep workers build these, so the driving process only inserts them."""

    scenario_hash: str
    seed: int
    status: str
    error: str | None
    error_kind: str | None
    name: str | None
    events: int | None
    packet_hops: int | None
    fairness: float | None
    duration_s: float | None
    packets: str | None
    drops: str | None
    summary: str | None
    airtcp_version: str | None
    wall_s: float | None
    finished_at: str
    #: (table, its columns after scenario_hash, seed and row, full rows)
    tables: tuple[tuple[str, tuple[str, ...], list[tuple[Any, ...]]], ...]


def run_record(
    *,
    scenario_hash: str,
    seed: int,
    scenario: str,
    status: str,
    raw: Mapping[str, Any] | None = None,
    error: str | None = None,
    error_kind: str | None = None,
    airtcp_version: str | None = None,
    wall_s: float | None = None,
) -> RunRecord:
    """A run's outcome (``raw`` is the core's result) in the form :meth:`Store.record_many`
    writes: every value the store holds, nested values already JSON text. ``scenario`` (JSON)
    names a run that failed before it had a result."""
    if status not in ("ok", "failed"):
        raise ValueError(f"status must be 'ok' or 'failed', got {status!r}")
    raw = raw or {}
    if status == "ok" and raw.get("partial"):
        raise ValueError("a partial result (a run stopped before its end) is never a complete run")
    seed = int(seed)
    tables = result_tables(raw)
    summary = {k: v for k, v in raw.items() if k not in tables and k != "series"}
    # Which stack produced the rows: the simulator, or kernel TCP over the emulator
    # (airtcp.emulate), so one store holds both and tells them apart.
    backend = raw.get("backend", "sim")
    for t in ("flows", "links"):
        if t in tables:
            tables[t] = [r if "backend" in r else {**r, "backend": backend} for r in tables[t]]
    out_tables = []
    for t, items in tables.items():
        if status != "ok":
            out_tables.append((t, (), []))  # the table exists, the failed run has no rows
            continue
        # Columns in order of first appearance; map/set calls keep the per-value work in C.
        names = tuple(
            k for k in dict.fromkeys(itertools.chain.from_iterable(items)) if k not in _NOT_DATA
        )
        rows = []
        for i, it in enumerate(items):
            vals = tuple(map(it.get, names))
            if not _SCALARS.issuperset(map(type, vals)):
                vals = tuple(map(_cell, vals))
            rows.append((scenario_hash, seed, i, *vals))
        out_tables.append((t, names, rows))
    return RunRecord(
        scenario_hash,
        seed,
        status,
        error,
        error_kind,
        raw.get("name") or _scenario_name(scenario),
        raw.get("events"),
        raw.get("packet_hops"),
        raw.get("fairness"),
        raw.get("duration_s"),
        json.dumps(raw["packets"]) if "packets" in raw else None,
        json.dumps(raw["drops"]) if "drops" in raw else None,
        json.dumps(summary) if raw else None,
        airtcp_version,
        wall_s,
        _now(),
        tuple(out_tables),
    )


# The runs row of a record: its key, then what the driver adds, then the rest of the record.
_N_FIRST = 2
_INSERT_RUN_COLUMNS = (
    *RunRecord._fields[:_N_FIRST],
    "params",
    "scenario",
    "sweep",
    "series",
    *RunRecord._fields[_N_FIRST:-1],
)
assert set(_INSERT_RUN_COLUMNS) == {*_KEY_COLUMNS, *RUN_COLUMNS}
_INSERT_RUN = (
    f"INSERT OR REPLACE INTO runs ({', '.join(_INSERT_RUN_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _INSERT_RUN_COLUMNS)})"
)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def _qi(name: str) -> str:
    """Quote an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _cell(v: Any) -> Any:
    """A value as SQLite stores it: nested values as JSON text."""
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, sort_keys=True)
    return v


_PLAIN_KINDS: dict[type, str | None] = {
    type(None): None,
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
}


def _column(values: list[Any]) -> tuple[list[Any], Any]:
    """Values of one column and the polars dtype that holds them all without loss: numbers
    (ints become floats when mixed with floats), booleans, text; anything mixed as JSON text."""
    import polars as pl

    types = set(map(type, values))
    if types <= _PLAIN_KINDS.keys():
        # What SQLite hands back: the kinds follow from the exact types, found in C.
        kinds = {_PLAIN_KINDS[t] for t in types} - {None}
    else:
        kinds = set()
        for v in values:
            if v is None:
                continue
            if isinstance(v, bool):
                kinds.add("bool")
            elif isinstance(v, int):
                kinds.add("int")
            elif isinstance(v, float):
                kinds.add("float")
            elif isinstance(v, str):
                kinds.add("str")
            else:
                kinds.add("json")
    if not kinds:
        return values, pl.Float64
    if kinds == {"int"}:
        return values, pl.Int64
    if kinds <= {"int", "float"}:
        return [None if v is None else float(v) for v in values], pl.Float64
    if kinds == {"bool"}:
        return values, pl.Boolean
    if kinds == {"str"}:
        return values, pl.Utf8
    return [
        None if v is None else (v if isinstance(v, str) else json.dumps(v, sort_keys=True))
        for v in values
    ], pl.Utf8


def frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> pl.DataFrame:
    """A polars DataFrame from dict rows, with one stable dtype per column (see ``_column``)."""

    if columns is None:
        seen: dict[str, None] = {}
        for r in rows:
            for k in r:
                seen.setdefault(k, None)
        columns = list(seen)
    return _frame_columns(columns, [[r.get(c) for r in rows] for c in columns])


def _frame_columns(names: Sequence[str], columns: Sequence[list[Any]]) -> pl.DataFrame:
    """A polars DataFrame from columns of values, typed as :func:`frame` types them."""
    import polars as pl

    series = []
    for c, values in zip(names, columns, strict=True):
        vals, dtype = _column(values)
        series.append(pl.Series(c, vals, dtype=dtype))
    return pl.DataFrame(series)


class Store:
    """A results store at ``path`` (an SQLite file; created unless ``create=False``).

    Readers: :meth:`runs`, :meth:`flows`, :meth:`links` return polars DataFrames in one call,
    optionally restricted to one sweep (``sweep="name"``) or to given run keys; the grid point
    of each run is spread into one column per swept path (``links.R2-D1.error.per``, ...).
    :meth:`series` reads a run's stored time series.
    """

    def __init__(self, path: str | os.PathLike[str], *, create: bool = False) -> None:
        self.path = Path(path)
        #: result table -> columns known to exist (see _ensure_columns)
        self._known: dict[str, set[str]] = {}
        if not create and not self.path.is_file():
            # A mistyped path must not quietly become an empty store.
            raise StoreError(
                f"{self.path}: no such store (Store(path, create=True) makes a new one)"
            )
        if create and self.path.parent != Path(""):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # Autocommit mode: transactions are opened explicitly (BEGIN IMMEDIATE) around
            # each write so a run is all-or-nothing.
            self._db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            # Another program's database is left exactly as it is: check before any write
            # (even the journal mode is a change to the file).
            names = {
                r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if names and "meta" not in names:
                self._db.close()
                raise StoreError(
                    f"{self.path}: an SQLite database, but not an airtcp store (it has tables "
                    "and no airtcp metadata); nothing was changed"
                )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            if create:
                self._db.executescript(_SCHEMA)
                self._db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)",
                    (str(SCHEMA_VERSION),),
                )
            ver = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not an airtcp store, or damaged ({e})") from None
        if ver is None or int(ver[0]) != SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: store schema version {ver[0] if ver else '?'} is not "
                f"{SCHEMA_VERSION}, the version this airtcp reads"
            )

    # -- housekeeping ---------------------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def leave_checkpoints(self) -> None:
        """This connection's commits no longer copy the write-ahead log into the database
        when it grows past SQLite's threshold (1000 pages); another connection calls
        :meth:`checkpoint`. A sweep's workers leave it to the driver, which mostly waits:
        a checkpoint ends with an fsync, tens of milliseconds a worker would stand idle."""
        self._db.execute("PRAGMA wal_autocheckpoint=0")

    def checkpoint(self) -> None:
        """Copy what the write-ahead log holds into the database, without waiting for (or
        holding up) writers: what they commit meanwhile waits for the next checkpoint."""
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    @property
    def series_dir(self) -> Path:
        """The directory beside the database that holds time-series Parquet files."""
        return self.path.with_name(self.path.stem + "-series")

    def _columns(self, table: str) -> list[str]:
        return [r[1] for r in self._db.execute(f"PRAGMA table_info({_qi(table)})")]

    def tables(self) -> list[str]:
        """The result tables this store holds (``flows``, ``links``, ``agents``, ...)."""
        rows = self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid"
        ).fetchall()
        return [r[0] for r in rows if r[0] not in _OWN_TABLES and not r[0].startswith("sqlite_")]

    def _ensure_table(self, table: str, names: Sequence[str] = ()) -> None:
        """Create a result table the first time the core reports it, with the columns
        ``names`` (in one statement: a column added later costs a schema change of its
        own); rows are keyed by run and their position in the result."""
        if table in self._known:
            return
        if not _TABLE_NAME.match(table) or table in _OWN_TABLES:
            raise StoreError(f"{self.path}: result table name {table!r} is not allowed")
        data = "".join(f"{_qi(n)}, " for n in names)
        self._db.execute(
            f"CREATE TABLE IF NOT EXISTS {_qi(table)} (scenario_hash TEXT NOT NULL, "
            f"seed INTEGER NOT NULL, row INTEGER NOT NULL, {data}"
            "PRIMARY KEY (scenario_hash, seed, row))"
        )
        # flows and links exist from the start, without these: one rebuild gives them all.
        self._ensure_columns(table, ["row", *names])

    def _ensure_columns(self, table: str, names: Iterable[str]) -> None:
        # Columns are never dropped, so a column seen once stays; only a miss reads the
        # schema again (another process may have added it meanwhile).
        names = list(names)
        have = self._known.get(table)
        if have is not None and have.issuperset(names):
            return
        have = set(self._columns(table))
        missing = [n for n in dict.fromkeys(names) if n not in have]
        if len(missing) > 1 and self._rebuild_empty(table, missing):
            have.update(missing)
        for n in missing:
            if n not in have:
                self._db.execute(f"ALTER TABLE {_qi(table)} ADD COLUMN {_qi(n)}")
                have.add(n)
        self._known[table] = have

    def _rebuild_empty(self, table: str, more: Sequence[str]) -> bool:
        """Give an empty table the columns ``more`` after its own by creating it again: one
        schema change where adding them one by one takes one each (about 0.2 ms apiece, 70
        for a fresh store's flows and links, while the other writers wait). False, and
        nothing done, if the table has rows or indexes of its own."""
        t = _qi(table)
        if self._db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() is not None:
            return False
        indexes = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            (table,),
        ).fetchone()
        if indexes is not None:
            return False
        info = self._db.execute(f"PRAGMA table_info({t})").fetchall()
        cols = []
        for _, name, type_, notnull, default, _ in info:
            col = _qi(name) + (f" {type_}" if type_ else "") + (" NOT NULL" if notnull else "")
            cols.append(col + ("" if default is None else f" DEFAULT {default}"))
        cols += [_qi(n) for n in more]
        key = [_qi(r[1]) for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        if key:
            cols.append(f"PRIMARY KEY ({', '.join(key)})")
        self._db.execute(f"DROP TABLE {t}")
        self._db.execute(f"CREATE TABLE {t} ({', '.join(cols)})")
        return True

    # -- writing (the sweep driver only) --------------------------------------------------------

    def register_sweep(
        self,
        name: str,
        *,
        base_scenario: str,
        grid: Mapping[str, Sequence[Any]],
        seeds: Sequence[int],
        members: Iterable[tuple[str, int, str]],
        replace: bool = False,
    ) -> None:
        """Record a sweep and the runs it is made of: ``members`` are ``(scenario_hash, seed,
        params JSON)``. Registering it again with the same base scenario and grid adds members
        (more seeds). With another base scenario or grid it is refused, since the two sweeps'
        runs would mix under one name, unless ``replace`` (the new definition's members
        replace the old ones; their runs stay in the store)."""
        now = _now()
        old = self._db.execute(
            "SELECT base_scenario, grid FROM sweeps WHERE name = ?", (name,)
        ).fetchone()
        changed = old is not None and (
            old[0] != base_scenario or json.loads(old[1]) != json.loads(json.dumps(grid))
        )
        if changed and not replace:
            what = "base scenario" if old[0] != base_scenario else "grid"
            raise StoreError(
                f"{self.path}: a sweep named {name!r} already exists with another {what}; "
                "its runs would mix with this one's. Give this sweep another name (--name) "
                "or use another store."
            )
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            if changed:
                cur.execute("DELETE FROM sweep_runs WHERE sweep = ?", (name,))
            cur.execute(
                "INSERT INTO sweeps (name, base_scenario, grid, seeds, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                "base_scenario = excluded.base_scenario, grid = excluded.grid, "
                "seeds = excluded.seeds, updated_at = excluded.updated_at",
                (name, base_scenario, json.dumps(grid), json.dumps(list(seeds)), now, now),
            )
            cur.executemany(
                "INSERT OR IGNORE INTO sweep_runs (sweep, scenario_hash, seed, params) "
                "VALUES (?, ?, ?, ?)",
                ((name, h, int(s), p) for h, s, p in members),
            )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    def record(
        self,
        *,
        scenario_hash: str,
        seed: int,
        params: str,
        scenario: str,
        status: str,
        raw: Mapping[str, Any] | None = None,
        error: str | None = None,
        error_kind: str | None = None,
        airtcp_version: str | None = None,
        wall_s: float | None = None,
        sweep: str | None = None,
        series: str | None = None,
    ) -> None:
        """Write one finished run (replacing an earlier attempt) in a single transaction."""
        rec = run_record(
            scenario_hash=scenario_hash,
            seed=seed,
            scenario=scenario,
            status=status,
            raw=raw,
            error=error,
            error_kind=error_kind,
            airtcp_version=airtcp_version,
            wall_s=wall_s,
        )
        self.record_many([(rec, params, scenario, sweep, series)])

    def record_many(
        self, runs: Iterable[tuple[RunRecord, str, str, str | None, str | None]]
    ) -> None:
        """Write finished runs, each ``(record, params, scenario, sweep, series file)`` with the
        record from :func:`run_record`, replacing earlier attempts, in one transaction: after
        a crash either all of them are in the store or none is. A key given twice keeps its
        last record."""
        latest: dict[tuple[str, int], tuple[RunRecord, str, str, str | None, str | None]] = {}
        for r in runs:
            latest[(r[0].scenario_hash, r[0].seed)] = r
        if not latest:
            return
        keys = list(latest)
        run_rows = []
        # (table, columns) -> rows; records of one sweep share a few column lists, so each
        # becomes one executemany.
        groups: dict[tuple[str, tuple[str, ...]], list[tuple[Any, ...]]] = {}
        for rec, params, scenario, sweep, series in latest.values():
            run_rows.append((*rec[:_N_FIRST], params, scenario, sweep, series, *rec[_N_FIRST:-1]))
            for t, names, rows in rec.tables:
                g = groups.get((t, names))
                if g is None:
                    g = groups[(t, names)] = []
                g.extend(rows)
        cur = self._db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for t, names in groups:
                self._ensure_table(t, names)
                if names:
                    self._ensure_columns(t, names)
            for t in self.tables():
                cur.executemany(_delete_sql(t), keys)
            cur.executemany(_INSERT_RUN, run_rows)
            for (t, names), rows in groups.items():
                if rows:
                    cur.executemany(_insert_sql(t, names), rows)
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            # Tables and columns added in the transaction are gone again.
            self._known.clear()
            raise

    def write_series(self, scenario_hash: str, seed: int, series: Mapping[str, Any]) -> str | None:
        """Write a run's time series (the core's ``series`` object) as Parquet beside the
        database; returns the file name, or None when the run recorded nothing. The file is
        written under a temporary name and renamed, so it is complete or absent."""
        df = series_frame(series)
        if df is None:
            return None
        d = self.series_dir
        d.mkdir(parents=True, exist_ok=True)
        fname = run_key(scenario_hash, seed) + ".parquet"
        tmp = d / (fname + f".tmp{os.getpid()}")
        df.write_parquet(tmp)
        os.replace(tmp, d / fname)
        return fname

    # -- reading --------------------------------------------------------------------------------

    def status(self, keys: Iterable[tuple[str, int]] | None = None) -> dict[tuple[str, int], str]:
        """``{(scenario_hash, seed): status}`` of stored runs (all, or those among ``keys``)."""
        rows = self._db.execute("SELECT scenario_hash, seed, status FROM runs").fetchall()
        out = {(h, int(s)): st for h, s, st in rows}
        if keys is None:
            return out
        return {k: out[k] for k in ((h, int(s)) for h, s in keys) if k in out}

    def has_series(self, keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], bool]:
        """Whether each stored run among ``keys`` has a time-series file."""
        rows = self._db.execute("SELECT scenario_hash, seed, series FROM runs").fetchall()
        have = {(h, int(s)): bool(f) for h, s, f in rows}
        return {k: have[k] for k in ((h, int(s)) for h, s in keys) if k in have}

    def sweeps(self) -> pl.DataFrame:
        """The named sweeps in the store, with their grids, seeds and run counts."""
        rows = self._db.execute(
            "SELECT s.name, s.grid, s.seeds, s.created_at, s.updated_at, "
            "COUNT(m.seed), SUM(r.status = 'ok'), SUM(r.status = 'failed') "
            "FROM sweeps s LEFT JOIN sweep_runs m ON m.sweep = s.name "
            "LEFT JOIN runs r ON r.scenario_hash = m.scenario_hash AND r.seed = m.seed "
            "GROUP BY s.name ORDER BY s.created_at, s.name"
        ).fetchall()
        cols = ["sweep", "grid", "seeds", "created_at", "updated_at", "runs", "ok", "failed"]
        counts = [[*r[:5], int(r[5] or 0), int(r[6] or 0), int(r[7] or 0)] for r in rows]
        return frame(
            [dict(zip(cols, c, strict=True)) for c in counts],
            cols,
        )

    def sweep_info(self, name: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT base_scenario, grid, seeds, created_at, updated_at FROM sweeps WHERE name = ?",
            (name,),
        ).fetchone()
        if row is None:
            return None
        return {
            "name": name,
            "base_scenario": json.loads(row[0]),
            "grid": json.loads(row[1]),
            "seeds": json.loads(row[2]),
            "created_at": row[3],
            "updated_at": row[4],
        }

    def _select(
        self,
        table: str,
        *,
        sweep: str | None,
        keys: Iterable[tuple[str, int]] | None,
        status: str | None,
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Rows of ``table`` joined with their run's grid point (``_params``)."""
        if sweep is not None and self.sweep_info(sweep) is None:
            known = ", ".join(self.sweeps()["sweep"].to_list()) or "none"
            raise StoreError(f"{self.path}: no sweep named {sweep!r} (sweeps: {known})")
        cols = self._columns(table)
        sel = ", ".join(f"t.{_qi(c)}" for c in cols)
        where: list[str] = []
        args: list[Any] = []
        joins: list[str] = []
        # The sweep each row comes from: the named one, or the sweep that first ran the run.
        if table == "runs":
            params = "t.params"
            if status is not None:
                where.append("t.status = ?")
                args.append(status)
        else:
            params = "r.params"
            joins.append("JOIN runs r ON r.scenario_hash = t.scenario_hash AND r.seed = t.seed")
            where.append("r.status = 'ok'")
            sel += ", m.sweep" if sweep is not None else ", r.sweep"
            cols = [*cols, "sweep"]
        if sweep is not None:
            params = "m.params"
            joins.append(
                "JOIN sweep_runs m ON m.scenario_hash = t.scenario_hash AND m.seed = t.seed"
            )
            where.append("m.sweep = ?")
            args.append(sweep)
        join = " ".join(joins)
        sql = f"SELECT {sel}, {params} FROM {_qi(table)} t {join}"
        if keys is not None:
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS _want (h TEXT, s INTEGER)")
            self._db.execute("DELETE FROM _want")
            self._db.executemany(
                "INSERT INTO _want (h, s) VALUES (?, ?)", ((h, int(s)) for h, s in keys)
            )
            sql += " JOIN _want w ON w.h = t.scenario_hash AND w.s = t.seed"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY t.rowid"
        rows = self._db.execute(sql, args).fetchall()
        return cols, rows

    def _table(
        self,
        table: str,
        *,
        sweep: str | None = None,
        keys: Iterable[tuple[str, int]] | None = None,
        status: str | None = None,
        params: bool = True,
        warn: bool = True,
    ) -> pl.DataFrame:
        if warn and sweep is None and keys is None:
            self._warn_if_mixed(table)
        cols, rows = self._select(table, sweep=sweep, keys=keys, status=status)
        # The runs of one grid point share their params text: parse each text once.
        parsed: dict[str, dict[str, Any]] = {}
        points = []
        for r in rows:
            text = r[-1]
            p = parsed.get(text) if text else {}
            if p is None:
                p = parsed[text] = json.loads(text)
            points.append(p)
        pcols: dict[str, None] = {}
        if params:
            for p in parsed.values():
                for k in p:
                    pcols.setdefault(k, None)
        out_cols = list(cols)
        renamed = {}
        for k in pcols:
            name = k if k not in cols else f"param.{k}"
            renamed[k] = name
        # Column by column from the row tuples (no dict a row).
        columns: dict[str, list[Any]] = {}
        if rows:
            for c, values in zip(cols, zip(*rows, strict=True), strict=False):
                columns[c] = list(values)
        else:
            columns = {c: [] for c in cols}
        if params:
            for k in pcols:
                columns[renamed[k]] = [p.get(k) for p in points]
        key_first = ["scenario_hash", "seed", "sweep"]
        # Rows of a table without a name column are kept in result order (`row`).
        order_col = "name" if "name" in cols else ("row" if "row" in cols else None)
        if table != "runs" and order_col:
            key_first.append(order_col)
        order = (
            key_first + [renamed[k] for k in pcols] + [c for c in out_cols if c not in key_first]
        )
        df = _frame_columns(order, [columns[c] for c in order])
        sort_cols = [renamed[k] for k in pcols] + ["seed"]
        if table != "runs" and order_col:
            sort_cols.append(order_col)
        if df.height:
            df = df.sort(sort_cols, nulls_last=True, maintain_order=True)
        return df

    def _warn_if_mixed(self, table: str) -> None:
        """Rows of several sweeps read at once pool runs of different scenarios (a 10 s and a
        100 s dumbbell, say): say so, once per read, unless the caller chose a sweep."""
        names = [r[0] for r in self._db.execute("SELECT name FROM sweeps ORDER BY name")]
        if len(names) > 1:
            warnings.warn(
                f"{self.path} holds {len(names)} sweeps ({', '.join(names)}): {table} of "
                "all of them come together; pick one by name (sweep=NAME, `airtcp export "
                "--sweep NAME`) or group by the 'sweep' column",
                MixedSweepsWarning,
                stacklevel=3,
            )

    def runs(
        self,
        sweep: str | None = None,
        *,
        status: str | None = None,
        keys: Iterable[tuple[str, int]] | None = None,
    ) -> pl.DataFrame:
        """One row per run (``ok`` and ``failed``, or only ``status``): key, grid point columns,
        status, error, run-level results, version, wall time, finish time."""
        return self._table("runs", sweep=sweep, keys=keys, status=status)

    def flows(
        self, sweep: str | None = None, *, keys: Iterable[tuple[str, int]] | None = None
    ) -> pl.DataFrame:
        """One row per flow of every ``ok`` run: key, the sweep, flow name, grid point columns
        and every column of the result's flow table. Without ``sweep`` (or ``keys``) a store of
        several sweeps gives the rows of all of them, with a :class:`MixedSweepsWarning`."""
        return self._table("flows", sweep=sweep, keys=keys)

    def links(
        self, sweep: str | None = None, *, keys: Iterable[tuple[str, int]] | None = None
    ) -> pl.DataFrame:
        """One row per link direction of every ``ok`` run, like :meth:`flows`."""
        return self._table("links", sweep=sweep, keys=keys)

    def table(
        self, name: str, sweep: str | None = None, *, keys: Iterable[tuple[str, int]] | None = None
    ) -> pl.DataFrame:
        """Any result table (``agents``, or one the core adds later) like :meth:`flows`."""
        if name != "runs" and name not in self.tables():
            raise StoreError(
                f"{self.path}: no table {name!r} (tables: runs, {', '.join(self.tables())})"
            )
        return self._table(name, sweep=sweep, keys=keys)

    def series(self, scenario_hash: str, seed: int) -> pl.DataFrame:
        """The stored time series of one run (columns kind, name, t, value, ssthresh)."""
        import polars as pl

        row = self._db.execute(
            "SELECT series FROM runs WHERE scenario_hash = ? AND seed = ?",
            (scenario_hash, int(seed)),
        ).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no run {run_key(scenario_hash, seed)}")
        if not row[0]:
            raise StoreError(
                f"{self.path}: run {run_key(scenario_hash, seed)} recorded no time series "
                "(sweep with --trace)"
            )
        # The file name comes from the database: it must stay inside the series directory.
        base = self.series_dir.resolve()
        target = (base / row[0]).resolve()
        if base not in target.parents:
            raise StoreError(
                f"{self.path}: run {run_key(scenario_hash, seed)} names a series file outside "
                f"{self.series_dir}"
            )
        return pl.read_parquet(target)

    def all_series(
        self,
        sweep: str | None = None,
        *,
        keys: Iterable[tuple[str, int]] | None = None,
        warn: bool = True,
    ) -> pl.DataFrame | None:
        """The time series of every ``ok`` run (of ``sweep``, or among ``keys``) that recorded
        them, in one long table: the run key, the grid point columns, then ``kind``, ``name``,
        ``t``, ``value`` and ``ssthresh`` as in :meth:`series`. None when no run has any."""
        import polars as pl

        runs = self._table("runs", sweep=sweep, keys=keys, status="ok", warn=warn)
        if runs.height == 0:
            return None
        own = set(self._columns("runs"))
        point = [c for c in runs.columns if c not in own]
        frames = []
        for r in runs.filter(pl.col("series").is_not_null()).iter_rows(named=True):
            ser = self.series(r["scenario_hash"], r["seed"])
            head = [
                pl.lit(r["scenario_hash"]).alias("scenario_hash"),
                pl.lit(r["seed"]).alias("seed"),
            ]
            head += [pl.lit(r[c], dtype=runs.schema[c]).alias(c) for c in point]
            frames.append(ser.select(*head, *SERIES_COLUMNS))
        if not frames:
            return None
        return pl.concat(frames, how="vertical_relaxed")

    def export(
        self, out: str | os.PathLike[str], *, fmt: str = "parquet", sweep: str | None = None
    ) -> dict[str, Path]:
        """Write the runs table and every result table to ``out/<table>.{parquet,csv}``, and
        the runs' time series (:meth:`all_series`) to ``out/series.{parquet,csv}`` when any
        run recorded them. Every table has a ``sweep`` column; without ``sweep`` a store of
        several sweeps is written whole, with a :class:`MixedSweepsWarning`."""
        if fmt not in ("parquet", "csv"):
            raise ValueError(f"format must be 'parquet' or 'csv', got {fmt!r}")
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        paths: dict[str, Path] = {}
        if sweep is None:
            self._warn_if_mixed("rows")
        tables: dict[str, Any] = {
            t: self._table(t, sweep=sweep, warn=False) for t in ("runs", *self.tables())
        }
        series = self.all_series(sweep, warn=False)
        if series is not None:
            tables["series"] = series
        for t, df in tables.items():
            p = d / f"{t}.{fmt}"
            if fmt == "parquet":
                df.write_parquet(p)
            else:
                df.write_csv(p)
            paths[t] = p
        return paths


# The statement texts are cached: sqlite3 then reuses its prepared statements as well.
@functools.lru_cache(maxsize=256)
def _delete_sql(table: str) -> str:
    return f"DELETE FROM {_qi(table)} WHERE scenario_hash = ? AND seed = ?"


@functools.lru_cache(maxsize=256)
def _insert_sql(table: str, names: tuple[str, ...]) -> str:
    cols = [*_KEY_COLUMNS, "row", *names]
    return (
        f"INSERT INTO {_qi(table)} ({', '.join(map(_qi, cols))}) "
        f"VALUES ({', '.join('?' for _ in cols)})"
    )


def _scenario_name(scenario_json: str) -> str | None:
    try:
        return json.loads(scenario_json).get("name", "scenario")
    except (ValueError, AttributeError):
        return None
