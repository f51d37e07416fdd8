"""The claims of the MEMBRANE reproduction (:mod:`airtcp.papers.membrane`), each decided at
each PER point of its range (:func:`airtcp.stats.per_condition`: intervals simultaneous over
the claim's conditions, Holm-adjusted p-values), never on the range pooled: the schemes'
differences change with the PER, and a pooled interval mixes a regime where they are level
with one where they differ by tens of per cent (docs/schemes/membrane.md)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..stats import (
    INCONCLUSIVE,
    NOT_SUPPORTED,
    SUPPORTED,
    ConditionResult,
    Outcome,
    bonferroni,
    combine,
    contrast,
    holm,
    interval_outcome,
    per_condition,
    relative_pair,
    verdict,
)
from . import ClaimResult, PaperData

PERS = [0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1]
THRESHOLD = 0.01
# The paper's claims have no numbers: the smallest differences counted (fixed before running).
SMALLEST_GOODPUT_PCT = 5.0
JAIN_DROP = 0.05  # NewReno's fairness "drops": 0.05 of Jain's index counted
CROSSING_BAND = (0.005, 0.02)  # "around 1%": 0.5% to 2% counted as near
BOOTSTRAP = 400
LEVEL = 0.95

#: the paper's regimes: low ("medium-low") PER, where congestion is dominant, and high PER
#: (Fig. 2's zoom)
LOW_REGIME = [p for p in PERS if 0 < p <= THRESHOLD]
HIGH_REGIME = [p for p in PERS if p > THRESHOLD]
#: ERN against ELN below the threshold (the threshold itself is where they cross)
LOW = [p for p in PERS if 0 < p < THRESHOLD]
HIGH = HIGH_REGIME


def _vals(df: Any, col: str) -> list[float]:
    return [float(v) for v in df[col].to_list() if v is not None and not math.isnan(float(v))]


def _per_run(df: Any) -> Any:
    """One row per run (scheme, PER, seed): the mean goodput of its responses. The grid's six
    responses share one run's channel and schedule, so they are not six replicates; the
    claims and figures compare runs."""
    import polars as pl

    keys = [k for k in ("scheme", "per", "per_pct", "seed") if k in df.columns]
    vals = [c for c in ("goodput_bps", "goodput_mbps") if c in df.columns]
    return df.group_by(keys).agg(pl.col(c).mean() for c in vals).sort(keys)


def _grid(data: PaperData) -> Any:
    return _per_run(data.table("grid-base", "responses"))


def _goodput(df: Any, scheme: str, per: float) -> list[float]:
    import polars as pl

    return _vals(df.filter((pl.col("scheme") == scheme) & (pl.col("per") == per)), "goodput_bps")


def _regime(p: float) -> str:
    return "low" if p <= THRESHOLD else "high"


def _ahead(lo: float, hi: float) -> Outcome:
    return verdict(lo, hi, SMALLEST_GOODPUT_PCT, SMALLEST_GOODPUT_PCT)


def _behind(lo: float, hi: float) -> Outcome:
    return verdict(lo, hi, -SMALLEST_GOODPUT_PCT, SMALLEST_GOODPUT_PCT)


def _not_worse(lo: float, hi: float) -> Outcome:
    # Not worse: an interval that rules out a loss of the smallest counted difference.
    m = SMALLEST_GOODPUT_PCT
    return verdict(lo + m, hi + m, m, 1e-9)


def _row(r: ConditionResult, **keys: Any) -> dict[str, Any]:
    return {
        **keys,
        "regime": _regime(keys["per"]),
        "change": r.diff,
        "ci_low": r.ci_low,
        "ci_high": r.ci_high,
        "p": r.p,
        "p_holm": r.p_holm,
        "level": r.level,
        "n_a": r.n_a,
        "n_b": r.n_b,
        "verdict": r.outcome,
        "reason": r.reason,
    }


def compare_at(
    df: Any, comparisons: Sequence[tuple[str, str, float]], decide: Callable[..., Outcome]
) -> list[dict[str, Any]]:
    """Each ``(a, b, per)`` decided on its own: Welch on ``a``'s goodput in % of ``b``'s mean
    at that PER, intervals simultaneous over the comparisons (Bonferroni), Holm-adjusted
    p-values; one row each with its ``verdict`` (see :func:`airtcp.stats.per_condition`)."""
    samples = {(a, b, p): (_goodput(df, a, p), _goodput(df, b, p)) for a, b, p in comparisons}
    res = per_condition(samples, decide, level=LEVEL, relative=True)
    return [_row(r, a=r.condition[0], b=r.condition[1], per=r.condition[2]) for r in res]


def _pct(p: float) -> str:
    return f"{p * 100:g}%"


def _where(rows: list[dict[str, Any]], what: Callable[[dict[str, Any]], str]) -> str:
    """Which conditions support the claim, which rule it out, which decide nothing."""
    parts = []
    for o in (SUPPORTED, NOT_SUPPORTED, INCONCLUSIVE):
        mine = [what(r) for r in rows if r["verdict"] is o]
        if mine:
            shown = ", ".join(mine[:8]) + (" …" if len(mine) > 8 else "")
            parts.append(f"{o} at {shown}")
    return "; ".join(parts) if parts else "no condition had runs"


def _deciding(rows: list[dict[str, Any]], out: Outcome) -> dict[str, Any] | None:
    """The row shown as the claim's effect (robustness table): among those whose verdict is
    the claim's, the one whose change is nearest zero (for a supported claim its weakest
    condition)."""
    mine = [r for r in rows if r["verdict"] is out and math.isfinite(r["ci_low"])]
    if not mine:
        return None
    return min(mine, key=lambda r: abs(r["change"]))


def _result(out: Outcome, text: str, rows: list[dict[str, Any]]) -> ClaimResult:
    pick = _deciding(rows, out)
    if pick is None:
        return ClaimResult(out, text, rows)
    return ClaimResult(out, text, rows, effect=pick["change"], ci=(pick["ci_low"], pick["ci_high"]))


def _cmp_label(r: dict[str, Any]) -> str:
    return f"{r['a']} vs {r['b']} at {_pct(r['per'])} ({r['change']:+.1f}%)"


def _simultaneous(rows: list[dict[str, Any]]) -> str:
    return (
        f"{len(rows)} conditions, each a Welch interval at {rows[0]['level']:.2%} "
        f"(simultaneous {LEVEL:.0%}), Holm-adjusted p beside it"
        if rows
        else "no conditions"
    )


# --------------------------------------------------------------------------------------------
# claims


def newreno_jersey_best(regime: str) -> Callable[[PaperData], ClaimResult]:
    pers = LOW_REGIME if regime == "low" else HIGH_REGIME

    def check(data: PaperData) -> ClaimResult:
        df = _grid(data)
        schemes = set(df["scheme"].to_list())
        best = [s for s in ("NewReno", "Jersey") if s in schemes]
        rest = [s for s in ("Reno", "TIBET") if s in schemes]
        if not best or not rest:
            return ClaimResult(INCONCLUSIVE, "Inconclusive: the grid lacks the base schemes.")
        rows = compare_at(df, [(a, b, p) for a in best for b in rest for p in pers], _ahead)
        out = combine(r["verdict"] for r in rows)
        return _result(
            out,
            f"{str(out).capitalize()}: on the grid at {regime} PER ({', '.join(map(_pct, pers))}"
            f"), each of {', '.join(best)} against each of {', '.join(rest)} at each PER "
            f"({_simultaneous(rows)}): {_where(rows, _cmp_label)}. Paper: NewReno and Jersey "
            f"best (no number; {SMALLEST_GOODPUT_PCT:g}% counted).",
            rows,
        )

    return check


def tibet_low(data: PaperData) -> ClaimResult:
    df = _grid(data)
    pers = [p for p in PERS if p <= THRESHOLD]
    rows = compare_at(df, [("TIBET", "NewReno", p) for p in pers], _behind)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: TIBET against NewReno at each PER ≤ 1% on the grid "
        f"({_simultaneous(rows)}): {_where(rows, _cmp_label)}. Paper: TIBET performs badly "
        f"at low PER (no number; −{SMALLEST_GOODPUT_PCT:g}% counted).",
        rows,
    )


def ern_low_eln_high(data: PaperData) -> ClaimResult:
    df = _grid(data)
    comps = [("NewReno + ERN", "NewReno + ELN", p) for p in LOW]
    comps += [("NewReno + ELN", "NewReno + ERN", p) for p in HIGH]
    rows = compare_at(df, comps, _ahead)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: on the grid, ERN against ELN at each PER below 1% and ELN "
        f"against ERN at each above ({_simultaneous(rows)}): {_where(rows, _cmp_label)}. "
        f"Paper: ERN best below about 1%, ELN far better above (no number; "
        f"{SMALLEST_GOODPUT_PCT:g}% counted).",
        rows,
    )


def eln_high(data: PaperData) -> ClaimResult:
    df = _grid(data)
    rows = compare_at(df, [("NewReno + ELN", "NewReno", p) for p in HIGH], _ahead)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: NewReno + ELN against NewReno at each PER above 1% on the "
        f"grid ({_simultaneous(rows)}): {_where(rows, _cmp_label)}. Paper: ELN "
        f"'significantly improves' performance when the channel is poor (no number; "
        f"{SMALLEST_GOODPUT_PCT:g}% counted).",
        rows,
    )


def reno_worst_high(data: PaperData) -> ClaimResult:
    df = _grid(data)
    others = [s for s in ("NewReno", "Jersey", "TIBET") if s in set(df["scheme"].to_list())]
    rows = compare_at(df, [("Reno", o, p) for o in others for p in HIGH], _behind)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: Reno against each other base scheme at each PER above 1% "
        f"on the grid ({_simultaneous(rows)}): {_where(rows, _cmp_label)}. Paper: Reno worst "
        f"at high PER (no number; −{SMALLEST_GOODPUT_PCT:g}% counted).",
        rows,
    )


def adaptive(data: PaperData) -> ClaimResult:
    """Beyond the paper (its future work): the adaptive NewReno is not worse than ERN at each
    PER below the threshold nor than ELN at each above."""
    df = _grid(data)
    comps = [("adaptive NewReno", "NewReno + ERN", p) for p in LOW]
    comps += [("adaptive NewReno", "NewReno + ELN", p) for p in HIGH]
    rows = compare_at(df, comps, _not_worse)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: adaptive NewReno against ERN at each PER below 1% and "
        f"against ELN at each above ({_simultaneous(rows)}; supported where the interval lies "
        f"above −{SMALLEST_GOODPUT_PCT:g}%): {_where(rows, _cmp_label)}.",
        rows,
    )


def tibet_high(data: PaperData) -> ClaimResult:
    """TIBET weak at low PER and better at high PER: at each high PER point against each low
    one, TIBET's goodput in % of NewReno's rises. Each rise is the contrast (TIBET − NewReno)
    at the high point minus the same at the low point, NewReno's runs carrying the
    uncertainty of each ratio's denominator, so all four samples enter its interval."""
    df = _grid(data)
    pairs = [(lo, hi) for hi in HIGH_REGIME for lo in LOW_REGIME]
    wide = bonferroni(LEVEL, max(len(pairs), 1))
    raw = []
    for lo, hi in pairs:
        th, nh = relative_pair(_goodput(df, "TIBET", hi), _goodput(df, "NewReno", hi))
        tl, nl = relative_pair(_goodput(df, "TIBET", lo), _goodput(df, "NewReno", lo))
        raw.append((lo, hi, contrast([th, nh, tl, nl], [1.0, -1.0, -1.0, 1.0], wide)))
    adjusted = holm([k["p"] for *_, k in raw])
    rows = []
    for (lo, hi, k), ph in zip(raw, adjusted, strict=True):
        why = k.get("reason", "")
        if why:
            v = INCONCLUSIVE
        else:
            v, why = interval_outcome(
                lambda a, b: verdict(a, b, SMALLEST_GOODPUT_PCT, SMALLEST_GOODPUT_PCT),
                k["ci_low"],
                k["ci_high"],
            )
        rows.append(
            {
                "per": hi,
                "low_per": lo,
                "regime": "high",
                "rise": k["diff"],
                "change": k["diff"],
                "ci_low": k["ci_low"],
                "ci_high": k["ci_high"],
                "p": k["p"],
                "p_holm": ph,
                "level": wide,
                "verdict": v,
                "reason": why,
            }
        )
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: the rise of TIBET's goodput in % of NewReno's from each PER "
        f"of 0.1-1% to each above 1% on the grid ({_simultaneous(rows)}): "
        + _where(rows, lambda r: f"{_pct(r['low_per'])}→{_pct(r['per'])} ({r['rise']:+.1f} pts)")
        + f". Paper: TIBET bad at low PER, better at high PER (no number; "
        f"{SMALLEST_GOODPUT_PCT:g} points counted).",
        rows,
    )


def newreno_fairness(data: PaperData) -> ClaimResult:
    import polars as pl

    j = data.table("grid-base", "jain").filter(pl.col("scheme") == "NewReno")

    def at(p: float) -> list[float]:
        return _vals(j.filter(pl.col("per") == p), "jain")

    highs = [p for p in PERS if p >= 0.05]
    lows = [p for p in PERS if p <= THRESHOLD]
    samples = {(hi, lo): (at(hi), at(lo)) for hi in highs for lo in lows}
    res = per_condition(samples, lambda a, b: verdict(a, b, -JAIN_DROP, JAIN_DROP), level=LEVEL)
    rows = []
    for r in res:
        row = _row(r, per=r.condition[0], low_per=r.condition[1])
        rows.append(row)
    out = combine(r["verdict"] for r in rows)
    return _result(
        out,
        f"{str(out).capitalize()}: NewReno's Jain index at each PER ≥ 5% minus at each PER ≤ "
        f"1% on the grid ({_simultaneous(rows)}): "
        + _where(rows, lambda r: f"{_pct(r['per'])}−{_pct(r['low_per'])} ({r['change']:+.3f})")
        + f". Paper: NewReno's fairness drops at high PER (no number; −{JAIN_DROP:g} counted).",
        rows,
    )


def crossing(df: Any, seeds: list[int] | None = None) -> float:
    """The lowest PER at which NewReno + ELN's mean goodput exceeds NewReno + ERN's (infinity
    if it never does: the crossing lies beyond the largest PER)."""
    import polars as pl

    for p in sorted(set(df["per"].to_list())):
        if p == 0:
            continue
        at = df.filter(pl.col("per") == p)
        if seeds is not None:
            at = at.filter(pl.col("seed").is_in(seeds))
        eln = _vals(at.filter(pl.col("scheme") == "NewReno + ELN"), "goodput_bps")
        ern = _vals(at.filter(pl.col("scheme") == "NewReno + ERN"), "goodput_bps")
        if eln and ern and math.fsum(eln) / len(eln) > math.fsum(ern) / len(ern):
            return p
    return math.inf


def _below(p: float) -> float:
    """The PER point before ``p`` on the grid (0 before the first; the largest for infinity):
    a crossing found at ``p`` lies somewhere above it, up to ``p``."""
    lower = [q for q in PERS if q < p]
    return max(lower) if lower else 0.0


def crossing_claim(data: PaperData) -> ClaimResult:
    """The crossing point lies near 1%: its bootstrap interval over seeds within [0.5%, 2%].
    A crossing found at a PER point lies between the point before it and that point, so the
    interval runs from the point before the lowest resample's crossing to the highest's: it
    carries the grid's resolution and is never a single point."""
    import random

    df = _grid(data)
    seeds = sorted(set(df["seed"].to_list()))
    if len(seeds) < 2:
        return ClaimResult(INCONCLUSIVE, "Inconclusive: too few seeds for a bootstrap.")
    point = crossing(df)
    rng = random.Random(1)
    boots = sorted(crossing(df, [rng.choice(seeds) for _ in seeds]) for _ in range(BOOTSTRAP))
    lo = _below(boots[int(0.025 * BOOTSTRAP)])
    hi = boots[int(0.975 * BOOTSTRAP) - 1]
    near = (CROSSING_BAND[0], CROSSING_BAND[1])

    def decide(lo: float, hi: float) -> Outcome:
        # The crossing lies in (lo, hi].
        if near[0] <= lo and hi <= near[1]:
            return SUPPORTED
        if hi < near[0] or lo >= near[1]:
            return NOT_SUPPORTED
        return INCONCLUSIVE

    # Every resample at one grid point is no evidence of where the crossing lies between the
    # points: a zero-width interval decides nothing (stats.interval_outcome).
    v, why = interval_outcome(decide, lo, hi, what="bootstrap interval")
    reason = f" Inconclusive because {why}." if why else ""
    return ClaimResult(
        v,
        f"{str(v).capitalize()}: ELN first overtakes ERN "
        + (f"at {point:.1%} PER" if math.isfinite(point) else "at no PER tried")
        + f" on the grid (bootstrap 95% interval over seeds, at the grid's resolution: above "
        f"{lo:.1%}, up to "
        + (f"{hi:.1%}" if math.isfinite(hi) else "beyond the largest PER")
        + f"; {BOOTSTRAP} resamples)."
        f"{reason} Paper: about 1% (counted as near: {near[0]:.1%} to {near[1]:.1%}).",
        [{"crossing": point, "ci_low": lo, "ci_high": hi, "verdict": v}],
    )


def adaptive_every_per(topo: str, scheme: str) -> Callable[[PaperData], ClaimResult]:
    """At least as good as the better of ERN and ELN at every PER: at least as good as each
    of them (which is the better is itself uncertain, so both are tested) at each PER, every
    condition within the smallest difference counted."""

    def check(data: PaperData) -> ClaimResult:
        key = f"{topo}-base"
        if key not in data.tables or "responses" not in data.tables[key]:
            return ClaimResult(INCONCLUSIVE, f"Inconclusive: no {topo} runs.")
        df = _per_run(data.table(key, "responses"))
        have = set(df["per"].to_list())
        pers = [p for p in PERS if p in have]
        refs = ("NewReno + ERN", "NewReno + ELN")
        rows = compare_at(df, [(scheme, ref, p) for p in pers for ref in refs], _not_worse)
        out = combine(r["verdict"] for r in rows)
        return _result(
            out,
            f"{str(out).capitalize()}: {scheme} against ERN and against ELN at each of "
            f"{len(pers)} PER values on the {topo} ({_simultaneous(rows)}; supported where "
            f"the interval lies above −{SMALLEST_GOODPUT_PCT:g}%): "
            f"{_where(rows, _cmp_label)}.",
            rows,
        )

    return check
