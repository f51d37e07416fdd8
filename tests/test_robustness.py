"""The robustness engine (airtcp.robustness): claims decided under each reading of a paper, on
constructed data and end to end on a tiny paper of real runs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest

from airtcp import Store, papers
from airtcp.builders import chain
from airtcp.cli import main
from airtcp.papers import (
    ClaimResult,
    ClaimSpec,
    Paper,
    PaperData,
    Reading,
    SweepSpec,
    Variant,
)
from airtcp.robustness import (
    Cell,
    Condition,
    claim_sentence,
    conditions,
    effect_of,
    evaluate_data,
)
from airtcp.stats import INCONCLUSIVE, NOT_SUPPORTED, SUPPORTED, direction, one_sample, welch

# --------------------------------------------------------------------------------------------
# constructed data


def _a_beats_b(data: PaperData) -> ClaimResult:
    df = data.table("s", "flows")
    a = df.filter(pl.col("cc") == "a")["goodput_bps"].to_list()
    b = df.filter(pl.col("cc") == "b")["goodput_bps"].to_list()
    w = welch(a, b)
    out = direction(w.ci_low, w.ci_high, sign=1)
    return ClaimResult(out, f"a - b = {w.diff:.1f}", w.as_dict())


def _b_positive(data: PaperData) -> ClaimResult:
    df = data.table("s", "flows")
    b = df.filter(pl.col("cc") == "b")["goodput_bps"].to_list()
    return ClaimResult(SUPPORTED if min(b) > 0 else NOT_SUPPORTED, "b > 0", effect=min(b))


def _paper() -> Paper:
    sc = chain(1, mac="tdma", duration=1.0)
    return Paper(
        key="constructed",
        title="t",
        citation="c",
        summary="s",
        sweeps=[SweepSpec("s", lambda quick: sc, grid={})],
        claims=[
            ClaimSpec("a_beats_b", "a beats b", _a_beats_b),
            ClaimSpec("b_positive", "b is positive", _b_positive),
        ],
        readings=[
            Reading(
                "rule",
                "which rule",
                Variant("paper"),
                (Variant("flip", why="the other reading", set={"duration": 2.0}),),
                passage="§2: the rule ...",
            ),
            Reading(
                "buffer",
                "buffer size",
                Variant("100"),
                (Variant("10", set={"links.*.queue.limit": 10}), Variant("1000")),
                kind="axis",
                claims=("a_beats_b",),
            ),
        ],
    )


def _data(paper: Paper, mean_a: float, mean_b: float, sd: float = 1.0, n: int = 8) -> PaperData:
    rng = random.Random(int(mean_a * 7 + mean_b))
    rows = [
        {"cc": cc, "seed": s, "goodput_bps": m + rng.gauss(0, sd)}
        for cc, m in (("a", mean_a), ("b", mean_b))
        for s in range(1, n + 1)
    ]
    return PaperData(
        paper,
        quick=False,
        sweeps=[],
        tables={"s": {"flows": pl.DataFrame(rows)}},
        store=Path("none"),
    )


def test_a_claim_that_holds_under_one_reading_and_fails_under_another_is_reported_so():
    paper = _paper()
    conds = {c.label: (c, r) for c, r, _ in conditions(paper)}
    assert list(conds) == ["default", "rule=flip", "buffer=10", "buffer=1000"]
    data = {
        "default": _data(paper, 20, 10),
        "rule=flip": _data(paper, 5, 10),  # the other reading reverses the claim
        "buffer=10": _data(paper, 20, 10.5),
        "buffer=1000": _data(paper, 10, 10, sd=3.0),  # no difference: undecided
    }
    rob = evaluate_data(paper, [(c, r, data[k]) for k, (c, r) in conds.items()])
    out = rob.outcomes("a_beats_b")
    assert out == {
        "default": SUPPORTED,
        "rule=flip": NOT_SUPPORTED,
        "buffer=10": SUPPORTED,
        "buffer=1000": INCONCLUSIVE,
    }
    assert rob.deciders["a_beats_b"] == ["rule", "buffer"]
    s = rob.sentences["a_beats_b"]
    assert s.startswith("Supported under the default choices;")
    assert "not supported under rule=flip" in s and "inconclusive under buffer=1000" in s
    assert "The choices that decide it: rule and buffer" in s
    # The effect and its interval come from the claim's numbers (Welch's diff and CI).
    flip = rob.cell("a_beats_b", "rule=flip")
    assert flip is not None and flip.effect is not None and flip.effect < -3
    assert flip.ci_low < flip.effect < flip.ci_high < 0
    # A reading that names its claims decides only those: buffer leaves b_positive alone.
    assert rob.cell("b_positive", "buffer=10") is None
    assert rob.outcomes("b_positive") == {"default": SUPPORTED, "rule=flip": SUPPORTED}
    assert rob.deciders["b_positive"] == []
    assert "no reading or axis decides it" in rob.sentences["b_positive"]
    assert rob.cell("b_positive", "default").effect is not None  # set on the ClaimResult


def test_one_reading_deciding_is_named_with_its_default():
    cells = [
        Cell("c", None, "default", "reading", SUPPORTED),
        Cell("c", "rule", "flip", "reading", NOT_SUPPORTED),
        Cell("c", "buffer", "10", "axis", SUPPORTED),
    ]
    s = claim_sentence(cells, {"rule": "paper", "buffer": "100"})
    assert s == (
        "Supported under the default choices; not supported under rule=flip. The choice "
        "that decides it: rule (default rule=paper); buffer does not change it."
    )


def test_a_failing_check_is_an_inconclusive_cell_with_the_error():
    paper = _paper()
    c = Condition(None, "default")
    broken = PaperData(paper, quick=False, sweeps=[], tables={}, store=Path("none"))
    rob = evaluate_data(paper, [(c, None, broken)])
    cell = rob.cell("a_beats_b", "default")
    assert cell is not None and cell.outcome is INCONCLUSIVE and "KeyError" in cell.error


def test_effect_of_takes_the_deciding_part_of_a_list():
    parts = [
        {"change": 3.0, "ci_low": 1.0, "ci_high": 5.0, "verdict": SUPPORTED},
        {"change": -4.0, "ci_low": -6.0, "ci_high": -2.0, "verdict": NOT_SUPPORTED},
    ]
    assert effect_of(ClaimResult(NOT_SUPPORTED, "", parts)) == (-4.0, -6.0, -2.0)
    assert effect_of(ClaimResult(SUPPORTED, "", parts)) == (3.0, 1.0, 5.0)
    # Parts that name their outcome ``outcome`` (as EWR's do) are read the same way.
    named = [
        {k if k != "verdict" else "outcome": str(v) if k == "verdict" else v for k, v in p.items()}
        for p in parts
    ]
    assert effect_of(ClaimResult(NOT_SUPPORTED, "", named)) == (-4.0, -6.0, -2.0)
    assert effect_of(ClaimResult(SUPPORTED, "", None)) == (None, None, None)
    assert effect_of(ClaimResult(SUPPORTED, "", None, effect=2.0, ci=(1.0, 3.0))) == (
        2.0,
        1.0,
        3.0,
    )


def test_quick_takes_the_first_alternative_and_only_selects_readings():
    paper = _paper()
    assert [c.label for c, _, _ in conditions(paper, quick=True)] == [
        "default",
        "rule=flip",
        "buffer=10",
    ]
    assert [c.label for c, _, _ in conditions(paper, only=["buffer"])] == [
        "default",
        "buffer=10",
        "buffer=1000",
    ]
    with pytest.raises(KeyError, match="no reading 'nope'"):
        conditions(paper, only=["nope"])


def test_variant_sweeps_are_named_and_the_default_reuses_the_plain_sweep():
    paper = _paper()
    plain = paper.resolve(quick=True)
    assert [r.name for r in plain] == ["constructed/s-quick"]
    flip = paper.resolve(quick=True, replace={"rule": paper.reading("rule").alternatives[0]})
    assert [r.name for r in flip] == ["constructed/s@rule=flip-quick"]
    assert flip[0].scenario.data["duration"] == 2.0
    # An identity alternative (buffer=1000) is the plain sweep: its runs are shared.
    same = paper.resolve(quick=False, replace={"buffer": paper.reading("buffer").alternatives[1]})
    assert [r.name for r in same] == ["constructed/s"]


def test_a_default_that_is_not_the_identity_applies_to_the_plain_sweeps():
    p = _paper()
    p.readings[1] = Reading(
        "buffer",
        "buffer size",
        Variant("10", set={"links.*.queue.limit": 10}),
        (Variant("1000", set={"links.*.queue.limit": 1000}),),
        kind="axis",
    )
    (plain,) = p.resolve(quick=False)
    assert plain.name == "constructed/s"
    assert all(ln["queue"]["limit"] == 10 for ln in plain.scenario.data["links"])
    (alt,) = p.resolve(quick=False, replace={"buffer": p.reading("buffer").alternatives[0]})
    assert alt.name == "constructed/s@buffer=1000"
    assert all(ln["queue"]["limit"] == 1000 for ln in alt.scenario.data["links"])


# --------------------------------------------------------------------------------------------
# end to end on real runs


def _tiny() -> Paper:
    def scenario(quick: bool):
        return chain(1, mac="tdma", cc=["newreno"], duration=2.0, link_rate="10Mbps")

    def more_goodput_than_1mbps(data: PaperData) -> ClaimResult:
        g = data.table("s", "flows")["goodput_bps"].to_list()
        s = one_sample([x - 1e6 for x in g])
        out = direction(s["ci_low"], s["ci_high"], sign=1)
        return ClaimResult(out, f"goodput {s['mean']:.0f} b/s above 1 Mbit/s", s)

    return Paper(
        key="tiny",
        title="Tiny",
        citation="none",
        summary="one hop",
        sweeps=[SweepSpec("s", scenario, grid={"links.*.error.per": [0.01]}, quick_seeds=2)],
        claims=[ClaimSpec("fast", "goodput above 1 Mbit/s", more_goodput_than_1mbps)],
        readings=[
            Reading(
                "rate",
                "the link rate the paper leaves out",
                Variant("10Mbps", why="the default"),
                (
                    Variant("500kbps", why="a slow link", set={"links.*.rate": "500kbps"}),
                    Variant("20Mbps", why="a fast link", set={"links.*.rate": "20Mbps"}),
                ),
                kind="axis",
                passage="§1: links are fast",
            )
        ],
    )


def test_reproduce_runs_each_variant_and_the_report_shows_the_table(tmp_path, monkeypatch):
    paper = _tiny()
    monkeypatch.setitem(papers._REGISTRY, "tiny", paper)
    code = main(["reproduce", "tiny", "--quick", "--out", str(tmp_path), "--workers", "1"])
    assert code == 0
    with Store(tmp_path / "tiny" / "runs.sqlite") as st:
        names = set(st.sweeps()["sweep"].to_list())
    # The quick size runs the first alternative only; the default is the plain sweep.
    assert names == {"tiny/s-quick", "tiny/s@rate=500kbps-quick"}
    html = (tmp_path / "tiny" / "quick" / "index.html").read_text()
    assert 'id="robustness"' in html
    assert 'data-condition="default" data-verdict="supported"' in html
    assert 'data-condition="rate=500kbps" data-verdict="not-supported"' in html
    rob = json.loads((tmp_path / "tiny" / "quick" / "robustness.json").read_text())
    assert rob["deciders"] == {"fast": ["rate"]}
    assert "not supported under rate=500kbps" in rob["sentences"]["fast"]
    # The docs' verdict map and generated sentences come from the same store.
    from airtcp import docgen

    data = papers.load_data(paper, tmp_path / "tiny" / "runs.sqlite", quick=True)
    vmap = docgen.verdict_map(data)
    assert "| claim | default | rate=500kbps |" in vmap
    assert "| `fast` | yes +" in vmap and "| **no** −" in vmap
    assert docgen.robustness_sentences(data) == f"- `fast`: {rob['sentences']['fast']}\n"
    # --no-readings leaves the table out; an unknown --reading is a clear error.
    code = main(
        ["report", "tiny", "--quick", "--out", str(tmp_path), "--no-readings"],
    )
    assert code == 0
    assert 'id="robustness"' not in (tmp_path / "tiny" / "quick" / "index.html").read_text()
    code = main(["report", "tiny", "--quick", "--out", str(tmp_path), "--reading", "nope"])
    assert code == 2


def test_a_variant_reruns_only_the_points_it_changes(tmp_path):
    """``Variant.unchanged`` names grid values whose runs the variant leaves as they are: they
    are not run again, and the condition's data take the default's runs there."""
    from airtcp.papers import load_data
    from airtcp.robustness import resolve_condition, run_conditions, run_resolved

    def scenario(quick: bool):
        return chain(1, mac="tdma", cc=["newreno"], duration=2.0, link_rate="10Mbps")

    def count(data: PaperData) -> ClaimResult:
        return ClaimResult(SUPPORTED, "runs", {"n": data.table("s", "flows").height})

    slow = Variant(
        "500kbps",
        why="a slow link (the promise that Reno's runs stay is the test's, not a fact)",
        set={"links.*.rate": "500kbps"},
        unchanged={"flows.*.cc": ["reno"]},
    )
    paper = Paper(
        key="shared",
        title="Shared",
        citation="none",
        summary="one hop",
        sweeps=[
            SweepSpec(
                "s",
                scenario,
                grid={"flows.*.cc": ["newreno", "reno"]},
                seeds=2,
            )
        ],
        claims=[ClaimSpec("n", "runs", count)],
        readings=[Reading("rate", "link rate", Variant("10Mbps"), (slow,), kind="axis")],
    )
    (r,) = paper.resolve(quick=False, replace={"rate": slow})
    assert r.name == "shared/s@rate=500kbps" and r.grid == {"flows.*.cc": ["newreno"]}
    assert r.shared is not None and r.shared.name == "shared/s"
    assert r.shared.grid == {"flows.*.cc": ["reno"]}
    # A variant whose every point is unchanged is the plain sweep.
    only_reno = Variant(
        "x", set={"links.*.rate": "1Mbps"}, unchanged={"flows.*.cc": ["newreno", "reno"]}
    )
    (same,) = paper.resolve(quick=False, replace={"rate": only_reno})
    assert same.name == "shared/s" and same.shared is None

    # A misspelt axis is refused when the paper registers.
    typo = Variant("y", set={"links.*.rate": "1Mbps"}, unchanged={"flows.*.ccc": ["reno"]})
    bad = Paper(
        key="typo",
        title="t",
        citation="c",
        summary="s",
        sweeps=paper.sweeps,
        readings=[Reading("rate", "link rate", Variant("10Mbps"), (typo,), kind="axis")],
    )
    with pytest.raises(ValueError, match="unchanged names 'flows.*.ccc'"):
        papers.register(bad)

    with Store(tmp_path / "runs.sqlite", create=True) as st:
        for plain in paper.resolve(quick=False):
            run_resolved(plain, st, workers=1, progress=False)
        run_conditions(paper, st, workers=1, progress=False)
        sweeps = {r["sweep"]: r["runs"] for r in st.sweeps().iter_rows(named=True)}
    assert sweeps["shared/s@rate=500kbps"] == 2  # newreno's two seeds only
    data = load_data(
        paper,
        tmp_path / "runs.sqlite",
        resolved=resolve_condition(paper, paper.reading("rate"), slow, quick=False),
    )
    base = load_data(paper, tmp_path / "runs.sqlite")
    f, b = data.table("s", "flows"), base.table("s", "flows")
    assert sorted(f["cc"].to_list()) == ["newreno", "newreno", "reno", "reno"]
    reno = f.filter(pl.col("cc") == "reno").sort("seed")["goodput_bps"].to_list()
    assert reno == b.filter(pl.col("cc") == "reno").sort("seed")["goodput_bps"].to_list()
    slow_nr = f.filter(pl.col("cc") == "newreno")["goodput_bps"].to_list()
    fast_nr = b.filter(pl.col("cc") == "newreno")["goodput_bps"].to_list()
    assert max(slow_nr) < 500e3 < min(fast_nr)
