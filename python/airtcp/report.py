"""Self-contained HTML reports of paper reproductions (figures embedded as base64 PNG, no
external assets): figures, tables of aggregated results with confidence intervals, each claim
with its verdict and numbers, and every parameter the runs used."""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .analysis import aggregate
from .scenario import Scenario

if TYPE_CHECKING:  # pragma: no cover
    from .papers import ClaimResult, FigureSpec, Paper, PaperData

__all__ = ["Report", "write_report", "render"]

LEVEL = 0.95


@dataclass
class Report:
    """A written report: where ``index.html`` is and each claim's (id, statement, supported)."""

    path: Path
    claims: list[tuple[str, str, bool]]


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
.claim { border-left: 4px solid #ccd; padding: .2em 0 .2em 1em; margin: 1.2em 0; }
.claim.supported-claim { border-color: #2e7d32; }
.claim.not-supported-claim { border-color: #c62828; }
pre { background: #f6f7f9; padding: .7em; overflow-x: auto; font-size: .82em; }
.warn { background: #fff4e5; border: 1px solid #f0c36d; padding: .5em 1em; }
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


def _png_b64(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure_section(spec: FigureSpec, data: PaperData, outdir: Path) -> tuple[str, str]:
    """(HTML of one figure with its table, the figure's title) and PNG/SVG files beside."""
    from . import plots

    df = data.table(spec.sweep, spec.table, spec.where)
    groups = [spec.group] if spec.group else []
    agg = aggregate(df, spec.metric, [*groups, spec.x], level=LEVEL)
    fig = plots.metric_vs_param(
        df,
        spec.x,
        spec.metric,
        spec.group,
        scale=spec.scale,
        xscale=spec.xscale,
        title=spec.title,
        xlabel=spec.xlabel,
        ylabel=spec.ylabel,
        logx=spec.logx,
        logy=spec.logy,
        ylim0=spec.ylim0,
        overlay=spec.overlay,
    )
    b64 = _png_b64(fig)
    for ext in ("png", "svg"):
        plots.save(fig, outdir / f"{spec.name}.{ext}")
    ylab = spec.ylabel or spec.metric
    xlab = spec.xlabel or spec.x
    cols = [*groups, xlab, "n", f"mean {ylab}", "± 95% CI", "CI low", "CI high", "std"]
    rows = []
    for r in agg.iter_rows(named=True):
        s = spec.scale
        xv = r[spec.x]
        rows.append(
            [
                *(r[g] for g in groups),
                xv * spec.xscale if isinstance(xv, (int, float)) else xv,
                r["n"],
                r["mean"] * s,
                r["ci_half"] * s,
                r["ci_low"] * s,
                r["ci_high"] * s,
                r["std"] * s,
            ]
        )
    table = _html_table(cols, rows, left=len(groups))
    n_rows = df.height
    cap = _e(spec.caption) + " " if spec.caption else ""
    what = f"{spec.table} rows" + (
        f" where {', '.join(f'{k} = {v}' for k, v in spec.where.items())}" if spec.where else ""
    )
    fig_html = (
        f'<figure class="figure" id="fig-{_e(spec.name)}" data-figure="{_e(spec.name)}">'
        f'<img alt="{_e(spec.title)}" src="data:image/png;base64,{b64}">'
        f"<figcaption><b>{_e(spec.title)}.</b> {cap}Mean over seeds with a shaded 95% "
        f"Student-t confidence band; from {n_rows} {_e(what)} of sweep "
        f"<code>{_e(data.sweeps[spec.sweep].name)}</code>. Also saved as "
        f"<code>{_e(spec.name)}.png</code> and <code>{_e(spec.name)}.svg</code>.</figcaption>"
        f"</figure>"
        f'<div class="fig-table" data-figure="{_e(spec.name)}">{table}</div>'
    )
    return fig_html, spec.title


def _claim_section(spec: Any, res: ClaimResult | None, err: str | None) -> str:
    if res is None:
        verdict, cls = "not supported", "not-supported"
        body = f'<p class="warn">The check could not be computed: {_e(err)}</p>'
    else:
        verdict = "supported" if res.supported else "not supported"
        cls = "supported" if res.supported else "not-supported"
        body = f"<p>{_e(res.sentence)}</p>{numbers_table(res.numbers)}"
    src = f'<p class="meta">Source: {_e(spec.source)}</p>' if spec.source else ""
    return (
        f'<section class="claim {cls}-claim" id="claim-{_e(spec.id)}" '
        f'data-claim="{_e(spec.id)}" data-verdict="{cls}">'
        f'<h3><span class="verdict {cls}">{verdict}</span> {_e(spec.statement)}</h3>'
        f"{src}{body}</section>"
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
        parts.append(
            f'<section class="sweep" id="sweep-{_e(name)}"><h3>Sweep <code>{_e(name)}</code></h3>'
            + _html_table(["", ""], list(facts.items()), left=2)
            + "<p>Grid (cross product; paths as in <code>airtcp sweep --set</code>):</p>"
            + _html_table(["path", "values"], grid_rows, left=2)
            + "<p>Base scenario (the seed and the grid values are set per run):</p>"
            + f"<pre>{_e(toml)}</pre></section>"
        )
    return "".join(parts)


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


def render(data: PaperData, outdir: Path) -> tuple[str, list[tuple[str, str, bool]]]:
    """The report's HTML and the claims' verdicts (writes the figure files into ``outdir``)."""
    paper = data.paper
    figs = []
    for spec in paper.figures:
        h, _ = _figure_section(spec, data, outdir)
        figs.append(h)
    claims = []
    summary_rows = []
    verdicts = []
    for spec in paper.claims:
        res: ClaimResult | None
        try:
            res, err = spec.check(data), None
        except Exception as e:  # noqa: BLE001 - shown in the report
            res, err = None, f"{type(e).__name__}: {e}"
        claims.append(_claim_section(spec, res, err))
        verdict = "supported" if res is not None and res.supported else "not supported"
        summary_rows.append([spec.id, spec.statement, verdict])
        verdicts.append((spec.id, spec.statement, verdict == "supported"))
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    size = "quick (CI-sized: shorter runs, fewer points and seeds)" if data.quick else "full"
    notes = f"<p>{_e(paper.notes)}</p>" if paper.notes else ""
    n_sup = sum(1 for r in summary_rows if r[2] == "supported")
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_e(paper.title)} — airtcp reproduction</title>"
        f"<style>{_CSS}</style></head><body>"
        f'<h1>{_e(paper.title)}</h1><p class="cite">{_e(paper.citation)}</p>'
        f'<p class="meta">airtcp {__version__} · paper <code>{_e(paper.key)}</code> · '
        f"{_e(size)} · generated {now} · store <code>{_e(data.store)}</code></p>"
        f"<p>{_e(paper.summary)}</p>{notes}"
        f'<h2 id="claims-summary">Claims</h2><p>{n_sup} of {len(summary_rows)} claims '
        "supported by this run.</p>"
        + _html_table(["claim", "statement", "verdict"], summary_rows, left=3)
        + '<h2 id="figures">Figures</h2>'
        + "".join(figs)
        + '<h2 id="claims">Claims in detail</h2>'
        + "".join(claims)
        + _failures_section(data)
        + '<h2 id="parameters">Parameters</h2>'
        + _params_section(data)
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
) -> Report:
    """Build ``<out>/<paper>/index.html`` (``<out>/<paper>/quick/index.html`` for the quick
    size, so the two never overwrite each other) from the runs in ``store`` (nothing is run).
    Raises :class:`airtcp.papers.MissingRuns` if the store lacks any."""
    from .papers import load_data

    data = load_data(paper, store, quick=quick, seeds=seeds)
    outdir = Path(out) / paper.key / ("quick" if quick else "")
    outdir.mkdir(parents=True, exist_ok=True)
    text, verdicts = render(data, outdir)
    path = outdir / "index.html"
    tmp = outdir / "index.html.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return Report(path, verdicts)
