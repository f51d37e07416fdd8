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

The claims and how they are decided are in _wmecn_claims.py; this module declares the
scenarios, sweeps, tables, figures, readings and the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..builders import dumbbell
from ..scenario import Scenario
from ..stats import (
    welch,
)
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
from ._wmecn_claims import (  # noqa: F401 - the paper's constants, re-exported
    _BEATS_TEST,
    FIRST,
    LEVEL,
    PER_PATH,
    SMALLEST_GAIN_PCT,
    SOURCES,
    TYPE1_BOUND,
    TYPE2_BOUND_PCT,
    WARMUP,
    _all,
    _claim_beats_at,
    _claim_type1,
    _claim_type1_steady,
    _claim_type2,
    never_outcome,
)

PERS = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1]
QUICK_PERS = [0.0, 0.02, 0.1]
MAIN_N = 4
SEEDS = 10
QUICK_SEEDS = 2


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
