"""Seed paper 003: TCP Muzha, router-assisted congestion control over 802.11 ad hoc chains.

Y.-N. Lien, H.-C. Hsiao, "A New TCP Congestion Control Mechanism over Wireless Ad Hoc Networks
by Router-Assisted Approach". Every node stamps its Data Rate Adjustment Index (DRAI) into the
segments it forwards, the receiver echoes the path minimum (MRAI), and the sender changes cwnd
once per round trip by the paper's Table 3; unmarked duplicate ACKs are random losses.

Setup (Table 2 and §IV): ns-2 802.11 (2 Mbps, 250 m range; the ns-2 defaults, docs/mac.md),
chains with 200 m spacing, 1460-byte segments, the interface queue (DropTail, 50 packets),
static routing, 50 s. The DRAI formula is this project's (the paper leaves it open, see
docs/schemes/muzha.md); it was fixed before running. Claims are judged by Welch's t-test over
seeds against the paper's magnitudes (stats.verdict).

The claims and the smallest effects counted are in _muzha_claims.py; this module declares
the scenarios, sweeps, tables, figures, readings and the paper.
"""

from __future__ import annotations

from typing import Any

from ..builders import chain, cross
from ..scenario import Scenario
from . import (
    ORACLE,
    ClaimSpec,
    FigureSpec,
    Paper,
    PaperData,
    Reading,
    SweepSpec,
    Variant,
    register,
)
from ._muzha_claims import (  # noqa: F401 - the paper's constants, re-exported
    CROSS_HOPS,
    GAIN_HOPS,
    HOPS,
    JAIN_STEP,
    LOSSY_HOPS,
    NEWRENO_OVER_VEGAS_PCT,
    PAPER_GAIN_PCT,
    PAPER_GAIN_RANGE,
    PER_PATH,
    PERS,
    RANDOM_LOSS_PTS,
    RETX_CUT_PCT,
    SMALLEST_GAIN_PCT,
    VEGAS_EDGE_PCT,
    _claim_fairness,
    _claim_fewest_retx,
    _claim_newreno_starves_vegas,
    _claim_random_loss,
    _claim_vegas,
    _gain_claim,
    judge,
    relative_change,
)

CCS = ["newreno", "sack", "vegas", "muzha", "cubic"]
#: the chains' and lossy chains' schemes: the paper's and the loss-cause oracle, the upper bound
#: of the goodput figures; the oracle runs on NewReno's setup (the DRAI agents stamp segments,
#: neither reads the stamps)
CHAIN_CCS = [*CCS, ORACLE]
LOSSY_CCS = ["newreno", "sack", "vegas", "muzha", ORACLE]
WINDOW_BASED = ["newreno", "sack", "muzha"]
CC_PATH = "flows.ftp.cc"
DST_PATH = "flows.ftp.dst"
RIVAL_PATH = "flows.ftp2.cc"


#: every flow starts at a uniformly random time in the first second (drawn from the run's
#: seed), so seeds differ in phase as well as in the MAC's backoff draws
START_JITTER = "1s"


def _agents() -> list[dict[str, Any]]:
    return [{"kind": "drai", "node": "*"}]


def _jitter(sc: Scenario) -> Scenario:
    for f in sc.data["flows"]:
        f["start_jitter"] = START_JITTER
    return sc


def _duration(quick: bool) -> int:
    return 20 if quick else 50


def chain_scenario(quick: bool) -> Scenario:
    """A 16-hop chain whose flow ends at the node the grid names (``n2`` .. ``n16``): the
    nodes past the destination never send, so the result is that of a chain of that length.
    Every node is a host so it may end a flow; every node forwards."""
    d = chain(16, duration=_duration(quick), name="muzha-chain").to_dict()
    for n in d["nodes"]:
        n["kind"] = "host"
    d["agents"] = _agents()
    return _jitter(Scenario(d))


def traced_scenario(quick: bool) -> Scenario:
    return chain_scenario(quick).set("trace", {"cwnd": True})


def lossy_scenario(quick: bool) -> Scenario:
    # Random frame errors on every hop (data frames, which the MAC retries 4 times with
    # RTS/CTS); the grid sets the rate.
    return (
        chain_scenario(quick)
        .set("media.air.error", {"model": "bernoulli", "per": 0.0, "applies_to": "data"})
        .set("trace", {"verdicts": True})
    )


def _cross(hops: int):
    def build(quick: bool) -> Scenario:
        sc = cross(hops, cc=["newreno", "vegas"], duration=_duration(quick), name=f"cross{hops}")
        return _jitter(sc.set("agents", _agents()))

    return build


# --------------------------------------------------------------------------------------------
# derived tables


def _hops(df: Any) -> Any:
    import polars as pl

    return df.with_columns(pl.col(DST_PATH).str.slice(1).cast(pl.Int64).alias("hops"))


def derive(data: PaperData) -> None:
    """``hops`` from the destination on chain sweeps; goodput in kbit/s; a ``cross`` table with
    each flow of the cross topology labelled by its pair, and the pair's Jain index; a
    ``cwnd`` table (cwnd in segments on a 0.25 s grid) from the traced runs."""
    import polars as pl

    for name in ("chains", "lossy", "drai", "trace"):
        if name in data.tables:
            f = _hops(data.table(name, "flows"))
            f = f.with_columns((pl.col("goodput_bps") / 1e3).alias("goodput_kbps"))
            data.set_table(name, "flows", f)
    rows = []
    for name in ("cross4", "cross8"):
        if name not in data.tables:
            continue
        f = data.table(name, "flows")
        hops = int(name[5:])
        # The grid point says which scheme the vertical flow runs.
        f = f.with_columns(
            pl.lit(hops).alias("hops"),
            (pl.lit("NewReno vs ") + pl.col(RIVAL_PATH).str.to_titlecase()).alias("pair"),
            (pl.col("goodput_bps") / 1e3).alias("goodput_kbps"),
        )
        f = f.with_columns(
            pl.when(pl.col("name") == "ftp1")
            .then(pl.lit("NewReno"))
            .otherwise(pl.col("cc").str.to_titlecase())
            .alias("flow_cc"),
        )
        rows.append(f)
    if rows:
        allx = pl.concat(rows, how="diagonal_relaxed")
        jain = allx.group_by("pair", "hops", "seed").agg(
            (pl.col("goodput_bps").sum() ** 2 / (2 * (pl.col("goodput_bps") ** 2).sum())).alias(
                "jain"
            )
        )
        data.set_table("cross4", "cross", allx)
        data.set_table("cross4", "jain", jain.sort("pair", "hops", "seed"))
    if "trace" in data.tables:
        data.set_table("trace", "cwnd", _cwnd_table(data))


def _cwnd_table(data: PaperData) -> Any:
    import numpy as np
    import polars as pl

    from ..store import Store

    st = Store(data.store)
    runs = data.table("trace", "flows").select("scenario_hash", "seed", "cc", "hops")
    out = []
    grid = np.arange(0.0, _duration(data.quick) + 1e-9, 0.25)
    for r in runs.iter_rows(named=True):
        try:
            s = st.series(r["scenario_hash"], r["seed"])
        except Exception:  # a run without a stored series is left out of the figure
            continue
        s = s.filter(pl.col("kind") == "cwnd").sort("t")
        if s.height == 0:
            continue
        t = s["t"].to_numpy()
        v = s["value"].to_numpy()  # the core records cwnd in segments
        idx = np.searchsorted(t, grid, side="right") - 1
        w = np.where(idx >= 0, v[np.clip(idx, 0, None)], np.nan)
        out.append(
            pl.DataFrame(
                {"t": grid, "cwnd_segments": w, "cc": [r["cc"]] * len(grid)},
            ).with_columns(pl.lit(r["hops"]).alias("hops"), pl.lit(r["seed"]).alias("seed"))
        )
    if not out:
        return pl.DataFrame(
            {"t": [], "cwnd_segments": [], "cc": [], "hops": [], "seed": []},
            schema={
                "t": pl.Float64,
                "cwnd_segments": pl.Float64,
                "cc": pl.Utf8,
                "hops": pl.Int64,
                "seed": pl.Int64,
            },
        )
    return pl.concat(out).drop_nulls("cwnd_segments")


# --------------------------------------------------------------------------------------------
# claims: _muzha_claims.py


# --------------------------------------------------------------------------------------------
# tables for docs/schemes/muzha.md (airtcp docs-tables)


def _doc_goodput(data: PaperData) -> str:
    """Goodput (kbit/s) per scheme and hop count, mean over seeds with its 95% interval."""
    from ..analysis import aggregate
    from ..docgen import ci, md_table

    df = data.table("chains", "flows")
    agg = aggregate(df, "goodput_kbps", ["cc", "hops"], bounds=(0.0, None))
    cell = {(r["cc"], r["hops"]): r for r in agg.iter_rows(named=True)}
    hops = sorted(set(df["hops"].to_list()))
    ccs = [c for c in CHAIN_CCS if any((c, h) in cell for h in hops)]
    rows = []
    for h in hops:
        row: list[str] = [str(h)]
        for c in ccs:
            r = cell.get((c, h))
            row.append(ci(r["mean"], r["ci_low"], r["ci_high"], 0) if r else "–")
        rows.append(row)
    n = df.filter(df["cc"] == ccs[0])["seed"].n_unique() if ccs else 0
    return f"Goodput in kbit/s, mean over {n} seeds (95% CI):\n\n" + md_table(
        ["hops", *ccs], rows, "r" * (len(ccs) + 1)
    )


def _doc_cross(data: PaperData) -> str:
    """Each flow's goodput and the pair's Jain index in the cross topologies."""
    import polars as pl

    from ..analysis import aggregate
    from ..docgen import ci, md_table

    if "cross" not in data.tables.get("cross4", {}):
        return "No cross-topology runs.\n"
    x = data.table("cross4", "cross")
    j = data.table("cross4", "jain")
    g = aggregate(x, "goodput_kbps", ["pair", "hops", "flow_cc"], bounds=(0.0, None))
    ja = aggregate(j, "jain", ["pair", "hops"], bounds=(0.0, 1.0))
    rows = []
    for r in ja.iter_rows(named=True):
        flows = g.filter((pl.col("pair") == r["pair"]) & (pl.col("hops") == r["hops"]))
        per = "; ".join(
            f"{f['flow_cc']} {ci(f['mean'], f['ci_low'], f['ci_high'], 0)}"
            for f in flows.iter_rows(named=True)
        )
        rows.append([r["pair"], str(r["hops"]), per, ci(r["mean"], r["ci_low"], r["ci_high"], 3)])
    return md_table(["pair", "hops", "goodput (kbit/s, 95% CI)", "Jain's index"], rows, "lrll")


def _doc_oracle(data: PaperData) -> str:
    """Each scheme's goodput as a share of the oracle's, per hop count (and frame error rate
    on the lossy chains)."""
    from ..docgen import oracle_shares

    return oracle_shares(data)


def _doc_robustness(data: PaperData) -> str:
    """Per claim, the generated sentence naming the readings and axes that decide it."""
    from ..docgen import robustness_sentences

    return robustness_sentences(data)


def _doc_claims(data: PaperData) -> str:
    from ..docgen import claims_table

    return claims_table(data)


FIGURES = [
    *[
        FigureSpec(
            f"cwnd{h}",
            f"Congestion window, {h}-hop chain (seed 1)",
            sweep="trace",
            table="cwnd",
            x="t",
            metric="cwnd_segments",
            group="cc",
            where={"hops": h},
            xlabel="time (s)",
            ylabel="cwnd (segments)",
            caption=f"cwnd of each scheme over one 50 s run on the {h}-hop chain (paper Fig. "
            f"{ {4: 3, 8: 4, 16: 5}[h] }).",
        )
        for h in (4, 8, 16)
    ],
    FigureSpec(
        "throughput",
        "Goodput against hop count",
        sweep="chains",
        x="hops",
        metric="goodput_kbps",
        group="cc",
        xlabel="hops",
        ylabel="goodput (kbit/s)",
        caption="End-to-end goodput of one flow over 802.11 chains (paper Fig. 6).",
        upper=ORACLE,
    ),
    FigureSpec(
        "retransmissions",
        "TCP retransmissions against hop count",
        sweep="chains",
        x="hops",
        metric="retransmissions",
        group="cc",
        # The paper's schemes: the oracle bounds goodput, not retransmissions.
        where={"cc": CCS},
        xlabel="hops",
        ylabel="retransmitted segments per 50 s",
        caption="Segments the TCP sender retransmitted (paper Fig. 7).",
    ),
    FigureSpec(
        "cross",
        "Cross topology: each flow's goodput",
        sweep="cross4",
        table="cross",
        x="hops",
        metric="goodput_kbps",
        group="flow_cc",
        xlabel="hops per chain",
        ylabel="goodput (kbit/s)",
        caption="The two flows of the cross topology, NewReno against Vegas and NewReno "
        "against Muzha (paper Figs. 9-10).",
    ),
    FigureSpec(
        "jain",
        "Cross topology: Jain's index of the pair",
        sweep="cross4",
        table="jain",
        x="hops",
        metric="jain",
        group="pair",
        xlabel="hops per chain",
        ylabel="Jain's index",
        ylim0=False,
        caption="Jain's fairness index of the two flows' goodputs.",
    ),
    *[
        FigureSpec(
            f"lossy{h}",
            f"Goodput against frame error rate, {h} hops",
            sweep="lossy",
            x=PER_PATH,
            metric="goodput_kbps",
            group="cc",
            where={"hops": h},
            xlabel="frame error rate (data frames, per hop)",
            ylabel="goodput (kbit/s)",
            caption=f"Random frame errors on every hop of the {h}-hop chain; the MAC retries "
            "each frame up to its retry limit, so TCP sees a small share of them.",
            upper=ORACLE,
        )
        for h in LOSSY_HOPS
    ],
    FigureSpec(
        "verdicts",
        "Muzha's loss verdicts: wireless losses judged congestion",
        sweep="lossy",
        x=PER_PATH,
        metric="type2_rate",
        group="hops",
        where={"cc": "muzha"},
        xlabel="frame error rate",
        ylabel="type-2 rate",
        caption="Share of Muzha's verdicts on channel-error losses that said congestion "
        "(a marked duplicate ACK), scored against the simulator's record.",
    ),
    FigureSpec(
        "drai",
        "DRAI thresholds: Muzha's goodput",
        sweep="drai",
        x="agents.0.queue_low",
        metric="goodput_kbps",
        group="hops",
        xlabel="queue_low (packets)",
        ylabel="goodput (kbit/s)",
        caption="Sensitivity of Muzha to the first DRAI threshold (moderate acceleration "
        "below it, stabilizing above), all other DRAI parameters at their defaults.",
    ),
]


# --------------------------------------------------------------------------------------------
# readings and sensitivity axes (docs/schemes/muzha.md gives each passage, the alternatives and
# why the default was chosen, all before running)

CLAIM_SWEEPS = ("chains", "lossy", "cross4", "cross8")


def drai_set(**params: Any) -> Any:
    """Set DRAI parameters on every DRAI agent of the scenario."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for a in sc.data.get("agents", []):
            if a.get("kind") == "drai":
                a.update(params)
        return sc

    return transform


def flows_set(key: str, value: Any) -> Any:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for f in sc.data["flows"]:
            f[key] = value
        return sc

    return transform


READINGS = [
    Reading(
        "drop_memory",
        "How long a router's drop marks its DRAI",
        default=Variant(
            "100 ms",
            "the DRAI's busy-fraction window, fixed before running; shorter than the time "
            "from a drop to the third duplicate ACK on long chains",
        ),
        alternatives=(
            Variant(
                "2 round trips",
                "the router times round trips of the flows it sends data for (data segment to "
                "the ACK covering it) and remembers a drop for two of them, so the duplicate "
                "ACKs a drop causes come back marked whatever the chain's length",
                transform=drai_set(drop_memory_rtts=2.0),
                sweeps=CLAIM_SWEEPS,
            ),
            Variant(
                "1 s",
                "a long fixed memory: every loss near a recent drop is called congestion",
                transform=drai_set(drop_memory="1s"),
                sweeps=CLAIM_SWEEPS,
            ),
        ),
        passage=(
            "§III 'Dealing with Random Loss': 'When a marked duplicated ACK with a data rate "
            "deceleration index is received, the sender knows that the loss was caused by "
            "congestion. Otherwise, the loss can be classified into random loss'; how long a "
            "router's deceleration index follows a drop is not said."
        ),
    ),
    Reading(
        "queue",
        "Interface queue size",
        kind="axis",
        default=Variant("50 packets", "ns-2's default IFQ (Table 2: 'Queue Management IFQ')"),
        alternatives=(
            Variant(
                "20 packets",
                "a short queue, closer to the few segments a chain carries",
                set={"media.air.queue.limit": 20},
                sweeps=("chains", "cross4", "cross8"),
            ),
            Variant(
                "100 packets",
                "a long queue",
                set={"media.air.queue.limit": 100},
                sweeps=("chains", "cross4", "cross8"),
            ),
        ),
        passage="Table 2 names the queue management (IFQ) but not its size.",
    ),
    Reading(
        "rcv_window",
        "Receive window",
        kind="axis",
        default=Variant("20000 bytes", "ns-2's default window_ of 20 packets (the ns2 profile)"),
        alternatives=(
            Variant(
                "4 segments",
                "the small window bound that [14]-[16] find best on 802.11 chains, which the "
                "paper cites",
                set={"tcp.rcv_window": 4 * 1460},
                sweeps=CLAIM_SWEEPS,
            ),
            Variant(
                "64 KiB",
                "a window that never binds",
                set={"tcp.rcv_window": 65536},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
        passage="The paper gives no window (Table 2 lists none).",
    ),
    Reading(
        "start_jitter",
        "Flows' start times",
        kind="axis",
        default=Variant("uniform in 1 s", "random phases, so seeds differ beyond the MAC's"),
        alternatives=(
            Variant(
                "at once",
                "every flow starts at 0 (the seeds still differ in the MAC's backoff draws)",
                transform=flows_set("start_jitter", "0s"),
                sweeps=("chains", "cross4", "cross8"),
            ),
        ),
        passage="The paper gives no start times.",
    ),
    Reading(
        "ack_errors",
        "Whether ACK frames see the random frame errors",
        kind="axis",
        default=Variant("data frames", "the paper's 'random loss' read as losses of data"),
        alternatives=(
            Variant(
                "all frames",
                "TCP ACKs (and the MAC's frames carrying them) lost at the same rate",
                set={"media.air.error.applies_to": "all"},
                sweeps=("lossy",),
                # Without errors it does not matter which frames they would hit (a test).
                unchanged={PER_PATH: [0.0]},
            ),
        ),
        passage="§IV speaks of 'random loss' without a rate or what it hits.",
        claims=("random_loss",),
    ),
    Reading(
        "reception",
        "802.11 reception model",
        kind="axis",
        default=Variant("ns2", "ns-2.35's lock-and-capture rule, the ns2 preset's own"),
        alternatives=(
            Variant(
                "sinr",
                "ns-3's rule (preamble detection, piecewise SINR, DSSS error-rate curves); "
                "ns-2 has no noise floor, so ns-3's noise figure of 7 dB",
                set={"media.air.reception": "sinr", "media.air.noise_figure_db": 7.0},
                sweeps=CLAIM_SWEEPS,
            ),
            Variant(
                "summed",
                "a frame survives at 10 dB over the sum of every signal overlapping it: "
                "stricter than both references",
                set={"media.air.reception": "summed"},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
        passage=(
            "Table 2 names ns-2's 802.11 but not how a frame survives overlapping signals; "
            "on a chain the hidden terminal two hops away decides collisions."
        ),
    ),
    Reading(
        "routing",
        "Routing on the chains",
        kind="axis",
        default=Variant(
            "static",
            "routes fixed along the chain: a frame the MAC gives up on is lost, the route stays",
        ),
        alternatives=(
            Variant(
                "AODV",
                "AODV with RFC 3561's defaults and link-layer feedback (docs/routing.md): a MAC "
                "give-up breaks the route, the relay sends a route error, the packets queued "
                "for that hop are dropped and the source discovers the route again",
                set={"routing.protocol": "aodv"},
                sweeps=("chains", "lossy"),
            ),
        ),
        passage=(
            "§IV, Simulation 2: NewReno's 'aggressive window growth ... cause network overloaded "
            "and periodic packet drops which leads to more frequent timeouts in transport "
            "layer, more link contentions, and more link failures in MAC layers'; Table 2 names "
            "no routing protocol (ns-2's ad hoc chains run one, commonly AODV)."
        ),
    ),
]

PAPER = register(
    Paper(
        key="muzha",
        title="A new TCP congestion control mechanism over wireless ad hoc networks by "
        "router-assisted approach (TCP Muzha)",
        citation=(
            "Y.-N. Lien, H.-C. Hsiao. A New TCP Congestion Control Mechanism over Wireless Ad "
            "Hoc Networks by Router-Assisted Approach (seed paper 003)."
        ),
        summary=(
            "One bulk TCP flow over 802.11 ad hoc chains of 2-16 hops (ns-2 defaults: 2 Mbps, "
            "250 m range, 550 m carrier sense, RTS/CTS, 50-packet interface queue; 200 m "
            "spacing; 1460-byte segments; 50 s), NewReno, SACK, Vegas, Muzha and CUBIC, with a "
            "DRAI agent at every node; the same chains with random frame errors; two chains "
            "crossing at their middle node with NewReno against Vegas or Muzha. The loss-cause "
            "oracle is the upper bound of the goodput figures of the chains."
        ),
        notes=(
            "The DRAI formula (queue EWMA thresholds 1/3/6 packets, busy fraction 0.5 over 100 "
            "ms, drops in the last window) and every scenario value were fixed before running "
            "(docs/schemes/muzha.md); the DRAI sweep shows how the first threshold moves the "
            "result. Claims compare runs over seeds by Welch's t-test (95% CI, Hedges' g) and "
            "weigh the interval against the paper's magnitude: supported if it lies above 0 and "
            "reaches the smallest change counted, not supported if it lies below it, "
            "inconclusive otherwise (shown as not supported, its sentence saying "
            "'Inconclusive')."
        ),
        sweeps=[
            SweepSpec(
                name="chains",
                scenario=chain_scenario,
                grid={CC_PATH: CHAIN_CCS, DST_PATH: [f"n{h}" for h in HOPS]},
                seeds=10,
                quick_grid={CC_PATH: CHAIN_CCS, DST_PATH: ["n4", "n8"]},
                quick_seeds=2,
                description="one flow over chains of 2-16 hops, five schemes and the oracle",
            ),
            SweepSpec(
                name="trace",
                scenario=traced_scenario,
                grid={
                    CC_PATH: ["newreno", "sack", "vegas", "muzha"],
                    DST_PATH: ["n4", "n8", "n16"],
                },
                seeds=1,
                quick_grid={CC_PATH: ["newreno", "muzha"], DST_PATH: ["n4"]},
                quick_seeds=1,
                trace=True,
                description="cwnd over time on 4, 8 and 16 hops",
            ),
            SweepSpec(
                name="lossy",
                scenario=lossy_scenario,
                grid={
                    CC_PATH: LOSSY_CCS,
                    DST_PATH: [f"n{h}" for h in LOSSY_HOPS],
                    PER_PATH: PERS,
                },
                seeds=10,
                quick_grid={
                    CC_PATH: ["newreno", "muzha", ORACLE],
                    DST_PATH: ["n4"],
                    PER_PATH: [0.0, 0.1],
                },
                quick_seeds=2,
                description="the chains with random frame errors on every hop",
            ),
            SweepSpec(
                name="cross4",
                scenario=_cross(4),
                grid={RIVAL_PATH: ["vegas", "muzha"]},
                seeds=10,
                quick_seeds=2,
                description="two 4-hop chains crossing: NewReno vs Vegas, NewReno vs Muzha",
            ),
            SweepSpec(
                name="cross8",
                scenario=_cross(8),
                grid={RIVAL_PATH: ["vegas", "muzha"]},
                seeds=10,
                quick_seeds=2,
                description="two 8-hop chains crossing: NewReno vs Vegas, NewReno vs Muzha",
            ),
            SweepSpec(
                name="drai",
                scenario=chain_scenario,
                grid={
                    CC_PATH: ["muzha"],
                    DST_PATH: [f"n{h}" for h in LOSSY_HOPS],
                    "agents.0.queue_low": [0.5, 1.0, 2.0],
                },
                seeds=10,
                quick_grid={
                    CC_PATH: ["muzha"],
                    DST_PATH: ["n4"],
                    "agents.0.queue_low": [0.5, 2.0],
                },
                quick_seeds=2,
                description="Muzha with the first DRAI threshold at 0.5, 1 and 2 packets",
            ),
        ],
        figures=FIGURES,
        claims=[
            ClaimSpec(
                "gain_newreno",
                "Muzha's throughput is 5-10% above NewReno's",
                _gain_claim("newreno"),
                source="§IV Simulation 2, Fig. 6",
                test=(
                    "Welch on goodput in % of NewReno's mean at each hop count of 4-16 (7 parts): "
                    "each 95% CI above 0 and reaching +5%; not supported when one part's "
                    "Bonferroni interval lies below +5%"
                ),
            ),
            ClaimSpec(
                "gain_sack",
                "Muzha's throughput is 5-10% above SACK's",
                _gain_claim("sack"),
                source="§IV Simulation 2, Fig. 6",
                test=(
                    "Welch on goodput in % of SACK's mean at each hop count of 4-16 (7 parts): "
                    "each 95% CI above 0 and reaching +5%; not supported when one part's "
                    "Bonferroni interval lies below +5%"
                ),
            ),
            ClaimSpec(
                "fewest_retx",
                "Muzha retransmits the least of the window-based schemes",
                _claim_fewest_retx,
                source="§IV Simulation 2, Fig. 7",
                test=(
                    "Welch on retransmissions in % of NewReno's and of SACK's mean at each hop "
                    "count of 4-16 (14 parts); each interval below 0 and reaching -5%"
                ),
            ),
            ClaimSpec(
                "vegas",
                "Vegas leads below 8 hops and falls behind beyond",
                _claim_vegas,
                source="§IV Simulation 2, Fig. 6",
                test=(
                    "Welch on Vegas's goodput in % of Muzha's mean at each hop count but 8 (7 "
                    "parts): below 8 above 0 and reaching +2%, above 8 below 0 and reaching -2%"
                ),
            ),
            ClaimSpec(
                "fairness",
                "Muzha shares a crossing with NewReno fairly; Vegas does not",
                _claim_fairness,
                source="§IV Simulation 3, Figs. 9-10",
                test=(
                    "Welch on Jain's index, NewReno+Muzha pairs minus NewReno+Vegas pairs, at 4 "
                    "and at 8 hops (2 parts); each above 0 and reaching +0.05"
                ),
            ),
            ClaimSpec(
                "newreno_starves_vegas",
                "NewReno takes most of the bandwidth from Vegas at a crossing",
                _claim_newreno_starves_vegas,
                source="§IV Simulation 3, Fig. 9",
                test=(
                    "Student-t interval of NewReno's share of each run's pair goodput (one value "
                    "a run), at 4 and at 8 hops (2 parts); each above 50% and reaching 54.5% (20% "
                    "ahead)"
                ),
            ),
            ClaimSpec(
                "random_loss",
                "Muzha holds its window under random loss",
                _claim_random_loss,
                source="§IV Simulation 1, Figs. 3-5",
                test=(
                    "goodput change (points) from no loss to 10% frame errors, Muzha minus "
                    "NewReno, with a Welch-Satterthwaite interval over the runs with and without "
                    "loss of both, at 4, 8 and 16 hops (3 parts); each above 0 and reaching +2.5"
                ),
            ),
        ],
        derive=derive,
        readings=READINGS,
        doc_tables={
            "goodput": _doc_goodput,
            "oracle-share": _doc_oracle,
            "cross": _doc_cross,
            "claims": _doc_claims,
            "robustness": _doc_robustness,
        },
    )
)
