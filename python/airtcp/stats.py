"""Statistics for paper claims: Welch's t-test with its confidence interval and Hedges' g,
one-sample intervals, exact binomial bounds for counted events, Bonferroni levels for claims
made at several points at once, and the three outcomes of a claim (supported / not supported /
inconclusive) with the rules that turn an interval into one of them.

Every rule reads an interval, never a bare mean: a claim is supported only when the interval
says so, not supported only when the interval rules it out, and inconclusive otherwise
(including when there is too little data for an interval).

A degenerate sample decides nothing: a sample with a single distinct value (every seed gave
the same run) has no spread to estimate, so the intervals of :func:`welch`, :func:`contrast`
and :func:`one_sample` built on it are NaN, with the ``reason`` said, and every rule reads a
NaN interval as inconclusive; a bootstrap interval of zero width is read the same way
(:func:`interval_outcome`). Counted events have exact intervals instead (:func:`rate_ci`). A
claim stated per condition (each PER, hop count, load) is decided per condition with
simultaneous intervals (:func:`per_condition`), not on the conditions pooled."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from .analysis import _betainc, mean_ci, t_cdf, t_ppf

__all__ = [
    "ConditionResult",
    "contrast",
    "degenerate",
    "holm",
    "interval_outcome",
    "per_condition",
    "per_condition_sentence",
    "part_outcome",
    "part_outcome_one",
    "relative_pair",
    "relative_samples",
    "share_of",
    "INCONCLUSIVE",
    "NOT_SUPPORTED",
    "SUPPORTED",
    "Outcome",
    "Welch",
    "binomial_ci",
    "bonferroni",
    "clip",
    "combine",
    "direction",
    "magnitude",
    "one_sample",
    "rate_ci",
    "verdict",
    "welch",
    "within",
    "zero_events_upper",
]


class Outcome(StrEnum):
    """The outcome of a claim. Compares equal to its text (``"not supported"``)."""

    SUPPORTED = "supported"
    NOT_SUPPORTED = "not supported"
    INCONCLUSIVE = "inconclusive"

    @classmethod
    def of(cls, value: Outcome | str | bool) -> Outcome:
        """An outcome from itself, its text, or a bool (True = supported, False = not
        supported: the two outcomes claims had before there were three)."""
        if isinstance(value, bool):
            return cls.SUPPORTED if value else cls.NOT_SUPPORTED
        if isinstance(value, cls):
            return value
        try:
            return cls(str(value).strip().lower())
        except ValueError:
            raise ValueError(
                f"a claim's outcome is one of {', '.join(repr(o.value) for o in cls)}, "
                f"got {value!r}"
            ) from None

    @property
    def css(self) -> str:
        """The outcome as a CSS class / HTML attribute value (``not-supported``)."""
        return self.value.replace(" ", "-")


SUPPORTED = Outcome.SUPPORTED
NOT_SUPPORTED = Outcome.NOT_SUPPORTED
INCONCLUSIVE = Outcome.INCONCLUSIVE


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
    #: why the interval is NaN although both samples have values (a degenerate sample)
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clean(xs: Sequence[float]) -> list[float]:
    return [float(x) for x in xs if x is not None and not math.isnan(float(x))]


def _mean_var(xs: list[float]) -> tuple[float, float]:
    m = math.fsum(xs) / len(xs)
    v = math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, v


def degenerate(*samples: Sequence[float], names: Sequence[str] | None = None) -> str:
    """Why these samples cannot give an interval ("" when they can): a sample with fewer than
    two values, or one whose values are all equal (zero variance: seeds that all gave the same
    run, or a metric stuck at a bound). None and NaN values are left out."""
    labels = list(names) if names is not None else [f"sample {i + 1}" for i in range(len(samples))]
    why = []
    for lab, xs in zip(labels, samples, strict=True):
        c = _clean(xs)
        if len(c) < 2:
            why.append(f"{lab} has {len(c)} value{'s' if len(c) != 1 else ''}")
        elif len(set(c)) == 1:
            why.append(f"{lab} has zero variance ({len(c)} runs, all {c[0]:.6g})")
    return "; ".join(why)


def welch(a: Sequence[float], b: Sequence[float], level: float = 0.95) -> Welch:
    """Welch's t-test of mean(a) − mean(b) (None and NaN values are left out). When either
    sample is degenerate (:func:`degenerate`: fewer than two values, or zero variance) the
    interval, t and p are NaN and ``reason`` says why: identical runs carry no spread to
    test, so they decide nothing."""
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
    why = degenerate(xa, xb, names=("a", "b"))
    if why:
        return Welch(na, nb, ma, mb, diff, se, nan, nan, nan, nan, nan, g, level, why)
    df = (qa + qb) ** 2 / (qa**2 / (na - 1) + qb**2 / (nb - 1))
    t = diff / se
    p = min(1.0, 2.0 * (1.0 - t_cdf(abs(t), df)))
    half = t_ppf(1.0 - (1.0 - level) / 2.0, df) * se
    return Welch(na, nb, ma, mb, diff, se, df, t, p, diff - half, diff + half, g, level)


def contrast(
    samples: Sequence[Sequence[float]], coefs: Sequence[float], level: float = 0.95
) -> dict[str, Any]:
    """A linear combination Σ cᵢ·mean(samplesᵢ) of independent samples' means with its
    ``level`` interval: standard error √(Σ cᵢ²·sᵢ²/nᵢ) and Welch–Satterthwaite degrees of
    freedom, as Welch's test is for a − b. A difference of two changes, each measured against
    its own baseline runs, needs all four samples' spread. Keys: ``diff``, ``se``, ``df``,
    ``t``, ``p``, ``ci_low``, ``ci_high``, ``n`` (each sample's size); the interval is NaN when
    a sample with a nonzero coefficient has fewer than two values."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if len(samples) != len(coefs):
        raise ValueError(f"{len(samples)} samples but {len(coefs)} coefficients")
    xs = [_clean(x) for x in samples]
    n = [len(x) for x in xs]
    nan = math.nan
    out: dict[str, Any] = {"n": n, "se": nan, "df": nan, "t": nan, "p": nan, "reason": ""}
    used = [(i, x) for i, (c, x) in enumerate(zip(coefs, xs, strict=True)) if c != 0]
    why = degenerate(*(x for _, x in used), names=[f"sample {i + 1}" for i, _ in used])
    if why:
        # Too few values, or a sample with no spread: no interval (see degenerate()).
        means = [math.fsum(x) / len(x) if x else nan for x in xs]
        diff = math.fsum(c * m for c, m in zip(coefs, means, strict=True) if c != 0)
        return {**out, "diff": diff, "ci_low": nan, "ci_high": nan, "reason": why}
    terms = []
    diff = 0.0
    for c, x, k in zip(coefs, xs, n, strict=True):
        if c == 0:
            continue
        m, v = _mean_var(x)
        diff += c * m
        terms.append((c * c * v / k, k))
    var = math.fsum(q for q, _ in terms)
    se = math.sqrt(var)
    df = var**2 / math.fsum(q * q / (k - 1) for q, k in terms)
    t = diff / se
    half = t_ppf(1.0 - (1.0 - level) / 2.0, df) * se
    return {
        **out,
        "diff": diff,
        "se": se,
        "df": df,
        "t": t,
        "p": min(1.0, 2.0 * (1.0 - t_cdf(abs(t), df))),
        "ci_low": diff - half,
        "ci_high": diff + half,
    }


def bonferroni(level: float, k: int) -> float:
    """The level of each of ``k`` intervals so that all ``k`` hold together with probability
    at least ``level`` (Bonferroni): 1 − (1 − level)/k."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return 1.0 - (1.0 - level) / max(int(k), 1)


def one_sample(
    xs: Sequence[float],
    level: float = 0.95,
    *,
    bounds: tuple[float | None, float | None] | None = None,
) -> dict[str, Any]:
    """Mean and Student-t interval of one sample (None and NaN left out), the interval
    clipped to ``bounds`` (the metric's range, e.g. (0, 100) for a percentage) with
    ``clipped`` saying whether it was. A degenerate sample (:func:`degenerate`) gives a NaN
    interval and its ``reason``."""
    s = mean_ci(xs, level)
    why = degenerate(xs, names=("the sample",))
    if why:
        nan = math.nan
        return {**s, "ci_low": nan, "ci_high": nan, "clipped": False, "level": level, "reason": why}
    lo, hi, clipped = clip(s["ci_low"], s["ci_high"], bounds)
    return {**s, "ci_low": lo, "ci_high": hi, "clipped": clipped, "level": level, "reason": ""}


def clip(
    lo: float, hi: float, bounds: tuple[float | None, float | None] | None
) -> tuple[float, float, bool]:
    """An interval limited to a metric's range: (low, high, whether either end moved). An
    interval never claims values the metric cannot take (a negative rate, a share above 1)."""
    if bounds is None:
        return lo, hi, False
    b_lo, b_hi = bounds
    nlo, nhi = lo, hi
    if b_lo is not None and not math.isnan(lo):
        nlo = max(lo, b_lo)
    if b_hi is not None and not math.isnan(hi):
        nhi = min(hi, b_hi)
    if b_lo is not None and not math.isnan(hi):
        nhi = max(nhi, b_lo)
    if b_hi is not None and not math.isnan(lo):
        nlo = min(nlo, b_hi)
    return nlo, nhi, (nlo != lo or nhi != hi)


def binomial_ci(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson (exact) interval of a proportion after ``k`` events in ``n`` trials;
    (0, 1) when n = 0."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k = {k}, n = {n}")
    if n == 0:
        return 0.0, 1.0
    a = (1.0 - level) / 2.0

    def solve(target: float, a_: float, b_: float) -> float:
        # I_x(a_, b_) rises in x: bisection for I_x = target.
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if _betainc(a_, b_, mid) < target:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    low = 0.0 if k == 0 else solve(a, k, n - k + 1)
    high = 1.0 if k == n else solve(1.0 - a, k + 1, n - k)
    return low, high


def rate_ci(events: Sequence[int], trials: Sequence[int], level: float = 0.95) -> dict[str, Any]:
    """A rate counted in several runs (``events[i]`` of ``trials[i]`` in run i; runs with no
    trials are left out): the pooled rate Σevents/Σtrials and an interval that is the union of
    the exact (Clopper–Pearson) interval of the pooled count and the Student-t interval of the
    per-run rates, clipped to [0, 1]. Each of the two misses one source of error — the count
    ignores the spread between runs, the t interval collapses to a point when every run
    counts 0 — so the union covers the rate at least as often as either does."""
    pairs = [(int(e), int(n)) for e, n in zip(events, trials, strict=True) if n and n > 0]
    k = sum(e for e, _ in pairs)
    n = sum(t for _, t in pairs)
    if n == 0:
        nan = math.nan
        return {"runs": 0, "events": 0, "trials": 0, "rate": nan, "ci_low": nan, "ci_high": nan}
    b_lo, b_hi = binomial_ci(k, n, level)
    t = mean_ci([e / t for e, t in pairs], level)
    lo = b_lo if math.isnan(t["ci_low"]) else min(b_lo, t["ci_low"])
    hi = b_hi if math.isnan(t["ci_high"]) else max(b_hi, t["ci_high"])
    lo, hi, _ = clip(lo, hi, (0.0, 1.0))
    return {
        "runs": len(pairs),
        "events": k,
        "trials": n,
        "rate": k / n,
        "ci_low": lo,
        "ci_high": hi,
    }


def zero_events_upper(n: int, level: float = 0.95) -> float:
    """The one-sided ``level`` upper bound on a probability after 0 events in ``n`` trials
    (exact: 1 − (1 − level)^(1/n); about 3/n at 95%); 1 when n = 0."""
    if n <= 0:
        return 1.0
    return 1.0 - (1.0 - level) ** (1.0 / n)


def within(
    ci_low: float, ci_high: float, low: float | None = None, high: float | None = None
) -> Outcome:
    """An interval against a range a claim states (a band [low, high], or a bound such as
    "under 1%" with ``high`` only): supported when the interval lies inside the range, not
    supported when it lies wholly outside, inconclusive when it straddles an edge or is not
    finite."""
    if math.isnan(ci_low) or math.isnan(ci_high):
        return INCONCLUSIVE
    inside = (low is None or ci_low >= low) and (high is None or ci_high <= high)
    if inside:
        return SUPPORTED
    outside = (low is not None and ci_high < low) or (high is not None and ci_low > high)
    return NOT_SUPPORTED if outside else INCONCLUSIVE


def direction(ci_low: float, ci_high: float, *, sign: int = 1, smallest: float = 0.0) -> Outcome:
    """An interval of a change against a claimed direction (``sign`` +1: a rise, −1: a fall)
    when the claim gives no size; ``smallest`` is the smallest change counted (≥ 0). With the
    interval oriented so that the claimed direction is positive:

    - supported: the interval lies above 0 and reaches ``smallest``;
    - not supported: the interval lies below ``smallest`` (a change of that size in the
      claimed direction is ruled out; with ``smallest`` = 0, the change goes the other way);
    - inconclusive: otherwise, or when the interval is not finite.
    """
    if sign not in (1, -1):
        raise ValueError(f"sign must be +1 or -1, got {sign}")
    if smallest < 0 or math.isnan(smallest):
        raise ValueError(f"smallest must be >= 0, got {smallest}")
    if math.isnan(ci_low) or math.isnan(ci_high):
        return INCONCLUSIVE
    lo, hi = (ci_low, ci_high) if sign > 0 else (-ci_high, -ci_low)
    if hi < smallest:
        return NOT_SUPPORTED
    if lo > 0:
        return SUPPORTED
    return INCONCLUSIVE


def combine(outcomes: Iterable[Outcome | str]) -> Outcome:
    """The outcome of a claim made at several points at once ("at every load and PER"):
    supported when every part is, not supported when any part is, inconclusive otherwise
    (and when there are no parts: 0 of 0 supports nothing)."""
    parts = [Outcome.of(o) for o in outcomes]
    if not parts:
        return INCONCLUSIVE
    if any(o is NOT_SUPPORTED for o in parts):
        return NOT_SUPPORTED
    if all(o is SUPPORTED for o in parts):
        return SUPPORTED
    return INCONCLUSIVE


def part_outcome(
    decide: Any, a: Sequence[float], b: Sequence[float], parts: int, level: float = 0.95
) -> tuple[Outcome, Welch]:
    """The outcome of one of ``parts`` parts of a claim made at several points at once (as
    :func:`combine` joins them), from Welch's test of ``a`` − ``b`` and ``decide(ci_low,
    ci_high)``: supported when the part's ``level`` interval supports it (the claim needs
    every part, an intersection of tests, which needs no correction), not supported when its
    Bonferroni interval (``level`` over ``parts``) rules it out (one part is enough, a union,
    which does), inconclusive otherwise. Returns the outcome and the ``level`` test."""
    w = welch(a, b, level)
    if Outcome.of(decide(w.ci_low, w.ci_high)) is SUPPORTED:
        return SUPPORTED, w
    wide = welch(a, b, bonferroni(level, parts))
    if Outcome.of(decide(wide.ci_low, wide.ci_high)) is NOT_SUPPORTED:
        return NOT_SUPPORTED, w
    return INCONCLUSIVE, w


def part_outcome_one(
    decide: Any,
    xs: Sequence[float],
    parts: int,
    level: float = 0.95,
    bounds: tuple[float | None, float | None] | None = None,
) -> Outcome:
    """:func:`part_outcome` for a part judged on one sample's mean (its Student-t interval,
    clipped to ``bounds``): supported by its ``level`` interval, ruled out by its Bonferroni
    interval over ``parts``."""
    s = one_sample(xs, level, bounds=bounds)
    if Outcome.of(decide(s["ci_low"], s["ci_high"])) is SUPPORTED:
        return SUPPORTED
    wide = one_sample(xs, bonferroni(level, parts), bounds=bounds)
    if Outcome.of(decide(wide["ci_low"], wide["ci_high"])) is NOT_SUPPORTED:
        return NOT_SUPPORTED
    return INCONCLUSIVE


def magnitude(ci_low: float, ci_high: float, paper: float) -> str:
    """How a measured change compares with the size a paper reports, whatever the verdict:
    ``"larger than the paper's"`` when the whole interval lies beyond the paper's value (in the
    paper's direction), ``"smaller than the paper's"`` when it lies short of it, ``"consistent
    with the paper's"`` when it holds it, ``"undetermined"`` when not finite. A supported
    claim can still be far larger than the paper says: this is what the sentence reports."""
    if math.isnan(ci_low) or math.isnan(ci_high) or math.isnan(paper):
        return "undetermined"
    lo, hi, m = (ci_low, ci_high, paper) if paper >= 0 else (-ci_high, -ci_low, -paper)
    if lo > m:
        return "larger than the paper's"
    if hi < m:
        return "smaller than the paper's"
    return "consistent with the paper's"


def relative_samples(
    df: Any, metric: str, *, label: str, a: str, b: str, at: str, values: Iterable[Any]
) -> tuple[list[float], list[float]]:
    """Each run's ``metric`` for ``a`` and for ``b`` (rows whose column ``label`` says which)
    in % of ``b``'s mean at the same value of column ``at``, pooled over ``values``: a Welch
    difference of the two samples is ``a``'s change relative to ``b``, in %. Values where
    ``b`` has no runs or a zero mean are left out; None and NaN are left out.

    ``b``'s mean is itself estimated, so its runs carry the uncertainty of the ratio's
    denominator: by the delta method, Var(100·ā/b̄) ≈ (100/b̄)²·(s_a²/n_a + R²·s_b²/n_b) with
    R = ā/b̄. ``b``'s values are therefore spread about their mean (100) by R at each value of
    ``at``, which leaves their mean at 100 and makes Welch's interval of the difference that
    of the ratio (at R = 1 nothing changes)."""
    import polars as pl

    xa: list[float] = []
    xb: list[float] = []
    for v in values:
        here = df.filter(pl.col(at) == v)
        ref = _clean(here.filter(pl.col(label) == b)[metric].to_list())
        pa, pb = relative_pair(_clean(here.filter(pl.col(label) == a)[metric].to_list()), ref)
        xa += pa
        xb += pb
    return xa, xb


def relative_pair(a: Sequence[float], b: Sequence[float]) -> tuple[list[float], list[float]]:
    """``a`` and ``b`` in % of ``b``'s mean, ``b``'s values spread about 100 by the ratio of
    the means (see :func:`relative_samples`): Welch's interval of the two is the delta-method
    interval of 100·ā/b̄ − 100. Both empty when ``b`` is empty or its mean is 0."""
    if not b:
        return [], []
    mean = math.fsum(b) / len(b)
    if mean == 0:
        return [], []
    pa = [100.0 * x / mean for x in a]
    ratio = math.fsum(pa) / len(pa) / 100.0 if pa else 1.0
    return pa, [100.0 + ratio * (100.0 * x / mean - 100.0) for x in b]


def share_of(
    df: Any,
    metric: str,
    *,
    label: str,
    ref: Any,
    at: str,
    level: float = 0.95,
) -> list[dict[str, Any]]:
    """Each ``label`` value's mean ``metric`` as a share (in %) of the mean of the reference
    ``ref`` (the loss-cause oracle in the reproductions) at each value of column ``at``: one
    row per (value of ``at``, label) with ``n`` (runs of the label), ``share`` (100 × its mean
    over the reference's mean) and its ``level`` interval, ``ci_low``/``ci_high``.

    The interval is ``100 +`` the Welch interval of :func:`relative_samples` of the label
    against the reference at that value (both samples in % of the reference's mean, the
    reference's spread scaled by the share: the delta-method interval of a ratio of means),
    so it carries the spread of both; it is clipped at 0 (a share of a rate is not negative) and
    NaN when either side has fewer than two runs. Values where the reference has no runs or a
    zero mean give no rows; the reference itself is not listed."""
    rows: list[dict[str, Any]] = []
    xs = sorted({v for v in df[at].to_list() if v is not None})
    labels = sorted({v for v in df[label].to_list() if v is not None and v != ref})
    for x in xs:
        for lab in labels:
            a, b = relative_samples(df, metric, label=label, a=lab, b=ref, at=at, values=[x])
            if not a or not b:
                continue
            w = welch(a, b, level)
            lo, hi, _ = clip(100.0 + w.ci_low, 100.0 + w.ci_high, (0.0, None))
            rows.append(
                {
                    at: x,
                    label: lab,
                    "n": w.n_a,
                    "n_ref": w.n_b,
                    "share": math.fsum(a) / len(a),
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    return rows


def verdict(ci_low: float, ci_high: float, paper: float, smallest: float | None = None) -> Outcome:
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
    return direction(ci_low, ci_high, sign=1 if paper > 0 else -1, smallest=m)


def interval_outcome(
    decide: Any, ci_low: float, ci_high: float, *, what: str = "interval"
) -> tuple[Outcome, str]:
    """``decide(ci_low, ci_high)`` guarded against a degenerate interval: one that is not
    finite, or of zero width (a bootstrap whose resamples all gave the same value, a Student-t
    interval of identical runs), is inconclusive with the reason, never a verdict. Returns
    the outcome and the reason ("" when the interval decided)."""
    if math.isnan(ci_low) or math.isnan(ci_high):
        return INCONCLUSIVE, f"the {what} is not defined"
    if ci_low == ci_high:
        return INCONCLUSIVE, f"the {what} has zero width (every value {ci_low:.6g})"
    return Outcome.of(decide(ci_low, ci_high)), ""


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error over the ``k`` tests): the i-th
    smallest p times (k − i + 1), made monotone, capped at 1. NaN stays NaN (and does not
    count towards k)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    k = len(idx)
    out = [math.nan] * len(pvalues)
    run = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda j: pvalues[j])):
        run = max(run, min(1.0, (k - rank) * pvalues[i]))
        out[i] = run
    return out


@dataclass(frozen=True)
class ConditionResult:
    """One condition of a claim stated per condition (a PER point, a hop count, a load): the
    change a − b (``relative``: in % of b's mean) with its simultaneous interval (Bonferroni
    over the conditions), the outcome it gives, the raw and Holm-adjusted p-values, and why
    it is inconclusive when a sample is degenerate."""

    condition: Any
    outcome: Outcome
    diff: float
    ci_low: float
    ci_high: float
    n_a: int
    n_b: int
    p: float
    p_holm: float
    level: float
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["outcome"] = str(self.outcome)
        d["verdict"] = self.outcome
        return d


def per_condition(
    samples: Mapping[Any, tuple[Sequence[float], Sequence[float] | None]],
    decide: Any,
    *,
    level: float = 0.95,
    relative: bool = False,
    bounds: tuple[float | None, float | None] | None = None,
) -> list[ConditionResult]:
    """Decide a claim at each condition on its own, with a multiplicity correction, instead
    of on the conditions pooled (effects of opposite sign would cancel). ``samples`` maps each
    condition to ``(a, b)``: Welch's a − b (``relative``: both in % of b's mean,
    :func:`relative_pair`), or ``(a, None)``: a's mean alone (its interval clipped to
    ``bounds``). Each condition's interval is at the Bonferroni level over the ``k``
    conditions, so all ``k`` verdicts hold together with probability ``level``; the p-values
    are given raw and Holm-adjusted. A degenerate sample or interval gives inconclusive with
    its reason."""
    k = max(len(samples), 1)
    wide = bonferroni(level, k)
    rows: list[tuple[Any, float, float, float, int, int, float, str]] = []
    for cond, (a, b) in samples.items():
        if b is None:
            s = one_sample(a, wide, bounds=bounds)
            sd = s["std"]
            n = int(s["n"])
            if n >= 2 and sd and sd > 0:
                t = s["mean"] / (sd / math.sqrt(n))
                p = min(1.0, 2.0 * (1.0 - t_cdf(abs(t), n - 1)))
            else:
                p = math.nan
            rows.append((cond, s["mean"], s["ci_low"], s["ci_high"], n, 0, p, s.get("reason", "")))
            continue
        xa, xb = relative_pair(_clean(a), _clean(b)) if relative else (_clean(a), _clean(b))
        if relative and not xb:
            rows.append(
                (
                    cond,
                    math.nan,
                    math.nan,
                    math.nan,
                    len(_clean(a)),
                    0,
                    math.nan,
                    "b has no values or a zero mean",
                )
            )
            continue
        w = welch(xa, xb, wide)
        rows.append((cond, w.diff, w.ci_low, w.ci_high, w.n_a, w.n_b, w.p, w.reason))
    adjusted = holm([r[6] for r in rows])
    out = []
    for (cond, diff, lo, hi, na, nb, p, why), ph in zip(rows, adjusted, strict=True):
        if why:
            outcome = INCONCLUSIVE
        else:
            outcome, why = interval_outcome(decide, lo, hi)
        out.append(ConditionResult(cond, outcome, diff, lo, hi, na, nb, p, ph, wide, why))
    return out


def per_condition_sentence(
    results: Sequence[ConditionResult], name: str = "condition", fmt: Any = str
) -> str:
    """Where a per-condition claim holds and where not: "supported at 8; not supported at 4;
    inconclusive at 2 (a has zero variance ...)", conditions formatted by ``fmt``."""
    groups: dict[Outcome, list[str]] = {}
    for r in results:
        label = fmt(r.condition)
        if r.outcome is INCONCLUSIVE and r.reason:
            label += f" ({r.reason})"
        groups.setdefault(r.outcome, []).append(label)
    if not groups:
        return f"no {name} had runs"
    order = (SUPPORTED, NOT_SUPPORTED, INCONCLUSIVE)
    return "; ".join(f"{o} at {name} {', '.join(groups[o])}" for o in order if o in groups)


# --------------------------------------------------------------------------------------------
# paired samples: runs that share a channel (the same trace, the same seed)


@dataclass(frozen=True)
class Paired:
    """A paired comparison of ``a`` against ``b`` (``a[i]`` and ``b[i]`` measured on the same
    trace or seed): ``diff`` = mean(a) − mean(b), or with ``relative`` the change
    100·(mean(a)/mean(b) − 1) in %, its standard error from the spread of the per-pair
    differences (relative: of 100·(aᵢ − R·bᵢ)/mean(b), R = mean(a)/mean(b), the delta method of
    a ratio of paired means), Student-t degrees of freedom n − 1, t, the two-sided p-value,
    the ``level`` interval and d_z (mean difference / standard deviation of the differences).
    ``degenerate`` when there are fewer than two pairs or the differences have no spread:
    the interval, t and p are then NaN, so no rule can decide on them."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    sd: float
    se: float
    df: float
    t: float
    p: float
    ci_low: float
    ci_high: float
    dz: float
    level: float
    relative: bool
    degenerate: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pairs(a: Sequence[float], b: Sequence[float]) -> tuple[list[float], list[float]]:
    if len(a) != len(b):
        raise ValueError(f"paired samples need equal lengths, got {len(a)} and {len(b)}")
    keep = [
        (float(x), float(y))
        for x, y in zip(a, b, strict=True)
        if x is not None and y is not None and not math.isnan(float(x)) and not math.isnan(y)
    ]
    return [x for x, _ in keep], [y for _, y in keep]


def paired(
    a: Sequence[float], b: Sequence[float], level: float = 0.95, *, relative: bool = False
) -> Paired:
    """The paired t-test of ``a`` against ``b`` (pairs with a None or NaN left out); see
    :class:`Paired`. Two samples that share their noise (the same fading trace) differ far
    less than two independent ones: Welch's test would count that shared noise twice."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    xa, xb = _pairs(a, b)
    n = len(xa)
    nan = math.nan
    ma = math.fsum(xa) / n if n else nan
    mb = math.fsum(xb) / n if n else nan
    d = [x - y for x, y in zip(xa, xb, strict=True)]
    sd_raw = _mean_var(d)[1] ** 0.5 if n >= 2 else nan
    mean_d = math.fsum(d) / n if n else nan
    dz = mean_d / sd_raw if n >= 2 and sd_raw > 0 else nan
    if relative:
        if n == 0 or mb == 0:
            diff, z = nan, []
        else:
            ratio = ma / mb
            diff = 100.0 * (ratio - 1.0)
            z = [100.0 * (x - ratio * y) / mb for x, y in zip(xa, xb, strict=True)]
    else:
        diff, z = mean_d, d
    sd = _mean_var(z)[1] ** 0.5 if len(z) >= 2 else nan
    if n < 2 or math.isnan(diff) or not sd > 0:
        return Paired(n, ma, mb, diff, sd, nan, nan, nan, nan, nan, nan, dz, level, relative, True)
    se = sd / math.sqrt(n)
    df = float(n - 1)
    t = diff / se
    p = min(1.0, 2.0 * (1.0 - t_cdf(abs(t), df)))
    half = t_ppf(1.0 - (1.0 - level) / 2.0, df) * se
    return Paired(
        n, ma, mb, diff, sd, se, df, t, p, diff - half, diff + half, dz, level, relative, False
    )


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    level: float = 0.95,
    *,
    relative: bool = False,
    resamples: int = 2000,
    seed: int = 1,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the paired change (as :func:`paired` states it:
    mean(a) − mean(b), or 100·(mean(a)/mean(b) − 1) with ``relative``), resampling whole
    pairs; seeded, so the same data give the same interval. (NaN, NaN) when the pairs are
    fewer than two or their differences have no spread (nothing to resample)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    import random

    xa, xb = _pairs(a, b)
    n = len(xa)
    if n < 2 or len({x - y for x, y in zip(xa, xb, strict=True)}) < 2:
        return math.nan, math.nan
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        sa = math.fsum(xa[i] for i in idx)
        sb = math.fsum(xb[i] for i in idx)
        if relative:
            if sb == 0:
                continue
            stats.append(100.0 * (sa / sb - 1.0))
        else:
            stats.append((sa - sb) / n)
    if not stats:
        return math.nan, math.nan
    stats.sort()
    lo_q, hi_q = (1.0 - level) / 2.0, 1.0 - (1.0 - level) / 2.0

    def q(p: float) -> float:
        k = p * (len(stats) - 1)
        i = int(math.floor(k))
        j = min(i + 1, len(stats) - 1)
        return stats[i] + (stats[j] - stats[i]) * (k - i)

    return q(lo_q), q(hi_q)
