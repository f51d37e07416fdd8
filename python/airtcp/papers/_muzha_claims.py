"""The claims of the Muzha reproduction (:mod:`airtcp.papers.muzha`): the chain lengths and error
rates, the smallest effects counted, and the claim functions, each decided per chain length."""

from __future__ import annotations

import math
from typing import Any

from ..stats import (
    INCONCLUSIVE,
    NOT_SUPPORTED,
    SUPPORTED,
    Outcome,
    bonferroni,
    combine,
    contrast,
    one_sample,
    part_outcome,
    part_outcome_one,
    relative_samples,
    verdict,
    within,
)
from . import (
    ClaimResult,
    PaperData,
)

HOPS = [2, 4, 6, 8, 10, 12, 14, 16]
LOSSY_HOPS = [4, 8, 16]
PERS = [0.0, 0.02, 0.05, 0.1]


PER_PATH = "media.air.error.per"


# The paper's magnitudes and the smallest effects counted (fixed before running):
PAPER_GAIN_PCT = 7.5  # "outperforms TCP NewReno and TCP SACK by 5%~10%": the midpoint
PAPER_GAIN_RANGE = (5.0, 10.0)  # the paper's range, reported beside each verdict
SMALLEST_GAIN_PCT = 5.0  # the low end of the paper's range
RETX_CUT_PCT = -10.0  # "much less" retransmissions: no number; a 10% cut is the least counted
RANDOM_LOSS_PTS = 5.0  # "holds its window": no number; +5 points assumed, half of it counted
VEGAS_EDGE_PCT = 2.0  # Vegas ahead (below 8 hops) / behind (above): no number; 2% counted
JAIN_STEP = 0.05  # Muzha's pair fairer than Vegas's: no number; 0.05 of Jain's index counted
NEWRENO_OVER_VEGAS_PCT = 20.0  # "consumes most of the bandwidth": 20% ahead counted


def _values(df: Any, col: str) -> list[float]:
    return [float(v) for v in df[col].to_list() if v is not None and not math.isnan(float(v))]


def relative_change(
    df: Any, metric: str, scheme: str, base: str, hops: list[int]
) -> tuple[list[float], list[float]]:
    """Each run's ``metric`` in % of the ``base`` scheme's mean at the same hop count, for
    ``scheme`` and for ``base`` (so a Welch difference of the two is the relative change,
    pooled over ``hops``)."""
    return relative_samples(df, metric, label="cc", a=scheme, b=base, at="hops", values=hops)


def judge(
    a: list[float], b: list[float], paper: float, smallest: float | None, parts: int = 1
) -> dict[str, Any]:
    """Welch of a − b and the verdict against the paper's change (as one of ``parts`` parts
    of a claim: ``stats.part_outcome``)."""
    o, w = part_outcome(lambda lo, hi: verdict(lo, hi, paper, smallest), a, b, parts)
    return {
        "verdict": o,
        "change": w.diff,
        "ci_low": w.ci_low,
        "ci_high": w.ci_high,
        "p": w.p,
        "hedges_g": w.g,
        "n_a": w.n_a,
        "n_b": w.n_b,
        "paper": paper,
        "smallest_counted": smallest if smallest is not None else abs(paper) / 2,
    }


def _parts_sentence(rows: list[dict], unit: str = "%", digits: int = 1) -> str:
    return ", ".join(
        f"{r['hops']} hops {r['change']:+.{digits}f}{unit} (95% CI {r['ci_low']:+.{digits}f} to "
        f"{r['ci_high']:+.{digits}f}{unit}, {r['verdict']})"
        for r in rows
    )


def _per_hop_claim(
    table: str,
    metric: str,
    scheme: str,
    bases: list[str],
    hops_of: list[int],
    paper_of: Any,
    smallest: float | None,
    what: str,
    paper_text: str,
    band: tuple[float, float] | None = None,
):
    """A claim the paper makes at every hop count of a figure, decided at each hop count (and
    against each base) as one part of ``len(bases) * len(hops)``: supported when every part's
    95% interval supports it, not supported when one part's Bonferroni interval rules it out
    (``stats.part_outcome``). ``paper_of(hops)`` is the paper's signed change there; with
    ``band`` (the paper's range of the change) the sentence also counts the parts whose 95%
    interval lies inside it, wholly outside it, or straddles an edge."""

    def check(data: PaperData) -> ClaimResult:
        if table not in data.tables:
            return ClaimResult(INCONCLUSIVE, f"Inconclusive: no {table} runs.")
        df = data.table(table, "flows")
        have = set(df["hops"].to_list())
        hops = [h for h in hops_of if h in have]
        k = len(bases) * len(hops)
        rows: list[dict] = []
        texts = []
        for base in bases:
            part = []
            for h in hops:
                a, b = relative_change(df, metric, scheme, base, [h])
                c = judge(a, b, paper_of(h), smallest, parts=k)
                part.append({**c, "hops": h, "against": base})
            rows += part
            texts.append(f"against {base}: " + _parts_sentence(part))
        overall = combine(r["verdict"] for r in rows)
        size = ""
        if band is not None:
            for r in rows:
                r["paper_range"] = str(within(r["ci_low"], r["ci_high"], *band))
            n = {o: sum(r["paper_range"] == str(o) for r in rows) for o in Outcome}
            size = (
                f" The paper's range {band[0]:g} to {band[1]:g}%: {n[SUPPORTED]} of {len(rows)} "
                f"intervals inside it, {n[NOT_SUPPORTED]} wholly outside, "
                f"{n[INCONCLUSIVE]} across an edge."
            )
        s = (
            f"{str(overall).capitalize()}: {what} in % of each baseline's mean at the same hop "
            f"count, at each hop count ({k} parts; a part is not supported when its Bonferroni "
            "interval over the parts rules it out): " + "; ".join(texts) + f". {paper_text}" + size
        )
        return ClaimResult(overall, s, rows)

    return check


GAIN_HOPS = [h for h in HOPS if h >= 4]


def _gain_claim(base: str):
    return _per_hop_claim(
        "chains",
        "goodput_bps",
        "muzha",
        [base],
        GAIN_HOPS,
        lambda h: PAPER_GAIN_PCT,
        SMALLEST_GAIN_PCT,
        "Muzha's goodput",
        f"Paper: 5-10% above NewReno and SACK (+{PAPER_GAIN_PCT:g}% taken, +"
        f"{SMALLEST_GAIN_PCT:g}% the smallest counted).",
        band=PAPER_GAIN_RANGE,
    )


_claim_fewest_retx = _per_hop_claim(
    "chains",
    "retransmissions",
    "muzha",
    ["newreno", "sack"],
    GAIN_HOPS,
    lambda h: RETX_CUT_PCT,
    None,
    "Muzha's TCP retransmissions",
    f"Paper: the fewest of the window-based schemes at every hop count (no number; a cut of "
    f"{abs(RETX_CUT_PCT):g}% assumed, half of it counted).",
)

_claim_vegas = _per_hop_claim(
    "chains",
    "goodput_bps",
    "vegas",
    ["muzha"],
    [h for h in HOPS if h != 8],
    lambda h: VEGAS_EDGE_PCT if h < 8 else -VEGAS_EDGE_PCT,
    VEGAS_EDGE_PCT,
    "Vegas's goodput (ahead below 8 hops, behind above)",
    f"Paper: Vegas ahead of every scheme below 8 hops and behind beyond (no number; "
    f"{VEGAS_EDGE_PCT:g}% counted).",
)


CROSS_HOPS = [4, 8]


def _claim_fairness(data: PaperData) -> ClaimResult:
    """Muzha's pair fairer than Vegas's, at each crossing (4 and 8 hops) as a part."""
    import polars as pl

    if "cross4" not in data.tables or "jain" not in data.tables["cross4"]:
        return ClaimResult(INCONCLUSIVE, "Inconclusive: no cross-topology runs.")
    j = data.table("cross4", "jain")
    hops = [h for h in CROSS_HOPS if h in set(j["hops"].to_list())]
    rows = []
    for h in hops:
        at = j.filter(pl.col("hops") == h)
        a = _values(at.filter(pl.col("pair") == "NewReno vs Muzha"), "jain")
        b = _values(at.filter(pl.col("pair") == "NewReno vs Vegas"), "jain")
        rows.append({**judge(a, b, JAIN_STEP, JAIN_STEP, parts=len(hops)), "hops": h})
    overall = combine(r["verdict"] for r in rows)
    s = (
        f"{str(overall).capitalize()}: Jain's index of NewReno vs Muzha minus NewReno vs Vegas, "
        f"at each crossing ({len(rows)} parts, Bonferroni against): "
        + _parts_sentence(rows, "", 3)
        + f". Paper: NewReno takes most of the bandwidth from Vegas; Muzha shares it fairly "
        f"(no number; +{JAIN_STEP:g} counted)."
    )
    return ClaimResult(overall, s, rows)


def _claim_newreno_starves_vegas(data: PaperData) -> ClaimResult:
    """NewReno takes most of the bandwidth from Vegas at the crossing: NewReno's share of the
    pair's goodput in each run, at each crossing (4 and 8 hops) as a part. The two flows of a
    run split one channel, so a run gives one paired value, not two independent ones; "20%
    ahead" is a share of 1.2/2.2."""
    import polars as pl

    if "cross4" not in data.tables or "cross" not in data.tables["cross4"]:
        return ClaimResult(INCONCLUSIVE, "Inconclusive: no cross-topology runs.")
    x = data.table("cross4", "cross").filter(pl.col("pair") == "NewReno vs Vegas")
    runs = (
        x.group_by("hops", "seed")
        .agg(
            pl.col("goodput_bps").filter(pl.col("flow_cc") == "NewReno").sum().alias("nr"),
            pl.col("goodput_bps").sum().alias("both"),
        )
        .filter(pl.col("both") > 0)
        .sort("hops", "seed")
    )
    ahead = 1.0 + NEWRENO_OVER_VEGAS_PCT / 100.0
    target = 100.0 * ahead / (1.0 + ahead) - 50.0  # points above an even split
    hops = [h for h in CROSS_HOPS if h in set(runs["hops"].to_list())]
    rows = []
    for h in hops:
        shares = [
            100.0 * r["nr"] / r["both"]
            for r in runs.filter(pl.col("hops") == h).iter_rows(named=True)
        ]
        above = [v - 50.0 for v in shares]
        v = part_outcome_one(lambda lo, hi: verdict(lo, hi, target, target), above, len(hops))
        o = one_sample(shares)
        rows.append(
            {
                "hops": h,
                "verdict": v,
                "change": o["mean"] - 50.0 if shares else math.nan,
                "share": o["mean"],
                "ci_low": o["ci_low"] - 50.0,
                "ci_high": o["ci_high"] - 50.0,
                "n": o["n"],
                "paper": target,
                "smallest_counted": target,
            }
        )
    overall = combine(r["verdict"] for r in rows)
    parts = ", ".join(
        f"{r['hops']} hops {r['share']:.1f}% (95% CI {r['ci_low'] + 50:.1f} to "
        f"{r['ci_high'] + 50:.1f}%, n = {r['n']} runs, {r['verdict']})"
        for r in rows
    )
    s = (
        f"{str(overall).capitalize()}: NewReno's share of the pair's goodput at each crossing, "
        f"one value a run ({len(rows)} parts, Bonferroni against): {parts}. Paper: NewReno "
        f"consumes most of the bandwidth (no number; a share of {50 + target:.1f}%, NewReno "
        f"{NEWRENO_OVER_VEGAS_PCT:g}% ahead, is the smallest counted)."
    )
    return ClaimResult(overall, s, rows)


def _claim_random_loss(data: PaperData) -> ClaimResult:
    """Muzha holds its window under random loss: its goodput falls less than NewReno's from
    no loss to the highest frame error rate, at each chain length (the paper's Figs. 3-5 are
    one per length) as a part. Each scheme's change is its runs at the highest rate against
    its runs without loss, both in % of the latter's mean; the interval of Muzha's change
    minus NewReno's carries the spread of all four samples."""
    import polars as pl

    if "lossy" not in data.tables:
        return ClaimResult(INCONCLUSIVE, "Inconclusive: no lossy-chain runs.")
    df = data.table("lossy", "flows")
    top = max(PERS)
    paper = RANDOM_LOSS_PTS
    hops = [h for h in LOSSY_HOPS if h in set(df["hops"].to_list())]
    rows = []
    for h in hops:
        samples: dict[str, tuple[list[float], list[float]]] = {}
        for cc in ("muzha", "newreno"):
            at = df.filter((pl.col("cc") == cc) & (pl.col("hops") == h))
            clean = _values(at.filter(pl.col(PER_PATH) == 0.0), "goodput_bps")
            m = math.fsum(clean) / len(clean) if clean else 0.0
            if m == 0:
                samples[cc] = ([], [])
                continue
            lossy = _values(at.filter(pl.col(PER_PATH) == top), "goodput_bps")
            samples[cc] = ([100.0 * x / m for x in lossy], [100.0 * x / m for x in clean])
        (ml, mc), (nl, nc) = samples["muzha"], samples["newreno"]
        ks = [ml, mc, nl, nc]
        w = [1.0, -1.0, -1.0, 1.0]
        k = contrast(ks, w)
        v = verdict(k["ci_low"], k["ci_high"], paper, None)
        if v is not SUPPORTED:
            wide = contrast(ks, w, bonferroni(0.95, len(hops)))
            v = (
                NOT_SUPPORTED
                if verdict(wide["ci_low"], wide["ci_high"], paper, None) is NOT_SUPPORTED
                else INCONCLUSIVE
            )
        rows.append(
            {
                "hops": h,
                "verdict": v,
                "change": k["diff"],
                "ci_low": k["ci_low"],
                "ci_high": k["ci_high"],
                "p": k["p"],
                "df": k["df"],
                "n_muzha": len(ml),
                "n_newreno": len(nl),
                "paper": paper,
                "smallest_counted": paper / 2,
            }
        )
    overall = combine(r["verdict"] for r in rows)
    s = (
        f"{str(overall).capitalize()}: goodput change from no loss to {top:.0%} frame errors, "
        f"Muzha minus NewReno, in points of each scheme's loss-free mean, at each chain length "
        f"({len(rows)} parts, Bonferroni against; the interval carries the spread of the runs "
        "with and without loss of both schemes): "
        + _parts_sentence(rows, " points", 2)
        + f". Paper: Muzha keeps its window under random loss while NewReno and SACK cut it "
        f"(no number; +{paper:g} points assumed, half of it counted)."
    )
    return ClaimResult(overall, s, rows)
