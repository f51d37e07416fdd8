"""Seed paper 000: Wireless MECN (source-centric congestion filtering).

M. Sridharan, A. Durresi, C. Liu, R. Jain, "Wireless TCP Enhancements Using Multi-level ECN".
Routers mark packets with two-bit congestion levels (WMECN marking, §3.1); each source sums the
weights of its last ten feedbacks and, on a loss, takes it as wireless (no cut) or as congestion
of some level (cut to 0.8/0.6/0.5 of cwnd, once per RTT) (§3.2).

Setup (§5.1): sources S_i –10 Mbps/2 ms– R1 –1 Mbps/30 ms– R2 –10 Mbps/4 ms– D_i; the FTP
flows (Reno-based) go to wireless destinations whose last hop has a packet error rate; one
UDP exponential on/off source (100 ms / 100 ms, 500 kbps while on) goes to a wired
destination; 1000-byte packets, 40-byte ACKs, average-queue weight 0.002, 100 s runs. Schemes:
Reno, ECN, Westwood (RED bottleneck), Snoop (Reno + Snoop at R2), WMECN (WMECN bottleneck) and
WMECN + LRT (link-layer ARQ on the wireless hops and delayed duplicate ACKs). The number of FTP
sources is varied (2, 4, 8) to change the congestion level.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..builders import dumbbell
from ..scenario import Scenario
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
    ORACLE,
    ClaimResult,
    ClaimSpec,
    FigureSpec,
    Paper,
    PaperData,
    Reading,
    SweepSpec,
    Variant,
    register,
)

PER_PATH = "links.R2-D*.error.per"
PERS = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1]
QUICK_PERS = [0.0, 0.02, 0.1]
SOURCES = [2, 4, 8]
MAIN_N = 4
SEEDS = 10
QUICK_SEEDS = 2
#: seconds of start-up excluded from the steady-state scoring
WARMUP = 10

# How the claims are decided (fixed with the claims, not adjusted to results; see the tests
# stated with each ClaimSpec below).
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

#: scheme key -> label in figures and tables
SCHEMES: dict[str, str] = {
    "reno": "Reno",
    "ecn": "ECN",
    "westwood": "Westwood",
    "snoop": "Snoop",
    "wmecn": "WMECN",
    "wmecn_lrt": "WMECN + LRT",
    ORACLE: ORACLE,
}
END_TO_END = ["Reno", "ECN", "Westwood"]

#: the bottleneck's RED-family settings (thresholds in packets; see docs/schemes/wmecn.md)
QUEUE = {"limit": 50, "min_threshold": 5, "max_threshold": 15, "max_p": 0.1, "weight": 0.002}


def build(scheme: str, n: int) -> Scenario:
    """The §5.1 dumbbell for ``scheme`` with ``n`` FTP flows to wireless destinations. The
    oracle runs on Reno's setup (the RED bottleneck, no ECN, no agent)."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; known: {', '.join(SCHEMES)}")
    wm = scheme.startswith("wmecn")
    queue: dict[str, Any] = {"kind": "wmecn" if wm else "red", **QUEUE}
    if wm:
        queue["mid_threshold"] = 10
    cc = {"westwood": "westwood", "wmecn": "wmecn", "wmecn_lrt": "wmecn", ORACLE: ORACLE}.get(
        scheme, "reno"
    )
    tcp: dict[str, Any] = {}
    if scheme == "ecn":
        tcp["ecn"] = True
    if scheme == "wmecn_lrt":
        # Up to three link retries of ~9 ms each on the 4 ms hop.
        tcp["dda_delay"] = "30ms"
    sc = dumbbell(
        n,
        cc=cc,
        duration=100,
        per=0.0,
        wireless=list(range(1, n + 1)),
        bottleneck_queue=queue,
        tcp=tcp,
        name=f"wmecn-{scheme}-n{n}",
    )
    data = sc.to_dict()
    # The UDP background pair, on wired links named apart from the wireless R2-D<i>.
    data["nodes"] += [{"name": "U1"}, {"name": "V1"}]
    data["links"] += [
        {"name": "U1-R1", "a": "U1", "b": "R1", "rate": "10Mbps", "delay": "2ms"},
        {"name": "R2-V1", "a": "R2", "b": "V1", "rate": "10Mbps", "delay": "4ms"},
    ]
    data["flows"].append(
        {
            "name": "udp1",
            "src": "U1",
            "dst": "V1",
            "app": {
                "kind": "onoff",
                "rate": "500kbps",
                "on_mean": "100ms",
                "off_mean": "100ms",
                "packet_size": 1000,
            },
        }
    )
    data["warmup"] = WARMUP
    if scheme == "snoop":
        data["agents"] = [{"kind": "snoop", "node": "R2"}]
    if scheme == "wmecn_lrt":
        for link in data["links"]:
            if link["name"].startswith("R2-D"):
                link["arq"] = {"retry_limit": 3}
    return Scenario(data)


def _factory(scheme: str, n: int) -> Callable[[bool], Scenario]:
    def make(quick: bool) -> Scenario:
        return build(scheme, n)

    return make


def _sweeps() -> list[SweepSpec]:
    return [
        SweepSpec(
            name=f"{scheme}-n{n}",
            scenario=_factory(scheme, n),
            grid={PER_PATH: PERS},
            seeds=SEEDS,
            quick_grid={PER_PATH: QUICK_PERS},
            quick_seeds=QUICK_SEEDS,
            description=f"{label}, {n} FTP sources, PER swept",
        )
        for scheme, label in SCHEMES.items()
        for n in SOURCES
    ]


FIRST = f"reno-n{SOURCES[0]}"

_SUM = [
    "goodput_bps",
    "verdicts",
    "verdicts_on_wireless_loss",
    "verdicts_on_congestion_loss",
    "verdicts_on_no_loss",
    "type1_errors",
    "type2_errors",
    "steady_verdicts_on_wireless_loss",
    "steady_verdicts_on_congestion_loss",
    "steady_type1_errors",
    "steady_type2_errors",
    "lost_congestion",
    "lost_channel_error",
    "lost_packets",
    "retransmissions",
    "timeouts",
]


def derive(data: PaperData) -> None:
    """One row per run of every sweep (``runs_all`` on the first sweep): scheme, sources, PER,
    seed, the sweep's name in the store, the FTP flows' total goodput, their mean
    time-averaged cwnd and summed verdict counts, with type-1/type-2 rates (in %) over the
    whole run and after the warm-up."""
    import polars as pl

    frames = []
    for name in data.tables:
        scheme, _, n = name.rpartition("-n")
        flows = data.table(name, "flows").filter(pl.col("name").str.starts_with("ftp"))
        per_run = flows.group_by("seed", PER_PATH).agg(
            *[pl.col(c).sum() for c in _SUM],
            pl.col("avg_cwnd_segments").mean().alias("avg_cwnd"),
        )
        frames.append(
            per_run.rename({PER_PATH: "per"}).with_columns(
                pl.lit(SCHEMES[scheme]).alias("scheme"),
                # The store's name of the sweep, so a figure can say where its points come from.
                pl.lit(data.sweeps[name].name if name in data.sweeps else name).alias("sweep"),
                pl.lit(int(n)).alias("sources"),
                pl.col("per").cast(pl.Float64),
            )
        )
    df = pl.concat(frames, how="diagonal_relaxed")

    def pct(err: str, base: str) -> pl.Expr:
        return pl.when(pl.col(base) > 0).then(100.0 * pl.col(err) / pl.col(base)).otherwise(None)

    df = df.with_columns(
        pct("type1_errors", "verdicts_on_congestion_loss").alias("type1_pct"),
        pct("type2_errors", "verdicts_on_wireless_loss").alias("type2_pct"),
        pct("steady_type1_errors", "steady_verdicts_on_congestion_loss").alias("steady_type1_pct"),
        pct("steady_type2_errors", "steady_verdicts_on_wireless_loss").alias("steady_type2_pct"),
        (pl.col("goodput_bps") / 1000).alias("goodput_kbps"),
    ).sort("scheme", "sources", "per", "seed")
    data.set_table(FIRST, "runs_all", df)


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


# --------------------------------------------------------------------------------------------
# tables for docs/schemes/wmecn.md (airtcp docs-tables)


def _doc_claims(data: PaperData) -> str:
    from ..docgen import claims_table

    return claims_table(data)


def _cells(df: Any) -> list[tuple[int, float]]:
    return sorted({(r["sources"], r["per"]) for r in df.select("sources", "per").to_dicts()})


def _doc_goodput(data: PaperData) -> str:
    """Mean total FTP goodput per scheme, load and PER with its 95% interval."""
    from ..analysis import aggregate
    from ..docgen import ci, md_table, pct

    df = _all(data)
    agg = aggregate(df, "goodput_kbps", ["scheme", "sources", "per"], bounds=(0.0, None))
    cell = {(r["scheme"], r["sources"], r["per"]): r for r in agg.iter_rows(named=True)}
    names = [s for s in SCHEMES.values() if s in set(df["scheme"].to_list())]
    rows = []
    for n, per in _cells(df):
        row: list[Any] = [n, f"{pct(per)} %"]
        for name in names:
            r = cell.get((name, n, per))
            row.append(ci(r["mean"], r["ci_low"], r["ci_high"], 0) if r else "–")
        rows.append(row)
    return "Mean total FTP goodput (kbps) over seeds, 95% CI in brackets:\n\n" + md_table(
        ["sources", "PER", *names], rows, "rr" + "r" * len(names)
    )


def _doc_oracle(data: PaperData) -> str:
    """Each scheme's goodput as a share of the oracle's, per load and PER."""
    from ..docgen import oracle_shares

    return oracle_shares(data)


def _doc_verdicts(data: PaperData) -> str:
    """WMECN's loss verdicts summed over seeds, whole runs and after the warm-up."""
    import polars as pl

    from ..docgen import md_table, pct

    df = _all(data).filter(pl.col("scheme") == "WMECN")
    agg = (
        df.group_by("sources", "per")
        .agg(
            pl.col(
                "verdicts",
                "verdicts_on_congestion_loss",
                "type1_errors",
                "steady_verdicts_on_congestion_loss",
                "steady_type1_errors",
                "verdicts_on_wireless_loss",
                "type2_errors",
                "steady_verdicts_on_wireless_loss",
                "steady_type2_errors",
                "verdicts_on_no_loss",
            ).sum()
        )
        .sort("sources", "per")
    )

    def share(k: int, n: int) -> str:
        return f"{k} / {n}" + (f" ({100 * k / n:.1f}%)" if n else "")

    rows = [
        [
            r["sources"],
            f"{pct(r['per'])} %",
            share(r["type1_errors"], r["verdicts_on_congestion_loss"]),
            share(r["steady_type1_errors"], r["steady_verdicts_on_congestion_loss"]),
            share(r["type2_errors"], r["verdicts_on_wireless_loss"]),
            share(r["steady_type2_errors"], r["steady_verdicts_on_wireless_loss"]),
            share(r["verdicts_on_no_loss"], r["verdicts"]),
        ]
        for r in agg.iter_rows(named=True)
    ]
    return (
        f"WMECN's loss verdicts, summed over seeds (after warm-up: verdicts after the first "
        f"{WARMUP} s):\n\n"
        + md_table(
            [
                "sources",
                "PER",
                "type-1 / congestion losses judged",
                "after warm-up",
                "type-2 / wireless losses judged",
                "after warm-up",
                "verdicts on segments never lost / all verdicts",
            ],
            rows,
            "rrrrrrr",
        )
    )


def _udp(data: PaperData, key: str, n: int) -> Any:
    """Per run: the UDP source's goodput (kbps), the FTP flows' total (kbps)."""
    import polars as pl

    f = data.table(f"{key}-n{n}", "flows").with_columns(pl.col(PER_PATH).cast(pl.Float64))
    return f.group_by("seed", PER_PATH).agg(
        (pl.col("goodput_bps").filter(pl.col("name") == "udp1").sum() / 1000).alias("udp"),
        (pl.col("goodput_bps").filter(pl.col("name").str.starts_with("ftp")).sum() / 1000).alias(
            "ftp"
        ),
    )


def _doc_udp_share(data: PaperData) -> str:
    """ECN's lead over WMECN against the UDP goodput the two bottlenecks leave the UDP source."""
    import polars as pl

    from ..docgen import ci, md_table, pct

    rows = []
    for n in SOURCES:
        if f"ecn-n{n}" not in data.tables or f"wmecn-n{n}" not in data.tables:
            continue
        e, w = _udp(data, "ecn", n), _udp(data, "wmecn", n)
        for per in sorted(set(e[PER_PATH].to_list())):
            a = e.filter(pl.col(PER_PATH) == per)
            b = w.filter(pl.col(PER_PATH) == per)
            lead = welch(a["ftp"].to_list(), b["ftp"].to_list())
            udp = welch(b["udp"].to_list(), a["udp"].to_list())
            tot = welch((a["ftp"] + a["udp"]).to_list(), (b["ftp"] + b["udp"]).to_list())
            rows.append(
                [
                    n,
                    f"{pct(per)} %",
                    ci(lead.diff, lead.ci_low, lead.ci_high, 0, sign=True),
                    ci(udp.diff, udp.ci_low, udp.ci_high, 0, sign=True),
                    ci(tot.diff, tot.ci_low, tot.ci_high, 0, sign=True),
                    f"{lead.mean_b + udp.mean_a:.0f} / {lead.mean_a + udp.mean_b:.0f}",
                ]
            )
    return "Differences of means over seeds (kbps, 95% Welch CI in brackets):\n\n" + md_table(
        [
            "sources",
            "PER",
            "FTP goodput, ECN − WMECN",
            "UDP goodput, WMECN − ECN",
            "FTP + UDP, ECN − WMECN",
            "FTP + UDP, WMECN / ECN",
        ],
        rows,
        "rrrrrr",
    )


def _doc_timeouts(data: PaperData) -> str:
    """Per end-to-end scheme: timeouts per FTP flow, and the retransmissions beyond the
    packets lost (resends of segments that were not lost) as a share of all retransmissions."""
    import polars as pl

    from ..docgen import md_table, pct

    df = _all(data).with_columns(
        (pl.col("timeouts") / pl.col("sources")).alias("per_flow"),
    )
    agg = df.group_by("scheme", "sources", "per").agg(
        pl.col("per_flow").mean(),
        pl.col("retransmissions").sum(),
        pl.col("lost_packets").sum(),
    )
    cell = {(r["scheme"], r["sources"], r["per"]): r for r in agg.to_dicts()}
    # Snoop and LRT repair losses below TCP, so their lost packets are not TCP's to resend.
    names = [s for s in ("Reno", "ECN", "Westwood", "WMECN") if s in set(df["scheme"].to_list())]

    def text(r: dict | None) -> str:
        if r is None:
            return "–"
        retx, lost = r["retransmissions"], r["lost_packets"]
        extra = f"{100 * max(retx - lost, 0) / retx:.0f}%" if retx else "–"
        return f"{r['per_flow']:.1f} ({extra})"

    rows = [
        [n, f"{pct(per)} %", *(text(cell.get((s, n, per))) for s in names)] for n, per in _cells(df)
    ]
    return (
        "Mean retransmission timeouts per FTP flow in a 100 s run, and in brackets the "
        "retransmissions beyond the data packets lost (segments resent though not lost) as a "
        "share of all retransmissions, summed over seeds:\n\n"
        + md_table(["sources", "PER", *names], rows, "rr" + "r" * len(names))
    )


#: what one row of the figures' data is
_ROWS = "runs (the FTP flows of each run summed)"


def _figures() -> list[FigureSpec]:
    figs = [
        FigureSpec(
            name=f"goodput_n{n}",
            title=f"Goodput vs PER, {n} FTP sources (paper Figs. 4 and 5)",
            sweep=FIRST,
            table="runs_all",
            where={"sources": n},
            x="per",
            metric="goodput_kbps",
            group="scheme",
            xscale=100,
            xlabel="packet error rate (%)",
            ylabel="total FTP goodput (kbps)",
            caption="Goodput counts data delivered in order to the destinations (no "
            "retransmitted copies), summed over the FTP flows. The oracle runs on Reno's setup "
            "(RED bottleneck).",
            bounds=(0.0, None),
            rows=_ROWS,
            upper=ORACLE,
        )
        for n in SOURCES
    ]
    figs.append(
        FigureSpec(
            name="cwnd",
            title=f"Average cwnd vs PER, {MAIN_N} FTP sources (paper Fig. 6)",
            sweep=FIRST,
            table="runs_all",
            # The schemes of the paper's figure: the oracle bounds goodput, not cwnd.
            where={"sources": MAIN_N, "scheme": [s for s in SCHEMES.values() if s != ORACLE]},
            x="per",
            metric="avg_cwnd",
            group="scheme",
            xscale=100,
            xlabel="packet error rate (%)",
            ylabel="time-averaged cwnd (segments)",
            caption="The time average of each FTP flow's cwnd, averaged over the flows of a run.",
            bounds=(0.0, None),
            rows=_ROWS,
        )
    )
    # WMECN + LRT has no type-2 figure: with three link retries a wireless loss reaches TCP
    # only when four attempts in a row fail (PER^4), so its sources judge almost no wireless
    # losses and the rate is undefined at most points (the report's notes say so).
    figs.append(
        FigureSpec(
            name="type2_wmecn",
            title="WMECN: wireless losses judged congestion (type-2) vs PER",
            sweep=FIRST,
            table="runs_all",
            where={"scheme": "WMECN"},
            x="per",
            metric="type2_pct",
            group="sources",
            xscale=100,
            xlabel="packet error rate (%)",
            ylabel="type-2 errors (% of wireless losses judged)",
            caption="Whole runs, the first 10 s included; the rate of each run, runs that "
            "judged no wireless loss left out. The type-2 claim pools the counts over seeds.",
            bounds=(0.0, 100.0),
            rows=_ROWS,
        )
    )
    figs.append(
        FigureSpec(
            name="type1_wmecn",
            title="WMECN: congestion losses judged wireless (type-1) vs PER",
            sweep=FIRST,
            table="runs_all",
            where={"scheme": "WMECN"},
            x="per",
            metric="type1_pct",
            group="sources",
            xscale=100,
            xlabel="packet error rate (%)",
            ylabel="type-1 errors (% of congestion losses judged)",
            caption="Whole runs; the rate of each run, runs that judged no congestion loss "
            "left out. See the type-1 claim for when these errors occur.",
            bounds=(0.0, 100.0),
            rows=_ROWS,
        )
    )
    return figs


# --------------------------------------------------------------------------------------------
# readings and sensitivity axes (docs/schemes/wmecn.md, written before running)

BOTTLENECK = "links.R1-R2.queue"
WMECN_SWEEPS = tuple(f"{k}-n{n}" for k in ("wmecn", "wmecn_lrt") for n in SOURCES)
WESTWOOD_SWEEPS = tuple(f"westwood-n{n}" for n in SOURCES)
#: the sweeps whose bottleneck is RED (WMECN's queue has no gentle mode)
RED_SWEEPS = tuple(f"{k}-n{n}" for k in SCHEMES if not k.startswith("wmecn") for n in SOURCES)


def _udp_sources(k: int) -> Callable[[Scenario, str], Scenario]:
    """The background as ``k`` on/off UDP sources, each from its own host (0: none; the FTP
    flows then start at a seeded offset within 100 ms, so that seeds differ at 0% loss)."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        d = sc.to_dict()
        (udp,) = [f for f in d["flows"] if f["name"] == "udp1"]
        d["flows"] = [f for f in d["flows"] if not f["name"].startswith("udp")]
        if k == 0:
            d["nodes"] = [n for n in d["nodes"] if n["name"] not in ("U1", "V1")]
            d["links"] = [lk for lk in d["links"] if lk["name"] not in ("U1-R1", "R2-V1")]
            for f in d["flows"]:
                f["start_jitter"] = "100ms"
        for i in range(2, k + 1):
            d["nodes"] += [{"name": f"U{i}"}, {"name": f"V{i}"}]
            d["links"] += [
                {"name": f"U{i}-R1", "a": f"U{i}", "b": "R1", "rate": "10Mbps", "delay": "2ms"},
                {"name": f"R2-V{i}", "a": "R2", "b": f"V{i}", "rate": "10Mbps", "delay": "4ms"},
            ]
        d["flows"] += [
            {**udp, "name": f"udp{i}", "src": f"U{i}", "dst": f"V{i}"} for i in range(1, k + 1)
        ]
        return Scenario(d)

    return transform


def _queue(key: str, value: Any, sweeps: tuple[str, ...] | None = None) -> Variant:
    return Variant(f"{value:g}", set={f"{BOTTLENECK}.{key}": value}, sweeps=sweeps)


READINGS = [
    Reading(
        name="marks",
        title="What marks do at the source",
        kind="reading",
        passage="§3.1: 'the fact that the sources go down only once every RTT and they go down "
        "only by 80% or 60%, instead of 50% as in a traditional case'; §3.2 gives the source's "
        "cuts only on a loss.",
        default=Variant(
            "marks-cut",
            why="As MECN sources do: '10' cuts cwnd to 0.8, '11' to 0.6, once per RTT with the "
            "loss cuts; without it the marks could not keep the queue below overflow.",
        ),
        alternatives=(
            Variant(
                "filter-only",
                why="§3.2's algorithm alone: marks only feed the filtering context, cwnd is cut "
                "only on a loss judged congestion.",
                set={"flows.ftp*.cc_params.react_to_marks": 0},
                sweeps=WMECN_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="buffer",
        title="Bottleneck buffer against max_th (15 packets)",
        kind="axis",
        passage="§5.1 gives no buffer size.",
        default=Variant("50", why="ns-2's default queue limit."),
        alternatives=(_queue("limit", 100), _queue("limit", 200)),
    ),
    Reading(
        name="udp",
        title="The UDP background",
        kind="reading",
        passage="§5.1: 'The background traffic is a UDP flows generated by an exponential "
        "on-off model, which runs on other sources.'",
        default=Variant("one", why="One on/off source, 500 kbps while on (the singular 'is a')."),
        alternatives=(
            Variant(
                "two",
                why="The plural 'flows … on other sources': two such sources.",
                transform=_udp_sources(2),
            ),
            Variant(
                "none",
                why="The schemes compared on their own, without background.",
                transform=_udp_sources(0),
            ),
        ),
    ),
    Reading(
        name="mid-th",
        title="WMECN's mid_th",
        kind="axis",
        passage="Not given; sets where '11' marks start, so how often a wireless loss is "
        "judged congestion.",
        default=Variant("10", why="Halfway between min_th 5 and max_th 15."),
        alternatives=(
            _queue("mid_threshold", 8, WMECN_SWEEPS),
            _queue("mid_threshold", 12, WMECN_SWEEPS),
        ),
    ),
    Reading(
        name="max-th",
        title="max_th of every RED-family bottleneck",
        kind="axis",
        passage="Not given.",
        default=Variant("15", why="ns-2's fixed RED max_th before automatic thresholds."),
        alternatives=(_queue("max_threshold", 20), _queue("max_threshold", 30)),
    ),
    Reading(
        name="p-max",
        title="P_max (RED's max_p with it)",
        kind="axis",
        passage="Not given.",
        default=Variant("0.1", why="ns-2's linterm_ 10."),
        alternatives=(_queue("max_p", 0.05), _queue("max_p", 0.2)),
    ),
    Reading(
        name="red-gentle",
        title="RED's gentle mode",
        kind="axis",
        passage="Not given; the paper's ns-2 (it cites work of 2001-2002) most likely had "
        "gentle_ true, its default since April 2001.",
        default=Variant("off", why="airtcp's RED default, fixed before running."),
        alternatives=(
            Variant(
                "on",
                why="ns-2's default since 2001: the drop probability ramps from max_p to 1 "
                "between max_th and twice it instead of dropping every packet above max_th.",
                set={f"{BOTTLENECK}.gentle": True},
                sweeps=RED_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="ack-errors",
        title="Which packets the wireless hop's errors hit",
        kind="axis",
        passage="§5.1 gives the wireless links' error rates, not which packets they hit.",
        default=Variant("data", why="Losses of data on the wireless last hop, ACKs intact."),
        alternatives=(
            Variant(
                "all",
                why="Every packet crossing the wireless hop, ACKs included.",
                set={PER_PATH.replace(".per", ".applies_to"): "all"},
                # Without errors it does not matter which packets they would hit (a test).
                unchanged={PER_PATH: [0.0]},
            ),
        ),
    ),
    Reading(
        name="westwood-recovery",
        title="Westwood's loss recovery",
        kind="reading",
        passage="§5.1: 'Reno TCP is used as the transport agent. (The modifications were made "
        "to the Reno TCP)'; how Westwood recovered losses is not said.",
        default=Variant("newreno", why="The westwood scheme's own (NewReno's partial ACKs)."),
        alternatives=(
            Variant(
                "reno",
                why="Reno's fast recovery, as every other scheme here.",
                set={"tcp.recovery": "reno"},
                sweeps=WESTWOOD_SWEEPS,
            ),
        ),
        claims=tuple(f"beats-end-to-end-n{n}" for n in SOURCES),
    ),
]


PAPER = register(
    Paper(
        key="wmecn",
        title="Wireless TCP enhancements using multi-level ECN",
        citation=(
            "M. Sridharan, A. Durresi, C. Liu, R. Jain. Wireless TCP Enhancements Using "
            "Multi-level ECN (seed paper 000)."
        ),
        summary=(
            "The §5.1 dumbbell: n FTP sources (2, 4, 8) to wireless destinations behind a "
            "1 Mbps/30 ms bottleneck with RED (Reno, ECN, Westwood, Snoop) or WMECN marking "
            "(WMECN, WMECN + LRT), one 500 kbps exponential on/off UDP source, packet error "
            "rate of the wireless hops swept from 0 to 10%, 100 s runs. The loss-cause oracle, "
            "on Reno's setup, is the upper bound of the goodput figures."
        ),
        notes=(
            "Values the paper leaves out were chosen before running and are listed with their "
            "reasons in docs/schemes/wmecn.md: queue limit 50 packets, thresholds 5/10/15 "
            "packets (min/mid/max), P_max = max_p = 0.1, one UDP source, errors on data "
            "packets only, flows all starting at 0 s, Snoop at R2, LRT = 3 link retries with "
            "30 ms delayed duplicate ACKs. WMECN sources also cut on marks as MECN-TCP does "
            "('10' to 0.8, '11' to 0.6 of cwnd), sharing the once-per-RTT limit. Loss verdicts "
            "are scored against the simulator's record of each drop; 'after the warm-up' "
            f"counts only verdicts after the first {WARMUP} s. There is no type-2 figure for "
            "WMECN + LRT: with three link retries a wireless loss reaches TCP only when four "
            "attempts in a row fail (PER⁴: 10⁻⁴ at 10% PER), so its sources judge almost no "
            "wireless losses and the rate is undefined at most points; its counts are in the "
            "type-2 claim's table. How a claim is decided: a claim made at several loads is "
            "decided at each load on its own, with intervals simultaneous over every comparison "
            "of every load. Where a paper states an effect's size, 'supported' needs the "
            "interval only to reach half of it, with the magnitude verdict beside it; this "
            "paper states none for goodput, so 'higher goodput' counts a lead only when its "
            f"interval lies above 0 and reaches {SMALLEST_GAIN_PCT:g}% of the other scheme's "
            "goodput, and no paper magnitude can be set beside it; 'never' is "
            "decided over whole runs and, as its own claim, after the warm-up. The readings "
            "and sensitivity axes each claim is decided under are in docs/schemes/wmecn.md."
        ),
        sweeps=_sweeps(),
        figures=_figures(),
        claims=[
            ClaimSpec(
                id="type1-never",
                statement="Type-1 errors (a congestion loss taken as wireless) never occur",
                check=_claim_type1,
                source="§4",
                test=(
                    "Exact count of type-1 errors against the simulator's record of every "
                    "drop, over whole runs (after the warm-up shown beside it). Any error "
                    "contradicts 'never' (not supported). With none, supported only if the "
                    "one-sided 95% upper bound on the rate, 1 − 0.05^(1/n) for 0 of n, is "
                    f"under {TYPE1_BOUND:.0%}; inconclusive otherwise, 0 of 0 included."
                ),
            ),
            ClaimSpec(
                id="type1-never-steady",
                statement="Type-1 errors never occur in the steady state (after the first "
                f"{WARMUP} s)",
                check=_claim_type1_steady,
                source="§4",
                test=(
                    f"As the type-1 claim, counting only verdicts after the first {WARMUP} s: "
                    "any error contradicts 'never'; with none, supported only if the one-sided "
                    f"95% upper bound on the rate is under {TYPE1_BOUND:.0%} and the losses "
                    "come from at least two runs; inconclusive otherwise, 0 of 0 included."
                ),
            ),
            ClaimSpec(
                id="type2-rare-and-falling",
                statement="Type-2 errors stay under 1% and fall as the packet error rate grows",
                check=_claim_type2,
                source="§4",
                test=(
                    "Under 1%: at each load and PER > 0, the type-2 rate pooled over seeds "
                    "with the union of its exact binomial interval and the Student-t interval "
                    "of the per-run rates, simultaneous 95% over the cells (Bonferroni), "
                    "clipped to [0, 100]%; supported if every interval lies under 1%, not "
                    "supported if any lies above. Falls: at each load, Welch's "
                    "t-test of the rate at the lowest minus the highest PER > 0, simultaneous "
                    "95% over the loads; supported if every interval lies above 0, not "
                    "supported if any lies below. The claim needs both parts."
                ),
            ),
            *[
                ClaimSpec(
                    id=f"beats-end-to-end-n{n}",
                    statement="WMECN has higher goodput than every end-to-end scheme (Reno, "
                    f"ECN, Westwood), with {n} FTP sources",
                    check=_claim_beats_at("WMECN", END_TO_END, n),
                    source="§5.2, Fig. 4; §6",
                    test=_BEATS_TEST,
                )
                for n in SOURCES
            ],
            *[
                ClaimSpec(
                    id=f"lrt-beats-snoop-n{n}",
                    statement=f"WMECN + LRT has higher goodput than Snoop, with {n} FTP sources",
                    check=_claim_beats_at("WMECN + LRT", ["Snoop"], n),
                    source="§5.2, Fig. 5; §6",
                    test=_BEATS_TEST,
                )
                for n in SOURCES
            ],
        ],
        derive=derive,
        readings=READINGS,
        doc_tables={
            "claims": _doc_claims,
            "goodput": _doc_goodput,
            "oracle-share": _doc_oracle,
            "verdicts": _doc_verdicts,
            "udp-share": _doc_udp_share,
            "timeouts": _doc_timeouts,
        },
    )
)
