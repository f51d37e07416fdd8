"""Self-contained HTML reports of paper reproductions (figures embedded as base64 PNG, no
external assets): a table of contents, figures, tables of aggregated results with confidence
intervals, each claim with its outcome (supported / not supported / inconclusive), the test
that decided it and the numbers, every parameter the runs used (in collapsible blocks) and
the provenance of the report (versions, commit, core build, host, wall time)."""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import html
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from . import __version__, _core
from .analysis import aggregate
from .scenario import Scenario
from .stats import Outcome

if TYPE_CHECKING:  # pragma: no cover
    from .papers import ClaimResult, FigureSpec, Paper, PaperData
    from .robustness import Robustness

__all__ = ["ClaimVerdict", "Report", "provenance", "render", "write_report"]

LEVEL = 0.95


class ClaimVerdict(NamedTuple):
    """One claim's verdict in a written report."""

    id: str
    statement: str
    outcome: Outcome

    @property
    def supported(self) -> bool:
        return self.outcome is Outcome.SUPPORTED


@dataclass
class Report:
    """A written report: where ``index.html`` is and each claim's verdict."""

    path: Path
    claims: list[ClaimVerdict]
    #: the claims decided under the paper's readings, when it declares any
    robustness: Robustness | None = None


_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330;
       max-width: 1000px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccd;
  padding-bottom: .2em; } h3 { margin-bottom: .3em; }
.cite { color: #556; margin-top: 0; } .meta { color: #556; font-size: .9em; }
table { border-collapse: collapse; margin: .6em 0 1em; font-size: .88em; }
th, td { border: 1px solid #d5d8e0; padding: .25em .6em; text-align: right; }
th { background: #f1f3f7; } td.l, th.l { text-align: left; }
figure { margin: 1.2em 0; } figure img { max-width: 100%; border: 1px solid #e4e6ec; }
figcaption { color: #445; font-size: .92em; margin-top: .3em; }
.verdict { display: inline-block; padding: .1em .55em; border-radius: .3em; font-weight: 600;
           font-size: .85em; color: #fff; }
.supported { background: #2e7d32; } .not-supported { background: #c62828; }
.inconclusive { background: #8a6d00; }
td.supported, td.not-supported, td.inconclusive { color: #fff; text-align: left; }
td.na { color: #889; text-align: center; }
.claim { border-left: 4px solid #ccd; padding: .2em 0 .2em 1em; margin: 1.2em 0; }
.claim.supported-claim { border-color: #2e7d32; }
.claim.not-supported-claim { border-color: #c62828; }
.claim.inconclusive-claim { border-color: #8a6d00; }
.test { color: #334; font-size: .92em; }
pre { background: #f6f7f9; padding: .7em; overflow-x: auto; font-size: .82em; }
.warn { background: #fff4e5; border: 1px solid #f0c36d; padding: .5em 1em; }
nav.toc { background: #f6f7f9; padding: .4em 1.2em; margin: 1em 0; font-size: .92em; }
nav.toc ol { margin: .2em 0; padding-left: 1.4em; } nav.toc h2 { border: 0; margin: .4em 0; }
details { margin: .6em 0; } summary { cursor: pointer; font-weight: 600; }
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def fmt(v: Any) -> str:
    """A table cell: 4 significant digits for floats, '–' for missing."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isnan(v):
            return "–"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def _html_table(
    columns: Sequence[str], rows: Sequence[Sequence[Any]], *, left: int = 0, cls: str = ""
) -> str:
    head = "".join(
        f'<th class="l">{_e(c)}</th>' if i < left else f"<th>{_e(c)}</th>"
        for i, c in enumerate(columns)
    )
    body = []
    for r in rows:
        cells = "".join(
            f'<td class="l">{_e(fmt(v))}</td>' if i < left else f"<td>{_e(fmt(v))}</td>"
            for i, v in enumerate(r)
        )
        body.append(f"<tr>{cells}</tr>")
    c = f' class="{cls}"' if cls else ""
    return f"<table{c}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def numbers_table(numbers: Any) -> str:
    """A claim's numbers (DataFrame, list of dicts or dict) as an HTML table."""
    import polars as pl

    if numbers is None:
        return ""
    if isinstance(numbers, pl.DataFrame):
        return _html_table(numbers.columns, numbers.rows(), left=0)
    if isinstance(numbers, Mapping):
        return _html_table(["quantity", "value"], list(numbers.items()), left=1)
    if isinstance(numbers, Sequence) and numbers and isinstance(numbers[0], Mapping):
        cols: dict[str, None] = {}
        for r in numbers:
            for k in r:
                cols.setdefault(k, None)
        return _html_table(list(cols), [[r.get(c) for c in cols] for r in numbers])
    return f"<p>{_e(numbers)}</p>"


def _png_bytes(fig: Any) -> bytes:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def _bounds_text(bounds: tuple[float | None, float | None], scale: float) -> str:
    lo, hi = bounds
    lo_t = fmt(lo * scale) if lo is not None else "−∞"
    hi_t = fmt(hi * scale) if hi is not None else "∞"
    return f"[{lo_t}, {hi_t}]" if hi is not None else f"[{lo_t}, ∞)"


def _figure_key(spec: FigureSpec, df: Any) -> str:
    """What a figure's drawing depends on: its spec, its rows, and the code that draws it.
    Equal keys mean an equal picture, so a rebuilt report reuses the files it wrote."""
    import matplotlib

    h = hashlib.sha256()
    for f in fields(spec):
        v = getattr(spec, f.name)
        if callable(v):
            # An overlay draws too: its module's source is part of the picture.
            mod = sys.modules.get(getattr(v, "__module__", None) or "")
            src = getattr(mod, "__file__", None)
            if src and Path(src).is_file():
                h.update(Path(src).read_bytes())
            v = f"{getattr(v, '__module__', '')}.{getattr(v, '__qualname__', repr(v))}"
        h.update(f"{f.name}={v!r};".encode())
    h.update(df.write_csv().encode())
    for mod in ("airtcp.plots", "airtcp.report"):
        src = getattr(sys.modules.get(mod), "__file__", None)
        if src and Path(src).is_file():
            h.update(Path(src).read_bytes())
    h.update(f"{__version__};{matplotlib.__version__}".encode())
    return h.hexdigest()


class _FigureCache:
    """The figure files of a report directory and the key each was drawn from
    (``figures.json``): a figure is drawn only when its key changed or a file is missing."""

    def __init__(self, outdir: Path) -> None:
        self.path = outdir / "figures.json"
        self.outdir = outdir
        try:
            self.keys: dict[str, str] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.keys = {}
        self.drawn = 0
        self.used: set[str] = set()

    def png(self, name: str, key: str, draw: Any) -> bytes:
        self.used.add(name)
        png, svg = self.outdir / f"{name}.png", self.outdir / f"{name}.svg"
        if self.keys.get(name) == key and png.is_file() and svg.is_file():
            return png.read_bytes()
        fig = draw()
        # The PNG is rendered once: the same bytes are embedded and written beside.
        data = _png_bytes(fig)
        png.write_bytes(data)
        fig.savefig(svg, format="svg")
        self.keys[name] = key
        self.drawn += 1
        return data

    def save(self) -> None:
        # Files of a figure the paper no longer has would pass for part of this report.
        for name in set(self.keys) - self.used:
            for ext in ("png", "svg"):
                (self.outdir / f"{name}.{ext}").unlink(missing_ok=True)
            del self.keys[name]
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.keys, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)


def _figure_sources(spec: FigureSpec, data: PaperData, df: Any) -> list[str]:
    """The store's names of the sweeps a figure's rows come from."""
    if "sweep" in df.columns:
        return sorted({str(v) for v in df["sweep"].to_list() if v is not None})
    return [data.sweeps[spec.sweep].name] if spec.sweep in data.sweeps else [spec.sweep]


def _figure_section(spec: FigureSpec, data: PaperData, outdir: Path, cache: _FigureCache) -> str:
    """HTML of one figure with its table; the PNG and SVG files are written beside."""
    from . import plots

    df = data.table(spec.sweep, spec.table, spec.where)
    groups = [spec.group] if spec.group else []
    agg = aggregate(df, spec.metric, [*groups, spec.x], level=LEVEL, bounds=spec.bounds)

    def draw() -> Any:
        return plots.metric_vs_param(
            agg,
            spec.x,
            spec.metric,
            spec.group,
            aggregated=True,
            raw=df,
            scale=spec.scale,
            xscale=spec.xscale,
            title=spec.title,
            xlabel=spec.xlabel,
            ylabel=spec.ylabel,
            logx=spec.logx,
            logy=spec.logy,
            ylim0=spec.ylim0,
            overlay=spec.overlay,
            upper=spec.upper,
        )

    b64 = base64.b64encode(cache.png(spec.name, _figure_key(spec, df), draw)).decode("ascii")
    ylab = spec.ylabel or spec.metric
    xlab = spec.xlabel or spec.x
    cols = [*groups, xlab, "n", f"mean {ylab}", "95% CI low", "95% CI high", "std"]
    rows = []
    clipped = 0
    for r in agg.iter_rows(named=True):
        s = spec.scale
        xv = r[spec.x]
        clipped += bool(r.get("ci_clipped"))
        rows.append(
            [
                *(r[g] for g in groups),
                xv * spec.xscale if isinstance(xv, (int, float)) else xv,
                r["n"],
                r["mean"] * s,
                r["ci_low"] * s,
                r["ci_high"] * s,
                r["std"] * s,
            ]
        )
    table = _html_table(cols, rows, left=len(groups))
    cap = _e(spec.caption) + " " if spec.caption else ""
    what = spec.rows or {"flows": "flows", "runs": "runs", "links": "link directions"}.get(
        spec.table, "rows"
    )
    where = (
        " with " + ", ".join(f"{_e(k)} = {_e(fmt(v))}" for k, v in spec.where.items())
        if spec.where
        else ""
    )
    sweeps = _figure_sources(spec, data, df)
    shares = _shares_table(spec, data)
    if spec.upper is not None:
        cap += (
            f"Dashed black: {_e(spec.upper)}, the loss-cause oracle (NewReno told the true cause "
            "of every loss), the upper bound loss differentiation can reach"
            + (
                "; the table under the figure gives each line as a share of it. "
                if shares
                else ". "
            )
        )
    band = f"Mean over seeds with a shaded {LEVEL:.0%} Student-t confidence band"
    if spec.bounds is not None:
        band += (
            f"; intervals are clipped to the metric's range "
            f"{_e(_bounds_text(spec.bounds, spec.scale))}"
            + (f" ({clipped} of {len(rows)} clipped here)" if clipped else " (none reached it)")
        )
    fig_html = (
        f'<figure class="figure" id="fig-{_e(spec.name)}" data-figure="{_e(spec.name)}">'
        f'<img alt="{_e(spec.title)}" src="data:image/png;base64,{b64}">'
        f"<figcaption><b>{_e(spec.title)}.</b> {cap}{band}. Data: {df.height} {_e(what)}"
        f"{where}, from sweep{'s' if len(sweeps) != 1 else ''} "
        + ", ".join(f"<code>{_e(n)}</code>" for n in sweeps)
        + f". Also saved as <code>{_e(spec.name)}.png</code> and "
        f"<code>{_e(spec.name)}.svg</code>.</figcaption></figure>"
        f'<div class="fig-table" data-figure="{_e(spec.name)}">{table}</div>'
        f"{shares}"
    )
    return fig_html


def _shares_table(spec: FigureSpec, data: PaperData) -> str:
    """HTML of a figure's lines as a share of its upper bound at each x, or "" when the figure
    has none (or no share table)."""
    if spec.upper is None or not spec.share:
        return ""
    shares = data.shares(spec, LEVEL)
    if shares.height == 0:
        return ""
    xlab = spec.xlabel or spec.x
    cols = [spec.group or "", xlab, "n", f"% of {spec.upper}", "95% CI low", "95% CI high"]
    rows = [
        [r["group"], r["x"], r["n"], r["share"], r["ci_low"], r["ci_high"]]
        for r in shares.sort("group", "x").iter_rows(named=True)
    ]
    return (
        f'<div class="share-table" data-figure="{_e(spec.name)}" data-upper="{_e(spec.upper)}">'
        f'<p class="meta">Share of {_e(spec.upper)} (upper bound): the mean '
        f"{_e(spec.ylabel or spec.metric)} of each line over seeds in % of the mean of the "
        f"{_e(spec.upper)} at the same {_e(xlab)}; the {LEVEL:.0%} interval is 100 % plus "
        f"Welch's interval of both samples taken in % of the mean of the {_e(spec.upper)}, "
        "its spread scaled by the share (the delta-method interval of the ratio; "
        "airtcp.stats.share_of), clipped at 0.</p>" + _html_table(cols, rows, left=1) + "</div>"
    )


def _table_section(spec: Any, data: PaperData) -> str:
    """One of the paper's tables beside the measured one."""
    try:
        df = spec.build(data)
        body = _html_table(df.columns, df.rows(), left=1)
    except Exception as e:  # noqa: BLE001 - shown in the report
        msg = f"{type(e).__name__}: {e}"
        body = f'<p class="warn">The table could not be computed: {_e(msg)}</p>'
    cap = f'<p class="meta">{_e(spec.caption)}</p>' if spec.caption else ""
    return (
        f'<section class="paper-table" id="table-{_e(spec.name)}" data-table="{_e(spec.name)}">'
        f"<h3>{_e(spec.title)}</h3>{body}{cap}</section>"
    )


def _effect_text(c: Any) -> str:
    if c.effect is None and c.ci_low is None:
        return ""
    eff = fmt(c.effect) if c.effect is not None else "–"
    if c.ci_low is None or c.ci_high is None:
        return eff
    return f"{eff} [{fmt(c.ci_low)}, {fmt(c.ci_high)}]"


def _robustness_section(paper: Paper, rob: Robustness) -> str:
    """The robustness table (claim x condition: outcome, effect and interval) and the
    sentence per claim."""
    conds = rob.conditions
    head = "".join(
        f'<th class="l" title="{_e(c.title)}">{_e(c.label)}'
        + (" (axis)" if c.kind == "axis" else "")
        + "</th>"
        for c in conds
    )
    rows = []
    for claim in paper.claims:
        cells = []
        for c in conds:
            cell = rob.cell(claim.id, c.label)
            if cell is None:
                why = "not run" if c.label in rob.missing else "not affected"
                cells.append(f'<td class="na">{_e(why)}</td>')
                continue
            tip = cell.error or cell.sentence
            cells.append(
                f'<td class="{cell.outcome.css}" data-claim="{_e(claim.id)}" '
                f'data-condition="{_e(c.label)}" data-verdict="{cell.outcome.css}" '
                f'title="{_e(tip)}">{_e(cell.outcome)}<br><small>{_e(_effect_text(cell))}'
                "</small></td>"
            )
        rows.append(f'<tr><td class="l">{_e(claim.id)}</td>{"".join(cells)}</tr>')
    defs = []
    for r in paper.readings:
        alts = "".join(
            f"<li><code>{_e(v.name)}</code>{' (default)' if v is r.default else ''}: "
            f"{_e(v.why)}</li>"
            for v in r.variants()
        )
        passage = f"<blockquote>{_e(r.passage)}</blockquote>" if r.passage else ""
        scope = f" Claims: {_e(', '.join(r.claims))}." if r.claims else ""
        defs.append(
            f'<li id="reading-{_e(r.name)}"><b>{_e(r.name)}</b> ({_e(r.kind)}): '
            f"{_e(r.title)}.{scope}{passage}<ul>{alts}</ul></li>"
        )
    sentences = "".join(
        f'<li data-claim="{_e(cid)}"><b>{_e(cid)}</b>: {_e(s)}</li>'
        for cid, s in rob.sentences.items()
    )
    missing = (
        '<p class="warn">Not evaluated (runs missing; run <code>airtcp reproduce '
        f"{_e(paper.key)}{' --quick' if rob.quick else ''}</code>): "
        + _e(", ".join(rob.missing))
        + "</p>"
        if rob.missing
        else ""
    )
    size = (
        " At the quick size only the default and the first alternative of each are run."
        if rob.quick
        else ""
    )
    return (
        '<h2 id="robustness">Robustness</h2><p>Every claim decided by its own test under each '
        "reading of an ambiguous passage and each value of a setup axis the paper leaves open, "
        "one varied at a time, the others at their defaults. A cell gives the outcome and the "
        f"claim's effect with its interval.{size}</p>{missing}"
        f'<table class="robustness"><tr><th class="l">claim</th>{head}</tr>{"".join(rows)}'
        "</table><h3>Per claim</h3><ul>"
        + sentences
        + "</ul><h3>Readings and axes</h3><ul>"
        + "".join(defs)
        + "</ul>"
    )


def _claim_section(
    spec: Any, res: ClaimResult | None, err: str | None, robust: str | None = None
) -> str:
    if res is None:
        outcome = Outcome.INCONCLUSIVE
        body = f'<p class="warn">The check could not be computed: {_e(err)}</p>'
    else:
        outcome = res.outcome
        body = f"<p>{_e(res.sentence)}</p>{numbers_table(res.numbers)}"
    src = f'<p class="meta">Source: {_e(spec.source)}</p>' if spec.source else ""
    test = f'<p class="test"><b>Test.</b> {_e(spec.test)}</p>' if spec.test else ""
    if robust:
        body += f'<p class="test"><b>Under the readings.</b> {_e(robust)}</p>'
    cls = outcome.css
    return (
        f'<section class="claim {cls}-claim" id="claim-{_e(spec.id)}" '
        f'data-claim="{_e(spec.id)}" data-verdict="{cls}">'
        f'<h3><span class="verdict {cls}">{_e(outcome)}</span> {_e(spec.statement)}</h3>'
        f"{src}{test}{body}</section>"
    )


def _params_section(data: PaperData) -> str:
    import polars as pl

    parts = []
    for name, r in data.sweeps.items():
        runs = data.table(name, "runs")
        ok = runs.filter(pl.col("status") == "ok").height
        failed = runs.height - ok
        wall = float(runs["wall_s"].sum() or 0.0) if runs.height else 0.0
        versions = sorted(set(v for v in runs["airtcp_version"].to_list() if v))
        when = [v for v in runs["finished_at"].to_list() if v]
        grid_rows = [[path, ", ".join(fmt(v) for v in vals)] for path, vals in r.grid.items()]
        seeds = r.seeds
        seed_txt = f"{seeds[0]}–{seeds[-1]} ({len(seeds)})" if len(seeds) > 1 else str(seeds[0])
        facts = {
            "sweep in the store": r.name,
            "description": r.spec.description or "–",
            "grid points": math.prod(len(v) for v in r.grid.values()) if r.grid else 1,
            "seeds": seed_txt,
            "runs": f"{runs.height} ({ok} ok, {failed} failed)",
            "simulated time per run": r.scenario.data.get("duration"),
            "total wall time of the runs": f"{wall:.2f} s",
            "airtcp version(s) of the runs": ", ".join(versions) or "–",
            "runs finished": f"{min(when)} – {max(when)}" if when else "–",
            "time series recorded": "yes" if r.spec.trace else "no",
        }
        toml = Scenario(r.scenario.to_dict()).to_toml()
        desc = f" — {_e(r.spec.description)}" if r.spec.description else ""
        parts.append(
            f'<section class="sweep" id="sweep-{_e(name)}"><details>'
            f"<summary>Sweep <code>{_e(name)}</code>{desc} ({runs.height} runs)</summary>"
            + _html_table(["", ""], list(facts.items()), left=2)
            + "<p>Grid (cross product; paths as in <code>airtcp sweep --set</code>):</p>"
            + _html_table(["path", "values"], grid_rows, left=2)
            + "<p>Base scenario (the seed and the grid values are set per run):</p>"
            + f"<pre>{_e(toml)}</pre></details></section>"
        )
    return "".join(parts)


def _git_commit() -> str | None:
    """The commit of the source tree this airtcp runs from (``+ local changes`` when it has
    uncommitted edits), or None outside a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not head:
        return None
    return head + (" + local changes" if dirty else "")


def provenance() -> dict[str, str]:
    """What produced a report or a generated table: airtcp and core versions, the core's
    build fingerprint (the store keys runs by it), the git commit when running from a
    checkout, Python and library versions, and the host."""
    import matplotlib
    import polars

    return {
        "airtcp": __version__,
        "core version": str(_core.__version__),
        "core build fingerprint": str(_core.__build__),
        "git commit": _git_commit() or "not available (not a git checkout)",
        "python": platform.python_version(),
        "polars / matplotlib": f"{polars.__version__} / {matplotlib.__version__}",
        "host": f"{platform.node() or '?'} ({platform.platform()}, {os.cpu_count()} cores)",
    }


def _failures_section(data: PaperData) -> str:
    import polars as pl

    rows = []
    for name in data.sweeps:
        runs = data.table(name, "runs").filter(pl.col("status") == "failed")
        for r in runs.iter_rows(named=True):
            rows.append([name, r["params"], r["seed"], r["error"]])
    if not rows:
        return ""
    return (
        '<h2 id="failures">Failed runs</h2><p class="warn">These runs failed and are left out '
        "of the figures and claims.</p>"
        + _html_table(["sweep", "grid point", "seed", "error"], rows, left=4)
    )


def render(
    data: PaperData,
    outdir: Path,
    *,
    elapsed_s: float | None = None,
    robustness: Robustness | None = None,
) -> tuple[str, list[ClaimVerdict]]:
    """The report's HTML and the claims' verdicts (writes the figure files into ``outdir``).
    ``elapsed_s`` is the wall time of the reproduction that ran before, when there was one;
    ``robustness`` the claims decided under the paper's readings (a section of its own)."""
    t0 = time.perf_counter()
    paper = data.paper
    cache = _FigureCache(outdir)
    figs = [_figure_section(spec, data, outdir, cache) for spec in paper.figures]
    cache.save()
    tables = [_table_section(spec, data) for spec in paper.tables]
    claims = []
    summary_rows = []
    verdicts: list[ClaimVerdict] = []
    for spec in paper.claims:
        res: ClaimResult | None
        try:
            res, err = spec.check(data), None
        except Exception as e:  # noqa: BLE001 - shown in the report
            res, err = None, f"{type(e).__name__}: {e}"
        robust = robustness.sentences.get(spec.id) if robustness is not None else None
        claims.append(_claim_section(spec, res, err, robust))
        outcome = res.outcome if res is not None else Outcome.INCONCLUSIVE
        summary_rows.append([spec.id, spec.statement, str(outcome)])
        verdicts.append(ClaimVerdict(spec.id, spec.statement, outcome))
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    size = "quick (CI-sized: shorter runs, fewer points and seeds)" if data.quick else "full"
    notes = f"<p>{_e(paper.notes)}</p>" if paper.notes else ""
    counts = {o: sum(1 for v in verdicts if v.outcome is o) for o in Outcome}
    tally = ", ".join(f"{n} {o}" for o, n in counts.items())
    failures = _failures_section(data)
    toc = (
        '<nav class="toc"><h2>Contents</h2><ol>'
        '<li><a href="#claims-summary">Claims</a></li>'
        '<li><a href="#figures">Figures</a><ol>'
        + "".join(f'<li><a href="#fig-{_e(f.name)}">{_e(f.title)}</a></li>' for f in paper.figures)
        + "</ol></li>"
        + (
            '<li><a href="#tables">Tables</a><ol>'
            + "".join(
                f'<li><a href="#table-{_e(t.name)}">{_e(t.title)}</a></li>' for t in paper.tables
            )
            + "</ol></li>"
            if paper.tables
            else ""
        )
        + '<li><a href="#claims">Claims in detail</a><ol>'
        + "".join(
            f'<li><a href="#claim-{_e(c.id)}">{_e(c.statement)}</a></li>' for c in paper.claims
        )
        + "</ol></li>"
        + ('<li><a href="#failures">Failed runs</a></li>' if failures else "")
        + '<li><a href="#parameters">Parameters</a></li>'
        '<li><a href="#provenance">Provenance</a></li></ol></nav>'
    )
    runs_wall = 0.0
    for name in data.sweeps:
        runs = data.table(name, "runs")
        if runs.height:
            runs_wall += float(runs["wall_s"].sum() or 0.0)
    prov = provenance()
    prov["store"] = str(data.store)
    prov["report generated"] = now
    prov["sum of the runs' wall times"] = f"{runs_wall:.1f} s"
    if elapsed_s is not None:
        prov["reproduction wall time (runs not in the store, then this report)"] = (
            f"{elapsed_s:.1f} s"
        )
    prov["report build wall time"] = f"{time.perf_counter() - t0:.2f} s"
    reused = len(paper.figures) - cache.drawn
    prov["figures drawn for this build"] = f"{cache.drawn} of {len(paper.figures)}" + (
        f" ({reused} unchanged since the last build, reused)" if reused else ""
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(paper.title)} — airtcp reproduction</title>"
        f"<style>{_CSS}</style></head><body>"
        f'<h1>{_e(paper.title)}</h1><p class="cite">{_e(paper.citation)}</p>'
        f'<p class="meta">airtcp {__version__} · core build {_e(_core.__build__)} · paper '
        f"<code>{_e(paper.key)}</code> · {_e(size)} · generated {now} · store "
        f"<code>{_e(data.store)}</code></p>"
        f"<p>{_e(paper.summary)}</p>{notes}"
        + toc
        + f'<h2 id="claims-summary">Claims</h2><p>Of {len(verdicts)} claims: {tally}. Each '
        "is decided by the test stated with it; inconclusive means the data neither support "
        "nor rule out the claim.</p>"
        + _html_table(["claim", "statement", "outcome"], summary_rows, left=3)
        + (_robustness_section(paper, robustness) if robustness is not None else "")
        + '<h2 id="figures">Figures</h2>'
        + "".join(figs)
        + (
            '<h2 id="tables">Tables</h2><p>Each of the paper\'s tables beside the measured one '
            "(mean over seeds with its 95% confidence interval).</p>" + "".join(tables)
            if tables
            else ""
        )
        + '<h2 id="claims">Claims in detail</h2>'
        + "".join(claims)
        + failures
        + '<h2 id="parameters">Parameters</h2>'
        + _params_section(data)
        + '<h2 id="provenance">Provenance</h2>'
        + _html_table(["", ""], list(prov.items()), left=2)
        + '<p class="meta">Rebuild this report from the store with <code>airtcp report '
        + _e(paper.key)
        + (" --quick" if data.quick else "")
        + f" --store {_e(data.store)}</code>.</p>"
        + "</body></html>\n"
    )
    return page, verdicts


def write_report(
    paper: Paper,
    store: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] = "reports",
    quick: bool = False,
    seeds: int | None = None,
    elapsed_s: float | None = None,
    readings: bool | Sequence[str] = True,
) -> Report:
    """Build ``<out>/<paper>/index.html`` (``<out>/<paper>/quick/index.html`` for the quick
    size, so the two never overwrite each other) from the runs in ``store`` (nothing is run).
    Raises :class:`airtcp.papers.MissingRuns` if the store lacks any of the paper's own runs;
    with ``readings`` (True: all; a list of names; False: none) and readings declared, the
    robustness table is built from the runs the store holds (a reading's variant it lacks is
    named as not run) and also written as ``robustness.json``."""
    from .papers import _readings_wanted, load_data
    from .robustness import evaluate

    data = load_data(paper, store, quick=quick, seeds=seeds)
    outdir = report_dir(paper.key, out, quick=quick)
    outdir.mkdir(parents=True, exist_ok=True)
    rob = None
    only = _readings_wanted(paper, readings)
    if paper.readings and (only is None or only):
        rob = evaluate(paper, store, quick=quick, seeds=seeds, only=only, default_data=data)
        rob.write_json(outdir / "robustness.json")
    text, verdicts = render(data, outdir, elapsed_s=elapsed_s, robustness=rob)
    path = outdir / "index.html"
    tmp = outdir / "index.html.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return Report(path, verdicts, rob)


def report_dir(key: str, out: str | os.PathLike[str] = "reports", *, quick: bool = False) -> Path:
    """Where a paper's report goes: ``<out>/<key>/``, or ``<out>/<key>/quick/`` for the quick
    size."""
    return Path(out) / key / ("quick" if quick else "")
