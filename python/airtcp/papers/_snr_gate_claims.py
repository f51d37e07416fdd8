"""The claims of the SNR-gate reproduction (:mod:`airtcp.papers.snr_gate`): the paper's figures,
the smallest effects counted, and the claim functions, each decided on paired runs."""

from __future__ import annotations

import math
from typing import Any

from ..stats import INCONCLUSIVE, clip, magnitude, paired, paired_bootstrap, verdict
from . import (
    ClaimResult,
    PaperData,
)

THRESHOLDS = [3.0, 4.0, 5.0, 6.0]


# The paper's largest effects are at its highest threshold; the magnitude claims test there.
TEST_T = 6.0
PAPER_THROUGHPUT_PCT = 15.0
PAPER_TIME_PCT = -12.0
PAPER_OVERHEAD_PTS = -0.7
# The step from 3–4 dB to 5–6 dB has no number in the paper: 1 point of Reno's throughput is
# the smallest difference counted.
SMALLEST_STEP_PTS = 1.0
#: "Throughput will be slightly improved approximately 2K, 4K bytes/sec at threshold 3 and
#: 4 dB": the paper's sizes, compared beside the step (they do not decide it).
SLIGHT_GAINS_KBPS = {3.0: 2.0, 4.0: 4.0}


def _by_seed(df: Any, metric: str) -> dict[int, float]:
    return {
        int(r["seed"]): float(r[metric])
        for r in df.select("seed", metric).to_dicts()
        if r[metric] is not None
    }


def _pairs(a: Any, b: Any, metric: str) -> tuple[list[float], list[float]]:
    """``metric`` of the runs of ``a`` and ``b`` that share a seed (the same trace), in seed
    order."""
    xa, xb = _by_seed(a, metric), _by_seed(b, metric)
    seeds = sorted(set(xa) & set(xb))
    return [xa[k] for k in seeds], [xb[k] for k in seeds]


def _gate_at(data: PaperData, t: float) -> Any:
    import polars as pl

    cmp = data.table("gate", "cmp")
    return cmp.filter((pl.col("scheme") == "Reno + gate") & (pl.col("threshold_db") == t))


def compare(
    gate: list[float],
    reno: list[float],
    *,
    paper: float,
    relative: bool,
    smallest: float | None = None,
) -> dict[str, Any]:
    """The gate's change against Reno on the same traces (``gate[i]`` and ``reno[i]`` share
    one): a paired t-test, in % of Reno's mean when ``relative`` (the delta-method interval of
    the ratio of paired means) or in the metric's units, and the verdict against the paper's
    change ``paper``. Differences with no spread decide nothing (inconclusive)."""
    pr = paired(gate, reno, relative=relative)
    lo, hi = pr.ci_low, pr.ci_high
    if relative:
        # A positive quantity cannot fall by more than 100%.
        lo, hi, _ = clip(lo, hi, (-100.0, None))
    b_lo, b_hi = paired_bootstrap(gate, reno, relative=relative)
    return {
        "verdict": verdict(lo, hi, paper, smallest),
        "magnitude": magnitude(lo, hi, paper),
        "change": pr.diff,
        "ci_low": lo,
        "ci_high": hi,
        "bootstrap_low": b_lo,
        "bootstrap_high": b_hi,
        "paper": paper,
        "smallest_counted": smallest if smallest is not None else paper / 2,
        "p": pr.p,
        "dz": pr.dz,
        "pairs": pr.n,
        "degenerate": pr.degenerate,
        "mean_gate": pr.mean_a,
        "mean_reno": pr.mean_b,
    }


def _no_spread(c: dict[str, Any]) -> str:
    if not c["degenerate"]:
        return ""
    if c["pairs"] < 2:
        return " Fewer than two paired traces: nothing to decide on."
    return (
        " The per-trace differences have no spread (gate and Reno runs alike on every trace, "
        "e.g. a transfer over before the fade): a sample without spread decides nothing."
    )


def _result(
    c: dict[str, Any], what: str, unit: str, rows: list[dict], extra: str = ""
) -> ClaimResult:
    v = c["verdict"]
    sentence = (
        f"{v.capitalize()}: {what} {c['change']:+.2f}{unit} (paired 95% CI {c['ci_low']:+.2f} "
        f"to {c['ci_high']:+.2f}{unit}; bootstrap {c['bootstrap_low']:+.2f} to "
        f"{c['bootstrap_high']:+.2f}; p = {c['p']:.3g}, d_z = {c['dz']:.2f}, "
        f"{c['pairs']} traces, each run with and without the gate); paper: "
        f"{c['paper']:+g}{unit}. Supported needs the interval on the paper's side of 0 and "
        f"reaching half the paper's change ({c['smallest_counted']:+g}{unit}); magnitude: the "
        "measured change is "
        f"{c['magnitude']} {c['paper']:+g}{unit}.{_no_spread(c)} {extra}"
    ).strip()
    return ClaimResult(v, sentence, [{**c, "metric": what}, *rows])


def _per_threshold(data: PaperData, metric: str, relative: bool) -> list[dict[str, Any]]:
    reno = data.table("reno", "flows")
    rows = []
    for t in THRESHOLDS:
        gate = _gate_at(data, t)
        if not gate.height:
            continue
        pr = paired(*_pairs(gate, reno, metric), relative=relative)
        rows.append(
            {
                "threshold_db": t,
                "mean_gate": pr.mean_a,
                "mean_reno": pr.mean_b,
                "change": pr.diff,
                "ci_low": pr.ci_low,
                "ci_high": pr.ci_high,
                "p": pr.p,
                "dz": pr.dz,
                "pairs": pr.n,
            }
        )
    return rows


def _magnitude_claim(
    data: PaperData, metric: str, paper: float, relative: bool, what: str, unit: str
) -> ClaimResult:
    gate, reno = _pairs(_gate_at(data, TEST_T), data.table("reno", "flows"), metric)
    c = compare(gate, reno, paper=paper, relative=relative)
    rows = _per_threshold(data, metric, relative)
    others = ", ".join(f"{r['change']:+.2f}{unit} at {r['threshold_db']:g} dB" for r in rows)
    return _result(c, f"{what} at {TEST_T:g} dB", unit, rows, f"All thresholds: {others}.")


def _claim_throughput(data: PaperData) -> ClaimResult:
    return _magnitude_claim(
        data, "throughput_kBps", PAPER_THROUGHPUT_PCT, True, "throughput change", "%"
    )


def _claim_connection_time(data: PaperData) -> ClaimResult:
    return _magnitude_claim(
        data, "completion_time_s", PAPER_TIME_PCT, True, "connection time change", "%"
    )


def _claim_overhead(data: PaperData) -> ClaimResult:
    return _magnitude_claim(
        data, "overhead_pct", PAPER_OVERHEAD_PTS, False, "overhead change", " points"
    )


def _claim_small_then_large(data: PaperData) -> ClaimResult:
    """Per trace (seed), the gated throughput at 5–6 dB minus that at 3–4 dB (each the mean
    of its two thresholds): 30 traces are 30 pairs, not 60 independent runs."""
    import polars as pl

    cmp = data.table("gate", "cmp").filter(pl.col("scheme") == "Reno + gate")
    reno = data.table("reno", "flows")
    if not all(cmp.filter(pl.col("threshold_db") == t).height for t in THRESHOLDS):
        return ClaimResult(INCONCLUSIVE, "Inconclusive: the sweep lacks thresholds 3/4 or 5/6 dB.")

    def per_seed(ts: list[float]) -> dict[int, float]:
        runs = [_by_seed(cmp.filter(pl.col("threshold_db") == t), "throughput_kBps") for t in ts]
        seeds = set.intersection(*(set(r) for r in runs))
        return {k: math.fsum(r[k] for r in runs) / len(runs) for k in seeds}

    high, low = per_seed([5.0, 6.0]), per_seed([3.0, 4.0])
    base_runs = list(_by_seed(reno, "throughput_kBps").values())
    seeds = sorted(set(high) & set(low))
    if not seeds or not base_runs:
        return ClaimResult(INCONCLUSIVE, "Inconclusive: no trace has every threshold and Reno.")
    base = math.fsum(base_runs) / len(base_runs)
    scale = 100.0 / base
    a = [high[k] * scale for k in seeds]
    b = [low[k] * scale for k in seeds]
    pr = paired(a, b)
    b_lo, b_hi = paired_bootstrap(a, b)
    c = {
        "verdict": verdict(pr.ci_low, pr.ci_high, SMALLEST_STEP_PTS, SMALLEST_STEP_PTS),
        "change": pr.diff,
        "ci_low": pr.ci_low,
        "ci_high": pr.ci_high,
        "bootstrap_low": b_lo,
        "bootstrap_high": b_hi,
        "paper": SMALLEST_STEP_PTS,
        "smallest_counted": SMALLEST_STEP_PTS,
        "p": pr.p,
        "dz": pr.dz,
        "pairs": pr.n,
        "degenerate": pr.degenerate,
        "mean_gate": pr.mean_a,
        "mean_reno": pr.mean_b,
    }
    v = c["verdict"]
    # The paper's own sizes of the slight gains, compared (they do not decide the step).
    slight = []
    magnitudes = []
    for t, paper_kbps in SLIGHT_GAINS_KBPS.items():
        d = compare(
            *_pairs(_gate_at(data, t), reno, "throughput_kBps"), paper=paper_kbps, relative=False
        )
        slight.append(
            f"at {t:g} dB {d['change']:+.2f} kB/s (paired 95% CI {d['ci_low']:+.2f} to "
            f"{d['ci_high']:+.2f}), {d['magnitude']} {paper_kbps:+g} kB/s"
        )
        magnitudes.append(f"{t:g} dB: {d['magnitude']} {paper_kbps:+g} kB/s")
    c["magnitude"] = "; ".join(magnitudes) or "–"
    sentence = (
        f"{v.capitalize()}: gated throughput at 5–6 dB minus 3–4 dB = {c['change']:+.2f} points "
        f"of Reno's {base:.1f} kB/s (paired over {pr.n} traces, each the mean of its two "
        f"thresholds; 95% CI {c['ci_low']:+.2f} to {c['ci_high']:+.2f}, bootstrap "
        f"{b_lo:+.2f} to {b_hi:+.2f}; p = {pr.p:.3g}, d_z = {pr.dz:.2f}). Paper: about +2 "
        "and +4 kB/s at 3 and 4 dB, 'dramatically' more at 5 and 6 dB (no number; the "
        f"smallest step counted is {SMALLEST_STEP_PTS:g} point)."
        + _no_spread(c)
        + (" The slight gains over Reno: " + "; ".join(slight) + "." if slight else "")
    )
    rows = _per_threshold(data, "throughput_kBps", True)
    return ClaimResult(v, sentence, [{**c, "metric": "step 3–4 → 5–6 dB"}, *rows])
