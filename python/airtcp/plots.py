"""Plots (matplotlib, Agg backend): a metric against a swept parameter with one line per group
and confidence-interval bands, and cwnd/queue time series from a :class:`~airtcp.Result` or a
stored run (:meth:`airtcp.Store.series`).

Every function returns the matplotlib Figure; pass ``out="x.png"`` or ``out="x.svg"`` to save
it (the format follows the suffix).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .analysis import aggregate

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .result import Result

__all__ = ["metric_vs_param", "cwnd", "queue", "readable", "save"]


def save(fig: Figure, out: str | os.PathLike[str]) -> Path:
    """Save ``fig`` as PNG or SVG (by the suffix of ``out``) and return the path."""
    p = Path(out)
    suffix = p.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{p}: plots are written as .png or .svg")
    if p.parent != Path(""):
        p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, format=suffix[1:], dpi=120 if suffix == ".png" else None)
    return p


def _new_axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is not None:
        return ax.figure, ax
    # A bare Figure draws without pyplot, so the caller's backend (e.g. inline plots in a
    # notebook) is left as it was and nothing is kept in pyplot's figure registry.
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    ax = fig.subplots()
    return fig, ax


def _label(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _log_axes(ax: Axes, *, logx: bool, logy: bool, xs: Sequence[Any], xscale: float) -> None:
    """Log axes labelled with plain numbers (0.002, 0.5, 2) instead of powers of ten; a log x
    axis gets a tick at every swept value."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    plain = FuncFormatter(lambda v, _: f"{v:g}")
    if logx:
        ax.set_xscale("log")
        ticks = sorted({float(v) * xscale for v in xs if v is not None and float(v) > 0})
        if ticks:
            ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(plain)
        ax.xaxis.set_minor_formatter(NullFormatter())
    if logy:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(NullFormatter())


#: the last step of a column's path -> (what it is, unit, factor from the stored value)
_KNOWN = {
    "per": ("packet error rate", "%", 100.0),
    "ber": ("bit error rate", "", 1.0),
    "hops": ("hops", "", 1.0),
    "n_flows": ("flows", "", 1.0),
    "cc": ("scheme", "", 1.0),
    "fairness": ("Jain's fairness index", "", 1.0),
    "duration": ("duration", "s", 1.0),
    "spacing": ("node spacing", "m", 1.0),
}


def readable(column: str) -> tuple[str, float]:
    """An axis label with its unit for a column (a metric or a swept path) and the factor
    that turns stored values into that unit: ``goodput_bps`` -> ("goodput (kb/s)", 1e-3),
    ``links.R2-D1.error.per`` -> ("packet error rate, R2-D1 (%)", 100)."""
    steps = column.split(".")
    last = steps[-1]
    where = ""
    if len(steps) > 2 and steps[0] in ("links", "flows", "media", "nodes"):
        where = f", {steps[1]}" if steps[1] != "*" else ""
    if last.endswith("_bps"):
        return f"{last[:-4].replace('_', ' ')}{where} (kb/s)", 1e-3
    if last.endswith("_s"):
        return f"{last[:-2].replace('_', ' ')}{where} (s)", 1.0
    if last in _KNOWN:
        what, unit, factor = _KNOWN[last]
        return f"{what}{where}" + (f" ({unit})" if unit else ""), factor
    return f"{last.replace('_', ' ')}{where}", 1.0


def _num(v: Any) -> float:
    return float("nan") if v is None else float(v)


def metric_vs_param(
    data: pl.DataFrame,
    x: str,
    metric: str,
    group: str | Sequence[str] | None = None,
    *,
    aggregated: bool = False,
    level: float = 0.95,
    scale: float = 1.0,
    xscale: float = 1.0,
    band: bool = True,
    ax: Axes | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    logx: bool = False,
    logy: bool = False,
    ylim0: bool = True,
    overlay: Callable[[Axes, pl.DataFrame], None] | None = None,
    bounds: tuple[float | None, float | None] | None = None,
    raw: pl.DataFrame | None = None,
    upper: Any = None,
    out: str | os.PathLike[str] | None = None,
    figsize: tuple[float, float] = (6.4, 4.2),
) -> Figure:
    """``metric`` against ``x``, one line per value of ``group`` (a column or columns, e.g. the
    scheme), each point the mean over seeds with a shaded ``level`` confidence band.

    ``data`` holds one row per run (or per flow of a run), as ``Store.flows()`` returns; with
    ``aggregated=True`` it is already the output of :func:`airtcp.analysis.aggregate` (columns
    ``x``, the group columns, ``mean``, ``ci_low``, ``ci_high``). ``scale`` multiplies the
    metric (1e-6 for Mbps), ``xscale`` the parameter. ``bounds`` is the metric's range (in
    its own units, before ``scale``): bands are clipped to it, so a band never shows values
    the metric cannot take. ``overlay(ax, rows)`` may draw more (a model curve) before the
    legend is made; it gets ``raw`` (the per-run rows) when given, else ``data``. ``upper``
    is the value of ``group`` that bounds the others (the loss-cause oracle): it is drawn last,
    dashed black with a grey band, and labelled "<value> (upper bound)".
    """
    import polars as pl

    groups = [group] if isinstance(group, str) else list(group or [])
    # Without a label or a factor given, an axis is named in words with its unit (kb/s, %).
    if ylabel is None and scale == 1.0:
        ylabel, scale = readable(metric)
    if xlabel is None and xscale == 1.0:
        xlabel, xscale = readable(x)
    agg = data if aggregated else aggregate(data, metric, [*groups, x], level=level)
    if bounds is not None:
        lo_b, hi_b = bounds
        agg = agg.with_columns(
            pl.col("ci_low").clip(lower_bound=lo_b, upper_bound=hi_b),
            pl.col("ci_high").clip(lower_bound=lo_b, upper_bound=hi_b),
        )
    fig, ax = _new_axes(ax, figsize)
    if groups:
        keys = agg.select(groups).unique(maintain_order=True).sort(groups).rows()
    else:
        keys = [()]
    bound = (upper,) if upper is not None and len(groups) == 1 else None
    if bound in keys:
        # The bound is drawn last, so it sits on top and ends the legend.
        keys = [k for k in keys if k != bound] + [bound]
    markers = "osD^v<>px*"
    for i, key in enumerate(keys):
        sub = agg
        for g, v in zip(groups, key, strict=False):
            sub = sub.filter(pl.col(g).is_null() if v is None else pl.col(g) == v)
        sub = sub.sort(x)
        xs = [float(v) * xscale for v in sub[x].to_list()]
        ys = [float(v) * scale for v in sub["mean"].to_list()]
        label = ", ".join(_label(v) for v in key) if key else metric
        if key == bound:
            style: dict[str, Any] = {"color": "black", "ls": "--", "lw": 1.6, "marker": "x"}
            label = f"{label} (upper bound)"
        else:
            style = {"marker": markers[i % len(markers)]}
        (line,) = ax.plot(xs, ys, label=label, **style)
        if band:
            lo = [_num(v) * scale for v in sub["ci_low"].to_list()]
            hi = [_num(v) * scale for v in sub["ci_high"].to_list()]
            alpha = 0.1 if key == bound else 0.2
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=alpha, linewidth=0)
    if overlay is not None:
        overlay(ax, raw if raw is not None else data)
    _log_axes(ax, logx=logx, logy=logy, xs=agg[x].to_list(), xscale=xscale)
    xs_all = [v for v in agg[x].to_list() if v is not None]
    if not logx and xs_all and all(float(v) * xscale == int(float(v) * xscale) for v in xs_all):
        # Counts (hops, flows) get whole-number ticks, never 4.5.
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not logy and ylim0:
        ax.set_ylim(bottom=0)
    # Without a label given, a scaled axis says by how much its values were multiplied.
    ax.set_xlabel(xlabel or (x if xscale == 1.0 else f"{x} × {xscale:g}"))
    ax.set_ylabel(ylabel or (metric if scale == 1.0 else f"{metric} × {scale:g}"))
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if (groups or overlay is not None) and ax.get_legend_handles_labels()[0]:
        # The group column names what the lines are ("sources": 2, 4, 8).
        ax.legend(fontsize=8, title=", ".join(groups) or None, title_fontsize=8)
    fig.tight_layout()
    if out is not None:
        save(fig, out)
    return fig


def _series(source: Result | pl.DataFrame, kind: str, name: str) -> dict[str, Any]:
    """Arrays of one recorded series from a Result or a stored-series DataFrame."""
    import polars as pl

    if isinstance(source, pl.DataFrame):
        sub = source.filter((pl.col("kind") == kind) & (pl.col("name") == name))
        if sub.height == 0:
            have = sorted(set(source.filter(pl.col("kind") == kind)["name"].to_list()))
            raise KeyError(f"no {kind} series for {name!r}; recorded: {', '.join(have) or 'none'}")
        sub = sub.sort("t")
        return {
            "t": sub["t"].to_numpy(),
            "value": sub["value"].to_numpy(),
            "ssthresh": sub["ssthresh"].to_numpy(),
        }
    if kind == "cwnd":
        t, c, s = source.cwnd(name)
        return {"t": t, "value": c, "ssthresh": s}
    t, q = source.queue(name)
    return {"t": t, "value": q, "ssthresh": None}


def _finish_series(
    fig: Figure,
    ax: Axes,
    ylabel: str,
    title: str | None,
    out: str | os.PathLike[str] | None,
) -> Figure:
    """Axes, legend and saving shared by the time-series plots."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    if out is not None:
        save(fig, out)
    return fig


def cwnd(
    source: Result | pl.DataFrame,
    flows: str | Sequence[str],
    *,
    ssthresh: bool = True,
    ssthresh_cap: float | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    out: str | os.PathLike[str] | None = None,
    figsize: tuple[float, float] = (7.0, 3.6),
) -> Figure:
    """cwnd (segments) of one or more flows over time, as a step plot, with ssthresh dashed
    (values above ``ssthresh_cap``, by default the largest cwnd times 2, are not drawn: the
    initial ssthresh is effectively infinite)."""
    import numpy as np

    names = [flows] if isinstance(flows, str) else list(flows)
    fig, ax = _new_axes(ax, figsize)
    for name in names:
        s = _series(source, "cwnd", name)
        (line,) = ax.step(s["t"], s["value"], where="post", label=f"{name} cwnd", lw=1)
        if ssthresh and s["ssthresh"] is not None and len(s["ssthresh"]):
            cap = ssthresh_cap if ssthresh_cap is not None else 2 * float(np.max(s["value"]))
            ss = np.where(s["ssthresh"] <= cap, s["ssthresh"], np.nan)
            ax.step(
                s["t"],
                ss,
                where="post",
                ls="--",
                lw=0.8,
                color=line.get_color(),
                label=f"{name} ssthresh",
            )
    return _finish_series(fig, ax, "segments", title, out)


def queue(
    source: Result | pl.DataFrame,
    directions: str | Sequence[str],
    *,
    ax: Axes | None = None,
    title: str | None = None,
    out: str | os.PathLike[str] | None = None,
    figsize: tuple[float, float] = (7.0, 3.6),
) -> Figure:
    """Queue length (packets waiting) of one or more link directions (``"R1->R2"``) over time."""
    names = [directions] if isinstance(directions, str) else list(directions)
    fig, ax = _new_axes(ax, figsize)
    for name in names:
        s = _series(source, "queue", name)
        ax.step(s["t"], s["value"], where="post", label=name, lw=1)
    return _finish_series(fig, ax, "queue (packets)", title, out)
