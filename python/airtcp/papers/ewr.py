"""Seed paper 002: TCP EWR, receiver-side bandwidth estimation for error-prone wireless regions.

I. Ryoo, S. Kim, "Transmission Control for Future Internet including Error-prone Wireless
Region". The receiver estimates the arrival rate (Eqs. 1-2) and advertises oCwnd = RTT_min ·
Bw_est (Eq. 3) as its window; the sender follows it and, on a loss, picks linear increase,
wait-and-see or cwnd = 1 by a Vegas-like backlog. Compared with NewReno, Vegas, Westwood+ and
TCP New Jersey (with congestion-warning routers), plus CUBIC and the loss-cause oracle.

Every scenario value the paper leaves open was fixed before running (docs/schemes/ewr.md):
ns-2's defaults where it has one (50-packet queues, 1000-byte segments, an ACK per segment),
rates read from the paper's tables. Claims are decided by Welch's t-test or one-sample
intervals over seeds (airtcp.stats); the report prints each of the paper's tables beside the
measured one.

The claims and the paper's tables are in _ewr_claims.py, the readings in _ewr_readings.py;
this module declares the scenarios, sweeps, tables, figures and the paper.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..scenario import Scenario
from ..stats import (
    one_sample,
)
from . import (
    ORACLE,
    ClaimSpec,
    FigureSpec,
    Paper,
    PaperData,
    SweepSpec,
    TableSpec,
    register,
)
from ._ewr_claims import (  # noqa: F401 - the paper's tables and constants, re-exported
    AHEAD_MIXED_PCT,
    AHEAD_PCT,
    FAIR_MARGIN,
    FRIEND_SWEEP,
    FRIEND_TABLES,
    FRIENDLY_BAND,
    LEVEL_TOL,
    MIXES,
    NAMES,
    RATIO_TOL,
    RIVALS,
    SIMILAR_PCT,
    TABLE1,
    TABLE2,
    TABLE3,
    TABLE4,
    VEGAS_PCT,
    _ahead,
    _behind,
    _cells,
    _friend_cells,
    _friend_claim,
    _jain_claim,
    _less_fair,
    _levels_claim,
    _noninferior,
    _pct,
    _relative_claim,
    _similar,
    _values,
    relative,
)
from ._ewr_readings import (  # noqa: F401 - the readings, re-exported
    DEFAULT,
    FRIEND_SWEEPS,
    READINGS,
    errors_on,
    rtt_spread,
    scale_queues,
    set_jitter,
    with_ewr_params,
)

#: the oracle runs on the same setup as the others (every router a CW router, which marks
#: only New Jersey's ECN-capable segments)
SCHEMES = ["ewr", "newreno", "vegas", "westwood+", "newjersey", "cubic", ORACLE]
BASELINES = ["newreno", "vegas", "westwood+", "newjersey"]
FAIR_SCHEMES = ["newreno", "westwood+", "ewr", "newjersey", "vegas"]
#: the schemes that judge the cause of a loss (their verdicts are scored)
JUDGES = ["ewr", "newjersey", ORACLE]

SINGLE_PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.20]
TABLE_PERS = [0.0, 0.001, 0.01, 0.1]
MIXED_PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
FRIEND_PERS = [0.001, 0.01, 0.1]

SINGLE_CC = "flows.ftp.cc"
SINGLE_PER = "links.R1-R2.error.per"
FAIR_CC = "flows.*.cc"
MIXED_CC = "flows.ftp*.cc"
MIXED_PER = "links.N4-M.error.per"
FRIEND_CC = "flows.riv*.cc"
FRIEND_PER = "links.R2-D*.error.per"


def _duration(quick: bool) -> int:
    return 20 if quick else 60


def _tcp() -> dict[str, Any]:
    return {"segment_size": 1000, "header_size": 40, "rcv_window": 262144}


def _cw(limit: int) -> dict[str, Any]:
    return {"kind": "cw", "limit": limit}


def _error() -> dict[str, Any]:
    return {"model": "bernoulli", "per": 0.0, "applies_to": "data"}


def _link(a: str, b: str, rate: str, delay: str, limit: int, **extra: Any) -> dict[str, Any]:
    return {"a": a, "b": b, "rate": rate, "delay": delay, "queue": _cw(limit), **extra}


def _bulk(name: str, src: str, dst: str, cc: str) -> dict[str, Any]:
    """A bulk TCP flow starting at a random time in the first second (drawn from the run's
    seed), so seeds differ in phase even where nothing else is random."""
    return {
        "name": name,
        "src": src,
        "dst": dst,
        "cc": cc,
        "start_jitter": "1s",
        "app": {"kind": "bulk"},
    }


def _bottleneck(n_tcp: int, background: bool, quick: bool, name: str) -> Scenario:
    """Sources S<i> and UDP sources B<k> on 100 Mbps/2 ms links to R1; R1-R2 the error-prone
    10 Mbps/20 ms bottleneck with 50 packets; 100 Mbps/2 ms links to the sinks."""
    hosts = [f"S{i}" for i in range(1, n_tcp + 1)] + [f"D{i}" for i in range(1, n_tcp + 1)]
    if background:
        hosts += ["B1", "B2", "E1", "E2"]
    nodes = [{"name": h} for h in hosts] + [
        {"name": "R1", "kind": "router"},
        {"name": "R2", "kind": "router"},
    ]
    links = [_link(f"S{i}", "R1", "100Mbps", "2ms", 50) for i in range(1, n_tcp + 1)]
    links.append(
        _link("R1", "R2", "10Mbps", "20ms", 50, kind="wireless", error=_error()),
    )
    links += [_link("R2", f"D{i}", "100Mbps", "2ms", 50) for i in range(1, n_tcp + 1)]
    flows = []
    if n_tcp == 1:
        flows.append(_bulk("ftp", "S1", "D1", "ewr"))
    else:
        flows += [_bulk(f"ftp{i}", f"S{i}", f"D{i}", "ewr") for i in range(1, n_tcp + 1)]
    if background:
        for k in (1, 2):
            links += [
                _link(f"B{k}", "R1", "100Mbps", "2ms", 50),
                _link("R2", f"E{k}", "100Mbps", "2ms", 50),
            ]
            flows.append(
                {
                    "name": f"udp{k}",
                    "src": f"B{k}",
                    "dst": f"E{k}",
                    "app": {
                        "kind": "onoff",
                        "rate": "2Mbps",
                        "on_mean": "100ms",
                        "off_mean": "100ms",
                        "packet_size": 1000,
                    },
                }
            )
    return Scenario(
        {
            "name": name,
            "duration": _duration(quick),
            "seed": 1,
            "tcp": _tcp(),
            "nodes": nodes,
            "links": links,
            "flows": flows,
        }
    )


def single_scenario(quick: bool) -> Scenario:
    """Fig. 1: one TCP flow and two UDP on/off background sources."""
    return _bottleneck(1, True, quick, "ewr-single")


def fairness_scenario(quick: bool) -> Scenario:
    """Table 1: ten TCP flows of one scheme, no background."""
    return _bottleneck(10, False, quick, "ewr-fairness")


def mixed_scenario(quick: bool) -> Scenario:
    """Fig. 3: seven flows S<i> -> N1 - N2 - N3 - N4 ~ M -> D<i>, the wired chain 10 Mbps/10 ms
    with 100-packet queues, the wireless link N4-M 5 Mbps/5 ms with 10 packets; NewReno FTP
    both ways between N1 and N3 and between N2 and N4."""
    nodes = [{"name": f"S{i}"} for i in range(1, 8)]
    # The chain's nodes end the background flows and forward the rest.
    nodes += [{"name": f"N{k}"} for k in range(1, 5)]
    nodes.append({"name": "M", "kind": "router"})
    nodes += [{"name": f"D{i}"} for i in range(1, 8)]
    links = [_link(f"S{i}", "N1", "100Mbps", "2ms", 100) for i in range(1, 8)]
    links += [_link(f"N{k}", f"N{k + 1}", "10Mbps", "10ms", 100) for k in range(1, 4)]
    links.append(_link("N4", "M", "5Mbps", "5ms", 10, kind="wireless", error=_error()))
    links += [_link("M", f"D{i}", "100Mbps", "1ms", 100) for i in range(1, 8)]
    flows = [_bulk(f"ftp{i}", f"S{i}", f"D{i}", "ewr") for i in range(1, 8)]
    flows += [
        _bulk("bg13", "N1", "N3", "newreno"),
        _bulk("bg31", "N3", "N1", "newreno"),
        _bulk("bg24", "N2", "N4", "newreno"),
        _bulk("bg42", "N4", "N2", "newreno"),
    ]
    return Scenario(
        {
            "name": "ewr-mixed",
            "duration": _duration(quick),
            "seed": 1,
            "tcp": _tcp(),
            "nodes": nodes,
            "links": links,
            "flows": flows,
        }
    )


def friend_scenario(n: int, m: int) -> Callable[[bool], Scenario]:
    """Fig. 5: ten pairs over a 1 Mbps/20 ms bottleneck (50 packets) with error-prone
    10 Mbps/2 ms wireless last hops; pairs 1..n run the rival (``riv<i>``), the others EWR."""

    def build(quick: bool) -> Scenario:
        nodes = [{"name": f"S{i}"} for i in range(1, 11)] + [
            {"name": f"D{i}"} for i in range(1, 11)
        ]
        nodes += [{"name": "R1", "kind": "router"}, {"name": "R2", "kind": "router"}]
        links = [_link(f"S{i}", "R1", "10Mbps", "2ms", 50) for i in range(1, 11)]
        links.append(_link("R1", "R2", "1Mbps", "20ms", 50))
        links += [
            _link("R2", f"D{i}", "10Mbps", "2ms", 50, kind="wireless", error=_error())
            for i in range(1, 11)
        ]
        flows = []
        for i in range(1, 11):
            rival = i <= n
            name = f"riv{i}" if rival else f"ewr{i - n}"
            flows.append(_bulk(name, f"S{i}", f"D{i}", "newreno" if rival else "ewr"))
        return Scenario(
            {
                "name": f"ewr-friend-{n}-{m}",
                "duration": _duration(quick),
                "seed": 1,
                "tcp": _tcp(),
                "nodes": nodes,
                "links": links,
                "flows": flows,
            }
        )

    return build


# --------------------------------------------------------------------------------------------
# derived tables


def _jain(xs: Sequence[float]) -> float:
    xs = [float(x) for x in xs]
    sq = math.fsum(x * x for x in xs)
    return math.fsum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else math.nan


def _per_run(df: Any, cc_col: str | None, per_col: str, what: str) -> Any:
    """Per run of ``df`` (TCP flows already selected): summed goodput (Mbit/s) and Jain's index
    of the flows, with ``cc`` and ``per`` columns."""
    import polars as pl

    cc = pl.col(cc_col) if cc_col is not None else pl.col("cc")
    out = (
        df.with_columns(cc.alias("scheme"), pl.col(per_col).cast(pl.Float64).alias("per"))
        .group_by("scheme", "per", "seed", maintain_order=True)
        .agg(
            (pl.col("goodput_bps").sum() / 1e6).alias("goodput_mbps"),
            pl.col("goodput_bps").alias("_g"),
        )
        .with_columns(
            pl.col("_g").map_elements(_jain, return_dtype=pl.Float64).alias("jain"),
        )
        .drop("_g")
        .rename({"scheme": "cc"})
        .with_columns(pl.lit(what).alias("topology"))
    )
    return out.sort("cc", "per", "seed")


def derive(data: PaperData) -> None:
    """``tcp`` (the single bottleneck's TCP flow, goodput in Mbit/s), ``runs10``/``runs7``
    (per run of the fairness and mixed sweeps: summed goodput and Jain's index), ``friend``
    (per run of the friendliness sweeps: each group's mean goodput per connection) and
    ``friend_seed`` (the same averaged over the error rates, per seed, with EWR's ratio)."""
    import polars as pl

    if "single" in data.tables:
        f = data.table("single", "flows").filter(pl.col("name") == "ftp")
        f = f.with_columns(
            pl.col(SINGLE_PER).cast(pl.Float64).alias("per"),
            (pl.col("goodput_bps") / 1e6).alias("goodput_mbps"),
        )
        data.set_table("single", "tcp", f)
        data.set_table("single", "judged", f.filter(pl.col("cc").is_in(JUDGES)))
    if "fairness" in data.tables:
        f = data.table("fairness", "flows").filter(pl.col("transport") == "tcp")
        data.set_table("fairness", "runs10", _per_run(f, None, SINGLE_PER, "single"))
    if "mixed" in data.tables:
        f = data.table("mixed", "flows").filter(pl.col("name").str.starts_with("ftp"))
        data.set_table("mixed", "runs7", _per_run(f, None, MIXED_PER, "mixed"))
    rows = []
    for n, m in MIXES:
        name = f"friend{n}{m}"
        if name not in data.tables:
            continue
        f = data.table(name, "flows").with_columns(
            pl.col(FRIEND_CC).alias("rival"),
            pl.col(FRIEND_PER).cast(pl.Float64).alias("per"),
        )
        is_rival = pl.col("name").str.starts_with("riv")
        g = f.group_by("rival", "per", "seed", maintain_order=True).agg(
            (pl.col("goodput_bps").filter(is_rival).mean() / 1e3).alias("rival_kbps"),
            (pl.col("goodput_bps").filter(~is_rival).mean() / 1e3).alias("ewr_kbps"),
        )
        rows.append(g.with_columns(pl.lit(n).alias("n"), pl.lit(m).alias("m")))
    if rows:
        friend = pl.concat(rows).sort("rival", "n", "per", "seed")
        per_seed = (
            friend.group_by("rival", "n", "m", "seed")
            .agg(pl.col("rival_kbps").mean(), pl.col("ewr_kbps").mean())
            .with_columns((pl.col("ewr_kbps") / pl.col("rival_kbps")).alias("ratio"))
            .sort("rival", "n", "seed")
        )
        data.set_table(FRIEND_SWEEP, "friend", friend)
        data.set_table(FRIEND_SWEEP, "friend_seed", per_seed)


# --------------------------------------------------------------------------------------------
# claims: _ewr_claims.py


# --------------------------------------------------------------------------------------------
# the paper's tables beside ours


def _fmt_ci(mean: float, lo: float, hi: float, digits: int) -> str:
    from ..docgen import ci

    return ci(mean, lo, hi, digits)


def _jain_table(sweep: str, table: str, paper: dict) -> Callable[[PaperData], Any]:
    def build(data: PaperData) -> Any:
        import polars as pl

        cells = {(c["error"], c["scheme"]): c for c in _cells(data, sweep, table, paper)}
        rows = []
        for p, row in paper.items():
            r: dict[str, str] = {"error": _pct(p)}
            for cc in row:
                c = cells.get((_pct(p), cc))
                r[f"{NAMES[cc]} paper"] = f"{row[cc]:.2f}"
                r[f"{NAMES[cc]} ours"] = (
                    _fmt_ci(c["mean"], c["ci_low"], c["ci_high"], 2) if c and c["n"] else "–"
                )
            rows.append(r)
        return pl.DataFrame(rows)

    return build


def _friend_table(rival: str) -> Callable[[PaperData], Any]:
    def build(data: PaperData) -> Any:
        import polars as pl

        cells = {(c["rival"], c["n"]): c for c in _friend_cells(data)}
        rows = []
        for (n, m), (p_riv, p_ewr) in FRIEND_TABLES[rival].items():
            c = cells.get((rival, n))
            name = NAMES[rival]

            def ours(key: str, ci: str, c: Any = c) -> str:
                return _fmt_ci(c[key], *c[ci], 1) if c else "–"

            rows.append(
                {
                    f"{name} conns": str(n),
                    "EWR conns": str(m),
                    f"{name} paper (kbit/s)": f"{p_riv:.2f}",
                    f"{name} ours": ours("rival_kbps", "rival_ci"),
                    "EWR paper (kbit/s)": f"{p_ewr:.2f}",
                    "EWR ours": ours("ewr_kbps", "ewr_ci"),
                    "ratio paper": f"{p_ewr / p_riv:.2f}",
                    "ratio ours": (
                        _fmt_ci(c["ratio"], c["ratio_low"], c["ratio_high"], 2) if c else "–"
                    ),
                }
            )
        return pl.DataFrame(rows)

    return build


def _goodput_table(sweep: str, table: str, schemes: Sequence[str]) -> Callable[[PaperData], Any]:
    """Goodput (Mbit/s) by error rate and scheme, mean over seeds (95% CI)."""

    def build(data: PaperData) -> Any:
        import polars as pl

        from ..analysis import aggregate

        df = data.table(sweep, table)
        agg = aggregate(df, "goodput_mbps", ["cc", "per"], bounds=(0.0, None))
        cell = {(r["cc"], r["per"]): r for r in agg.iter_rows(named=True)}
        pers = sorted(set(_values(df, "per")))
        ccs = [c for c in schemes if any((c, p) in cell for p in pers)]
        rows = []
        for p in pers:
            r: dict[str, str] = {"error": _pct(p)}
            for c in ccs:
                x = cell.get((c, p))
                r[NAMES[c]] = _fmt_ci(x["mean"], x["ci_low"], x["ci_high"], 2) if x else "–"
            rows.append(r)
        return pl.DataFrame(rows)

    return build


def _md(build: Callable[[PaperData], Any], intro: str = "") -> Callable[[PaperData], str]:
    def render(data: PaperData) -> str:
        from ..docgen import md_frame

        return (intro + "\n\n" if intro else "") + md_frame(build(data))

    return render


def _doc_friendliness(data: PaperData) -> str:
    from ..docgen import md_frame

    return (
        "Table 3 (NewReno):\n\n"
        + md_frame(_friend_table("newreno")(data))
        + "\nTable 4 (Westwood+):\n\n"
        + md_frame(_friend_table("westwood+")(data))
    )


def _doc_oracle(data: PaperData) -> str:
    from ..docgen import oracle_shares

    return oracle_shares(data)


def _doc_overshoot(data: PaperData) -> str:
    """Without errors: the EWR receivers' final estimate against the link's rate and the
    flows' fair share, and the sender's timeouts per flow per minute, for Table 1's ten flows
    and Fig. 4's seven."""
    import polars as pl

    minutes = _duration(data.quick) / 60.0
    parts = []
    for sweep, sel, link, n, where in (
        ("fairness", pl.col("transport") == "tcp", 10.0, 10, "the 10 Mbit/s bottleneck"),
        ("mixed", pl.col("name").str.starts_with("ftp"), 5.0, 7, "the 5 Mbit/s wireless link"),
    ):
        if sweep not in data.tables:
            continue
        per = SINGLE_PER if sweep == "fairness" else MIXED_PER
        f = data.table(sweep, "flows").filter(
            sel & (pl.col("cc") == "ewr") & (pl.col(per).cast(pl.Float64) == 0.0)
        )
        if f.height == 0 or "ewr_rx_estimate_bps" not in f.columns:
            continue
        # The flows of a run share its bottleneck: one value a run (their mean), the interval
        # over runs.
        runs = f.group_by("seed").agg(
            pl.col("ewr_rx_estimate_bps").mean().alias("est"),
            (pl.col("timeouts").mean() / minutes).alias("to"),
        )
        est = one_sample(_values(runs, "est"), bounds=(0.0, None))
        to = one_sample(_values(runs, "to"), bounds=(0.0, None))
        parts.append(
            f"{n} EWR flows on {where} (a fair share {link / n:.2g} Mbit/s) estimate "
            f"{est['mean'] / 1e6:.1f} Mbit/s each on average (95% CI {est['ci_low'] / 1e6:.1f} "
            f"to {est['ci_high'] / 1e6:.1f} over {est['n']} runs) and time out "
            f"{to['mean']:.0f} times a minute each ({to['ci_low']:.0f} to {to['ci_high']:.0f})"
        )
    if not parts:
        return "No runs without errors.\n"
    return "Without errors, " + "; ".join(parts) + ".\n"


def _doc_robustness(data: PaperData) -> str:
    """Per claim, the generated sentence naming the readings and axes that decide it."""
    from ..docgen import robustness_sentences

    return robustness_sentences(data)


def _doc_claims(data: PaperData) -> str:
    from ..docgen import claims_table

    return claims_table(data)


TABLES = [
    TableSpec(
        "table1",
        "Table 1: fairness of ten flows, single bottleneck",
        _jain_table("fairness", "runs10", TABLE1),
        "Jain's index of the goodputs of ten flows of one scheme sharing the 10 Mbit/s "
        "bottleneck; ours: mean over seeds (95% CI).",
    ),
    TableSpec(
        "table2",
        "Table 2: fairness of seven flows, mixed wired/wireless topology",
        _jain_table("mixed", "runs7", TABLE2),
        "Jain's index of the seven flows sharing the 5 Mbit/s wireless link.",
    ),
    TableSpec(
        "table3",
        "Table 3: friendliness of EWR with NewReno",
        _friend_table("newreno"),
        "Mean goodput per connection (kbit/s) of each group, each seed averaged over 0.1, 1 "
        "and 10% error; ratio = EWR over NewReno.",
    ),
    TableSpec(
        "table4",
        "Table 4: friendliness of EWR with Westwood+",
        _friend_table("westwood+"),
        "As Table 3 with Westwood+ (the paper's header says New Reno; its caption and text "
        "say Westwood+).",
    ),
]


# --------------------------------------------------------------------------------------------
# the paper


FIGURES = [
    FigureSpec(
        "fig2",
        "Fig. 2: throughput against link error rate, single bottleneck",
        sweep="single",
        table="tcp",
        x="per",
        metric="goodput_mbps",
        group="cc",
        xscale=100.0,
        xlabel="packet error rate of the bottleneck (%)",
        ylabel="goodput (Mbit/s)",
        caption="Goodput of one TCP flow on the error-prone 10 Mbit/s bottleneck with two UDP "
        "on/off background sources (about 2 Mbit/s together).",
        bounds=(0.0, None),
        upper=ORACLE,
    ),
    FigureSpec(
        "fig4",
        "Fig. 4: throughput against link error rate, mixed wired/wireless topology",
        sweep="mixed",
        table="runs7",
        x="per",
        metric="goodput_mbps",
        group="cc",
        xscale=100.0,
        xlabel="packet error rate of the wireless link (%)",
        ylabel="summed goodput of the 7 flows (Mbit/s)",
        caption="Seven flows of one scheme through the wired chain N1-N4 (NewReno FTP both ways "
        "in the background) and the 5 Mbit/s wireless link with its 10-packet queue.",
        bounds=(0.0, None),
        rows="runs (the 7 flows summed)",
        upper=ORACLE,
    ),
    FigureSpec(
        "jain1",
        "Fairness of ten flows against error rate (Table 1's runs)",
        sweep="fairness",
        table="runs10",
        x="per",
        metric="jain",
        group="cc",
        xscale=100.0,
        logx=False,
        xlabel="packet error rate (%)",
        ylabel="Jain's index",
        ylim0=False,
        bounds=(0.0, 1.0),
        rows="runs (ten flows)",
    ),
    FigureSpec(
        "verdicts",
        "Loss verdicts on channel losses judged congestion, single bottleneck",
        sweep="single",
        table="judged",
        x="per",
        metric="type2_rate",
        group="cc",
        xscale=100.0,
        xlabel="packet error rate (%)",
        ylabel="type-2 rate",
        caption="Share of the verdicts on losses to channel errors that said congestion (EWR: "
        "backlog above beta; New Jersey: a CW-marked duplicate ACK), scored against the "
        "simulator's record; the oracle is told the cause and never errs.",
        bounds=(0.0, 1.0),
    ),
]


def _sweeps() -> list[SweepSpec]:
    friend = [
        SweepSpec(
            name=f"friend{n}{m}",
            scenario=friend_scenario(n, m),
            grid={FRIEND_CC: RIVALS, FRIEND_PER: FRIEND_PERS},
            seeds=10,
            quick_grid={FRIEND_CC: RIVALS, FRIEND_PER: [0.01]},
            quick_seeds=2,
            description=f"{n} NewReno or Westwood+ and {m} EWR connections (Tables 3-4)",
        )
        for n, m in MIXES
    ]
    return [
        SweepSpec(
            name="single",
            scenario=single_scenario,
            grid={SINGLE_CC: SCHEMES, SINGLE_PER: SINGLE_PERS},
            seeds=10,
            quick_grid={SINGLE_CC: SCHEMES, SINGLE_PER: [0.0, 0.1]},
            quick_seeds=2,
            description="one TCP flow with UDP background on the single bottleneck (Fig. 2)",
        ),
        SweepSpec(
            name="fairness",
            scenario=fairness_scenario,
            grid={FAIR_CC: FAIR_SCHEMES, SINGLE_PER: TABLE_PERS},
            seeds=10,
            quick_grid={FAIR_CC: ["newreno", "westwood+", "ewr"], SINGLE_PER: [0.0, 0.01]},
            quick_seeds=2,
            description="ten flows of one scheme on the single bottleneck (Table 1)",
        ),
        SweepSpec(
            name="mixed",
            scenario=mixed_scenario,
            grid={MIXED_CC: SCHEMES, MIXED_PER: MIXED_PERS},
            seeds=10,
            quick_grid={
                MIXED_CC: ["ewr", "newreno", "westwood+", "vegas", ORACLE],
                MIXED_PER: [0.0, 0.02],
            },
            quick_seeds=2,
            description="seven flows on the mixed wired/wireless topology (Fig. 4, Table 2)",
        ),
        *friend,
    ]


# --------------------------------------------------------------------------------------------
# readings of the paper and sensitivity axes: _ewr_readings.py (docs/schemes/ewr.md gives each
# passage, the alternatives and why the default was chosen, all before running)

SWEEPS = ["single", "fairness", "mixed", *[f"friend{n}{m}" for n, m in MIXES]]


PAPER = register(
    Paper(
        key="ewr",
        title="Transmission control for Future Internet including error-prone wireless region "
        "(TCP EWR)",
        citation=(
            "I. Ryoo, S. Kim. Transmission Control for Future Internet including Error-prone "
            "Wireless Region (seed paper 002); baseline TCP New Jersey: K. Xu, Y. Tian, N. "
            "Ansari, Computer Networks 47(2), 2005."
        ),
        summary=(
            "TCP EWR against NewReno, Vegas, Westwood+ and New Jersey (CW routers), with CUBIC "
            "and the loss-cause oracle: one flow on an error-prone 10 Mbit/s bottleneck with "
            "UDP background (Fig. 2) and ten flows there (Table 1); seven flows over a wired "
            "chain and a 5 Mbit/s wireless link with bidirectional FTP background (Fig. 4, "
            "Table 2); ten pairs over a 1 Mbit/s bottleneck with m EWR and n NewReno or "
            "Westwood+ connections (Tables 3-4). 60 s runs, ten seeds."
        ),
        notes=(
            "Link rates, delays and queues the paper leaves open were fixed before running from "
            "its tables and ns-2's defaults (docs/schemes/ewr.md). The receiver learns RTT_min "
            "from the timestamp echo. Claims compare runs over seeds by Welch's t-test or a "
            "one-sample interval: supported when the 95% interval says so for every part, not "
            "supported when it rules a part out, inconclusive otherwise."
        ),
        sweeps=_sweeps(),
        figures=FIGURES,
        tables=TABLES,
        claims=[
            ClaimSpec(
                "single_ahead",
                "From about 8% error EWR's throughput is above every other scheme's",
                _relative_claim(
                    "single",
                    "tcp",
                    "ewr",
                    BASELINES,
                    [p for p in SINGLE_PERS if p >= 0.08],
                    _ahead(AHEAD_PCT),
                    "goodput",
                    "EWR outperforms the other schemes from about 8% link error (no number; "
                    f"+{AHEAD_PCT:g}% counted).",
                ),
                source="§3, Fig. 2",
                test=(
                    "Welch on EWR's goodput in % of each of NewReno, Vegas, Westwood+ and New "
                    "Jersey at each error rate of 8-20%; each 95% CI above 0 and reaching "
                    f"+{AHEAD_PCT:g}% (not supported when a Bonferroni interval over the parts "
                    "rules one out)"
                ),
            ),
            ClaimSpec(
                "single_similar",
                "At low error rates EWR performs about as the others",
                _relative_claim(
                    "single",
                    "tcp",
                    "ewr",
                    BASELINES,
                    [p for p in SINGLE_PERS if p <= 0.01],
                    _similar(SIMILAR_PCT),
                    "goodput",
                    "almost similar performance when the link error rate is low (no number; "
                    f"±{SIMILAR_PCT:g}% counted as similar).",
                ),
                source="§3, Fig. 2",
                test=(f"the same at each error rate of 0-1%; each 95% CI inside ±{SIMILAR_PCT:g}%"),
            ),
            ClaimSpec(
                "mixed_ahead",
                "Between 1% and 10% error EWR's throughput is above Westwood+'s (mixed topology)",
                _relative_claim(
                    "mixed",
                    "runs7",
                    "ewr",
                    ["westwood+"],
                    [p for p in MIXED_PERS if 0.01 < p < 0.1],
                    _ahead(AHEAD_MIXED_PCT),
                    "summed goodput",
                    "EWR outperforms Westwood+ above 1% and below 10% (no number; "
                    f"+{AHEAD_MIXED_PCT:g}% counted).",
                ),
                source="§3, Fig. 4",
                test=(
                    "Welch on EWR's summed goodput in % of Westwood+'s at 2% and at 5%; each 95% "
                    f"CI above 0 and reaching +{AHEAD_MIXED_PCT:g}%"
                ),
            ),
            ClaimSpec(
                "mixed_similar",
                "Below 1% error NewReno, Westwood+ and EWR are about equal (mixed topology)",
                _relative_claim(
                    "mixed",
                    "runs7",
                    "ewr",
                    ["newreno", "westwood+"],
                    [p for p in MIXED_PERS if p < 0.01],
                    _similar(SIMILAR_PCT),
                    "summed goodput",
                    "almost similar results below 1% (no number; "
                    f"±{SIMILAR_PCT:g}% counted as similar).",
                ),
                source="§3, Fig. 4",
                test=(
                    "Welch on EWR's summed goodput in % of NewReno's and of Westwood+'s at each "
                    f"error rate of 0-0.5%; each 95% CI inside ±{SIMILAR_PCT:g}%"
                ),
            ),
            ClaimSpec(
                "vegas_poor",
                "Vegas performs poorly throughout (mixed topology)",
                _relative_claim(
                    "mixed",
                    "runs7",
                    "vegas",
                    ["newreno", "westwood+", "ewr"],
                    MIXED_PERS,
                    _behind(VEGAS_PCT),
                    "summed goodput",
                    "Vegas shows poor performance throughout the whole error range (no number; "
                    f"-{VEGAS_PCT:g}% counted).",
                ),
                source="§3, Fig. 4",
                test=(
                    "Welch on Vegas's summed goodput in % of NewReno's, Westwood+'s and EWR's at "
                    f"each error rate; each 95% CI below 0 and reaching -{VEGAS_PCT:g}%"
                ),
            ),
            ClaimSpec(
                "fair_single",
                "Except at 0% error EWR is at least as fair as NewReno and Westwood+ (Table 1)",
                _jain_claim(
                    "fairness",
                    "runs10",
                    [0.001, 0.01, 0.1],
                    _noninferior,
                    "ten flows, single bottleneck",
                    "except at 0% EWR's index achieves a satisfactory margin over the others "
                    f"(non-inferiority margin {FAIR_MARGIN:g}).",
                ),
                source="§3, Table 1",
                test=(
                    "Welch on Jain's index, EWR minus NewReno and minus Westwood+, at 0.1, 1 and "
                    f"10%; each 95% CI above -{FAIR_MARGIN:g}"
                ),
            ),
            ClaimSpec(
                "fair_single_zero",
                "At 0% error EWR is less fair than NewReno and Westwood+ (Table 1)",
                _jain_claim(
                    "fairness",
                    "runs10",
                    [0.0],
                    _less_fair,
                    "ten flows, single bottleneck, no errors",
                    "0.64 against 0.76 and 0.80 (differences -0.12 and -0.16; "
                    f"-{FAIR_MARGIN:g} counted).",
                ),
                source="§3, Table 1",
                test=(
                    "Welch on Jain's index, EWR minus each, at 0%; each 95% CI below 0 and "
                    f"reaching -{FAIR_MARGIN:g}"
                ),
            ),
            ClaimSpec(
                "fair_mixed",
                "EWR is as fair as NewReno and Westwood+ on the mixed topology (Table 2)",
                _jain_claim(
                    "mixed",
                    "runs7",
                    TABLE_PERS,
                    _noninferior,
                    "seven flows, mixed topology",
                    "a satisfactory level of fairness as NewReno and Westwood+ (non-inferiority "
                    f"margin {FAIR_MARGIN:g}).",
                ),
                source="§3, Table 2",
                test=(
                    "Welch on Jain's index, EWR minus NewReno and minus Westwood+, at 0, 0.1, 1 "
                    f"and 10%; each 95% CI above -{FAIR_MARGIN:g}"
                ),
            ),
            ClaimSpec(
                "table1_levels",
                "Table 1's fairness indices are reproduced",
                _levels_claim("fairness", "runs10", TABLE1, "Table 1"),
                source="§3, Table 1",
                test=f"each cell's 95% CI inside the paper's value ± {LEVEL_TOL:g}",
            ),
            ClaimSpec(
                "table2_levels",
                "Table 2's fairness indices are reproduced",
                _levels_claim("mixed", "runs7", TABLE2, "Table 2"),
                source="§3, Table 2",
                test=f"each cell's 95% CI inside the paper's value ± {LEVEL_TOL:g}",
            ),
            ClaimSpec(
                "friendly",
                "EWR is friendly to NewReno and Westwood+ (Tables 3-4)",
                _friend_claim(levels=False),
                source="§3, Tables 3-4",
                test=(
                    "one-sample 95% CI over seeds of EWR's mean goodput per connection over the "
                    "rival's (averaged over the three error rates), for each rival and mix; each "
                    f"inside [{FRIENDLY_BAND[0]:g}, {FRIENDLY_BAND[1]:g}]"
                ),
            ),
            ClaimSpec(
                "friendly_levels",
                "Tables 3-4's throughput ratios are reproduced",
                _friend_claim(levels=True),
                source="§3, Tables 3-4",
                test=f"each cell's ratio CI inside the paper's ratio ± {RATIO_TOL:g}",
            ),
        ],
        derive=derive,
        readings=READINGS,
        doc_tables={
            "single": _md(
                _goodput_table("single", "tcp", SCHEMES),
                "Goodput in Mbit/s, mean over seeds (95% CI):",
            ),
            "table1": _md(_jain_table("fairness", "runs10", TABLE1)),
            "mixed": _md(
                _goodput_table("mixed", "runs7", SCHEMES),
                "Summed goodput of the seven flows in Mbit/s, mean over seeds (95% CI):",
            ),
            "table2": _md(_jain_table("mixed", "runs7", TABLE2)),
            "oracle-share": _doc_oracle,
            "overshoot": _doc_overshoot,
            "friendliness": _doc_friendliness,
            "claims": _doc_claims,
            "robustness": _doc_robustness,
        },
    )
)
