"""The claims of the WMECN reproduction (:mod:`airtcp.papers.wmecn`): how they are decided (the
bounds and smallest effects fixed with them) and the claim functions."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..stats import (
    INCONCLUSIVE,
    NOT_SUPPORTED,
    SUPPORTED,
    Outcome,
    binomial_ci,
    bonferroni,
    clip,
    combine,
    direction,
    rate_ci,
    welch,
    within,
    zero_events_upper,
)
from . import (
    ClaimResult,
    PaperData,
)

PER_PATH = "links.R2-D*.error.per"


SOURCES = [2, 4, 8]


#: seconds of start-up excluded from the steady-state scoring
WARMUP = 10

# How the claims are decided (fixed with the claims, not adjusted to results; see the tests
# stated with each ClaimSpec in wmecn.py).
#: family-wise confidence level of each claim's intervals
LEVEL = 0.95
#: the paper's bound on the type-2 rate, in %
TYPE2_BOUND_PCT = 1.0
#: "never" (type-1) is supported only once a rate as large as the paper's own bound for the
#: rare error is ruled out
TYPE1_BOUND = TYPE2_BOUND_PCT / 100
#: the paper gives goodput no number: a lead under 1% of the other scheme's goodput is not
#: counted as "higher"
SMALLEST_GAIN_PCT = 1.0


FIRST = f"reno-n{SOURCES[0]}"


def _all(data: PaperData) -> Any:
    return data.table(FIRST, "runs_all")


def _errors(data: PaperData, scheme: str, steady: bool) -> Any:
    """Verdict counts of ``scheme`` summed over seeds, by load and PER."""
    import polars as pl

    pre = "steady_" if steady else ""
    return (
        _all(data)
        .filter(pl.col("scheme") == scheme)
        .group_by("sources", "per")
        .agg(
            pl.col(f"{pre}verdicts_on_congestion_loss").sum().alias("congestion losses judged"),
            pl.col(f"{pre}type1_errors").sum().alias("type-1"),
            pl.col(f"{pre}verdicts_on_wireless_loss").sum().alias("wireless losses judged"),
            pl.col(f"{pre}type2_errors").sum().alias("type-2"),
        )
        .sort("sources", "per")
    )


def never_outcome(
    errors: int, judged: int, level: float = LEVEL, runs: int = 2
) -> tuple[Outcome, float]:
    """The outcome of "never happens" from an exact count against the simulator's record of
    each drop: any error contradicts it; with none, it is supported only when the one-sided
    ``level`` upper bound on the rate (0 of n: 1 − (1 − level)^(1/n)) is under TYPE1_BOUND
    and the judged losses come from at least two runs (the bound takes verdicts as
    independent, which the losses of one run are not), and inconclusive otherwise (0 of 0
    included). Returns the outcome and that bound (NaN after an error)."""
    if errors > 0:
        return NOT_SUPPORTED, math.nan
    upper = zero_events_upper(judged, level)
    return (SUPPORTED if upper < TYPE1_BOUND and runs >= 2 else INCONCLUSIVE), upper


def _type1(data: PaperData) -> dict[str, Any]:
    """The type-1 counts of WMECN and WMECN + LRT, over whole runs and after the warm-up:
    the table rows, (errors, judged) totals, the runs that judged a congestion loss, and the
    outcome of "never" under each count."""
    import polars as pl

    rows = []
    totals: dict[bool, list[int]] = {False: [0, 0], True: [0, 0]}
    for steady in (False, True):
        for scheme in ("WMECN", "WMECN + LRT"):
            t = _errors(data, scheme, steady)
            n1, nc = int(t["type-1"].sum()), int(t["congestion losses judged"].sum())
            totals[steady][0] += n1
            totals[steady][1] += nc
            lo, hi = binomial_ci(n1, nc, LEVEL)
            rows.append(
                {
                    "scheme": scheme,
                    "verdicts counted": f"after {WARMUP} s" if steady else "whole run",
                    "congestion losses judged": nc,
                    "type-1 errors": n1,
                    "type-1 %": 100.0 * n1 / nc if nc else None,
                    "95% CI low %": 100.0 * lo if nc else None,
                    "95% CI high %": 100.0 * hi if nc else None,
                }
            )
    runs = _all(data).filter(pl.col("scheme").is_in(["WMECN", "WMECN + LRT"]))
    r_all = runs.filter(pl.col("verdicts_on_congestion_loss") > 0).height
    r_steady = runs.filter(pl.col("steady_verdicts_on_congestion_loss") > 0).height
    (w1, wc), (s1, sc) = totals[False], totals[True]
    whole, whole_upper = never_outcome(w1, wc, runs=r_all)
    steady, steady_upper = never_outcome(s1, sc, runs=r_steady)
    return {
        "rows": rows,
        "whole": (whole, w1, wc, whole_upper),
        "steady": (steady, s1, sc, steady_upper),
    }


def _judged(n1: int, nc: int, upper: float) -> str:
    counts = (
        f"{n1} type-1 error{'' if n1 == 1 else 's'} in {nc} congestion "
        f"loss{'' if nc == 1 else 'es'} judged"
    )
    if n1:
        return f"{counts} ({100 * n1 / nc:.1f}%)"
    if nc == 0:
        return f"{counts}: nothing was tested"
    return f"{counts} (95% upper bound {100 * upper:.2g}%)"


def _claim_type1(data: PaperData) -> ClaimResult:
    """'Never' over whole runs (the count after the warm-up shown beside it)."""
    t = _type1(data)
    outcome, w1, wc, upper = t["whole"]
    s_out, s1, sc, s_upper = t["steady"]
    sentence = (
        f"{outcome.capitalize()}: over whole runs WMECN and WMECN + LRT made "
        f"{_judged(w1, wc, upper)}. After the first {WARMUP} s (decided as its own claim): "
        f"{_judged(s1, sc, s_upper)}."
    )
    if w1 and not s1:
        sentence += (
            f" Every error falls in the first {WARMUP} s: in the first slow start the queue "
            "overflows while the slowly averaged queue (w = 0.002) is still below the marking "
            "thresholds, so the sources hold few marks and take the drops as wireless."
        )
    return ClaimResult(outcome, sentence, t["rows"])


def _claim_type1_steady(data: PaperData) -> ClaimResult:
    """'Never' in the steady state: only verdicts after the warm-up count."""
    t = _type1(data)
    outcome, s1, sc, upper = t["steady"]
    _, w1, wc, w_upper = t["whole"]
    sentence = (
        f"{outcome.capitalize()}: after the first {WARMUP} s WMECN and WMECN + LRT made "
        f"{_judged(s1, sc, upper)}. Over whole runs: {_judged(w1, wc, w_upper)}."
    )
    if s1 == 0 and sc > 0 and outcome is INCONCLUSIVE:
        sentence += (
            " Too few congestion losses were judged after the warm-up to rule out a "
            f"{TYPE1_BOUND:.0%} rate: marks keep the queue from overflowing, so 'never' rests "
            "on next to no cases."
        )
    return ClaimResult(outcome, sentence, t["rows"])


def _claim_type2(data: PaperData) -> ClaimResult:
    """Part 1, "under 1%": at each load and PER > 0 the per-seed type-2 rate's interval
    (simultaneous over the cells) against the bound. Part 2, "falls as PER grows": at each
    load Welch's test of the rate at the lowest PER > 0 minus the rate at the highest."""
    import polars as pl

    df = _all(data).filter((pl.col("scheme") == "WMECN") & (pl.col("per") > 0))
    cells = sorted({(r["sources"], r["per"]) for r in df.iter_rows(named=True)})
    if not cells:
        return ClaimResult(INCONCLUSIVE, "No WMECN runs with PER > 0 (0 of 0).")
    level = bonferroni(LEVEL, len(cells))
    rows = []
    for n, per in cells:
        sub = df.filter((pl.col("sources") == n) & (pl.col("per") == per))
        r = rate_ci(
            sub["type2_errors"].to_list(), sub["verdicts_on_wireless_loss"].to_list(), level
        )
        rows.append(
            {
                "scheme": "WMECN",
                "sources": n,
                "PER %": per * 100,
                "wireless losses judged": r["trials"],
                "type-2": r["events"],
                "runs with a rate": r["runs"],
                "type-2 %": 100 * r["rate"],
                "CI low %": 100 * r["ci_low"],
                "CI high %": 100 * r["ci_high"],
                "under 1%": str(
                    within(100 * r["ci_low"], 100 * r["ci_high"], None, TYPE2_BOUND_PCT)
                ),
            }
        )
    under = combine(r["under 1%"] for r in rows)
    loads = sorted({n for n, _ in cells})
    level_f = bonferroni(LEVEL, len(loads))
    trend = []
    for n in loads:
        pers = sorted(p for m, p in cells if m == n)
        first = df.filter((pl.col("sources") == n) & (pl.col("per") == pers[0]))
        last = df.filter((pl.col("sources") == n) & (pl.col("per") == pers[-1]))
        w = welch(first["type2_pct"].to_list(), last["type2_pct"].to_list(), level_f)
        o = direction(w.ci_low, w.ci_high, sign=1) if len(pers) > 1 else INCONCLUSIVE
        # A difference of two percentages lies in [-100, 100].
        lo, hi, _ = clip(w.ci_low, w.ci_high, (-100.0, 100.0))
        trend.append((n, pers[0], pers[-1], replace(w, ci_low=lo, ci_high=hi), o))
    falls = combine(o for *_, o in trend)
    outcome = combine([under, falls])
    by_n = "; ".join(
        f"{n} sources: "
        + ", ".join(
            f"{r['type-2 %']:.1f}% ({r['CI low %']:.1f}–{r['CI high %']:.1f})"
            f" at PER {r['PER %']:g}%"
            for r in rows
            if r["sources"] == n and r["runs with a rate"]
        )
        for n in loads
    )
    steps = "; ".join(
        f"{n} sources, PER {a * 100:g}% → {b * 100:g}%: {-w.diff:+.1f} points "
        f"({-w.ci_high:+.1f} to {-w.ci_low:+.1f}), {o}"
        for n, a, b, w, o in trend
    )
    queues = _mean_queues(data)
    sentence = (
        f"{outcome.capitalize()}. Under {TYPE2_BOUND_PCT:g}% — {under}: WMECN's type-2 rate "
        "(wireless losses judged congestion / wireless losses judged, pooled over seeds, "
        f"simultaneous {LEVEL:.0%} intervals) {by_n}. Falls as PER grows — {falls}: {steps}."
        + (
            " Mean bottleneck queue under WMECN (mid_th = 10 packets): "
            + ", ".join(f"{q:.1f} packets with {n} sources" for n, q in queues.items())
            + "; above mid_th every packet carries a mark, but ten '10' marks sum to exactly "
            "10 (judged wireless): the sum exceeds 10 only with a '11' in the context, whose "
            "probability ramps from 0 at mid_th to P_max at max_th."
            if queues
            else ""
        )
    )
    for n, a, b, w, o in trend:
        rows.append(
            {
                "scheme": "WMECN",
                "sources": n,
                "PER %": f"{a * 100:g} → {b * 100:g}",
                "type-2 %": w.mean_b - w.mean_a,
                "CI low %": -w.ci_high,
                "CI high %": -w.ci_low,
                "under 1%": "",
                "falls": str(o),
            }
        )
    # WMECN + LRT's counts, for reference: link retries leave it few wireless losses to judge.
    for r in _errors(data, "WMECN + LRT", False).filter(pl.col("per") > 0).to_dicts():
        n_w = r["wireless losses judged"]
        rows.append(
            {
                "scheme": "WMECN + LRT",
                "sources": r["sources"],
                "PER %": r["per"] * 100,
                "wireless losses judged": n_w,
                "type-2": r["type-2"],
                "type-2 %": 100 * r["type-2"] / n_w if n_w else None,
            }
        )
    return ClaimResult(outcome, sentence, rows)


def _mean_queues(data: PaperData) -> dict[int, float]:
    """Mean R1->R2 queue (packets) of the WMECN runs with PER > 0, by number of sources."""
    import polars as pl

    out = {}
    for n in SOURCES:
        name = f"wmecn-n{n}"
        if name not in data.tables or "links" not in data.tables[name]:
            continue
        links = data.table(name, "links").filter(
            (pl.col("name") == "R1->R2") & (pl.col(PER_PATH).cast(pl.Float64) > 0)
        )
        if links.height:
            out[n] = float(links["mean_queue_packets"].mean())
    return out


def _beats(data: PaperData, winner: str, others: list[str]) -> tuple[Outcome, list[dict]]:
    """Welch's test of ``winner``'s goodput minus each other scheme's at every load and
    PER > 0, simultaneous intervals over all the comparisons; each comparison supported when
    its interval lies above 0 and reaches SMALLEST_GAIN_PCT of the other's mean, not
    supported when it lies below that."""
    import polars as pl

    df = _all(data).filter(pl.col("per") > 0)
    points = sorted(
        {(r["sources"], r["per"]) for r in df.filter(pl.col("scheme") == winner).to_dicts()}
    )
    pairs = [(n, per, o) for n, per in points for o in others]
    level = bonferroni(LEVEL, len(pairs))
    rows = []
    for n, per, o in pairs:
        at = (pl.col("sources") == n) & (pl.col("per") == per)
        a = df.filter(at & (pl.col("scheme") == winner))["goodput_kbps"].to_list()
        b = df.filter(at & (pl.col("scheme") == o))["goodput_kbps"].to_list()
        w = welch(a, b, level)
        m = SMALLEST_GAIN_PCT / 100.0 * abs(w.mean_b) if b else math.nan
        outcome = direction(w.ci_low, w.ci_high, sign=1, smallest=m) if b else INCONCLUSIVE
        rows.append(
            {
                "sources": n,
                "PER %": per * 100,
                "against": o,
                f"{winner} kbps": w.mean_a,
                "other kbps": w.mean_b,
                "difference kbps": w.diff,
                "CI low kbps": w.ci_low,
                "CI high kbps": w.ci_high,
                "difference %": 100.0 * w.diff / w.mean_b if w.mean_b else math.nan,
                "Hedges' g": w.g,
                "p-value": w.p,
                "seeds": f"{w.n_a}/{w.n_b}",
                "outcome": str(outcome),
            }
        )
    return combine(r["outcome"] for r in rows), rows


def _beats_sentence(outcome: Outcome, winner: str, rows: list[dict]) -> str:
    if not rows:
        return f"No {winner} runs with PER > 0 to compare (0 of 0)."
    n = {o: [r for r in rows if r["outcome"] == o] for o in Outcome}

    def where(r: dict) -> str:
        return (
            f"{r['against']} at {r['sources']} sources, PER {r['PER %']:g}% "
            f"({r['difference kbps']:+.0f} kbps, {r['difference %']:+.1f}%)"
        )

    worst = min(rows, key=lambda r: r["difference %"])
    best = max(rows, key=lambda r: r["difference %"])
    below = n[NOT_SUPPORTED]
    text = (
        f"{outcome.capitalize()}: of {len(rows)} comparisons of mean total FTP goodput "
        f"(PER > 0; simultaneous {LEVEL:.0%} Welch intervals), {winner} is higher in "
        f"{len(n[SUPPORTED])}, not higher in {len(below)} (the interval rules out a lead of "
        f"{SMALLEST_GAIN_PCT:g}%), undecided in {len(n[INCONCLUSIVE])}."
    )
    if below:
        text += f" Not higher: {', '.join(where(r) for r in below[:6])}"
        text += " …." if len(below) > 6 else "."
    text += (
        f" Differences range from {worst['difference %']:+.1f}% ({worst['against']}, "
        f"{worst['sources']} sources, PER {worst['PER %']:g}%) to {best['difference %']:+.1f}% "
        f"({best['against']}, {best['sources']} sources, PER {best['PER %']:g}%); the paper "
        "states no size."
    )
    return text


def _claim_beats_at(winner: str, others: list[str], n: int) -> Callable[[PaperData], ClaimResult]:
    """The claim at one load: ``_beats`` over every load (intervals simultaneous over all the
    comparisons, so the per-load verdicts hold together), judged on this load's rows."""

    def check(data: PaperData) -> ClaimResult:
        _, rows = _beats(data, winner, others)
        mine = [r for r in rows if r["sources"] == n]
        outcome = combine(r["outcome"] for r in mine)
        sentence = _beats_sentence(outcome, winner, mine)
        if not mine:
            return ClaimResult(outcome, sentence, mine)
        sentence = (
            f"At {n} sources. "
            + sentence
            + f" Intervals are simultaneous over all {len(rows)} comparisons of every load."
        )
        # The effect shown for the claim: its weakest comparison, in % of the other scheme.
        finite = [r for r in mine if r["other kbps"] > 0 and math.isfinite(r["CI low kbps"])]
        if not finite:
            return ClaimResult(outcome, sentence, mine)
        worst = min(finite, key=lambda r: r["CI low kbps"] / r["other kbps"])
        pct = 100.0 / worst["other kbps"]
        return ClaimResult(
            outcome,
            sentence,
            mine,
            effect=worst["difference %"],
            ci=(worst["CI low kbps"] * pct, worst["CI high kbps"] * pct),
        )

    return check


_BEATS_TEST = (
    "Decided at this load alone (the loads' effects differ in sign). At each PER > 0 and "
    "against each scheme: Welch's t-test of the difference in mean total FTP goodput over "
    "seeds, 95% intervals simultaneous over all the comparisons of every load (Bonferroni), "
    "so the per-load verdicts hold together; Hedges' g beside it. A comparison counts as "
    f"higher if its interval lies above 0 and reaches {SMALLEST_GAIN_PCT:g}% of the other "
    "scheme's goodput (the paper states no size), as not higher if the interval lies below "
    f"{SMALLEST_GAIN_PCT:g}%. Supported if every comparison at this load is higher, not "
    "supported if any is not, inconclusive otherwise."
)
