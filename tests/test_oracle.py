"""The loss-cause oracle as the upper bound of every reproduction's goodput figures: the share
of it (stats.share_of, PaperData.shares, docgen.oracle_shares) on constructed data, its line
in a figure, and, per paper, that the goodput figures name it and the quick sweeps run it."""

from __future__ import annotations

import math
import random
import re

import polars as pl
import pytest

from airtcp import papers, plots
from airtcp.docgen import oracle_shares
from airtcp.papers import ORACLE, FigureSpec, Paper, PaperData, SweepSpec
from airtcp.stats import share_of, welch

# --------------------------------------------------------------------------------------------
# share_of on constructed data


def _runs(means: dict[str, dict[float, float]], noise: float, n: int = 8) -> pl.DataFrame:
    """``n`` runs of each scheme at each x, goodput around the given mean (relative noise)."""
    rng = random.Random(3)
    rows = []
    for cc, by_x in means.items():
        for x, m in by_x.items():
            for seed in range(1, n + 1):
                rows.append(
                    {"cc": cc, "x": x, "seed": seed, "goodput": m * (1 + rng.gauss(0, noise))}
                )
    return pl.DataFrame(rows)


def test_share_is_the_ratio_of_means_with_an_interval_from_both_samples():
    df = _runs({ORACLE: {0.0: 10.0, 0.1: 8.0}, "a": {0.0: 9.0, 0.1: 4.0}}, noise=0.01)
    rows = share_of(df, "goodput", label="cc", ref=ORACLE, at="x")
    assert [(r["x"], r["cc"]) for r in rows] == [(0.0, "a"), (0.1, "a")]
    for r in rows:
        at = df.filter(pl.col("x") == r["x"])
        a = at.filter(pl.col("cc") == "a")["goodput"]
        o = at.filter(pl.col("cc") == ORACLE)["goodput"]
        assert r["share"] == pytest.approx(100 * a.mean() / o.mean())
        assert r["n"] == r["n_ref"] == 8
        # 100 % plus Welch's interval of both samples in % of the oracle's mean, the oracle's
        # spread about its mean scaled by the share (the delta method for a ratio of means).
        share = a.mean() / o.mean()
        w = welch(
            [100 * v / o.mean() for v in a], [100 + share * (100 * v / o.mean() - 100) for v in o]
        )
        assert r["ci_low"] == pytest.approx(100 + w.ci_low)
        assert r["ci_high"] == pytest.approx(100 + w.ci_high)
        assert r["ci_low"] < r["share"] < r["ci_high"]
    assert rows[0]["share"] == pytest.approx(90, abs=2)
    assert rows[1]["share"] == pytest.approx(50, abs=2)


def test_share_interval_narrows_with_less_noise_and_holds_the_true_share():
    means = {ORACLE: {1.0: 10.0}, "a": {1.0: 7.0}}
    wide = share_of(_runs(means, 0.2), "goodput", label="cc", ref=ORACLE, at="x")[0]
    narrow = share_of(_runs(means, 0.01), "goodput", label="cc", ref=ORACLE, at="x")[0]
    assert narrow["ci_high"] - narrow["ci_low"] < wide["ci_high"] - wide["ci_low"]
    assert narrow["ci_low"] < 70 < narrow["ci_high"]


def test_share_above_the_bound_is_reported_as_it_is():
    # A scheme that repairs losses below TCP can beat the oracle: > 100 %, not clipped.
    df = _runs({ORACLE: {0.0: 5.0}, "snoop": {0.0: 6.0}}, noise=0.01)
    (r,) = share_of(df, "goodput", label="cc", ref=ORACLE, at="x")
    assert r["share"] == pytest.approx(120, abs=2) and r["ci_low"] > 100


def test_share_edge_cases():
    # Points without oracle runs, or with a zero oracle mean, give no row; one run gives no
    # interval; an interval reaching below 0 is clipped there.
    df = _runs({ORACLE: {1.0: 10.0, 3.0: 0.0}, "a": {1.0: 1.0, 2.0: 5.0, 3.0: 1.0}}, noise=0.0)
    rows = share_of(df, "goodput", label="cc", ref=ORACLE, at="x")
    assert [r["x"] for r in rows] == [1.0]
    one = _runs({ORACLE: {1.0: 10.0}, "a": {1.0: 5.0}}, noise=0.1, n=1)
    (r,) = share_of(one, "goodput", label="cc", ref=ORACLE, at="x")
    a, o = (one.filter(pl.col("cc") == c)["goodput"][0] for c in ("a", ORACLE))
    assert r["share"] == pytest.approx(100 * a / o)
    assert math.isnan(r["ci_low"]) and math.isnan(r["ci_high"])
    tiny = pl.DataFrame(
        {"cc": [ORACLE, ORACLE, "a", "a"], "x": [1, 1, 1, 1], "goodput": [1.0, 19.0, 0.1, 0.3]}
    )
    (r,) = share_of(tiny, "goodput", label="cc", ref=ORACLE, at="x")
    assert r["ci_low"] == 0.0 and r["share"] == pytest.approx(2.0)
    # No oracle at all: nothing to share.
    assert share_of(_runs({"a": {1.0: 1.0}}, 0.1), "goodput", label="cc", ref=ORACLE, at="x") == []


# --------------------------------------------------------------------------------------------
# PaperData.shares, the docs' table and the figure


def _paper(**fig: object) -> Paper:
    spec = dict(
        name="goodput",
        title="Goodput vs p",
        sweep="s",
        x="x",
        metric="goodput",
        group="cc",
        xscale=100.0,
        scale=1e-3,
        xlabel="p (%)",
        ylabel="goodput (kb/s)",
        upper=ORACLE,
    )
    spec.update(fig)
    return Paper(
        key="t",
        title="t",
        citation="",
        summary="",
        sweeps=[SweepSpec("s", lambda quick: None, grid={})],  # type: ignore[arg-type,return-value]
        figures=[FigureSpec(**spec)],  # type: ignore[arg-type]
    )


def _data(paper: Paper) -> PaperData:
    df = _runs(
        {ORACLE: {0.01: 1000.0, 0.1: 800.0}, "a": {0.01: 900.0, 0.1: 400.0}, "b": {0.01: 500.0}},
        noise=0.02,
    )
    return PaperData(paper, quick=True, sweeps=[], tables={"s": {"flows": df}}, store=None)


def test_paper_data_shares_follow_the_figure():
    data = _data(_paper())
    s = data.shares("goodput")
    assert s.columns == ["group", "x", "n", "share", "ci_low", "ci_high"]
    got = {(r["group"], r["x"]): r["share"] for r in s.to_dicts()}
    # x as the figure shows it (× xscale); the share does not depend on the metric's scale.
    assert set(got) == {("a", 1.0), ("a", 10.0), ("b", 1.0)}
    assert got[("a", 10.0)] == pytest.approx(50, abs=3)
    # A figure without an upper bound, or filtered to lines without the oracle, has none.
    assert _data(_paper(upper=None)).shares("goodput").height == 0
    assert _data(_paper(where={"cc": ["a", "b"]})).shares("goodput").height == 0


def test_docs_table_gives_the_oracle_mean_then_each_share():
    text = oracle_shares(_data(_paper()))
    assert "*Goodput vs p* (figure `goodput`)" in text
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    assert lines[0] == "| p (%) | 1 | 10 |"
    # The oracle's mean in the figure's units (kb/s), then the shares with their intervals.
    assert re.fullmatch(r"\| oracle: goodput \(kb/s\) \| 1\.0\d \| 0\.[78]\d\d \|", lines[1])
    cell = r"\d+ \(\d+ to \d+\)"
    assert re.fullmatch(rf"\| a: % of oracle \| {cell} \| {cell} \|", lines[2])
    assert lines[2].startswith("| a: % of oracle | 8") and "| 4" in lines[2]
    assert re.fullmatch(r"\| b: % of oracle \| [45]\d \(\d+ to \d+\) \| – \|", lines[3])
    assert "No figure" in oracle_shares(_data(_paper(upper=None)))


def test_figure_draws_the_oracle_as_a_dashed_black_upper_bound():
    data = _data(_paper())
    rows = data.table("s")
    fig = plots.metric_vs_param(rows, "x", "goodput", "cc", upper=ORACLE)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    bound = lines["oracle (upper bound)"]
    assert bound.get_linestyle() == "--" and bound.get_color() == "black"
    assert "a" in lines and lines["a"].get_linestyle() == "-"
    # Drawn last, so it ends the legend.
    assert ax.get_legend_handles_labels()[1][-1] == "oracle (upper bound)"
    # Without ``upper`` the oracle is one line among the others.
    plain = plots.metric_vs_param(rows, "x", "goodput", "cc")
    assert "oracle" in {ln.get_label() for ln in plain.axes[0].get_lines()}


def test_an_upper_bound_needs_a_group():
    with pytest.raises(ValueError, match="upper bound but no group"):
        papers.register(_paper(group=None))


# --------------------------------------------------------------------------------------------
# every reproduction: its goodput figures are bounded by the oracle, and the quick size runs it

#: the goodput figures of each reproduction (figures of something else have no oracle line;
#: see each paper's docs for why those that show goodput otherwise have none)
GOODPUT_FIGURES = {
    "wmecn": {"goodput_n2", "goodput_n4", "goodput_n8"},
    "snr-gate": {"throughput", "delay_throughput", "coherence_throughput", "coherence_goodput"},
    "muzha": {"throughput", "lossy4", "lossy8", "lossy16"},
    "membrane": {
        "grid_base",
        "grid_xl",
        "grid_best",
        "chain_base",
        "chain_best",
        "hop1_best",
    },
    "ewr": {"fig2", "fig4"},
    "padhye": {"goodput_vs_p"},
}


def _runs_oracle(sweep: papers.ResolvedSweep) -> bool:
    """Whether any run of a resolved sweep has a flow with the oracle as its scheme."""
    if any(ORACLE in vals for path, vals in sweep.grid.items() if path.endswith(".cc")):
        return True
    return any(f.get("cc") == ORACLE for f in sweep.scenario.data.get("flows", []))


def test_every_reproduction_is_covered():
    assert set(GOODPUT_FIGURES) == set(papers.papers())


@pytest.mark.parametrize("key", sorted(GOODPUT_FIGURES))
def test_goodput_figures_have_the_oracle_as_upper_bound(key):
    paper = papers.get(key)
    bounded = {f.name for f in paper.figures if f.upper is not None}
    assert bounded == GOODPUT_FIGURES[key]
    assert {f.upper for f in paper.figures if f.upper is not None} == {ORACLE}
    # The oracle's share is reported for every goodput figure but those of changes.
    for f in paper.figures:
        if f.upper is not None:
            assert f.share == ("change" not in (f.ylabel or "")), f.name
    # Both sizes run it.
    for quick in (True, False):
        sweeps = paper.resolve(quick=quick)
        assert any(_runs_oracle(s) for s in sweeps), (key, quick)
    # And the docs render its share.
    assert "oracle-share" in paper.doc_tables


def test_quick_sweeps_run_the_oracle_where_each_figure_draws_from():
    """The sweeps a bounded figure's rows come from run the oracle at the quick size (the
    derived tables combine sweeps: those are named here)."""
    sources = {
        ("wmecn", "goodput_n2"): [f"oracle-n{n}" for n in (2, 4, 8)],
        ("snr-gate", "throughput"): ["oracle"],
        ("snr-gate", "coherence_goodput"): ["coh-oracle"],
        ("muzha", "throughput"): ["chains"],
        ("muzha", "lossy4"): ["lossy"],
        ("membrane", "grid_base"): ["grid-base"],
        ("membrane", "chain_best"): ["chain4-base"],
        ("membrane", "hop1_best"): ["hop1-base"],
        ("ewr", "fig2"): ["single"],
        ("ewr", "fig4"): ["mixed"],
        ("padhye", "goodput_vs_p"): ["loss"],
    }
    for (key, fig), names in sources.items():
        paper = papers.get(key)
        assert fig in {f.name for f in paper.figures}
        quick = {s.spec.name: s for s in paper.resolve(quick=True)}
        for n in names:
            assert _runs_oracle(quick[n]), (key, fig, n)
