"""Seed paper 001: TCP in the MEMBRANE wireless mesh backhaul.

S. Grilli Colombo, T. Mandorino, G. Paltenghi, "TCP Optimization in Wireless Mesh Backhaul
Networks". A TDMA mesh with round-robin scheduling and a PHY of variable packet error rate;
clients request a 15 MB file (a 256-byte request) from servers about 10 km away. Base schemes
(Reno, NewReno, Jersey, TIBET) and NewReno with cross-layer notifications (ECN, ELN, ERN), then
an adaptive NewReno that uses ERN below 1% PER and ELN above, compared by goodput and Jain's
index against PER.

Every value the paper leaves out was fixed before running (docs/schemes/membrane.md): 20 Mbit/s
TDMA links, 1 ms slots with a 20 µs guard, one slot per node in round robin (a node's links
share its radio), 100-packet queues, Bernoulli errors on every frame of every mesh link, 300 s.
Claims are judged at each PER point by Welch's t-test over seeds, intervals simultaneous over
a claim's points (_membrane_claims.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _core
from ..builders import chain, grid
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
from . import _membrane_claims as claims
from ._membrane_claims import (  # noqa: F401 - the paper's constants, re-exported
    BOOTSTRAP,
    CROSSING_BAND,
    HIGH,
    JAIN_DROP,
    LOW,
    PERS,
    SMALLEST_GOODPUT_PCT,
    THRESHOLD,
    _grid,
    _per_run,
    crossing,
)

FILE_BYTES = 15_000_000
REQUEST_BYTES = 256
DURATION_S = 300
QUICK_DURATION_S = 60
RATE = "20Mbps"
SLOT = "1ms"
GUARD = "20us"
QUEUE = 100
QUICK_PERS = [0.0, 0.05]
TOPOLOGIES = ["hop1", "chain4", "grid"]
CC_PATH = "flows.resp*.cc"
# Each topology names its mesh links differently; the error rate is set on all of them.
PER_PATHS = {
    "hop1": "links.*.error.per",
    "chain4": "links.*.error.per",
    "grid": "links.g*.error.per",
}
#: Each request starts at a uniform draw from [0, 1 s): without it every seed gives the same
#: run at 0% PER (nothing else is random there), and no test over seeds can decide anything.
START_JITTER = "1s"
#: Each response follows its request after a uniform draw from [0, 50 ms) (a server's response
#: time): a request is delivered at a slot boundary, so without it a single flow's response
#: meets the TDMA frame in the same phase in every seed and the runs are again identical.
RESPONSE_JITTER = "50ms"
#: Hops of each topology's routes (static routing knows them): the adaptive NewReno puts its
#: path loss estimate on the per-link scale of its threshold with it.
HOPS = {"hop1": 1, "chain4": 4, "grid": 2}
#: Jersey's congestion warning marks while the average queue is at or above this many
#: packets: the ECN variant's marking threshold (the cw default, half the buffer, is a reading).
CW_THRESHOLD = 10
#: A flow counts at a node's ERN agent until 1 s after its last data segment there.
ERN_ACTIVE = "1s"


def _base_schemes() -> list[str]:
    known = {name for name, _ in _core.schemes()}
    return [c for c in ("reno", "newreno", "jersey", "tibet") if c in known]


def _request_response(d: dict[str, Any]) -> dict[str, Any]:
    """Every flow becomes a 256-byte request from the client and the 15 MB response that
    follows it from the server (``req<k>``, ``resp<k>``)."""
    flows = []
    for k, f in enumerate(d["flows"]):
        flows.append(
            {
                "name": f"req{k}",
                "src": f["dst"],
                "dst": f["src"],
                "cc": "newreno",
                "start_jitter": START_JITTER,
                "app": {"kind": "file", "size": REQUEST_BYTES},
            }
        )
        flows.append(
            {
                "name": f"resp{k}",
                "src": f["src"],
                "dst": f["dst"],
                "cc": f["cc"],
                "after": f"req{k}",
                "start_jitter": RESPONSE_JITTER,
                "app": {"kind": "file", "size": FILE_BYTES},
            }
        )
    d["flows"] = flows
    return d


def topology(name: str, quick: bool) -> dict[str, Any]:
    """The three topologies, as scenario dicts: one 10 km hop; a 4-hop chain of 2.5 km hops; a
    3x3 grid of routers 5 km apart with six client/server pairs on opposite edges (each path
    crosses two mesh hops, 10 km). The server is the flow's source."""
    dur = QUICK_DURATION_S if quick else DURATION_S
    common: dict[str, Any] = {
        "mac": "tdma",
        "duration": dur,
        "tcp": {"segment_size": 1460, "header_size": 40},
        "link_rate": RATE,
        "slot": SLOT,
        "guard": GUARD,
        "queue_limit": QUEUE,
        "per": 0.0,
        "medium": {"schedule": "nodes"},
    }
    if name == "hop1":
        d = chain(1, spacing=10_000.0, **common).to_dict()
        # The server (n1) sends to the client (n0).
        d["flows"] = [{**d["flows"][0], "src": "n1", "dst": "n0"}]
    elif name == "chain4":
        d = chain(4, spacing=2_500.0, **common).to_dict()
        d["flows"] = [{**d["flows"][0], "src": "n4", "dst": "n0"}]
    else:
        d = grid(3, 3, spacing=5_000.0, access_delay="1us", **common).to_dict()
    for ln in d.get("links", []):
        if "error" in ln:
            # Channel errors hit every frame, data and ACKs.
            ln["error"]["applies_to"] = "all"
    d["name"] = f"membrane-{name}"
    return _request_response(d)


#: variant -> (description, agents and options added to the base scenario)
VARIANTS: dict[str, str] = {
    "base": "the base schemes, no notification",
    "ecn": "NewReno with ECN: routers mark above 10 queued packets",
    "eln": "NewReno with ELN: a node that receives a damaged frame marks its duplicate ACKs",
    "ern": "NewReno with ERN: every node writes the rate its schedule offers each flow",
    "adaptive": "adaptive NewReno: ERN below 1% channel-loss rate, ELN above",
    "online": "adaptive NewReno with its threshold estimated online from rate and RTT",
}


def _variant(topo: str, variant: str) -> Callable[[bool], Scenario]:
    def build(quick: bool) -> Scenario:
        d = topology(topo, quick)
        resp = [f for f in d["flows"] if f["name"].startswith("resp")]
        if variant == "base":
            # Jersey's congestion warnings: mesh routers mark ECN-capable segments (Jersey
            # sends its own so); the other base schemes are not ECN-capable and see DropTail.
            for ln in d.get("links", []):
                if ln.get("medium") == "mesh":
                    ln["queue"] = {"kind": "cw", "limit": QUEUE, "threshold": CW_THRESHOLD}
        if variant == "ecn":
            d["tcp"]["ecn"] = True
            for ln in d.get("links", []):
                if ln.get("medium") == "mesh":
                    ln["queue"] = {"kind": "ecn_threshold", "limit": QUEUE, "mark_threshold": 10}
        if variant in ("eln", "adaptive", "online"):
            d.setdefault("agents", []).append({"kind": "eln", "node": "*"})
        if variant in ("ern", "adaptive", "online"):
            d.setdefault("agents", []).append(
                {"kind": "explicit_rate", "node": "*", "per_flow": True, "active": ERN_ACTIVE}
            )
        cc = {"ecn": "newreno", "eln": "newreno", "ern": "newreno-ern"}.get(variant)
        if variant == "adaptive":
            cc = "newreno-adaptive"
        if variant == "online":
            cc = "newreno-adaptive-online"
        if cc:
            for f in resp:
                f["cc"] = cc
                if variant in ("adaptive", "online"):
                    f["cc_params"] = {"hops": float(HOPS[topo])}
        return Scenario(d)

    return build


def _label(cc: str, variant: str) -> str:
    names = {
        "reno": "Reno",
        "newreno": "NewReno",
        "jersey": "Jersey",
        "tibet": "TIBET",
        ORACLE: ORACLE,
    }
    return {
        "base": names.get(cc, cc),
        "ecn": "NewReno + ECN",
        "eln": "NewReno + ELN",
        "ern": "NewReno + ERN",
        "adaptive": "adaptive NewReno",
        "online": "adaptive NewReno (online)",
    }[variant]


def _sweeps() -> list[SweepSpec]:
    out = []
    for topo in TOPOLOGIES:
        per = PER_PATHS[topo]
        for variant, desc in VARIANTS.items():
            grid_: dict[str, list[Any]] = {per: PERS}
            quick: dict[str, list[Any]] = {per: QUICK_PERS}
            if variant == "base":
                # The oracle runs on the base schemes' setup (no notification), as NewReno.
                grid_[CC_PATH] = [*_base_schemes(), ORACLE]
                quick[CC_PATH] = ["newreno", "tibet", ORACLE]
            out.append(
                SweepSpec(
                    name=f"{topo}-{variant}",
                    scenario=_variant(topo, variant),
                    grid=grid_,
                    seeds=10,
                    quick_grid=quick,
                    quick_seeds=2,
                    description=f"{topo}: {desc}",
                )
            )
    return out


# --------------------------------------------------------------------------------------------
# readings and setup axes


def _sweeps_of(*variants: str, topos: tuple[str, ...] = tuple(TOPOLOGIES)) -> tuple[str, ...]:
    return tuple(f"{t}-{v}" for t in topos for v in variants)


def _edit(fn: Callable[[dict[str, Any], str], None]) -> Callable[[Scenario, str], Scenario]:
    """A transform from an edit of the scenario's dict (given the sweep's name)."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        d = sc.to_dict()
        fn(d, sweep)
        return Scenario(d)

    return transform


def _ern_node(d: dict[str, Any], _sweep: str) -> None:
    for a in d.get("agents", []):
        if a.get("kind") == "explicit_rate":
            a["per_flow"] = False


def _cc_param(name: str, value: float) -> Callable[[dict[str, Any], str], None]:
    def edit(d: dict[str, Any], _sweep: str) -> None:
        for f in d["flows"]:
            if f["name"].startswith("resp") and "cc_params" in f:
                f["cc_params"][name] = value

    return edit


def _cw_threshold(value: int) -> Callable[[dict[str, Any], str], None]:
    def edit(d: dict[str, Any], _sweep: str) -> None:
        for ln in d.get("links", []):
            if ln.get("queue", {}).get("kind") == "cw":
                ln["queue"]["threshold"] = value

    return edit


def _cw_instantaneous(d: dict[str, Any], _sweep: str) -> None:
    for ln in d.get("links", []):
        if ln.get("queue", {}).get("kind") == "cw":
            ln["queue"]["weight"] = 1.0


#: The sweeps some claim reads: every claim is decided on the grid, the adaptive ones also on
#: the 4-hop chain from its ERN, ELN and adaptive runs (the single hop, the chain's base
#: schemes and NewReno + ECN are drawn, never decided on), so a reading's variants run these.
CLAIM_SWEEPS = (
    *_sweeps_of("base", "eln", "ern", "adaptive", "online", topos=("grid",)),
    *_sweeps_of("eln", "ern", "adaptive", "online", topos=("chain4",)),
)


def _claimed(*sweeps: str) -> tuple[str, ...]:
    return tuple(s for s in sweeps if s in CLAIM_SWEEPS)


#: Jersey's warning marks only ECN-capable segments, which only Jersey sends: the other base
#: schemes' (and the oracle's) runs behind a cw queue are those behind DropTail whatever its
#: threshold or average (a test checks), so the Jersey axes rerun Jersey alone.
NOT_JERSEY = {CC_PATH: ["reno", "newreno", "tibet", ORACLE]}


def _data_errors_only(d: dict[str, Any], _sweep: str) -> None:
    for ln in d.get("links", []):
        if "error" in ln:
            ln["error"]["applies_to"] = "data"


#: The ns2 profile's receive window (20 packets of 1000 B) holds each response to what its
#: slot share carries plus a few queued packets; a window far above the path's capacity
#: lets the senders fill the queues, the regime where the paper says congestion dominates.
LARGE_WINDOW = 1 << 20

READINGS = [
    Reading(
        "ern_rate",
        "what rate ERN notifies",
        default=Variant(
            "flow",
            why="'the actual available rate on the path, so that the TCP does not transmit "
            "more data than the amount the network can actually tolerate': the rate one flow "
            "can have, each node's slot capacity divided by the flows it forwards",
        ),
        alternatives=(
            Variant(
                "node",
                why="'the bandwidth that a hop can offer', as routing and scheduling exchange "
                "it: the node's whole slot capacity, whatever the flows sharing it",
                transform=_edit(_ern_node),
                sweeps=_claimed(*_sweeps_of("ern", "adaptive", "online")),
            ),
        ),
        passage="§II: 'Notification of the actual available rate on the path (we call it ERN "
        "– Explicit Rate Notification), so that the TCP does not transmit more data than the "
        "amount the network can actually tolerate. … routing and scheduling layers exchange "
        "information about the bandwidth that a hop can offer …'",
    ),
    Reading(
        "adaptive_scale",
        "on which scale the adaptive NewReno compares its loss estimate with 1%",
        default=Variant(
            "link",
            why="the threshold is a value of the figures' x axis, the links' PER: the path "
            "estimate is put on that scale with the route's hop count",
        ),
        alternatives=(
            Variant(
                "path",
                why="'the current PER value' of the connection: the share of its segments "
                "lost on the whole path, compared with 1% as it is",
                transform=_edit(_cc_param("hops", 1.0)),
                sweeps=_claimed(*_sweeps_of("adaptive", "online")),
            ),
        ),
        passage="§III: 'BER/PER has to be passed from lower layers to the adaptive TCP "
        "NewReno. According to the current PER value … if PER is lower than 1%, ERN approach "
        "is used, if PER is higher than 1%, ELN approach is used.'",
        claims=(
            "adaptive",
            "adaptive_fixed_chain4",
            "adaptive_fixed_grid",
            "adaptive_online_chain4",
            "adaptive_online_grid",
        ),
    ),
    Reading(
        "online_model",
        "how the online threshold is estimated",
        default=Variant(
            "padhye",
            why="the loss rate at which NewReno's throughput with timeouts (Padhye et al.) "
            "falls to the explicit rate: a short path's window is a few segments, so a loss "
            "costs a timeout",
        ),
        alternatives=(
            Variant(
                "mathis",
                why="the same without timeouts (Mathis et al.), the simpler model",
                transform=_edit(_cc_param("online_model", 0.0)),
                sweeps=_claimed(*_sweeps_of("online")),
            ),
        ),
        passage="§III: 'We are also evaluating the possibility to estimate the exact value of "
        "the crossing point between ERN and ELN (the 1% threshold) and not have it fixed in "
        "the algorithm, in fact this value depends on network topology.'",
        claims=("adaptive_online_chain4", "adaptive_online_grid"),
    ),
    Reading(
        "jersey_threshold",
        "the average queue at which Jersey's routers warn of congestion (packets)",
        kind="axis",
        default=Variant("10", why="the ECN variant's marking threshold, the same warning"),
        alternatives=(
            Variant(
                "50",
                why="half the 100-packet buffer, the cw queue's default (docs/schemes/jersey.md)",
                transform=_edit(_cw_threshold(QUEUE // 2)),
                sweeps=_claimed(*_sweeps_of("base")),
                unchanged=NOT_JERSEY,
            ),
        ),
        passage="§II: 'TCP Jersey joins bandwidth estimation with explicit congestion warning, "
        "provided by marking packets flowing through an overloaded path.' (no threshold given; "
        "under the default window the average queue reaches neither value)",
        claims=("newreno_jersey_best_low", "newreno_jersey_best_high", "reno_worst_high"),
    ),
    Reading(
        "jersey_queue",
        "which queue length Jersey's routers compare with the threshold",
        default=Variant(
            "average",
            why="RED's average queue (w_q = 0.002), as the Jersey paper configures its warning",
        ),
        alternatives=(
            Variant(
                "instantaneous",
                why="'information extracted from the measure of the queue length', read "
                "literally: the queue as measured at each arrival",
                transform=_edit(_cw_instantaneous),
                sweeps=_claimed(*_sweeps_of("base")),
                unchanged=NOT_JERSEY,
            ),
        ),
        passage="§II: 'ECN (Explicit Congestion Notification), as implemented in TCP Jersey: IP "
        "notifies TCP of the congestion level of the network, information extracted from the "
        "measure of the queue length in the intermediate node buffers.'",
        claims=("newreno_jersey_best_low", "newreno_jersey_best_high", "reno_worst_high"),
    ),
    Reading(
        "rcv_window",
        "the receive window (the paper gives no TCP settings)",
        kind="axis",
        default=Variant(
            "ns2",
            why="the ns2 profile's 20 packets: each response is held by its slot share with a "
            "few packets queued, and no queue overflows",
        ),
        alternatives=(
            Variant(
                "1MiB",
                why="a window far above the path's capacity: the senders fill the 100-packet "
                "queues and lose packets to congestion, the regime the paper describes at low "
                "PER ('at low PER, congestion is dominant')",
                set={"tcp.rcv_window": LARGE_WINDOW},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
        passage="§III: 'At low PER, congestion is dominant and ELN is too aggressive and does "
        "not react properly to network overload and congestion.' (no TCP setting is given)",
    ),
    Reading(
        "ack_errors",
        "which frames the channel errors hit",
        kind="axis",
        default=Variant("all", why="'TCP ACK packets are also affected by channel errors' (§I)"),
        alternatives=(
            Variant(
                "data",
                why="the x axis is the data packets' PER; ACKs are short frames",
                transform=_edit(_data_errors_only),
                sweeps=_claimed(*_sweeps_of(*VARIANTS, topos=("grid",))),
                # Without errors it does not matter which frames they would hit (a test).
                unchanged={PER_PATHS["grid"]: [0.0]},
            ),
        ),
        passage="§I: 'TCP ACK packets are also affected by channel errors and can be lost or "
        "delayed'; §III: goodput 'versus network PER'.",
    ),
]

_WHO = {
    "fixed": "The adaptive NewReno",
    "online": "With the online threshold, the adaptive NewReno",
}

#: The paper's figure sets: base schemes (Figs. 1-3), NewReno with notifications (Figs. 4-5),
#: the best of each and the adaptive schemes (Fig. 6); the oracle bounds every goodput figure.
GROUPS = {
    "base": ["Reno", "NewReno", "Jersey", "TIBET", ORACLE],
    "xl": ["NewReno", "NewReno + ECN", "NewReno + ELN", "NewReno + ERN", ORACLE],
    "best": [
        "NewReno",
        "NewReno + ERN",
        "NewReno + ELN",
        "adaptive NewReno",
        "adaptive NewReno (online)",
        ORACLE,
    ],
}

# --------------------------------------------------------------------------------------------
# derived tables


def derive(data: PaperData) -> None:
    """One table per topology (``<topo>-base``/``responses``): every response flow with its
    scheme label, the PER, and goodput in Mbit/s (the file over its completion time, or what
    arrived over the time it ran when it did not finish); ``<topo>-base``/``jain``: Jain's
    index of the responses of each run (the grid's six); ``responses_<group>``: one row per
    run of the group's schemes, its responses' mean goodput (what the figures show)."""
    import polars as pl

    for topo in TOPOLOGIES:
        parts = []
        for variant in VARIANTS:
            name = f"{topo}-{variant}"
            if name not in data.tables:
                continue
            f = data.table(name, "flows").filter(pl.col("name").str.starts_with("resp"))
            per_col = PER_PATHS[topo]
            f = f.with_columns(
                pl.col(per_col).cast(pl.Float64).alias("per"),
                pl.col("cc")
                .map_elements(lambda c, v=variant: _label(c, v), return_dtype=pl.Utf8)
                .alias("scheme"),
                (pl.col("goodput_bps") / 1e6).alias("goodput_mbps"),
                (pl.col(per_col).cast(pl.Float64) * 100).alias("per_pct"),
            )
            parts.append(
                f.select(
                    "seed",
                    "name",
                    "scheme",
                    "per",
                    "per_pct",
                    "goodput_mbps",
                    "goodput_bps",
                    "completion_time_s",
                    "retransmissions",
                    "timeouts",
                )
            )
        if not parts:
            continue
        allf = pl.concat(parts, how="diagonal_relaxed")
        data.set_table(f"{topo}-base", "responses", allf)
        jain = allf.group_by("scheme", "per", "per_pct", "seed").agg(
            (
                pl.col("goodput_bps").sum() ** 2 / (pl.len() * (pl.col("goodput_bps") ** 2).sum())
            ).alias("jain")
        )
        data.set_table(f"{topo}-base", "jain", jain.sort("scheme", "per", "seed"))
        runs = _per_run(allf)
        for g, names in GROUPS.items():
            keep = pl.col("scheme").is_in(names)
            data.set_table(f"{topo}-base", f"responses_{g}", runs.filter(keep))
            data.set_table(f"{topo}-base", f"jain_{g}", jain.filter(keep).sort("scheme", "per"))


# --------------------------------------------------------------------------------------------
# claims


def _fig(topo: str, group: str, name: str, title: str, metric: str = "goodput_mbps"):
    where = None
    return FigureSpec(
        name,
        title,
        sweep=f"{topo}-base",
        table=f"responses_{group}" if metric != "jain" else f"jain_{group}",
        x="per_pct",
        metric=metric,
        group="scheme",
        where=where,
        logx=False,
        xlabel="PER (%)",
        ylabel="goodput (Mbit/s)" if metric != "jain" else "Jain's index",
        ylim0=metric != "jain",
        caption=f"{title}; mean over seeds of each run's mean goodput of its 15 MB responses, "
        "95% CI.",
        upper=ORACLE if metric != "jain" else None,
    )


FIGURES = [
    _fig("grid", "base", "grid_base", "Grid: base schemes' goodput against PER (Figs. 1-2)"),
    _fig("grid", "base", "grid_base_jain", "Grid: base schemes' Jain's index (Fig. 3)", "jain"),
    _fig("grid", "xl", "grid_xl", "Grid: NewReno with notifications (Fig. 4)"),
    _fig("grid", "xl", "grid_xl_jain", "Grid: NewReno with notifications, Jain (Fig. 5)", "jain"),
    _fig("grid", "best", "grid_best", "Grid: the best schemes and the adaptive ones (Fig. 6)"),
    _fig("chain4", "best", "chain_best", "4-hop chain: the best schemes and the adaptive ones"),
    _fig("chain4", "base", "chain_base", "4-hop chain: base schemes"),
    _fig("hop1", "best", "hop1_best", "Single hop: the best schemes and the adaptive ones"),
]


def _doc_claims(data: PaperData) -> str:
    from ..docgen import claims_table

    return claims_table(data)


def _doc_readings(data: PaperData) -> str:
    """Per claim, the generated sentence: its verdict under each reading and setup axis."""
    from ..docgen import robustness_sentences

    return robustness_sentences(data)


def _doc_congestion(data: PaperData) -> str:
    """Losses to congestion (queue overflow) and channel errors on the grid's mesh links per
    scheme, summed over PER and seeds, under the default window: whether the regime congests."""
    import polars as pl

    from ..docgen import md_table

    rows = []
    for variant in VARIANTS:
        name = f"grid-{variant}"
        if name not in data.tables:
            continue
        # The grid's routers are g<row>_<col>; the access links start at a client or server.
        links = data.table(name, "links").filter(pl.col("from").str.starts_with("g"))
        runs = data.table(name, "runs").height
        rows.append(
            [
                variant,
                str(runs),
                str(int(links["drops_queue_overflow"].sum())),
                str(int(links["drops_channel_error"].sum())),
                str(int(links["max_queue_packets"].max() or 0)),
                str(int(links["ecn_marks"].sum())),
            ]
        )
    return (
        "The grid's mesh links under the default setup, each variant's runs summed over PER "
        "and seeds:\n\n"
        + md_table(
            ["variant", "runs", "overflow drops", "channel drops", "largest queue", "ECN marks"],
            rows,
            "lrrrrr",
        )
    )


def _doc_oracle(data: PaperData) -> str:
    """Each scheme's goodput as a share of the oracle's on the grid, per PER."""
    from ..docgen import oracle_shares

    return oracle_shares(data, ["grid_base", "grid_xl", "grid_best"])


def _doc_goodput(data: PaperData) -> str:
    """Grid goodput (Mbit/s) per scheme and PER, mean over seeds with 95% CI."""
    from ..analysis import aggregate
    from ..docgen import ci, md_table

    df = _grid(data)
    agg = aggregate(df, "goodput_mbps", ["scheme", "per_pct"], bounds=(0.0, None))
    pers = sorted(set(df["per_pct"].to_list()))
    schemes = sorted(set(df["scheme"].to_list()))
    cell = {(r["scheme"], r["per_pct"]): r for r in agg.iter_rows(named=True)}
    rows = []
    for s in schemes:
        row = [s]
        for p in pers:
            r = cell.get((s, p))
            row.append(ci(r["mean"], r["ci_low"], r["ci_high"], 2) if r else "–")
        rows.append(row)
    return (
        "Goodput of the grid's responses in Mbit/s, the mean of each run's six (95% CI over "
        "seeds):\n\n"
        + md_table(["scheme", *(f"{p:g}%" for p in pers)], rows, "l" + "r" * len(pers))
    )


#: how each comparison at a PER point is decided (the claims' tests say which comparisons)
_PER_POINT_TEST = (
    "Welch on the runs' goodput in % of the other scheme's mean at that PER, each comparison "
    "on its own, intervals simultaneous over the claim's comparisons (Bonferroni), "
    "Holm-adjusted p beside them; supported if every one supports it, not supported if any "
    "rules it out: "
)

PAPER = register(
    Paper(
        key="membrane",
        title="TCP optimization in wireless mesh backhaul networks (MEMBRANE)",
        citation=(
            "S. Grilli Colombo, T. Mandorino, G. Paltenghi. TCP Optimization in Wireless Mesh "
            "Backhaul Networks (seed paper 001)."
        ),
        summary=(
            "Clients request a 15 MB file (256-byte request) from servers 10 km away across a "
            "TDMA mesh (20 Mbit/s links, 1 ms slots, one per node in round robin) with Bernoulli "
            "errors on every frame of every mesh link: one hop, a 4-hop chain, and a 3x3 grid "
            "with six pairs. Reno, NewReno, Jersey and TIBET; NewReno with ECN, ELN and ERN; "
            "the adaptive NewReno; the oracle."
        ),
        notes=(
            "The paper gives no link rate, slot, queue, TCP settings or error model; the values "
            "here were fixed before running (docs/schemes/membrane.md). ELN: the node whose "
            "link lost a frame marks the duplicate ACKs for it that pass back through it, which "
            "carries the same information the paper's MAC-to-recipient forwarding does on these "
            "symmetric routes. The paper's claims have no numbers: the smallest difference "
            f"counted is {SMALLEST_GOODPUT_PCT:g}% of goodput. Claims compare runs over seeds by "
            "Welch's t-test on goodput in % of the baseline's mean at each PER point on its own "
            "(intervals simultaneous over the claim's points, Holm-adjusted p), never pooled "
            "over PER; a claim of both regimes is decided in each; a run's "
            "goodput is the mean of its responses (the grid's six share one channel)."
        ),
        sweeps=_sweeps(),
        figures=FIGURES,
        claims=[
            *[
                ClaimSpec(
                    f"newreno_jersey_best_{regime}",
                    f"NewReno and Jersey perform best of the base schemes ({regime} PER)",
                    claims.newreno_jersey_best(regime),
                    source="§III, Figs. 1-2",
                    test=f"At each PER {rng} on the grid, NewReno and Jersey each against Reno "
                    "and TIBET: " + _PER_POINT_TEST + "each above 0 and reaching +5%",
                )
                for regime, rng in (("low", "of 0.1-1%"), ("high", "above 1%"))
            ],
            ClaimSpec(
                "tibet_low",
                "TIBET performs badly at low PER",
                claims.tibet_low,
                source="§III",
                test="At each PER ≤ 1% on the grid, TIBET against NewReno: "
                + _PER_POINT_TEST
                + "each below 0 and reaching -5%",
            ),
            ClaimSpec(
                "ern_low_eln_high",
                "ERN is best below about 1% PER, ELN above",
                claims.ern_low_eln_high,
                source="§III, Figs. 4 and 6",
                test="ERN against ELN at each PER below 1% and ELN against ERN at each above, "
                "grid: " + _PER_POINT_TEST + "each above 0 and reaching +5%",
            ),
            ClaimSpec(
                "eln_high",
                "ELN considerably improves NewReno at high PER",
                claims.eln_high,
                source="§III, Fig. 4",
                test="At each PER above 1% on the grid, NewReno + ELN against NewReno: "
                + _PER_POINT_TEST
                + "each above 0 and reaching +5%",
            ),
            ClaimSpec(
                "tibet_high",
                "TIBET is weak at low PER and better at high PER",
                claims.tibet_high,
                source="§III, Figs. 1-2",
                test="For each PER above 1% and each of 0.1-1% on the grid, the rise of TIBET's "
                "goodput in % of NewReno's from the low to the high one, a Welch-Satterthwaite "
                "contrast over both schemes' runs at both, intervals simultaneous over the 12 "
                "pairs (Bonferroni), Holm-adjusted p; supported if every rise lies above 0 and "
                "reaches 5 points, not supported if any lies below 5",
            ),
            ClaimSpec(
                "reno_worst_high",
                "Reno is the worst at high PER",
                claims.reno_worst_high,
                source="§III, Figs. 1-2",
                test="At each PER above 1% on the grid, Reno against each other base scheme: "
                + _PER_POINT_TEST
                + "each below 0 and reaching -5%",
            ),
            ClaimSpec(
                "newreno_fairness",
                "NewReno's fairness drops at high PER",
                claims.newreno_fairness,
                source="§III, Fig. 3",
                test="Welch on NewReno's Jain index at each PER ≥ 5% minus at each PER ≤ 1%, "
                "grid, intervals simultaneous over the 10 pairs (Bonferroni), Holm-adjusted p; "
                "supported if every difference lies below 0 and reaches -0.05, not supported if "
                "any lies above -0.05",
            ),
            ClaimSpec(
                "crossing",
                "The ERN/ELN crossing point lies near 1% PER",
                claims.crossing_claim,
                source="§III, Fig. 6",
                test="bootstrap over seeds of the lowest PER where ELN's mean goodput exceeds "
                "ERN's, grid; the 95% interval within 0.5-2%",
            ),
            *[
                ClaimSpec(
                    f"adaptive_{tag}_{topo}",
                    f"{_WHO[tag]} is at least as good as the better of ERN and ELN at every "
                    f"PER ({topo})",
                    claims.adaptive_every_per(topo, name),
                    source="§III (proposed, not simulated in the paper)",
                    test="At each PER, against ERN and against ELN (the better of the two is "
                    "itself uncertain): " + _PER_POINT_TEST + "each above -5%",
                )
                for tag, name in (
                    ("fixed", "adaptive NewReno"),
                    ("online", "adaptive NewReno (online)"),
                )
                for topo in ("chain4", "grid")
            ],
            ClaimSpec(
                "adaptive",
                "The adaptive NewReno does as well as the better notification on each side",
                claims.adaptive,
                source="§III (proposed, not simulated in the paper)",
                test="Adaptive against ERN at each PER below 1% and against ELN at each above, "
                "grid: " + _PER_POINT_TEST + "each above -5%",
            ),
        ],
        derive=derive,
        readings=READINGS,
        doc_tables={
            "goodput": _doc_goodput,
            "oracle-share": _doc_oracle,
            "claims": _doc_claims,
            "readings": _doc_readings,
            "congestion": _doc_congestion,
        },
    )
)
