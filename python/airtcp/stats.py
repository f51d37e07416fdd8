"""Two-sample comparisons for paper claims: Welch's t-test with its confidence interval and
Hedges' g, and a three-way verdict (supported / not supported / inconclusive) that weighs the
interval against the magnitude a paper reports."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .analysis import t_cdf, t_ppf

__all__ = ["Welch", "welch", "verdict", "SUPPORTED", "NOT_SUPPORTED", "INCONCLUSIVE"]

SUPPORTED = "supported"
NOT_SUPPORTED = "not supported"
INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class Welch:
    """Welch's comparison of sample ``a`` against sample ``b``: ``diff`` = mean(a) − mean(b),
    its standard error, Welch–Satterthwaite degrees of freedom, t, the two-sided p-value, the
    ``level`` confidence interval of the difference and Hedges' g (bias-corrected Cohen's d
    with the pooled standard deviation). NaN where the samples are too small."""

    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    diff: float
    se: float
    df: float
    t: float
    p: float
    ci_low: float
    ci_high: float
    g: float
    level: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clean(xs: Sequence[float]) -> list[float]:
    return [float(x) for x in xs if x is not None and not math.isnan(float(x))]


def _mean_var(xs: list[float]) -> tuple[float, float]:
    m = math.fsum(xs) / len(xs)
    v = math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, v


def welch(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Welch:
    """Welch's t-test of mean(a) − mean(b) (None and NaN values are left out)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    xa, xb = _clean(a), _clean(b)
    na, nb = len(xa), len(xb)
    nan = math.nan
    if na < 2 or nb < 2:
        ma = math.fsum(xa) / na if na else nan
        mb = math.fsum(xb) / nb if nb else nan
        return Welch(na, nb, ma, mb, ma - mb, nan, nan, nan, nan, nan, nan, nan, level)
    ma, va = _mean_var(xa)
    mb, vb = _mean_var(xb)
    diff = ma - mb
    qa, qb = va / na, vb / nb
    se = math.sqrt(qa + qb)
    pooled = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    # Small-sample correction of Cohen's d (Hedges 1981).
    g = diff / pooled * (1.0 - 3.0 / (4.0 * (na + nb) - 9.0)) if pooled > 0 else nan
    if se == 0.0:
        # Both samples constant: the difference is known exactly.
        p = 1.0 if diff == 0 else 0.0
        t = 0.0 if diff == 0 else math.copysign(math.inf, diff)
        return Welch(na, nb, ma, mb, diff, 0.0, nan, t, p, diff, diff, g, level)
    df = (qa + qb) ** 2 / (qa**2 / (na - 1) + qb**2 / (nb - 1))
    t = diff / se
    p = min(1.0, 2.0 * (1.0 - t_cdf(abs(t), df)))
    half = t_ppf(1.0 - (1.0 - level) / 2.0, df) * se
    return Welch(na, nb, ma, mb, diff, se, df, t, p, diff - half, diff + half, g, level)


def verdict(ci_low: float, ci_high: float, paper: float, smallest: float | None = None) -> str:
    """Weigh a confidence interval of a measured change against the change a paper reports
    (``paper``, signed). With the interval oriented so that the paper's direction is positive
    and m the smallest effect counted as reproducing it (``smallest``, default half the
    paper's magnitude):

    - supported: the interval lies above 0 and reaches m;
    - not supported: the interval lies below m (an effect of size m is ruled out, or the
      change goes the other way);
    - inconclusive: otherwise, or when the interval is not finite.
    """
    if paper == 0 or math.isnan(paper):
        raise ValueError("the paper's change must be nonzero")
    m = abs(smallest) if smallest is not None else abs(paper) / 2.0
    if math.isnan(ci_low) or math.isnan(ci_high):
        return INCONCLUSIVE
    lo, hi = (ci_low, ci_high) if paper > 0 else (-ci_high, -ci_low)
    if hi < m:
        return NOT_SUPPORTED
    if lo > 0:
        return SUPPORTED
    return INCONCLUSIVE
