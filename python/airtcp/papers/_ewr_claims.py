"""The claims of the EWR reproduction (:mod:`airtcp.papers.ewr`): the paper's tables, the smallest
effects counted, and the claim functions, each decided per error rate or table cell."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

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
    PaperData,
)

RIVALS = ["newreno", "westwood+"]


NAMES = {
    "ewr": "EWR",
    "newreno": "NewReno",
    "vegas": "Vegas",
    "westwood+": "Westwood+",
    "newjersey": "New Jersey",
    "cubic": "CUBIC",
    ORACLE: ORACLE,
}


#: (n rival connections, m EWR connections), the rows of Tables 3 and 4
MIXES = [(3, 7), (5, 5), (7, 3)]


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
