"""Paper reproductions: each module in this package declares one paper as a :class:`Paper` —
its sweeps (a base scenario, a grid, seeds, and smaller ``quick`` sizes for CI), its figures
(a metric against a swept parameter, one line per group) and its claims (checkable
statements: a function of the data that decides, by a test over seeds stated with the claim,
whether the claim is supported, not supported or inconclusive, with the numbers and a
sentence) — and registers it with :func:`register`.

``airtcp reproduce <key>`` runs whatever the store lacks and writes
``reports/<key>/index.html`` (``reports/<key>/quick/index.html`` at the quick size);
``airtcp report <key>`` rebuilds the report from the store alone.

A minimal module::

    from airtcp.papers import ClaimResult, ClaimSpec, FigureSpec, Paper, SweepSpec, register
    from airtcp.stats import direction, welch

    P = "links.R2-D.error.per"

    def scenario(quick: bool) -> airtcp.Scenario: ...

    def goodput_drops(data):
        lo = data.table("loss", where={P: 0.01})["goodput_bps"].to_list()
        hi = data.table("loss", where={P: 0.02})["goodput_bps"].to_list()
        w = welch(lo, hi)
        outcome = direction(w.ci_low, w.ci_high, sign=1)
        return ClaimResult(outcome, f"goodput falls by {w.diff:.0f} b/s", w.as_dict())

    PAPER = register(Paper(
        key="mine", title="...", citation="...", summary="...",
        sweeps=[SweepSpec("loss", scenario, grid={P: [0.01, 0.02]})],
        figures=[FigureSpec("goodput", "Goodput vs p", sweep="loss", x=P,
                            metric="goodput_bps", group="cc")],
        claims=[ClaimSpec("falls", "Goodput falls with p", goodput_drops,
                          test="Welch's t-test, 95% CI of the difference above 0")],
    ))
"""

from __future__ import annotations

import difflib
import importlib
import os
import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..scenario import Scenario
from ..stats import Outcome

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl
    from matplotlib.axes import Axes

    from ..report import Report
    from ..store import Store

__all__ = [
    "ORACLE",
    "ClaimResult",
    "ClaimSpec",
    "FigureSpec",
    "Outcome",
    "Paper",
    "PaperData",
    "Reading",
    "ResolvedSweep",
    "SweepSpec",
    "TableSpec",
    "Variant",
    "get",
    "load_data",
    "papers",
    "register",
    "reproduce",
]


#: the scheme (``cc``) and the line label of the loss-cause oracle, the upper bound of every
#: reproduction's goodput figures (docs/schemes/oracle.md)
ORACLE = "oracle"


@dataclass(frozen=True)
class ResolvedSweep:
    """A sweep at a given size: what :func:`airtcp.sweeps.run_sweep` is called with."""

    name: str  #: the sweep's name in the store: ``<paper>/<sweep>`` (+ ``-quick``)
    spec: SweepSpec
    scenario: Scenario
    grid: dict[str, list[Any]]
    seeds: list[int]
    #: a reading's variant that leaves some grid points as they were: the default's sweep
    #: restricted to those points, whose runs the variant's data reuse (``Variant.unchanged``)
    shared: ResolvedSweep | None = None


@dataclass(frozen=True)
class SweepSpec:
    """A sweep of a paper. ``scenario(quick)`` builds the base scenario (``quick`` may shorten
    it); ``grid`` and ``seeds`` (1..N) are the full sizes, ``quick_grid``/``quick_seeds`` the
    CI sizes (the full grid when ``quick_grid`` is None)."""

    name: str
    scenario: Callable[[bool], Scenario]
    grid: Mapping[str, Sequence[Any]]
    seeds: int = 10
    quick_grid: Mapping[str, Sequence[Any]] | None = None
    quick_seeds: int = 3
    trace: bool = False
    description: str = ""

    def resolve(self, paper: str, *, quick: bool, seeds: int | None = None) -> ResolvedSweep:
        n = seeds if seeds is not None else (self.quick_seeds if quick else self.seeds)
        if n < 1:
            raise ValueError(f"seeds must be >= 1, got {n}")
        grid = self.quick_grid if quick and self.quick_grid is not None else self.grid
        return ResolvedSweep(
            name=f"{paper}/{self.name}" + ("-quick" if quick else ""),
            spec=self,
            scenario=self.scenario(quick),
            grid={k: list(v) for k, v in grid.items()},
            seeds=list(range(1, n + 1)),
        )


@dataclass(frozen=True)
class FigureSpec:
    """A figure: ``metric`` against ``x`` from the ``table`` (``flows``, ``runs``, ``links``
    or a table added by the paper's ``derive``) of ``sweep``, one line per ``group`` value,
    mean over seeds with confidence bands. ``where`` keeps rows whose columns equal the given
    values. ``overlay(ax, rows)`` draws extra curves (a model). ``scale``/``xscale`` multiply
    the metric/parameter for display (and for the figure's table). ``bounds`` is the metric's
    range in its own units (``(0, None)`` for a rate, ``(0, 100)`` for a percentage):
    confidence intervals are clipped to it, and the caption says so. ``rows`` says what one
    row of the data is (``"runs (FTP flows summed)"``), for the caption. A ``where`` value
    that is a list, tuple or set keeps rows whose column holds any of its items.

    ``upper`` names the ``group`` value that is the upper bound (the loss-cause oracle,
    ``cc = "oracle"``): it is drawn as a dashed black line labelled "… (upper bound)", and,
    unless ``share`` is False (a figure of changes rather than of goodput itself), the report
    gives every other line's metric as a share of it at each x (:func:`airtcp.stats.share_of`)."""

    name: str
    title: str
    sweep: str
    x: str
    metric: str
    group: str | None = None
    table: str = "flows"
    where: Mapping[str, Any] | None = None
    scale: float = 1.0
    xscale: float = 1.0
    xlabel: str | None = None
    ylabel: str | None = None
    logx: bool = False
    logy: bool = False
    ylim0: bool = True  #: start a linear y axis at 0
    overlay: Callable[[Axes, pl.DataFrame], None] | None = None
    caption: str = ""
    bounds: tuple[float | None, float | None] | None = None
    rows: str = ""
    upper: str | None = None
    share: bool = True


@dataclass(frozen=True)
class TableSpec:
    """A table of the paper printed beside the measured one: ``build(data)`` returns a
    DataFrame, typically one row per cell of the paper's table with the paper's value and ours
    (mean and confidence interval over seeds). The report shows it under "Tables";
    ``doc_tables`` may render the same frame into the docs (:func:`airtcp.docgen.md_frame`)."""

    name: str
    title: str
    build: Callable[[PaperData], pl.DataFrame]
    caption: str = ""


@dataclass
class ClaimResult:
    """The verdict on a claim: its ``outcome`` (:class:`~airtcp.stats.Outcome`: supported,
    not supported or inconclusive; ``True``/``False`` are read as supported / not supported),
    one or two ``sentence``\\s saying what was measured, and the ``numbers`` behind it (a
    DataFrame, a list of dicts or a dict)."""

    outcome: Outcome
    sentence: str
    numbers: Any = None
    #: the claim's effect and its interval, for the robustness table (:mod:`airtcp.robustness`
    #: reads them from ``numbers`` when these are left unset)
    effect: float | None = None
    ci: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        self.outcome = Outcome.of(self.outcome)

    @property
    def supported(self) -> bool:
        return self.outcome is Outcome.SUPPORTED


@dataclass(frozen=True)
class ClaimSpec:
    """A claim of the paper (``statement``, where it comes from in ``source``), the function
    that checks it against the data, and the ``test`` that decides it, stated in words (the
    report prints it beside the verdict)."""

    id: str
    statement: str
    check: Callable[[PaperData], ClaimResult]
    source: str = ""
    test: str = ""


@dataclass(frozen=True)
class Variant:
    """One way to set up a paper's runs: edits applied to each sweep's base scenario (and grid)
    before it runs. ``set`` maps scenario paths (as :meth:`Scenario.set` takes them) to values;
    ``grid`` replaces or adds grid axes; ``transform(scenario, sweep_name)`` makes edits a path
    cannot say and returns the scenario. ``sweeps`` names the sweeps it applies to (None: all;
    the others run as under the default). ``why`` says why this reading or value is plausible."""

    name: str
    why: str = ""
    set: Mapping[str, Any] = field(default_factory=dict)
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    transform: Callable[[Scenario, str], Scenario] | None = None
    sweeps: tuple[str, ...] | None = None
    #: grid values (by axis) whose runs the variant provably leaves as they are (e.g. the
    #: schemes that ignore a router's marks): they are not run again, the variant's data take
    #: the default's runs there. Only for an identity a test checks.
    unchanged: Mapping[str, Sequence[Any]] = field(default_factory=dict)

    def applies(self, sweep: str) -> bool:
        return self.sweeps is None or sweep in self.sweeps

    @property
    def is_identity(self) -> bool:
        return not self.set and not self.grid and self.transform is None


@dataclass(frozen=True)
class Reading:
    """A place where the paper is ambiguous (``kind="reading"``: ``passage`` quotes it, with its
    section) or a setup value it leaves open (``kind="axis"``, a sensitivity axis). ``default``
    is the choice made before running (usually the identity variant: the paper's sweeps as
    declared), ``alternatives`` the other plausible choices. Every claim (or those named in
    ``claims``) is decided under the default and under each alternative, one reading or axis
    varied at a time, the others at their defaults."""

    name: str
    title: str
    default: Variant
    alternatives: tuple[Variant, ...]
    kind: str = "reading"
    passage: str = ""
    claims: tuple[str, ...] | None = None

    def variants(self) -> tuple[Variant, ...]:
        return (self.default, *self.alternatives)


@dataclass
class Paper:
    key: str
    title: str
    citation: str
    summary: str
    sweeps: list[SweepSpec]
    figures: list[FigureSpec] = field(default_factory=list)
    claims: list[ClaimSpec] = field(default_factory=list)
    #: adds derived columns or tables to the data before figures and claims (a model, ratios)
    derive: Callable[[PaperData], None] | None = None
    #: free text shown in the report (how the setup differs from the paper's, caveats)
    notes: str = ""
    #: Markdown tables for the docs by name, rendered from the data by ``airtcp docs-tables``
    #: into the regions marked ``generated:<key>/<name>`` (see :mod:`airtcp.docgen`)
    doc_tables: dict[str, Callable[[PaperData], str]] = field(default_factory=dict)
    #: the paper's tables beside the measured ones, shown in the report
    tables: list[TableSpec] = field(default_factory=list)
    #: ambiguous passages and sensitivity axes, each decided claim by claim
    readings: list[Reading] = field(default_factory=list)

    def reading(self, name: str) -> Reading:
        for r in self.readings:
            if r.name == name:
                return r
        raise KeyError(f"paper {self.key}: no reading {name!r}")

    def sweep(self, name: str) -> SweepSpec:
        for s in self.sweeps:
            if s.name == name:
                return s
        raise KeyError(f"paper {self.key}: no sweep {name!r}")

    def resolve(
        self,
        *,
        quick: bool,
        seeds: int | None = None,
        replace: Mapping[str, Variant] | None = None,
    ) -> list[ResolvedSweep]:
        """The paper's sweeps at a size, each reading at its default variant (a default that
        is not the identity is applied under the sweep's plain name); ``replace`` puts another
        variant in place of a reading's default (:mod:`airtcp.robustness` names such sweeps
        ``<paper>/<sweep>@<reading>=<variant>``)."""
        from ..robustness import apply_variant

        out = []
        for s in self.sweeps:
            r = s.resolve(self.key, quick=quick, seeds=seeds)
            for rd in self.readings:
                if rd.default.is_identity or not rd.default.applies(s.name):
                    continue
                plain = r.name
                r = apply_variant(
                    r, rd.default, paper=self.key, reading=rd.name, quick=quick, share=False
                )
                r = ResolvedSweep(plain, r.spec, r.scenario, r.grid, r.seeds)
            for name, v in (replace or {}).items():
                r = apply_variant(r, v, paper=self.key, reading=name, quick=quick)
            out.append(r)
        return out


class PaperData:
    """The stored runs of a paper's sweeps, as polars tables by sweep name (``runs``,
    ``flows``, ``links``, plus whatever ``derive`` adds)."""

    def __init__(
        self,
        paper: Paper,
        *,
        quick: bool,
        sweeps: list[ResolvedSweep],
        tables: dict[str, dict[str, pl.DataFrame]],
        store: Path,
    ) -> None:
        self.paper = paper
        self.quick = quick
        self.sweeps = {s.spec.name: s for s in sweeps}
        self.tables = tables
        self.store = store

    def table(
        self, sweep: str, table: str = "flows", where: Mapping[str, Any] | None = None
    ) -> pl.DataFrame:
        import polars as pl

        if sweep not in self.tables:
            raise KeyError(f"no sweep {sweep!r} (have: {', '.join(self.tables)})")
        tabs = self.tables[sweep]
        if table not in tabs:
            raise KeyError(f"sweep {sweep!r} has no table {table!r} (have: {', '.join(tabs)})")
        df = tabs[table]
        for col, val in (where or {}).items():
            if isinstance(val, (list, tuple, set, frozenset)):
                df = df.filter(pl.col(col).is_in(list(val)))
            else:
                df = df.filter(pl.col(col) == val)
        return df

    def figure(self, name: str) -> FigureSpec:
        """The paper's figure called ``name``."""
        for f in self.paper.figures:
            if f.name == name:
                return f
        raise KeyError(f"paper {self.paper.key}: no figure {name!r}")

    def shares(self, figure: FigureSpec | str, level: float = 0.95) -> pl.DataFrame:
        """Each line of a figure with an upper bound as a share of it at each x
        (:func:`airtcp.stats.share_of` on the figure's rows): columns ``group`` (the line),
        ``x`` (the figure's x, times ``xscale``), ``n`` (runs), ``share`` (%) and its ``level``
        interval ``ci_low``/``ci_high``. Empty when the figure has no upper bound or its rows
        hold no run of it."""
        import polars as pl

        from ..stats import share_of

        spec = self.figure(figure) if isinstance(figure, str) else figure
        schema = {
            "group": pl.Utf8,
            "x": pl.Float64,
            "n": pl.Int64,
            "share": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
        }
        if spec.upper is None or spec.group is None:
            return pl.DataFrame(schema=schema)
        df = self.table(spec.sweep, spec.table, spec.where)
        rows = share_of(df, spec.metric, label=spec.group, ref=spec.upper, at=spec.x, level=level)
        return pl.DataFrame(
            [
                {
                    "group": str(r[spec.group]),
                    "x": float(r[spec.x]) * spec.xscale,
                    "n": r["n"],
                    "share": r["share"],
                    "ci_low": r["ci_low"],
                    "ci_high": r["ci_high"],
                }
                for r in rows
            ],
            schema=schema,
        )

    def set_table(self, sweep: str, table: str, df: pl.DataFrame) -> None:
        self.tables.setdefault(sweep, {})[table] = df

    def aggregate(
        self,
        sweep: str,
        metric: str,
        by: str | Sequence[str] | None = None,
        *,
        table: str = "flows",
        where: Mapping[str, Any] | None = None,
        level: float = 0.95,
        bounds: tuple[float | None, float | None] | None = None,
    ) -> pl.DataFrame:
        from ..analysis import aggregate

        return aggregate(self.table(sweep, table, where), metric, by, level=level, bounds=bounds)


# --------------------------------------------------------------------------------------------
# registry

_REGISTRY: dict[str, Paper] = {}
_DISCOVERED = False


def register(paper: Paper) -> Paper:
    """Add a paper to the registry (a module does ``PAPER = register(Paper(...))``)."""
    names = [s.name for s in paper.sweeps]
    if len(set(names)) != len(names):
        raise ValueError(f"paper {paper.key}: sweep names repeat: {names}")
    for f in paper.figures:
        if f.sweep not in names:
            raise ValueError(f"paper {paper.key}: figure {f.name} uses unknown sweep {f.sweep!r}")
        if f.upper is not None and f.group is None:
            raise ValueError(f"paper {paper.key}: figure {f.name} has an upper bound but no group")
    ids = [c.id for c in paper.claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"paper {paper.key}: claim ids repeat: {ids}")
    tables = [t.name for t in paper.tables]
    if len(set(tables)) != len(tables):
        raise ValueError(f"paper {paper.key}: table names repeat: {tables}")
    rnames = [r.name for r in paper.readings]
    if len(set(rnames)) != len(rnames):
        raise ValueError(f"paper {paper.key}: reading names repeat: {rnames}")
    for r in paper.readings:
        if r.kind not in ("reading", "axis"):
            raise ValueError(f"paper {paper.key}: reading {r.name}: kind must be reading or axis")
        vnames = [v.name for v in r.variants()]
        if len(set(vnames)) != len(vnames):
            raise ValueError(f"paper {paper.key}: reading {r.name}: variant names repeat")
        if not r.alternatives:
            raise ValueError(f"paper {paper.key}: reading {r.name} has no alternative")
        for v in r.variants():
            for sw in v.sweeps or ():
                if sw not in names:
                    raise ValueError(
                        f"paper {paper.key}: reading {r.name}/{v.name}: unknown sweep {sw!r}"
                    )
            for axis in v.unchanged:
                # A misspelt axis would silently run every point again.
                if not any(axis in s.grid and v.applies(s.name) for s in paper.sweeps):
                    raise ValueError(
                        f"paper {paper.key}: reading {r.name}/{v.name}: unchanged names "
                        f"{axis!r}, not a grid axis of a sweep it applies to"
                    )
        for c in r.claims or ():
            if c not in ids:
                raise ValueError(f"paper {paper.key}: reading {r.name}: unknown claim {c!r}")
    _REGISTRY[paper.key] = paper
    return paper


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


def papers() -> dict[str, Paper]:
    """Every registered paper by key (modules of this package are imported on first call)."""
    _discover()
    return dict(sorted(_REGISTRY.items()))


def get(key: str) -> Paper:
    """The paper registered as ``key``; KeyError (with a suggestion) when there is none."""
    known = papers()
    if key in known:
        return known[key]
    close = difflib.get_close_matches(key, list(known), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise KeyError(f"no paper {key!r}{hint}; known: {', '.join(known) or 'none'}")


# --------------------------------------------------------------------------------------------
# running and loading


class MissingRuns(LookupError):
    """The store lacks runs a report needs."""


def load_data(
    paper: Paper,
    store: Store | str | os.PathLike[str],
    *,
    quick: bool = False,
    seeds: int | None = None,
    resolved: list[ResolvedSweep] | None = None,
) -> PaperData:
    """Read a paper's runs from the store (every run its sweeps consist of at this size, or
    of the ``resolved`` sweeps given: a reading's variant) and apply its ``derive``. Raises
    :class:`MissingRuns` when any run is absent."""
    from ..store import Store

    st = store if isinstance(store, Store) else Store(store, create=False)
    try:
        if resolved is None:
            resolved = paper.resolve(quick=quick, seeds=seeds)
        tables: dict[str, dict[str, pl.DataFrame]] = {}
        missing: list[str] = []
        for r in resolved:
            parts: list[dict[str, pl.DataFrame]] = []
            for part in (r.shared, r):
                if part is None:
                    continue
                got = _load_sweep(st, part)
                if isinstance(got, str):
                    missing.append(got)
                else:
                    parts.append(got)
            if len(parts) == (2 if r.shared is not None else 1):
                tables[r.spec.name] = _concat_parts(parts)
        if missing:
            size = "--quick " if quick else ""
            sd = f"--seeds {seeds} " if seeds is not None else ""
            raise MissingRuns(
                f"{st.path} lacks runs of {paper.key} ({'; '.join(missing)}); run "
                f"`airtcp reproduce {paper.key} {size}{sd}--store {st.path}` first"
            )
        data = PaperData(paper, quick=quick, sweeps=resolved, tables=tables, store=st.path)
    finally:
        if st is not store:
            st.close()
    if paper.derive is not None:
        paper.derive(data)
    return data


#: the run keys of each sweep planned so far, by what defines them: every condition of a
#: robustness table loads the default's sweeps again, and planning (a scenario per point) is
#: what loading costs
_KEYS: dict[tuple[str, str, tuple[int, ...], bool], list[tuple[str, int]]] = {}


def _sweep_keys(r: ResolvedSweep) -> list[tuple[str, int]]:
    import json

    from ..sweeps import plan

    what = (
        r.scenario.canonical_json(),
        json.dumps(r.grid, default=str),
        tuple(r.seeds),
        r.spec.trace,
    )
    if what not in _KEYS:
        if len(_KEYS) > 512:
            _KEYS.clear()
        _, _, jobs = plan(r.scenario, r.grid, r.seeds, trace=r.spec.trace, validate=False)
        _KEYS[what] = [j.key for j in jobs]
    return list(_KEYS[what])


def _load_sweep(st: Store, r: ResolvedSweep) -> dict[str, pl.DataFrame] | str:
    """One sweep's tables from the store, or what it lacks."""
    keys = _sweep_keys(r)
    have = st.status(keys)
    if len(have) < len(keys):
        return f"{r.name}: {len(keys) - len(have)} of {len(keys)} runs"
    name = r.name if st.sweep_info(r.name) is not None else None
    return {
        "runs": st.runs(name, keys=keys),
        "flows": st.flows(name, keys=keys),
        "links": st.links(name, keys=keys),
    }


def _concat_parts(parts: list[dict[str, pl.DataFrame]]) -> dict[str, pl.DataFrame]:
    """A sweep's tables from its parts (the default's shared runs, then the variant's)."""
    import polars as pl

    if len(parts) == 1:
        return parts[0]
    return {k: pl.concat([p[k] for p in parts], how="diagonal_relaxed") for k in parts[0]}


def reproduce(
    key: str | Paper,
    *,
    quick: bool = False,
    seeds: int | None = None,
    store: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] = "reports",
    workers: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
    readings: bool | Sequence[str] = True,
) -> Report:
    """Run every run of the paper's sweeps that the store lacks, then, with ``readings``
    (True: all of the paper's readings; a list: those named; False: none), the runs of each
    reading's variants (:mod:`airtcp.robustness`; at the quick size the default and one
    alternative each), then write the report with its robustness table; returns the
    :class:`~airtcp.report.Report` (``.path`` of ``index.html``, the claims' verdicts). The
    store defaults to ``<out>/<key>/runs.sqlite``."""
    import time

    from ..report import write_report
    from ..robustness import run_resolved
    from ..store import Store

    t0 = time.perf_counter()
    paper = key if isinstance(key, Paper) else get(key)
    store_path = Path(store) if store is not None else default_store(paper.key, out)
    with Store(store_path, create=True) as st:
        resolved = paper.resolve(quick=quick, seeds=seeds)
        for k, r in enumerate(resolved, 1):
            if log is not None and progress is not False:
                # Overall progress: which of the paper's sweeps is running.
                log(f"[{k}/{len(resolved)}] sweep {r.name}")
            run_resolved(
                r,
                st,
                workers=workers,
                dask=dask,
                retry_failed=retry_failed,
                progress=progress,
                log=log,
            )
        only = _readings_wanted(paper, readings)
        if only is None or only:
            from ..robustness import run_conditions

            run_conditions(
                paper,
                st,
                quick=quick,
                seeds=seeds,
                only=only,
                workers=workers,
                dask=dask,
                retry_failed=retry_failed,
                progress=progress,
                log=log,
            )
    return write_report(
        paper,
        store_path,
        out=out,
        quick=quick,
        seeds=seeds,
        elapsed_s=time.perf_counter() - t0,
        readings=readings,
    )


def _readings_wanted(paper: Paper, readings: bool | Sequence[str]) -> list[str] | None:
    """``readings`` as :func:`airtcp.robustness.conditions` takes it: None for all, a list of
    names (empty for none); unknown names raise KeyError."""
    if readings is True:
        return None
    if readings is False:
        return []
    names = [str(n) for n in readings]
    for n in names:
        paper.reading(n)
    return names


def default_store(key: str, out: str | os.PathLike[str] = "reports") -> Path:
    return Path(out) / key / "runs.sqlite"
