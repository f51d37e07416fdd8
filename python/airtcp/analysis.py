"""Aggregation over seeds: mean, standard deviation, count and a Student-t confidence interval
of any metric, grouped by any columns; Jain's fairness across the flows of each run.

Works on the tables :class:`airtcp.Store` returns (``flows()``, ``runs()``, ``links()``) or any
polars DataFrame::

    from airtcp import Store, analysis
    flows = Store("out/store.sqlite").flows("per-sweep")
    analysis.aggregate(flows, "goodput_bps", by=["links.R2-D1.error.per", "cc"])

The interval is ``mean ± t(1 - (1 - level)/2, n - 1) · s / sqrt(n)`` with ``s`` the sample
standard deviation (n − 1 in the denominator); with one value the std and the interval are
NaN. The t quantile is computed here (regularised incomplete beta function and bisection),
so no SciPy is needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .result import jain

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

__all__ = [
    "aggregate",
    "fairness",
    "mean_ci",
    "t_cdf",
    "t_ppf",
]

RUN_KEY = ("scenario_hash", "seed")


# --------------------------------------------------------------------------------------------
# Student t distribution


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
    lbt += b * math.log1p(-x)
    bt = math.exp(lbt)
    if x < (a + 1.0) / (a + b + 2.0):
        return bt * _betacf(a, b, x) / a
    return 1.0 - bt * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t > 0 else tail


def t_ppf(q: float, df: float) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom (e.g. ``t_ppf(0.975,
    9)`` = 2.2622), by bisection on :func:`t_cdf` to about 1e-12."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile must be in (0, 1), got {q}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be > 0, got {df}")
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < q:
        hi *= 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def mean_ci(values: Sequence[float], level: float = 0.95) -> dict[str, float]:
    """``{"n", "mean", "std", "ci_half", "ci_low", "ci_high"}`` of a sample, ignoring NaN and
    None. The interval is Student-t based; NaN when fewer than two values."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n == 0:
        nan = math.nan
        return {"n": 0, "mean": nan, "std": nan, "ci_half": nan, "ci_low": nan, "ci_high": nan}
    mean = math.fsum(xs) / n
    if n < 2:
        std = half = math.nan
    else:
        std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
        half = t_ppf(1.0 - (1.0 - level) / 2.0, n - 1) * std / math.sqrt(n)
    return {
        "n": n,
        "mean": mean,
        "std": std,
        "ci_half": half,
        "ci_low": mean - half,
        "ci_high": mean + half,
    }


# --------------------------------------------------------------------------------------------
# tables


def _as_list(x: str | Sequence[str] | None) -> list[str]:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def aggregate(
    df: pl.DataFrame,
    metric: str,
    by: str | Sequence[str] | None = None,
    *,
    level: float = 0.95,
    bounds: tuple[float | None, float | None] | None = None,
) -> pl.DataFrame:
    """Mean, std, n and the ``level`` confidence interval of ``metric`` for every combination of
    the ``by`` columns (sorted by them). Null and NaN values of the metric are left out of a
    group (``n`` counts what was used).

    ``bounds`` is the metric's range (``(0, None)`` for a rate, ``(0, 1)`` for a fraction):
    an interval end outside it is moved to the bound, and the column ``ci_clipped`` says
    where that happened (``ci_half`` keeps the unclipped half-width).

    Columns: the ``by`` columns, ``n``, ``mean``, ``std``, ``ci_low``, ``ci_high``, ``ci_half``
    (and ``ci_clipped`` with ``bounds``).
    """
    import polars as pl

    keys = _as_list(by)
    missing = [c for c in [*keys, metric] if c not in df.columns]
    if missing:
        raise KeyError(
            f"no column(s) {', '.join(map(repr, missing))}; columns: {', '.join(df.columns)}"
        )
    out_rows: list[dict[str, Any]] = []
    if keys:
        groups = df.group_by(keys, maintain_order=True)
        items = [(k if isinstance(k, tuple) else (k,), g) for k, g in groups]
    else:
        items = [((), df)]
    for k, g in items:
        stats: dict[str, Any] = mean_ci(g[metric].cast(pl.Float64).to_list(), level)
        if bounds is not None:
            lo, hi = stats["ci_low"], stats["ci_high"]
            b_lo, b_hi = bounds
            nlo = lo if b_lo is None or math.isnan(lo) else max(lo, b_lo)
            nhi = hi if b_hi is None or math.isnan(hi) else min(hi, b_hi)
            stats.update(ci_low=nlo, ci_high=nhi, ci_clipped=(nlo != lo or nhi != hi))
        out_rows.append({**dict(zip(keys, k, strict=False)), **stats})
    schema: dict[str, Any] = {c: df.schema[c] for c in keys}
    schema.update(
        n=pl.Int64,
        mean=pl.Float64,
        std=pl.Float64,
        ci_low=pl.Float64,
        ci_high=pl.Float64,
        ci_half=pl.Float64,
    )
    if bounds is not None:
        schema["ci_clipped"] = pl.Boolean
    out = (
        pl.DataFrame(out_rows, schema=schema, orient="row")
        if out_rows
        else pl.DataFrame(schema=schema)
    )
    if keys and out.height:
        out = out.sort(keys, nulls_last=True)
    return out


def fairness(
    flows: pl.DataFrame,
    metric: str = "goodput_bps",
    *,
    run: Sequence[str] = RUN_KEY,
    where: pl.Expr | None = None,
) -> pl.DataFrame:
    """Jain's fairness index of ``metric`` across the flows of each run (one row per run, with
    the run's other constant columns such as the grid point kept). ``where`` selects the flows
    that count (e.g. ``pl.col("transport") == "tcp"``)."""
    import polars as pl

    df = flows if where is None else flows.filter(where)
    keys = list(run)
    others = [c for c in df.columns if c not in keys and c != metric]
    keep: list[str] = []
    if df.height and others:
        uniq = df.group_by(keys).agg([pl.col(c).n_unique() for c in others])
        keep = [c for c in others if int(uniq[c].max()) == 1]
    rows = []
    for k, g in df.group_by(list(run), maintain_order=True):
        k = k if isinstance(k, tuple) else (k,)
        row = dict(zip(run, k, strict=False))
        for c in keep:
            row[c] = g[c][0]
        row["flows"] = g.height
        row["jain"] = jain(g[metric].cast(pl.Float64).fill_null(0.0).to_list())
        rows.append(row)
    from .store import frame

    return frame(rows, [*run, *keep, "flows", "jain"])
