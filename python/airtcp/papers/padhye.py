"""TCP throughput vs random loss: the Padhye et al. (SIGCOMM 1998) model.

J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and its
Empirical Validation", ACM SIGCOMM 1998. Eq. (33) approximates the send rate of a bulk Reno
flow that sees independent packet losses with probability p:

    B(p) = min( Wmax/RTT , 1 / ( RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²) ) )

packets per second, with b packets acknowledged per ACK, RTT the round-trip time and T0 the
retransmission timeout. Its goodput counterpart is B(p)·(1 − p)·MSS·8 bits/s.

Setup: one bulk flow S –10 Mbps/10 ms– R1 –10 Mbps/30 ms– R2 –10 Mbps/10 ms– D, 1000-packet
DropTail buffers everywhere (so no congestion loss), 1000-byte segments with 40-byte headers,
4 MiB receive window (Wmax = 4194 segments), no delayed ACKs (b = 1), Bernoulli loss of data
packets on R2→D with probability p. NewReno and Reno. The model is evaluated per run with the
run's own mean RTT sample (``rtt_mean_s``) and mean RTO (``rto_mean_s``), as in
docs/validation.md.
"""

from __future__ import annotations

import math
from typing import Any

from ..scenario import Scenario
from ..stats import (
    INCONCLUSIVE,
    NOT_SUPPORTED,
    SUPPORTED,
    Outcome,
    bonferroni,
    combine,
    direction,
    one_sample,
    welch,
    within,
)
from . import (
    ORACLE,
    ClaimResult,
    ClaimSpec,
    FigureSpec,
    Paper,
    PaperData,
    SweepSpec,
    register,
)

P_PATH = "links.R2-D.error.per"
CC_PATH = "flows.*.cc"
MSS = 1000
RCV_WINDOW = 4 * 1024 * 1024
WMAX = RCV_WINDOW / MSS
B_ACKED = 1  # segments per ACK: no delayed ACKs

P_VALUES = [0.002, 0.005, 0.01, 0.02, 0.05]
QUICK_P_VALUES = [0.005, 0.02, 0.05]
SCHEMES = ["newreno", "reno"]
#: the swept schemes: the model's, and the loss-cause oracle, which ignores the random loss (a
#: channel loss) and cuts only on congestion: the goodput figure's upper bound
CCS = [*SCHEMES, ORACLE]
BAND = (0.85, 1.2)
BAND_MAX_P = 0.02
#: family-wise confidence level of each claim's intervals
LEVEL = 0.95


def send_rate(p: float, rtt: float, t0: float, *, wmax: float = WMAX, b: int = B_ACKED) -> float:
    """Eq. (33) of Padhye et al.: the send rate in packets/s."""
    if p <= 0:
        return wmax / rtt
    denom = rtt * math.sqrt(2 * b * p / 3) + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (
        1 + 32 * p * p
    )
    return min(wmax / rtt, 1.0 / denom)


def model_goodput_bps(p: float, rtt: float, t0: float) -> float:
    """The model's goodput in bits/s: B(p)·(1 − p)·MSS·8."""
    return send_rate(p, rtt, t0) * (1 - p) * MSS * 8


def scenario(quick: bool) -> Scenario:
    """The path, with p and the scheme left to the grid (defaults 0.01 and NewReno)."""
    buf = {"kind": "droptail", "limit": 1000, "unit": "packets"}
    return Scenario(
        {
            "name": "padhye",
            "duration": "60s" if quick else "300s",
            "seed": 1,
            "tcp": {"segment_size": MSS, "header_size": 40, "rcv_window": "4MiB"},
            "nodes": [
                {"name": "S", "kind": "host"},
                {"name": "R1", "kind": "router"},
                {"name": "R2", "kind": "router"},
                {"name": "D", "kind": "host"},
            ],
            "links": [
                {"a": "S", "b": "R1", "rate": "10Mbps", "delay": "10ms", "queue": dict(buf)},
                {"a": "R1", "b": "R2", "rate": "10Mbps", "delay": "30ms", "queue": dict(buf)},
                {
                    "a": "R2",
                    "b": "D",
                    "kind": "wireless",
                    "rate": "10Mbps",
                    "delay": "10ms",
                    "queue": dict(buf),
                    "error": {"model": "bernoulli", "per": 0.01, "applies_to": "data"},
                },
            ],
            "flows": [
                {"name": "bulk", "src": "S", "dst": "D", "cc": "newreno", "app": {"kind": "bulk"}}
            ],
        }
    )


def derive(data: PaperData) -> None:
    """Add ``p``, the model's goodput (``model_bps``) and ``ratio`` = goodput / model to the
    flows table."""
    import polars as pl

    flows = data.table("loss", "flows")
    ps = flows[P_PATH].cast(pl.Float64).to_list()
    rtts = flows["rtt_mean_s"].to_list()
    rtos = flows["rto_mean_s"].to_list()
    model = [
        model_goodput_bps(p, rtt, rto) if rtt and rto else None
        for p, rtt, rto in zip(ps, rtts, rtos, strict=False)
    ]
    flows = flows.with_columns(
        pl.Series("p", ps, dtype=pl.Float64),
        pl.Series("model_bps", model, dtype=pl.Float64),
    ).with_columns((pl.col("goodput_bps") / pl.col("model_bps")).alias("ratio"))
    data.set_table("loss", "flows", flows)


def _model_overlay(ax: Any, rows: Any) -> None:
    """Dashed model curves (mean over seeds of each run's model goodput), coloured like the
    measured line of the same scheme."""
    import polars as pl

    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    # The model is Reno's: the oracle has none.
    rows = rows.filter(pl.col("cc").is_in(SCHEMES))
    agg = rows.group_by(["cc", "p"]).agg(pl.col("model_bps").mean()).sort(["cc", "p"])
    for cc in sorted(set(agg["cc"].to_list())):
        sub = agg.filter(pl.col("cc") == cc)
        ax.plot(
            sub["p"].to_list(),
            [v * 1e-6 for v in sub["model_bps"].to_list()],
            ls="--",
            lw=1.2,
            color=colours.get(cc),
            label=f"{cc}: model, eq. (33)",
        )


def _band_overlay(ax: Any, rows: Any) -> None:
    lo, hi = BAND
    ax.axhspan(lo, hi, color="0.85", alpha=0.5, lw=0, label=f"band [{lo}, {hi}]")
    ax.axhline(1.0, color="0.4", lw=0.8, ls=":")


def _claim_band(data: PaperData) -> ClaimResult:
    """Each p <= BAND_MAX_P: the mean over seeds of NewReno's goodput / model ratio, its
    interval (simultaneous over the values of p) inside the band, outside it, or across an
    edge."""
    import polars as pl

    flows = data.table("loss", "flows", {"cc": "newreno"}).filter(pl.col("p") <= BAND_MAX_P)
    ps = sorted(set(flows["p"].to_list()))
    if not ps:
        return ClaimResult(
            INCONCLUSIVE, f"No NewReno runs with p <= {BAND_MAX_P:g} in this sweep (0 of 0)."
        )
    level = bonferroni(LEVEL, len(ps))
    lo, hi = BAND
    rows = []
    for p in ps:
        sub = flows.filter(pl.col("p") == p)
        r = one_sample(sub["ratio"].to_list(), level, bounds=(0.0, None))
        outcome = within(r["ci_low"], r["ci_high"], lo, hi)
        rows.append(
            {
                "p": p,
                "seeds": r["n"],
                "goodput Mbps": _mean(sub["goodput_bps"]) * 1e-6,
                "model Mbps": _mean(sub["model_bps"]) * 1e-6,
                "goodput / model": r["mean"],
                "CI low": r["ci_low"],
                "CI high": r["ci_high"],
                "outcome": str(outcome),
            }
        )
    outcome = combine(r["outcome"] for r in rows)
    listing = ", ".join(
        f"{r['goodput / model']:.3f} ({r['CI low']:.3f}–{r['CI high']:.3f}) at p = {r['p']:g}"
        for r in rows
    )
    counts = {o: sum(1 for r in rows if r["outcome"] == o) for o in Outcome}
    sentence = (
        f"{outcome.capitalize()}: mean over seeds of NewReno's goodput / model ratio with "
        f"simultaneous {LEVEL:.0%} intervals: {listing}. Against the band [{lo}, {hi}]: "
        f"{counts[SUPPORTED]} inside, {counts[NOT_SUPPORTED]} outside, "
        f"{counts[INCONCLUSIVE]} across an edge, of {len(rows)} values of p. The model uses "
        "each run's measured mean RTT and mean RTO."
    )
    return ClaimResult(outcome, sentence, rows)


def _mean(col: Any) -> float:
    vals = [float(v) for v in col.to_list() if v is not None]
    return math.fsum(vals) / len(vals) if vals else math.nan


def _claim_monotone(data: PaperData) -> ClaimResult:
    """Every step from one p to the next, for each scheme: Welch's t-test of the goodput at
    the smaller p minus the goodput at the larger, simultaneous intervals over all steps."""
    import polars as pl

    flows = data.table("loss", "flows", {"cc": SCHEMES})
    steps = []
    for cc in sorted(set(flows["cc"].to_list())):
        sub = flows.filter(pl.col("cc") == cc)
        ps = sorted(set(sub["p"].to_list()))
        steps += [(cc, a, b) for a, b in zip(ps, ps[1:], strict=False)]
    if not steps:
        return ClaimResult(INCONCLUSIVE, "Fewer than two values of p: no step to test (0 of 0).")
    level = bonferroni(LEVEL, len(steps))
    has_model = "model_bps" in flows.columns
    rows = []
    for cc, a, b in steps:
        ga = flows.filter((pl.col("cc") == cc) & (pl.col("p") == a))
        gb = flows.filter((pl.col("cc") == cc) & (pl.col("p") == b))
        w = welch(ga["goodput_bps"].to_list(), gb["goodput_bps"].to_list(), level)
        outcome = direction(w.ci_low, w.ci_high, sign=1)
        fall = 100.0 * w.diff / w.mean_a if w.mean_a else math.nan
        model_fall = math.nan
        if has_model:
            ma, mb = _mean(ga["model_bps"]), _mean(gb["model_bps"])
            model_fall = 100.0 * (ma - mb) / ma if ma else math.nan
        rows.append(
            {
                "cc": cc,
                "p from": a,
                "p to": b,
                "seeds": f"{w.n_a}/{w.n_b}",
                "goodput Mbps (from)": w.mean_a * 1e-6,
                "goodput Mbps (to)": w.mean_b * 1e-6,
                "fall Mbps": w.diff * 1e-6,
                "CI low": w.ci_low * 1e-6,
                "CI high": w.ci_high * 1e-6,
                "fall %": fall,
                "model fall %": model_fall,
                "Hedges' g": w.g,
                "p-value": w.p,
                "outcome": str(outcome),
            }
        )
    outcome = combine(r["outcome"] for r in rows)
    parts = []
    for cc in sorted(set(r["cc"] for r in rows)):
        mine = [r for r in rows if r["cc"] == cc]
        falls = ", ".join(
            f"{r['fall %']:.0f}% (model {r['model fall %']:.0f}%)"
            if has_model
            else f"{r['fall %']:.0f}%"
            for r in mine
        )
        n_s = sum(1 for r in mine if r["outcome"] == SUPPORTED)
        n_ns = sum(1 for r in mine if r["outcome"] == NOT_SUPPORTED)
        parts.append(
            f"{cc}: falls of {falls} from step to step; {n_s} of {len(mine)} steps with the "
            f"interval above 0, {n_ns} below"
        )
    sentence = (
        f"{outcome.capitalize()}: goodput as p grows — " + "; ".join(parts) + ". Intervals "
        f"are simultaneous {LEVEL:.0%} Welch intervals over the {len(rows)} steps."
    )
    return ClaimResult(outcome, sentence, rows)


def _doc_ratio(data: PaperData) -> str:
    """docs/platform.md: the mean goodput / model ratio over seeds with its 95% interval, per
    p and scheme."""
    from ..docgen import ci, md_table, pct

    agg = data.aggregate("loss", "ratio", ["cc", "p"], where={"cc": SCHEMES}, bounds=(0.0, None))
    ccs = sorted(set(agg["cc"].to_list()))
    ps = sorted(set(agg["p"].to_list()))
    cell = {(r["cc"], r["p"]): r for r in agg.iter_rows(named=True)}
    rows = []
    for p in ps:
        row = [f"{pct(p)} %"]
        for cc in ccs:
            r = cell.get((cc, p))
            row.append(ci(r["mean"], r["ci_low"], r["ci_high"], 3) if r else "–")
        rows.append(row)
    seeds = sorted(set(agg["n"].to_list()))
    return (
        f"Mean over {'/'.join(map(str, seeds))} seeds of the per-run goodput / model ratio "
        "(95% CI):\n\n" + md_table(["p", *ccs], rows, "l" + "r" * len(ccs))
    )


def _doc_oracle(data: PaperData) -> str:
    """NewReno's and Reno's goodput as a share of the oracle's, per p."""
    from ..docgen import oracle_shares

    return oracle_shares(data)


def _doc_claims(data: PaperData) -> str:
    """The claims' outcomes with their sentences."""
    from ..docgen import claims_table

    return claims_table(data)


PAPER = register(
    Paper(
        key="padhye",
        title="TCP throughput vs random loss: the Padhye et al. model",
        citation=(
            "J. Padhye, V. Firoiu, D. Towsley, J. Kurose. Modeling TCP Throughput: A Simple "
            "Model and its Empirical Validation. ACM SIGCOMM 1998."
        ),
        summary=(
            "One bulk TCP flow (NewReno, and Reno) over S–R1–R2–D (10 Mbps links, 10/30/10 ms, "
            "1000-packet buffers, 4 MiB receive window, no delayed ACKs) with Bernoulli loss "
            "of data packets at rate p on the last hop. Measured goodput is compared with "
            "eq. (33) of the paper, B(p)·(1 − p)·MSS·8, evaluated for each run with the "
            "run's own mean RTT and mean RTO, b = 1 and Wmax = 4 MiB / 1000 B."
        ),
        notes=(
            "The model describes Reno; NewReno recovers from several losses in one window "
            "without a timeout more often, so it is expected to sit at or above the model. "
            "The band check applies to the mean over seeds of the per-run ratio; runs are not "
            "tuned to the model. At small p and short runs the slow-start phase weighs more "
            "and the ratio rises (the quick size leaves out p = 0.002 for this reason). The "
            "loss-cause oracle runs on the same path: it takes every random loss as the "
            "channel's and cuts only when a buffer overflows, so its line, the goodput "
            "figure's upper bound, is what ignoring random loss gives. The model has nothing to "
            "say of it: it is left out of the ratio figure and the claims."
        ),
        sweeps=[
            SweepSpec(
                name="loss",
                scenario=scenario,
                grid={P_PATH: P_VALUES, CC_PATH: CCS},
                seeds=10,
                quick_grid={P_PATH: QUICK_P_VALUES, CC_PATH: CCS},
                quick_seeds=3,
                description="random data-packet loss p on R2->D, NewReno, Reno and the oracle",
            )
        ],
        figures=[
            FigureSpec(
                name="goodput_vs_p",
                title="Goodput vs loss probability, measured and model",
                sweep="loss",
                x="p",
                metric="goodput_bps",
                group="cc",
                scale=1e-6,
                xlabel="loss probability p",
                ylabel="goodput (Mbps)",
                logx=True,
                logy=True,
                overlay=_model_overlay,
                bounds=(0.0, None),
                caption=(
                    "Solid: measured goodput; dashed: eq. (33) from each run's mean RTT and RTO "
                    "(mean over seeds). The oracle takes every random loss as the channel's "
                    "and does not cut: what ignoring random loss gives on this path."
                ),
                upper=ORACLE,
            ),
            FigureSpec(
                name="ratio_vs_p",
                title="Goodput / model vs loss probability",
                sweep="loss",
                x="p",
                metric="ratio",
                group="cc",
                # The model is Reno's: the oracle has no ratio to it.
                where={"cc": SCHEMES},
                xlabel="loss probability p",
                ylabel="goodput / model",
                logx=True,
                ylim0=False,
                overlay=_band_overlay,
                bounds=(0.0, None),
                caption=f"Grey: the band [{BAND[0]}, {BAND[1]}] of the first claim.",
            ),
        ],
        claims=[
            ClaimSpec(
                id="newreno-within-model-band",
                statement=(
                    f"NewReno goodput lies within [{BAND[0]}, {BAND[1]}] of the model at each "
                    f"p ≤ {BAND_MAX_P:.0%}"
                ),
                check=_claim_band,
                source="eq. (33); band as in docs/validation.md",
                test=(
                    "At each p: mean over seeds of the per-run ratio with a Student-t "
                    "interval, simultaneous 95% over the values of p (Bonferroni), clipped "
                    "at 0. Supported if every interval lies inside the band, not supported "
                    "if any lies wholly outside, inconclusive otherwise."
                ),
            ),
            ClaimSpec(
                id="goodput-falls-with-p",
                statement="Goodput falls monotonically with p (NewReno and Reno)",
                check=_claim_monotone,
                source="eq. (33): B(p) decreases in p",
                test=(
                    "Each step to the next p, per scheme: Welch's t-test of the goodput "
                    "difference, simultaneous 95% intervals over all steps (Bonferroni). "
                    "Supported if every interval lies above 0, not supported if any lies "
                    "below 0, inconclusive otherwise. The measured fall is shown beside the "
                    "model's."
                ),
            ),
        ],
        derive=derive,
        doc_tables={"ratio": _doc_ratio, "oracle-share": _doc_oracle, "claims": _doc_claims},
    )
)
