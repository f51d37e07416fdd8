"""Results of a run: per-flow and per-link tables (polars), time series (numpy), and the raw
JSON the core produced (see the Result section of docs/scenario.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import polars as pl

    from .scenario import Scenario

__all__ = ["Result", "jain", "result_tables", "series_frame"]

#: columns of the long time-series table (store files, exports, ``Result.to_parquet``)
SERIES_COLUMNS = ("kind", "name", "t", "value", "ssthresh")


def series_frame(series: Mapping[str, Any] | None) -> pl.DataFrame | None:
    """cwnd and queue series (a result's ``series``) as one long table with columns
    ``kind`` (``cwnd``/``queue``), ``name`` (flow or link direction), ``t``, ``value`` (cwnd in
    segments or packets waiting) and ``ssthresh`` (null for queues); None when nothing was
    recorded."""
    import polars as pl

    kinds: list[str] = []
    names: list[str] = []
    ts: list[float] = []
    vals: list[float] = []
    ssth: list[float | None] = []
    for name, cols in sorted(((series or {}).get("cwnd") or {}).items()):
        t = [float(x) for x in cols.get("t", [])]
        kinds += ["cwnd"] * len(t)
        names += [name] * len(t)
        ts += t
        vals += [float(x) for x in cols.get("cwnd", [])]
        ss = cols.get("ssthresh")
        ssth += [float(x) for x in ss] if ss is not None else [None] * len(t)
    for name, cols in sorted(((series or {}).get("queue") or {}).items()):
        t = [float(x) for x in cols.get("t", [])]
        kinds += ["queue"] * len(t)
        names += [name] * len(t)
        ts += t
        vals += [float(x) for x in cols.get("packets", [])]
        ssth += [None] * len(t)
    if not kinds:
        return None
    return pl.DataFrame(
        {"kind": kinds, "name": names, "t": ts, "value": vals, "ssthresh": ssth},
        schema={
            "kind": pl.Utf8,
            "name": pl.Utf8,
            "t": pl.Float64,
            "value": pl.Float64,
            "ssthresh": pl.Float64,
        },
    )


def result_tables(raw: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The tables of a core result: every top-level list of records (``flows``, ``links``,
    ``agents``, and whatever table the core adds later), by name."""
    return {
        k: v for k, v in raw.items() if isinstance(v, list) and all(isinstance(r, dict) for r in v)
    }


def jain(values: Iterable[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all values are equal, 1/n when one takes
    everything. Like the core, it is 1.0 for no values or all zeros."""
    import numpy as np  # here, not at import: sweep workers and the CLI's start need none

    x = np.asarray(list(values) if not hasattr(values, "__array__") else values, dtype=float)
    x = x.ravel()
    if x.size == 0:
        return 1.0
    if np.isnan(x).any():
        raise ValueError("jain(): values contain NaN")
    s2 = float(np.sum(x * x))
    if s2 == 0.0:
        return 1.0
    s = float(np.sum(x))
    return s * s / (x.size * s2)


def _series_array(kind: str, column: str, values: list[Any]) -> np.ndarray:
    """One recorded series column as an array: counts as integers, labels as strings,
    the rest as floats."""
    import numpy as np

    if column in ("packets", "seq"):
        return np.asarray(values, dtype=np.int64)
    if (
        (kind == "verdicts" and column != "t")
        or (kind == "cc_state" and column == "state")
        or (kind == "rssi" and column == "from")
    ):
        return np.asarray(values, dtype=str)
    return np.asarray(values, dtype=np.float64)


def _frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    import polars as pl

    if not rows:
        return pl.DataFrame()
    df = pl.DataFrame(rows, infer_schema_length=None)
    # A column that is null in every row (e.g. RTTs of UDP-only runs) has no dtype; these are
    # all numeric measurements, so make them Float64 to keep the schema stable across runs.
    nulls = [c for c, t in df.schema.items() if t == pl.Null]
    if nulls:
        df = df.with_columns([pl.col(c).cast(pl.Float64) for c in nulls])
    return df


class Result:
    """The outcome of :func:`airtcp.run`.

    Attributes
    ----------
    raw:      the result dict exactly as the core produced it
    summary:  everything in ``raw`` except flows, links and series (name, seed, duration_s,
              events, packet_hops, packets, drops, fairness, ...)
    flows:    polars DataFrame, one row per flow
    links:    polars DataFrame, one row per link direction (``"R1->R2"``) of the scenario's
              ``[[links]]`` (TDMA links included); stations of an 802.11 medium have no link
              directions: their rows are in ``macs``
    macs:     polars DataFrame, one row per station of a shared medium (``medium``, ``kind``,
              ``node``, frames, retries, drops by cause, busy fraction, mean queue), empty
              without ``[[media]]``; ``table("macs")`` is the same
    series:   ``{"cwnd": {flow: {"t", "cwnd", "ssthresh"}}, "queue": {dir: {"t", "packets"}}}``
              with numpy arrays (and ``"cc_state": {flow: {"t", "state"}}`` for schemes with a
              state machine, such as BBR)
    scenario: the Scenario that was run (when known)
    """

    def __init__(self, raw: dict[str, Any], scenario: Scenario | None = None) -> None:
        self.raw: dict[str, Any] = raw
        self.scenario = scenario
        self._flows: pl.DataFrame | None = None
        self._links: pl.DataFrame | None = None
        self._series: dict[str, dict[str, dict[str, np.ndarray]]] | None = None

    @classmethod
    def from_json(cls, text_or_path: str | os.PathLike[str]) -> Result:
        """A Result from JSON text or a file written by :meth:`to_json`."""
        s = os.fspath(text_or_path)
        if isinstance(s, str) and s.lstrip().startswith("{"):
            return cls(json.loads(s))
        with open(s, encoding="utf-8") as f:
            return cls(json.load(f))

    # -- tables -------------------------------------------------------------------------------

    @property
    def flows(self) -> pl.DataFrame:
        if self._flows is None:
            self._flows = _frame(self.raw.get("flows", []))
        return self._flows

    @property
    def links(self) -> pl.DataFrame:
        if self._links is None:
            self._links = _frame(self.raw.get("links", []))
        return self._links

    @property
    def macs(self) -> pl.DataFrame:
        """One row per station of a shared medium (802.11 or TDMA); empty without media."""
        return _frame(self.raw.get("macs", []))

    @property
    def routing(self) -> pl.DataFrame:
        """One row per node that runs a routing protocol (``kind`` is ``aodv`` or ``olsr``):
        control packets and bytes by message type, discoveries, route breaks; empty with
        static routing."""
        return _frame(self.raw.get("routing", []))

    @property
    def routing_overhead(self) -> dict[str, int]:
        """Control overhead summed over all nodes: ``control_packets``, ``control_bytes``,
        ``<type>_packets`` / ``<type>_bytes`` per message type, ``discoveries`` and
        ``route_breaks`` (empty with static routing)."""
        rows = self.raw.get("routing", [])
        keys = [k for k in (rows[0] if rows else {}) if k not in ("kind", "node")]
        return {k: int(sum(r.get(k, 0) for r in rows)) for k in keys}

    @property
    def tables(self) -> dict[str, pl.DataFrame]:
        """Every table of the result (``flows``, ``links``, ``agents``, ...) as a DataFrame."""
        return {k: self.table(k) for k in result_tables(self.raw)}

    def table(self, name: str) -> pl.DataFrame:
        """One table of the result by name, as a DataFrame."""
        tables = result_tables(self.raw)
        if name not in tables:
            raise KeyError(f"no table {name!r} in this result (tables: {', '.join(tables)})")
        return _frame(tables[name])

    @property
    def summary(self) -> dict[str, Any]:
        """Everything in ``raw`` but the tables and the series."""
        tables = result_tables(self.raw)
        return {k: v for k, v in self.raw.items() if k not in tables and k != "series"}

    def flow(self, name: str) -> dict[str, Any]:
        """The result row of one flow as a dict."""
        for f in self.raw.get("flows", []):
            if f.get("name") == name:
                return f
        names = ", ".join(f.get("name", "?") for f in self.raw.get("flows", [])) or "none"
        raise KeyError(f"no flow named {name!r} (flows: {names})")

    def link(self, direction: str) -> dict[str, Any]:
        """The result row of one link direction (``"R1->R2"``) as a dict."""
        for row in self.raw.get("links", []):
            if row.get("name") == direction:
                return row
        names = ", ".join(r.get("name", "?") for r in self.raw.get("links", [])) or "none"
        raise KeyError(f"no link direction named {direction!r} (directions: {names})")

    # -- series -------------------------------------------------------------------------------

    @property
    def series(self) -> dict[str, dict[str, dict[str, np.ndarray]]]:
        if self._series is None:
            raw = self.raw.get("series", {}) or {}
            out: dict[str, dict[str, dict[str, np.ndarray]]] = {}
            for kind, per in raw.items():
                out[kind] = {}
                for name, cols in (per or {}).items():
                    out[kind][name] = {c: _series_array(kind, c, v) for c, v in cols.items()}
            self._series = out
        return self._series

    def _lookup(self, kind: str, name: str, how: str) -> dict[str, np.ndarray]:
        recorded = self.series.get(kind, {})
        if name in recorded:
            return recorded[name]
        if recorded:
            have = ", ".join(sorted(recorded))
            msg = f"no {kind} series for {name!r}; recorded: {have}"
        else:
            msg = f"no {kind} series for {name!r}: none was recorded ({how})"
        raise KeyError(msg)

    def verdicts(self, flow: str | None = None) -> pl.DataFrame:
        """Loss-cause verdicts (columns flow, t, seq, kind, verdict, truth) of one flow or of
        all; needs ``[trace] verdicts = true``. ``truth`` is the simulator's cause of the
        judged segment's drop (``no_loss`` when it was not dropped)."""
        import polars as pl

        recorded = self.series.get("verdicts", {})
        if flow is not None:
            recorded = {flow: self._lookup("verdicts", flow, "set [trace] verdicts = true")}
        rows = [
            {"flow": name, **{c: cols[c][i].item() for c in cols}}
            for name, cols in recorded.items()
            for i in range(len(cols["t"]))
        ]
        schema = {
            "flow": pl.Utf8,
            "t": pl.Float64,
            "seq": pl.Int64,
            "kind": pl.Utf8,
            "verdict": pl.Utf8,
            "truth": pl.Utf8,
        }
        return pl.DataFrame(rows, schema=schema)

    def cwnd(self, flow: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(t seconds, cwnd, ssthresh) of a TCP flow; needs ``[trace] cwnd = true``."""
        s = self._lookup("cwnd", flow, "set [trace] cwnd = true in the scenario")
        return s["t"], s["cwnd"], s["ssthresh"]

    def cc_state(self, flow: str) -> tuple[np.ndarray, np.ndarray]:
        """(t seconds, state) of a TCP flow whose scheme runs a state machine (BBR: ``startup``,
        ``drain``, ``probe_bw``, ``probe_rtt``), one entry per change: the state holds from its
        time to the next. Recorded with ``[trace] cwnd = true``."""
        s = self._lookup(
            "cc_state", flow, "set [trace] cwnd = true; only schemes with states record one"
        )
        return s["t"], s["state"]

    def queue(self, direction: str) -> tuple[np.ndarray, np.ndarray]:
        """(t seconds, queue length in packets) of a link direction such as ``"R1->R2"``; needs
        the direction listed in ``[trace] queue``."""
        s = self._lookup("queue", direction, 'list the direction in [trace] queue = ["A->B"]')
        return s["t"], s["packets"]

    def positions(self, node: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(t seconds, x, y metres) of a radio node; needs ``[trace] positions = "1s"``. A
        node that never moves has one sample."""
        s = self._lookup("positions", node, 'set [trace] positions = "1s"')
        return s["t"], s["x"], s["y"]

    def rssi(self, station: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(arrival time s, sending node, dBm) of every frame an 802.11 station
        (``"node@medium"``) sensed; needs the medium in ``[trace] rssi``."""
        s = self._lookup("rssi", station, 'list the medium in [trace] rssi = ["air"]')
        return s["t"], s["from"], s["dbm"]

    def routes(self, flow: str | None = None) -> pl.DataFrame:
        """The routes flows' data took (columns flow, t, path: the node names from the
        source), one row per change, the path holding until the flow's next row; needs
        ``[trace] routes = true``. With a routing protocol a path that stops before the
        destination ends where the data was held or dropped for lack of a route; with static
        routing each flow has one row."""
        import polars as pl

        rows = self.raw.get("routes")
        if rows is None:
            raise KeyError("no routes recorded (set [trace] routes = true)")
        if flow is not None:
            known = {f.get("name") for f in self.raw.get("flows", [])}
            if flow not in known:
                raise KeyError(f"no flow named {flow!r} (flows: {', '.join(sorted(known))})")
            rows = [r for r in rows if r["flow"] == flow]
        schema = {"flow": pl.Utf8, "t": pl.Float64, "path": pl.List(pl.Utf8)}
        return pl.DataFrame({c: [r[c] for r in rows] for c in schema}, schema=schema)

    # -- convenience --------------------------------------------------------------------------

    @property
    def goodput_bps(self) -> dict[str, float]:
        """Goodput of every flow in bits/s, by name."""
        return {f["name"]: float(f["goodput_bps"]) for f in self.raw.get("flows", [])}

    @property
    def fairness(self) -> float:
        return float(self.raw.get("fairness", float("nan")))

    @property
    def partial(self) -> dict[str, Any] | None:
        """For a run that stopped before its end: ``reason`` (``interrupted``, ``timeout``,
        ``memory_budget``, ``max_events``), ``reached_s`` (simulated time reached, which
        every figure of the result covers) and ``duration_s`` (the scenario's); else None."""
        p = self.raw.get("partial")
        return p if p else None

    @property
    def complete(self) -> bool:
        """True for a run that reached the end of its scenario."""
        return self.partial is None

    def __repr__(self) -> str:
        s = self.raw
        macs = s.get("macs", [])
        media = sorted({f"{m.get('medium')} ({m.get('kind')})" for m in macs})
        on_media = f" media={','.join(media)} stations={len(macs)}" if media else ""
        p = self.partial
        cut = (
            f" PARTIAL ({p.get('reason')} at t = {p.get('reached_s'):.6g} s of "
            f"{p.get('duration_s'):g} s)"
            if p
            else ""
        )
        return (
            f"<Result {s.get('name', '?')!r} seed={s.get('seed')} "
            f"duration={s.get('duration_s')}s flows={len(s.get('flows', []))} "
            f"links={len(s.get('links', []))}{on_media} events={s.get('events')}{cut}>"
        )

    def _repr_html_(self) -> str:
        """In a notebook: the summary line and the flows table."""
        import html

        return (
            f"<p><b>{html.escape(repr(self))}</b></p>"
            + self.flows.select(
                [
                    c
                    for c in ("name", "cc", "goodput_bps", "retransmissions", "timeouts")
                    if c in self.flows.columns
                ]
            )._repr_html_()
        )

    # -- output -------------------------------------------------------------------------------

    def to_json(self, path: str | os.PathLike[str] | None = None, *, indent: int | None = 1) -> str:
        """The raw result as JSON text, written to ``path`` when given."""
        text = json.dumps(self.raw, indent=indent)
        if path is not None:
            p = Path(path)
            if p.parent != Path(""):
                p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text + "\n", encoding="utf-8")
        return text

    def to_parquet(self, dir_or_path: str | os.PathLike[str]) -> dict[str, Path]:
        """Write the flows and links tables, and the recorded time series, as Parquet.

        Given a directory (existing, or any path not ending in ``.parquet``) it writes
        ``flows.parquet`` and ``links.parquet`` inside it; given ``x.parquet`` it writes
        ``x.flows.parquet`` and ``x.links.parquet`` beside it. A run that recorded cwnd or
        queue series also gets ``series`` (the long table of :func:`series_frame`), and one
        that recorded loss verdicts ``verdicts`` (:meth:`verdicts`). Returns the paths by
        table: ``{"flows": path, "links": path, ...}``.
        """
        tables: dict[str, pl.DataFrame] = {"flows": self.flows, "links": self.links}
        series = series_frame(self.raw.get("series"))
        if series is not None:
            tables["series"] = series
        if self.series.get("verdicts"):
            tables["verdicts"] = self.verdicts()
        p = Path(dir_or_path)
        if p.suffix.lower() == ".parquet" and not p.is_dir():
            p.parent.mkdir(parents=True, exist_ok=True)
            out = {t: p.with_name(f"{p.stem}.{t}.parquet") for t in tables}
        else:
            p.mkdir(parents=True, exist_ok=True)
            out = {t: p / f"{t}.parquet" for t in tables}
        for t, df in tables.items():
            df.write_parquet(out[t])
        return out
