"""Aggregation over seeds (mean, std, Student-t CI), Jain's fairness per run, and plots."""

from __future__ import annotations

import math

import polars as pl
import pytest

import airtcp
from airtcp import analysis, plots

# Two-sided 95% quantiles t(0.975, df) from a standard table.
T975 = {1: 12.7062, 2: 4.3027, 4: 2.7764, 9: 2.2622, 19: 2.0930, 29: 2.0452, 120: 1.9799}


@pytest.mark.parametrize("df", sorted(T975))
def test_t_quantiles_match_the_table(df):
    assert analysis.t_ppf(0.975, df) == pytest.approx(T975[df], abs=1e-4)


def test_t_distribution_basics():
    assert analysis.t_ppf(0.5, 7) == 0.0
    assert analysis.t_ppf(0.025, 9) == pytest.approx(-2.2622, abs=1e-4)
    assert analysis.t_ppf(0.995, 4) == pytest.approx(4.6041, abs=1e-4)
    assert analysis.t_cdf(analysis.t_ppf(0.9, 3.5), 3.5) == pytest.approx(0.9, abs=1e-10)
    assert analysis.t_cdf(0.0, 5) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        analysis.t_ppf(1.0, 3)
    with pytest.raises(ValueError):
        analysis.t_ppf(0.9, 0)


def test_aggregate_on_a_constructed_table():
    df = pl.DataFrame(
        {
            "scheme": ["a"] * 5 + ["b"] * 4 + ["c"],
            "per": [0.01] * 5 + [0.02] * 4 + [0.01],
            "seed": [1, 2, 3, 4, 5, 1, 2, 3, 4, 1],
            "goodput": [1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 10.0, None, float("nan"), 7.0],
        }
    )
    agg = analysis.aggregate(df, "goodput", ["scheme", "per"])
    assert agg.columns == ["scheme", "per", "n", "mean", "std", "ci_low", "ci_high", "ci_half"]
    a, b, c = agg.rows(named=True)
    # a: 1..5 -> mean 3, sample std sqrt(2.5), half-width t(0.975, 4) * std / sqrt(5)
    assert (a["scheme"], a["per"], a["n"]) == ("a", 0.01, 5)
    assert a["mean"] == pytest.approx(3.0)
    assert a["std"] == pytest.approx(math.sqrt(2.5))
    half = 2.776445105 * math.sqrt(2.5) / math.sqrt(5)
    assert a["ci_half"] == pytest.approx(half, rel=1e-8)
    assert (a["ci_low"], a["ci_high"]) == (pytest.approx(3 - half), pytest.approx(3 + half))
    # b: null and NaN are left out, the two equal values give a zero-width interval
    assert b["n"] == 2 and b["mean"] == 10.0 and b["std"] == 0.0 and b["ci_half"] == 0.0
    # c: one value -> no spread, no interval
    assert c["n"] == 1 and c["mean"] == 7.0 and math.isnan(c["std"]) and math.isnan(c["ci_half"])
    # 90% intervals are narrower; no grouping aggregates everything
    a90 = analysis.aggregate(df, "goodput", "scheme", level=0.9).row(0, named=True)
    assert a90["ci_half"] == pytest.approx(2.131847 * math.sqrt(2.5) / math.sqrt(5), rel=1e-6)
    assert analysis.aggregate(df, "goodput")["n"].to_list() == [8]
    with pytest.raises(KeyError, match="nope"):
        analysis.aggregate(df, "nope", "scheme")


def test_mean_ci_matches_aggregate():
    m = analysis.mean_ci([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert m["n"] == 8 and m["mean"] == 5.0
    assert m["std"] == pytest.approx(2.138089935)
    assert m["ci_half"] == pytest.approx(2.364624252 * 2.138089935 / math.sqrt(8), rel=1e-7)


def test_fairness_per_run():
    flows = pl.DataFrame(
        {
            "scenario_hash": ["h1", "h1", "h1", "h1", "h2", "h2"],
            "seed": [1, 1, 2, 2, 1, 1],
            "per": [0.0, 0.0, 0.0, 0.0, 0.1, 0.1],
            "name": ["f1", "f2", "f1", "f2", "f1", "f2"],
            "goodput_bps": [5.0, 5.0, 9.0, 3.0, 4.0, 0.0],
        }
    )
    out = analysis.fairness(flows)
    assert out.columns == ["scenario_hash", "seed", "per", "flows", "jain"]
    assert out["jain"].to_list() == pytest.approx([1.0, 144 / (2 * 90), 0.5])
    assert out["per"].to_list() == [0.0, 0.0, 0.1]
    only_f1 = analysis.fairness(flows, where=pl.col("name") == "f1")
    assert only_f1["jain"].to_list() == [1.0, 1.0, 1.0]


def test_plots_write_png_and_svg(tmp_path, short_dumbbell):
    rows = pl.DataFrame(
        {
            "per": [0.0, 0.0, 0.01, 0.01, 0.0, 0.0, 0.01, 0.01],
            "cc": ["newreno"] * 4 + ["vegas"] * 4,
            "goodput_bps": [5e5, 5.2e5, 4e5, 4.4e5, 4.8e5, 5e5, 3e5, 3.2e5],
        }
    )
    plots.metric_vs_param(rows, "per", "goodput_bps", "cc", scale=1e-3, out=tmp_path / "g.png")
    plots.metric_vs_param(rows, "per", "goodput_bps", "cc", out=tmp_path / "g.svg", logy=True)
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "g.svg").read_bytes()[:400]
    r = airtcp.run(short_dumbbell.with_values({"duration": "3s"}))
    plots.cwnd(r, ["ftp1", "ftp2"], out=tmp_path / "c.png")
    plots.queue(r, "R1->R2", out=tmp_path / "q.svg")
    assert (tmp_path / "c.png").stat().st_size > 1000 and (tmp_path / "q.svg").is_file()
    with pytest.raises(ValueError):
        plots.save(plots.queue(r, "R1->R2"), tmp_path / "q.jpg")
    with pytest.raises(KeyError):
        plots.cwnd(r, "nope")


def test_a_scaled_axis_without_a_label_says_its_scale():
    import polars as pl

    from airtcp.plots import metric_vs_param

    df = pl.DataFrame({"p": [0.01, 0.01, 0.02, 0.02], "goodput_bps": [1e6, 1.1e6, 2e6, 2.1e6]})
    fig = metric_vs_param(df, "p", "goodput_bps", scale=1e-6, xscale=100.0)
    ax = fig.axes[0]
    assert ax.get_ylabel() == "goodput_bps × 1e-06"
    assert ax.get_xlabel() == "p × 100"
    fig2 = metric_vs_param(df, "p", "goodput_bps", scale=1e-6, ylabel="goodput (Mbit/s)")
    assert fig2.axes[0].get_ylabel() == "goodput (Mbit/s)"


def test_axes_without_labels_are_named_in_words_with_units():
    from airtcp.plots import metric_vs_param, readable

    assert readable("goodput_bps") == ("goodput (kb/s)", 1e-3)
    assert readable("links.R2-D1.error.per") == ("packet error rate, R2-D1 (%)", 100.0)
    assert readable("flows.*.cc") == ("scheme", 1.0)
    assert readable("hops") == ("hops", 1.0)
    df = pl.DataFrame(
        {"hops": [4, 4, 5, 5, 6, 6], "goodput_bps": [3e5, 3.2e5, 2e5, 2.1e5, 1e5, 1.2e5]}
    )
    ax = metric_vs_param(df, "hops", "goodput_bps").axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("hops", "goodput (kb/s)")
    # Values in kb/s, ticks on whole hop counts only.
    assert ax.lines[0].get_ydata()[0] == pytest.approx(310.0)
    ax.figure.canvas.draw()
    assert all(float(t).is_integer() for t in ax.get_xticks())
    per = pl.DataFrame({"links.R2-D1.error.per": [0.0, 0.0, 0.02, 0.02], "goodput_bps": [1.0] * 4})
    ax = metric_vs_param(per, "links.R2-D1.error.per", "goodput_bps").axes[0]
    assert ax.get_xlabel() == "packet error rate, R2-D1 (%)"
    assert list(ax.lines[0].get_xdata()) == [0.0, 2.0]
