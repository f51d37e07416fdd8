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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ..scenario import Scenario
from ..stats import (
    INCONCLUSIVE,
    Outcome,
    combine,
    direction,
    one_sample,
    part_outcome,
    part_outcome_one,
    relative_samples,
    verdict,
    within,
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
    TableSpec,
    Variant,
    register,
)

#: the oracle runs on the same setup as the others (every router a CW router, which marks
#: only New Jersey's ECN-capable segments)
SCHEMES = ["ewr", "newreno", "vegas", "westwood+", "newjersey", "cubic", ORACLE]
BASELINES = ["newreno", "vegas", "westwood+", "newjersey"]
FAIR_SCHEMES = ["newreno", "westwood+", "ewr", "newjersey", "vegas"]
RIVALS = ["newreno", "westwood+"]
#: the schemes that judge the cause of a loss (their verdicts are scored)
JUDGES = ["ewr", "newjersey", ORACLE]
NAMES = {
    "ewr": "EWR",
    "newreno": "NewReno",
    "vegas": "Vegas",
    "westwood+": "Westwood+",
    "newjersey": "New Jersey",
    "cubic": "CUBIC",
    ORACLE: ORACLE,
}

SINGLE_PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.20]
TABLE_PERS = [0.0, 0.001, 0.01, 0.1]
MIXED_PERS = [0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2]
FRIEND_PERS = [0.001, 0.01, 0.1]
#: (n rival connections, m EWR connections), the rows of Tables 3 and 4
MIXES = [(3, 7), (5, 5), (7, 3)]

SINGLE_CC = "flows.ftp.cc"
SINGLE_PER = "links.R1-R2.error.per"
FAIR_CC = "flows.*.cc"
MIXED_CC = "flows.ftp*.cc"
MIXED_PER = "links.N4-M.error.per"
FRIEND_CC = "flows.riv*.cc"
FRIEND_PER = "links.R2-D*.error.per"
#: the sweep whose tables hold the friendliness results of all three mixes
FRIEND_SWEEP = "friend37"

#: The paper's tables. Table 1 and 2: Jain's index by error rate for NewReno, Westwood+, EWR.
TABLE1 = {
    0.0: {"newreno": 0.76, "westwood+": 0.80, "ewr": 0.64},
    0.001: {"newreno": 0.31, "westwood+": 0.93, "ewr": 0.98},
    0.01: {"newreno": 0.25, "westwood+": 0.74, "ewr": 0.76},
    0.1: {"newreno": 0.57, "westwood+": 0.23, "ewr": 0.62},
}
TABLE2 = {
    0.0: {"newreno": 0.95, "westwood+": 0.94, "ewr": 0.96},
    0.001: {"newreno": 0.94, "westwood+": 0.94, "ewr": 0.89},
    0.01: {"newreno": 0.95, "westwood+": 1.00, "ewr": 0.95},
    0.1: {"newreno": 0.96, "westwood+": 0.95, "ewr": 0.96},
}
#: Tables 3 and 4: mean throughput per connection (kbit/s), (rival, EWR), by (n, m).
TABLE3 = {(3, 7): (69.24, 59.97), (5, 5): (77.91, 77.68), (7, 3): (71.55, 71.03)}
TABLE4 = {(3, 7): (73.71, 81.95), (5, 5): (78.03, 97.03), (7, 3): (63.25, 70.62)}
FRIEND_TABLES = {"newreno": TABLE3, "westwood+": TABLE4}

# The smallest effects counted (fixed before running; the paper gives no numbers for them).
AHEAD_PCT = 10.0  # EWR ahead from 8% error on the single bottleneck
AHEAD_MIXED_PCT = 5.0  # EWR ahead of Westwood+ between 1 and 10% on the mixed topology
SIMILAR_PCT = 10.0  # "almost similar": inside ±10%
VEGAS_PCT = 10.0  # Vegas poor: at least 10% below
FAIR_MARGIN = 0.05  # non-inferiority margin of Jain's index
LEVEL_TOL = 0.10  # a table cell of Jain's index is at the paper's level within ±0.1
FRIENDLY_BAND = (0.8, 1.25)  # EWR's per-connection share over the rival's
RATIO_TOL = 0.15  # a cell of Tables 3-4 (as a ratio) at the paper's level within ±0.15


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
# claims


def _values(df: Any, col: str) -> list[float]:
    return [float(v) for v in df[col].to_list() if v is not None and not math.isnan(float(v))]


def relative(
    df: Any, metric: str, scheme: str, base: str, pers: Sequence[float]
) -> tuple[list[float], list[float]]:
    """Each run's ``metric`` in % of the ``base`` scheme's mean at the same error rate, for
    ``scheme`` and for ``base``, pooled over ``pers`` (a Welch difference of the two is the
    relative change)."""
    return relative_samples(df, metric, label="cc", a=scheme, b=base, at="per", values=pers)


def _pct(p: float) -> str:
    return f"{p * 100:g}%"


def _span(pers: Sequence[float]) -> str:
    return _pct(pers[0]) if len(pers) == 1 else f"{_pct(pers[0])}-{_pct(pers[-1])}"


def _ci(lo: float, hi: float, unit: str = "", digits: int = 1) -> str:
    return f"95% CI {lo:+.{digits}f} to {hi:+.{digits}f}{unit}"


def _row(w: Any, outcome: Outcome, **extra: Any) -> dict[str, Any]:
    return {
        **extra,
        "outcome": str(outcome),
        "change": w.diff,
        "ci_low": w.ci_low,
        "ci_high": w.ci_high,
        "p": w.p,
        "hedges_g": w.g,
        "n_a": w.n_a,
        "n_b": w.n_b,
    }


def _relative_claim(
    sweep: str,
    table: str,
    scheme: str,
    bases: Sequence[str],
    pers: Sequence[float],
    decide: Callable[[float, float], Outcome],
    what: str,
    paper: str,
) -> Callable[[PaperData], ClaimResult]:
    """A claim on ``scheme``'s goodput in % of each base's at every error rate of ``pers``,
    each part decided by ``decide(ci_low, ci_high)`` (in points of %) as
    :func:`~airtcp.stats.part_outcome` does and combined: a claim made at several error rates
    holds at each (pooled, a loss at one rate could hide behind a gain at another)."""

    def check(data: PaperData) -> ClaimResult:
        if sweep not in data.tables or table not in data.tables[sweep]:
            return ClaimResult(INCONCLUSIVE, f"Inconclusive: no {sweep} runs.")
        df = data.table(sweep, table)
        have = set(_values(df, "per"))
        used = [p for p in pers if p in have]
        rows, parts = [], []
        k = len(bases) * len(used)
        for base in bases:
            cells = []
            for p in used:
                a, b = relative(df, "goodput_mbps", scheme, base, [p])
                o, w = part_outcome(decide, a, b, k)
                rows.append(_row(w, o, against=base, error=_span([p])))
                cells.append(f"{_span([p])} {w.diff:+.1f}% ({_ci(w.ci_low, w.ci_high, '%')}, {o})")
            parts.append(f"against {NAMES[base]}: " + ", ".join(cells))
        overall = combine(r["outcome"] for r in rows)
        where = f"at each error rate of {_span(used)}" if used else "no error rate of the claim run"
        s = (
            f"{str(overall).capitalize()}: {NAMES[scheme]}'s {what} in % of each baseline's "
            f"mean, {where} (a part is not supported when its Bonferroni interval over the {k} "
            f"parts rules it out): " + "; ".join(parts) + f". Paper: {paper}"
        )
        return ClaimResult(overall, s, rows)

    return check


def _ahead(smallest: float) -> Callable[[float, float], Outcome]:
    return lambda lo, hi: direction(lo, hi, sign=1, smallest=smallest)


def _similar(band: float) -> Callable[[float, float], Outcome]:
    return lambda lo, hi: within(lo, hi, -band, band)


def _behind(smallest: float) -> Callable[[float, float], Outcome]:
    return lambda lo, hi: direction(lo, hi, sign=-1, smallest=smallest)


def _jain_claim(
    sweep: str,
    table: str,
    pers: Sequence[float],
    decide: Callable[[float, float, str, float], Outcome],
    what: str,
    paper: str,
) -> Callable[[PaperData], ClaimResult]:
    """EWR's Jain index minus each rival's (NewReno, Westwood+) at each error rate, decided
    by ``decide(ci_low, ci_high, rival, per)`` and combined."""

    def check(data: PaperData) -> ClaimResult:
        import polars as pl

        if sweep not in data.tables or table not in data.tables[sweep]:
            return ClaimResult(INCONCLUSIVE, f"Inconclusive: no {sweep} runs.")
        df = data.table(sweep, table)
        rows, parts = [], []
        k = len(pers) * len(RIVALS)
        for p in pers:
            at = df.filter(pl.col("per") == p)
            for rival in RIVALS:
                a = _values(at.filter(pl.col("cc") == "ewr"), "jain")
                b = _values(at.filter(pl.col("cc") == rival), "jain")
                if not a or not b:
                    continue
                o, w = part_outcome(lambda lo, hi, r=rival, q=p: decide(lo, hi, r, q), a, b, k)
                rows.append(_row(w, o, error=_pct(p), against=rival))
                parts.append(
                    f"{_pct(p)} vs {NAMES[rival]} {w.diff:+.3f} "
                    f"({_ci(w.ci_low, w.ci_high, digits=3)}, {o})"
                )
        overall = combine(r["outcome"] for r in rows)
        s = (
            f"{str(overall).capitalize()}: Jain's index, EWR minus each rival ({what}): "
            + ("; ".join(parts) if parts else "no runs")
            + f". Paper: {paper}"
        )
        return ClaimResult(overall, s, rows)

    return check


def _noninferior(lo: float, hi: float, rival: str, per: float) -> Outcome:
    return within(lo, hi, low=-FAIR_MARGIN)


def _less_fair(lo: float, hi: float, rival: str, per: float) -> Outcome:
    paper = TABLE1[per]["ewr"] - TABLE1[per][rival]
    return verdict(lo, hi, paper, FAIR_MARGIN)


def _cells(data: PaperData, sweep: str, table: str, paper: dict) -> list[dict[str, Any]]:
    """Each cell of a Jain table: the paper's value and our mean and interval over seeds."""
    import polars as pl

    out = []
    if sweep not in data.tables or table not in data.tables[sweep]:
        return out
    df = data.table(sweep, table)
    for p, row in paper.items():
        for cc, value in row.items():
            xs = _values(df.filter((pl.col("per") == p) & (pl.col("cc") == cc)), "jain")
            s = one_sample(xs, bounds=(0.0, 1.0))
            out.append(
                {
                    "error": _pct(p),
                    "scheme": cc,
                    "paper": value,
                    "mean": s["mean"],
                    "ci_low": s["ci_low"],
                    "ci_high": s["ci_high"],
                    "n": s["n"],
                    "values": xs,
                }
            )
    return out


def _levels_claim(sweep: str, table: str, paper: dict, name: str) -> Callable:
    def check(data: PaperData) -> ClaimResult:
        cells = [c for c in _cells(data, sweep, table, paper) if c["n"] > 0]
        if not cells:
            return ClaimResult(INCONCLUSIVE, f"Inconclusive: no {sweep} runs.")
        for c in cells:
            band = (c["paper"] - LEVEL_TOL, c["paper"] + LEVEL_TOL)
            c["outcome"] = str(
                part_outcome_one(
                    lambda lo, hi, b=band: within(lo, hi, *b),
                    c.pop("values"),
                    len(cells),
                    bounds=(0.0, 1.0),
                )
            )
        overall = combine(c["outcome"] for c in cells)
        count = {o: sum(1 for c in cells if c["outcome"] == str(o)) for o in Outcome}
        far = [
            f"{NAMES[c['scheme']]} at {c['error']} {c['mean']:.2f} vs {c['paper']:.2f}"
            for c in cells
            if c["outcome"] == "not supported"
        ]
        s = (
            f"{str(overall).capitalize()}: of {len(cells)} cells of {name}, "
            f"{count[Outcome.SUPPORTED]} lie within ±{LEVEL_TOL:g} of the paper's index, "
            f"{count[Outcome.NOT_SUPPORTED]} outside it"
            + (f" ({'; '.join(far)})" if far else "")
            + f", {count[Outcome.INCONCLUSIVE]} undecided."
        )
        return ClaimResult(overall, s, cells)

    return check


def _friend_cells(data: PaperData) -> list[dict[str, Any]]:
    """Each row of Tables 3-4: the paper's per-connection throughputs and ratio beside ours."""
    import polars as pl

    if FRIEND_SWEEP not in data.tables or "friend_seed" not in data.tables[FRIEND_SWEEP]:
        return []
    df = data.table(FRIEND_SWEEP, "friend_seed")
    out = []
    for rival in RIVALS:
        for (n, m), (p_riv, p_ewr) in FRIEND_TABLES[rival].items():
            at = df.filter((pl.col("rival") == rival) & (pl.col("n") == n))
            if at.height == 0:
                continue
            r = one_sample(_values(at, "rival_kbps"), bounds=(0.0, None))
            e = one_sample(_values(at, "ewr_kbps"), bounds=(0.0, None))
            ratios = _values(at, "ratio")
            q = one_sample(ratios, bounds=(0.0, None))
            out.append(
                {
                    "rival": rival,
                    "n": n,
                    "m": m,
                    "paper_rival_kbps": p_riv,
                    "rival_kbps": r["mean"],
                    "rival_ci": (r["ci_low"], r["ci_high"]),
                    "paper_ewr_kbps": p_ewr,
                    "ewr_kbps": e["mean"],
                    "ewr_ci": (e["ci_low"], e["ci_high"]),
                    "paper_ratio": p_ewr / p_riv,
                    "ratio": q["mean"],
                    "ratio_low": q["ci_low"],
                    "ratio_high": q["ci_high"],
                    "seeds": q["n"],
                    "ratios": ratios,
                }
            )
    return out


def _rates(data: PaperData) -> str:
    """The error rates the friendliness runs averaged over, as text ("0.1, 1 and 10%")."""
    pers = sorted(set(_values(data.table(FRIEND_SWEEP, "friend"), "per")))
    names = [f"{p * 100:g}" for p in pers]
    text = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return text + "%"


def _friend_claim(levels: bool) -> Callable[[PaperData], ClaimResult]:
    def check(data: PaperData) -> ClaimResult:
        cells = _friend_cells(data)
        if not cells:
            return ClaimResult(INCONCLUSIVE, "Inconclusive: no friendliness runs.")
        rows, parts = [], []
        for c in cells:
            lo, hi = c["ratio_low"], c["ratio_high"]
            if levels:
                band = (c["paper_ratio"] - RATIO_TOL, c["paper_ratio"] + RATIO_TOL)
            else:
                band = FRIENDLY_BAND
            o = part_outcome_one(
                lambda a, b, w=band: within(a, b, *w), c["ratios"], len(cells), bounds=(0.0, None)
            )
            rows.append(
                {
                    "rival": c["rival"],
                    "n rival": c["n"],
                    "m EWR": c["m"],
                    "paper ratio": c["paper_ratio"],
                    "ratio": c["ratio"],
                    "ci_low": lo,
                    "ci_high": hi,
                    "band": f"{band[0]:.2f}-{band[1]:.2f}",
                    "outcome": str(o),
                }
            )
            parts.append(
                f"{NAMES[c['rival']]} {c['n']}/{c['m']}: {c['ratio']:.2f} (95% CI {lo:.2f} to "
                f"{hi:.2f}, {o})"
            )
        overall = combine(r["outcome"] for r in rows)
        what = (
            f"within ±{RATIO_TOL:g} of the paper's ratio"
            if levels
            else f"inside [{FRIENDLY_BAND[0]:g}, {FRIENDLY_BAND[1]:g}]"
        )
        s = (
            f"{str(overall).capitalize()}: EWR's mean goodput per connection over the rival's, "
            f"per seed (averaged over {_rates(data)} error), {what}, for each rival and "
            f"n/m = rival/EWR connections: " + "; ".join(parts) + "."
        )
        return ClaimResult(overall, s, rows)

    return check


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
# readings of the paper and sensitivity axes (docs/schemes/ewr.md gives each passage, the
# alternatives and why the default was chosen, all before running)

SWEEPS = ["single", "fairness", "mixed", *[f"friend{n}{m}" for n, m in MIXES]]
FRIEND_SWEEPS = tuple(f"friend{n}{m}" for n, m in MIXES)


def _tcp_flows(sc: Scenario) -> list[dict[str, Any]]:
    return [f for f in sc.data["flows"] if "cc" in f]


def with_ewr_params(**params: float) -> Callable[[Scenario, str], Scenario]:
    """Give every TCP flow EWR parameters scoped to EWR (``ewr.<key>``): the grid changes the
    scheme, and every other scheme ignores them."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for f in _tcp_flows(sc):
            f.setdefault("cc_params", {}).update({f"ewr.{k}": v for k, v in params.items()})
        return sc

    return transform


def scale_queues(factor: float) -> Callable[[Scenario, str], Scenario]:
    """Every queue limit the paper leaves open (all but the mixed topology's, which it gives)
    times ``factor``."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            q = link.get("queue")
            if q is not None and "limit" in q:
                q["limit"] = max(1, round(q["limit"] * factor))
        return sc

    return transform


def rtt_spread(step_ms: float) -> Callable[[Scenario, str], Scenario]:
    """Source i's access link 2 + (i - 1) * ``step_ms`` ms long (one way), so the flows'
    round trips differ; the bottleneck and the sinks' links unchanged."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            a = link["a"]
            if a.startswith("S") and a[1:].isdigit() and link["b"] in ("R1", "N1"):
                link["delay"] = f"{2 + (int(a[1:]) - 1) * step_ms:g}ms"
        return sc

    return transform


def set_jitter(value: str) -> Callable[[Scenario, str], Scenario]:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for f in sc.data["flows"]:
            if "start_jitter" in f:
                f["start_jitter"] = value
        return sc

    return transform


def errors_on(applies_to: str) -> Callable[[Scenario, str], Scenario]:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            if "error" in link:
                link["error"]["applies_to"] = applies_to
        return sc

    return transform


DEFAULT = Variant("as run", "the setup declared before the first run (docs/schemes/ewr.md)")

READINGS = [
    Reading(
        "sampling",
        "Eq. 1: a sample per packet or per interval",
        default=Variant(
            "per packet",
            "Eq. 1 is indexed by packet: the n-th packet arriving at t_n, over the gap since "
            "the (n-1)-th; d_n as one packet's data",
        ),
        alternatives=(
            Variant(
                "per interval",
                "d_n as 'the amount of data currently received' over an interval of one "
                "RTT_min: the flow's own arrival rate, without the per-packet overshoot; but "
                "then oCwnd = RTT_min * cwnd / RTT <= cwnd, so (b) can never raise the window "
                "and the +2 of (c) is capped by the advertised window: EWR has no way to grow",
                transform=with_ewr_params(interval=1.0),
            ),
        ),
        passage=(
            "§2: 'The first step of bandwidth estimation is to calculate a sample bandwidth "
            "(Bw_sample(n)) when the n-th packet arrives at the receiver at time t_n: "
            "Bw_sample(n) = d_n / (t_n - t_(n-1)) (1) where d_n is the amount of data "
            "currently received by the receiver and t_(n-1) is the previous (n-1)-th packet "
            "arrival time.'"
        ),
    ),
    Reading(
        "loss_term",
        "The loss-probability term of [6]",
        default=Variant(
            "left out",
            "Eqs. 1-3 as printed have no loss term and the paper gives no formula for it",
        ),
        alternatives=(
            Variant(
                "Padhye cap",
                "the estimate in Eq. 3 capped at Padhye et al.'s throughput [6] for the loss "
                "rate the receiver sees (holes over segments; it cannot tell congestion "
                "losses from others), R = RTT_min, T0 = 4 R",
                transform=with_ewr_params(loss_term=1.0),
            ),
        ),
        passage=(
            "§2: 'By incorporating the actual arrival rate information in bandwidth estimation "
            "and, at the same time, by including congestion-related packet loss probability "
            "into the packet arrival rate calculation [6], the proposed scheme can probe the "
            "available bandwidth more accurately.'"
        ),
    ),
    Reading(
        "rcv_window",
        "Receive buffer",
        kind="axis",
        default=Variant("256 KiB", "above every path's bandwidth-delay product plus queue"),
        alternatives=(
            Variant(
                "64 KiB",
                "about the single bottleneck's bandwidth-delay product (61 kB): NewReno's "
                "slow start can no longer overshoot the 50-packet queue by a whole window",
                set={"tcp.rcv_window": 65536},
            ),
            Variant(
                "ns-2 window_ 20",
                "ns-2's default TCP window (20 packets of 1000 bytes), which a study that "
                "does not mention it runs with",
                set={"tcp.rcv_window": 20000},
            ),
        ),
        passage="The paper does not consider the receiver's buffer (§2) and gives no window.",
    ),
    Reading(
        "queues",
        "Queue sizes the paper leaves open",
        kind="axis",
        default=Variant("50 packets", "ns-2's default limit_"),
        alternatives=(
            Variant(
                "25 packets",
                "half a bandwidth-delay product at the single bottleneck",
                transform=scale_queues(0.5),
                sweeps=("single", "fairness", *FRIEND_SWEEPS),
            ),
            Variant(
                "100 packets",
                "two bandwidth-delay products at the single bottleneck",
                transform=scale_queues(2.0),
                sweeps=("single", "fairness", *FRIEND_SWEEPS),
            ),
        ),
        passage=(
            "Only Fig. 3's queues are given ('The queue sizes of wired links and the wireless "
            "link are set to 100 and 10'); the single bottleneck's and Fig. 5's are not."
        ),
    ),
    Reading(
        "rtt_spread",
        "Round-trip times of Table 1's ten flows",
        kind="axis",
        default=Variant("equal", "every source on the same 100 Mbit/s, 2 ms access link"),
        alternatives=(
            Variant(
                "unequal",
                "source i's access link 2 + 8 (i - 1) ms: round trips from about 49 to 193 "
                "ms; NewReno's and Westwood+'s shares then depend on the round trip, which "
                "could explain Table 1's low indices",
                transform=rtt_spread(8.0),
                sweeps=("fairness",),
            ),
        ),
        passage=(
            "§3: 'fairness index has been compared by considering 10 same TCP flows that share "
            "a 10 Mbps bottleneck link'; no delays are given."
        ),
        claims=("fair_single", "fair_single_zero", "table1_levels"),
    ),
    Reading(
        "start_jitter",
        "Flows' start times",
        kind="axis",
        default=Variant("uniform in 1 s", "random phases, so seeds differ without errors"),
        alternatives=(
            Variant(
                "uniform in 100 ms",
                "nearly simultaneous starts (slow starts overlap)",
                transform=set_jitter("100ms"),
            ),
        ),
        passage="The paper gives no start times.",
    ),
    Reading(
        "background",
        "Fig. 2's background load",
        kind="axis",
        default=Variant(
            "2 Mbps", "two on/off UDP sources of 2 Mbps while on: about a fifth of the link"
        ),
        alternatives=(
            Variant(
                "1 Mbps",
                "the same sources at 1 Mbps while on: about a tenth of the link",
                set={"flows.udp*.app.rate": "1Mbps"},
                sweeps=("single",),
            ),
            Variant(
                "4 Mbps",
                "the same sources at 4 Mbps while on: about two fifths of the link",
                set={"flows.udp*.app.rate": "4Mbps"},
                sweeps=("single",),
            ),
        ),
        passage=(
            "§3: the single bottleneck compares the schemes 'under the condition that there "
            "exist various link error rates, and background traffics'; neither kind nor load is "
            "given."
        ),
    ),
    Reading(
        "ack_errors",
        "Whether ACKs see channel errors",
        kind="axis",
        default=Variant("data only", "the error rate read as a packet error rate of data"),
        alternatives=(
            Variant(
                "data and ACKs",
                "the link error hits every packet crossing the error-prone link, ACKs too",
                transform=errors_on("all"),
                # Without errors it does not matter which packets they would hit (a test).
                unchanged={"links.R1-R2.error.per": [0.0], "links.N4-M.error.per": [0.0]},
            ),
        ),
        passage=(
            "§3: 'under the condition that there exist various link error rates'; what the "
            "errors hit is not said."
        ),
    ),
]

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
