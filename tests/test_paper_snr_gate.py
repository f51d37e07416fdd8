"""Seed paper 004 reproduction (`airtcp reproduce snr-gate`): the statistics behind its claims
on constructed data, and the quick reproduction end to end."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

from airtcp import Store, papers
from airtcp.analysis import t_cdf
from airtcp.cli import main
from airtcp.papers import PaperData, snr_gate
from airtcp.stats import INCONCLUSIVE, NOT_SUPPORTED, SUPPORTED, verdict, welch

from .test_report import OUTCOMES, ReportParser, assert_oracle_shares

# --------------------------------------------------------------------------------------------
# statistics


def test_welch_matches_its_formulas():
    a, b = [1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 2.0, 3.0, 4.5]
    w = welch(a, b)
    va, vb = 2.5, 3.05  # sample variances
    se = math.sqrt(va / 5 + vb / 5)
    df = (va / 5 + vb / 5) ** 2 / ((va / 5) ** 2 / 4 + (vb / 5) ** 2 / 4)
    assert w.diff == pytest.approx(0.9)
    assert w.se == pytest.approx(se)
    assert w.df == pytest.approx(df)
    assert w.p == pytest.approx(2 * (1 - t_cdf(0.9 / se, df)))
    assert w.ci_low < w.diff < w.ci_high
    assert (w.ci_high - w.diff) == pytest.approx(w.diff - w.ci_low)
    pooled = math.sqrt((4 * va + 4 * vb) / 8)
    assert w.g == pytest.approx(0.9 / pooled * (1 - 3 / (4 * 10 - 9)))
    # Swapping the samples flips the difference, not the test.
    r = welch(b, a)
    assert (r.diff, r.p, r.ci_low) == pytest.approx((-w.diff, w.p, -w.ci_high))
    # Constant samples decide nothing (no interval, the reason said); too few values give NaN.
    c = welch([2.0, 2.0], [1.0, 1.0])
    assert math.isnan(c.ci_low) and math.isnan(c.p) and "zero variance" in c.reason
    assert math.isnan(welch([1.0], [1.0, 2.0]).p)


def test_verdict_weighs_the_interval_against_the_papers_magnitude():
    # Paper +15 %: smallest counted +7.5 %.
    assert verdict(2.0, 30.0, 15.0) == SUPPORTED
    assert verdict(0.5, 8.0, 15.0) == SUPPORTED
    assert verdict(0.5, 6.0, 15.0) == NOT_SUPPORTED, "real but far smaller than the paper's"
    assert verdict(-9.0, -1.0, 15.0) == NOT_SUPPORTED, "the other way"
    assert verdict(-3.0, 20.0, 15.0) == INCONCLUSIVE
    assert verdict(math.nan, math.nan, 15.0) == INCONCLUSIVE
    # A falling quantity (paper −12 %): oriented so that a fall counts.
    assert verdict(-20.0, -2.0, -12.0) == SUPPORTED
    assert verdict(-4.0, 1.0, -12.0) == NOT_SUPPORTED
    assert verdict(-14.0, 3.0, -12.0) == INCONCLUSIVE
    assert verdict(1.0, 4.0, -0.7) == NOT_SUPPORTED
    # An explicit smallest effect.
    assert verdict(0.2, 0.9, 1.0, 1.0) == NOT_SUPPORTED
    assert verdict(0.2, 1.5, 1.0, 1.0) == SUPPORTED


# --------------------------------------------------------------------------------------------
# claims on constructed data


def _flows(seeds, throughput_kBps, overhead_pct, rng, noise):
    rows = []
    for s in seeds:
        tput = throughput_kBps * (1 + rng.gauss(0, noise))
        over = overhead_pct + rng.gauss(0, 2 * noise)
        rows.append(
            {
                "seed": s,
                "goodput_bps": tput * 8000,
                "completion_time_s": snr_gate.FILE_BYTES / (tput * 1000),
                "sent_bytes": round(snr_gate.FILE_BYTES * (1 + over / 100)),
            }
        )
    return pl.DataFrame(rows)


def _data(
    gain: float, overhead_cut: float, noise: float, n: int = 30, low: float = 0.5
) -> PaperData:
    """Reno at 80 kB/s and 2 % overhead; the gate at `gain` (relative) and `overhead_cut`
    points less at 5–6 dB, `low` times both at 3–4 dB; relative noise `noise` per seed."""
    rng = random.Random(4)
    seeds = list(range(1, n + 1))
    reno = _flows(seeds, 80.0, 2.0, rng, noise)
    gates = []
    for t in snr_gate.THRESHOLDS:
        k = 1.0 if t >= 5 else low
        df = _flows(seeds, 80.0 * (1 + k * gain), 2.0 - k * overhead_cut, rng, noise)
        gates.append(df.with_columns(pl.lit(t).alias(snr_gate.T_PATH)))
    paper = papers.get("snr-gate")
    data = PaperData(
        paper,
        quick=False,
        sweeps=[],
        tables={"reno": {"flows": reno}, "gate": {"flows": pl.concat(gates)}},
        store=None,
    )
    snr_gate.derive(data)
    return data


def _verdicts(data):
    out = {}
    for c in papers.get("snr-gate").claims:
        r = c.check(data)
        # The claim's outcome is the test's verdict, not a two-way reduction of it.
        assert r.outcome is r.numbers[0]["verdict"], (c.id, r.outcome)
        out[c.id] = (r.supported, r.sentence.split(":")[0], r.outcome, r)
    return out


def test_claims_supported_when_the_gain_matches_the_paper():
    v = _verdicts(_data(gain=0.20, overhead_cut=1.0, noise=0.03))
    for cid in v:
        assert v[cid][:3] == (True, "Supported", SUPPORTED), v[cid][3].sentence
    # Magnitudes stated beside the paper's.
    tput = v["throughput-improves"][3]
    assert "paper: +15%" in tput.sentence
    # Supported, and said to be larger than the paper's: +20% with its interval above +15%.
    assert tput.numbers[0]["magnitude"] == "larger than the paper's"
    assert "the measured change is larger than the paper's +15%" in tput.sentence
    assert tput.numbers[0]["change"] == pytest.approx(20.0, abs=2.0)
    assert tput.numbers[0]["ci_low"] < tput.numbers[0]["change"] < tput.numbers[0]["ci_high"]
    t = v["connection-time-falls"][3].numbers[0]
    assert t["change"] == pytest.approx(-16.7, abs=2.0) and t["paper"] == -12.0
    o = v["overhead-falls"][3].numbers[0]
    assert o["change"] == pytest.approx(-1.0, abs=0.05) and o["paper"] == -0.7


def test_claims_not_supported_when_the_gain_is_small_or_reversed():
    v = _verdicts(_data(gain=0.01, overhead_cut=-0.5, noise=0.01, low=1.0))
    for cid in v:
        assert v[cid][:3] == (False, "Not supported", NOT_SUPPORTED), v[cid][3].sentence
    # +1 % is significant here, but far below half the paper's +15 %.
    tput = v["throughput-improves"][3].numbers[0]
    assert tput["ci_low"] > 0 and tput["ci_high"] < 7.5


def test_claims_inconclusive_when_the_runs_scatter_too_much():
    v = _verdicts(_data(gain=0.0, overhead_cut=0.0, noise=0.6, n=3, low=1.0))
    for cid in v:
        assert v[cid][:3] == (False, "Inconclusive", INCONCLUSIVE), v[cid][3].sentence


def test_step_claim_inconclusive_without_both_threshold_pairs():
    data = _data(gain=0.2, overhead_cut=1.0, noise=0.03)
    cmp = data.table("gate", "cmp")
    data.set_table("gate", "cmp", cmp.filter(pl.col("threshold_db") >= 5))
    (step,) = [c for c in papers.get("snr-gate").claims if c.id == "small-then-large"]
    r = step.check(data)
    assert r.outcome is INCONCLUSIVE and not r.supported
    # The same gain at 3-4 dB as at 5-6 dB: no step.
    r = step.check(_data(gain=0.2, overhead_cut=1.0, noise=0.03, low=1.0))
    assert r.outcome is NOT_SUPPORTED and not r.supported


# --------------------------------------------------------------------------------------------
# end to end


@pytest.mark.long
def test_quick_reproduction_report_and_store(tmp_path):
    code = main(["reproduce", "snr-gate", "--quick", "--out", str(tmp_path), "--workers", "2"])
    assert code == 0
    html = (tmp_path / "snr-gate" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    assert_oracle_shares(p, papers.get("snr-gate"))
    paper = papers.get("snr-gate")
    assert set(p.figures) == {f.name for f in paper.figures}
    assert {"delay_throughput", "coherence_throughput"} <= set(p.figures)
    assert set(p.claims) == {c.id for c in paper.claims}
    assert set(p.claims.values()) <= OUTCOMES
    assert p.external == []
    # Reno's runs are drawn at every threshold; the caption says so and names both sweeps.
    cap = p.captions["throughput"]
    assert "snr-gate/gate-quick" in cap and "snr-gate/reno-quick" in cap
    assert "repeated at every threshold" in cap
    with Store(tmp_path / "snr-gate" / "runs.sqlite") as st:
        gate = st.flows("snr-gate/gate-quick")
        reno = st.flows("snr-gate/reno-quick")
        runs = st.runs("snr-gate/gate-quick")
        agents = [
            a
            for sweep in ("gate", "delay", "coh-gate")
            for a in st.table("agents", f"snr-gate/{sweep}-quick").to_dicts()
        ]
        delay = st.flows("snr-gate/delay-quick")
        delay_agents = st.table("agents", "snr-gate/delay-quick").to_dicts()
    spec = paper.sweep("gate")
    assert gate.height == len(snr_gate.THRESHOLDS) * spec.quick_seeds
    assert reno.height == spec.quick_seeds
    # The docs' tables render from the same runs.
    data = papers.load_data(paper, tmp_path / "snr-gate" / "runs.sqlite", quick=True)
    tables = {name: render(data) for name, render in paper.doc_tables.items()}
    assert tables["results"].count("\n| ") == 4  # header and three metrics
    assert tables["claims"].count("**") == 2 * len(paper.claims)
    assert "| delay (s) | 0.1 | 0.2 | 0.5 | 1 | 2 |" in tables["delay"]
    assert "| Tc (s) | 0.05 | 0.2 | 1 | 5 | 25 |" in tables["coherence"]
    # Every transfer completes and moves exactly the file.
    for df in (gate, reno):
        assert df["delivered_bytes"].to_list() == [snr_gate.FILE_BYTES] * df.height
        assert df["completion_time_s"].null_count() == 0
    assert (runs["status"] == "ok").all()
    # The gate never lets TCP emit new data while closed, and never decides on a sample
    # younger than its measurement delay (recorded per run by the core).
    assert all(a["new_data_while_closed"] == 0 for a in agents)
    assert all(a["closures"] > 0 for a in agents)
    assert all(a["min_sample_age_s"] >= 0.1 - 1e-12 for a in agents)
    # In the delay sweep the youngest sample each run used is exactly its delay.
    ages = {round(a["min_sample_age_s"], 9) for a in delay_agents}
    assert ages == set(snr_gate.DELAYS)
    assert delay.height == len(snr_gate.DELAYS) * spec.quick_seeds


# --------------------------------------------------------------------------------------------
# paired tests, and samples that cannot decide


def _shared_trace_data(gain: float, trace_spread: float, n: int = 30) -> PaperData:
    """Each seed's trace scales Reno and the gate alike (``trace_spread``, relative); the gate
    gains ``gain`` at 5–6 dB and half of it at 3–4 dB, with 1% noise of its own."""
    rng = random.Random(9)
    seeds = list(range(1, n + 1))
    trace = {s: 1 + rng.gauss(0, trace_spread) for s in seeds}

    def flows(k: float) -> pl.DataFrame:
        rows = []
        for s in seeds:
            tput = 80.0 * trace[s] * (1 + k) * (1 + rng.gauss(0, 0.01))
            rows.append(
                {
                    "seed": s,
                    "goodput_bps": tput * 8000,
                    "completion_time_s": snr_gate.FILE_BYTES / (tput * 1000),
                    "sent_bytes": round(snr_gate.FILE_BYTES * (1.02 - k / 20)),
                }
            )
        return pl.DataFrame(rows)

    gates = [
        flows(gain if t >= 5 else gain / 2).with_columns(pl.lit(t).alias(snr_gate.T_PATH))
        for t in snr_gate.THRESHOLDS
    ]
    data = PaperData(
        papers.get("snr-gate"),
        quick=False,
        sweeps=[],
        tables={"reno": {"flows": flows(0.0)}, "gate": {"flows": pl.concat(gates)}},
        store=None,
    )
    snr_gate.derive(data)
    return data


def test_claims_are_paired_over_the_traces():
    # A 10% gain under a 30% spread between traces: the paired test sees the gain, a
    # two-sample test would drown it in the traces' spread.
    data = _shared_trace_data(gain=0.1, trace_spread=0.3)
    v = _verdicts(data)
    assert v["throughput-improves"][2] is SUPPORTED
    c = v["throughput-improves"][3].numbers[0]
    assert c["pairs"] == 30 and not c["degenerate"]
    assert c["ci_high"] - c["ci_low"] < 3.0
    gate = snr_gate._gate_at(data, snr_gate.TEST_T)["throughput_kBps"].to_list()
    reno = data.table("reno", "flows").sort("seed")["throughput_kBps"].to_list()
    w = welch(gate, reno)
    assert w.ci_low < 0, "unpaired, the same data decide nothing"
    assert c["bootstrap_low"] < c["change"] < c["bootstrap_high"]
    assert "paired 95% CI" in v["throughput-improves"][3].sentence
    # The step claim: 30 traces are 30 pairs, not 60 runs.
    step = v["small-then-large"][3].numbers[0]
    assert step["pairs"] == 30
    assert step["change"] == pytest.approx(5.0, rel=0.2)


def test_a_gate_that_changes_nothing_decides_nothing():
    # The transfer ends before the fade: gated and plain runs are identical on every trace.
    data = _shared_trace_data(gain=0.0, trace_spread=0.3)
    reno = data.table("reno", "flows")
    gates = [reno.with_columns(pl.lit(t).alias(snr_gate.T_PATH)) for t in snr_gate.THRESHOLDS]
    data.set_table("gate", "flows", pl.concat(gates))
    snr_gate.derive(data)
    for cid, (_, _, outcome, r) in _verdicts(data).items():
        assert outcome is INCONCLUSIVE, (cid, r.sentence)
        assert r.numbers[0]["degenerate"], cid
        assert "no spread" in r.sentence, cid


def test_reports_state_the_half_effect_rule_beside_the_magnitude():
    paper = papers.get("snr-gate")
    assert "HALF the paper's change" in paper.notes and "magnitude verdict" in paper.notes
    r = _verdicts(_data(gain=0.2, overhead_cut=1.0, noise=0.03))["throughput-improves"][3]
    assert "reaching half the paper's change (+7.5%)" in r.sentence
    assert "magnitude: the measured change is larger than the paper's +15%" in r.sentence
    assert "only to reach half of it" in papers.get("wmecn").notes


# --------------------------------------------------------------------------------------------
# readings and sensitivity axes


def _variant_scenario(paper, variant, sweep):
    sc = paper.sweep(sweep).scenario(True).copy()
    for path, value in variant.set.items():
        sc.set(path, value)
    if variant.transform is not None:
        sc = variant.transform(sc, sweep)
    return sc


def test_readings_are_declared_and_every_variant_builds_a_valid_scenario():
    paper = papers.get("snr-gate")
    assert [r.name for r in paper.readings] == [
        "reading-age",
        "slow-depth",
        "fading-speed",
        "directions",
        "ack-per",
        "timing",
        "shadowing",
        "hysteresis",
    ]
    for r in paper.readings:
        assert r.passage and r.default.is_identity, r.name
        for v in r.alternatives:
            for spec in paper.sweeps:
                if v.applies(spec.name):
                    _variant_scenario(paper, v, spec.name).validate()
    age = paper.reading("reading-age")
    assert len(age.alternatives) == 5, "hold 100 ms x ages 50, 10; hold 10 ms x ages 10, 50, 100"
    young = {v.name: v for v in age.alternatives}["hold 10 ms, age 10 ms"]
    sc = _variant_scenario(paper, young, "gate")
    assert sc.get("links.0.error.interval") == 0.01
    assert sc.get("agents.0.measurement_delay") == 0.01 and sc.get("agents.0.interval") == 0.01
    assert sc.get("links.0.error.synth.shadowing_corr") == pytest.approx(0.9972, abs=1e-4)
    # Plain Reno's runs get the same channel, and no gate.
    reno = _variant_scenario(paper, young, "reno")
    assert reno.get("links.0.error.interval") == 0.01 and not reno.to_dict().get("agents")
    # The walk keeps its speed to each turning point.
    deep = _variant_scenario(paper, paper.reading("slow-depth").alternatives[1], "reno")
    w = deep.get("links.0.error.synth.waypoints")
    assert w[2][1] == 120 and (w[2][0] - w[1][0]) == pytest.approx(100 / snr_gate.WALK_MPS, 0.01)
    none, strong = paper.reading("shadowing").alternatives
    for v, db in ((none, 0.0), (strong, 6.0)):
        for sweep in ("reno", "gate"):
            assert _variant_scenario(paper, v, sweep).get("links.0.error.synth.shadowing_db") == db
    assert snr_gate.reno_scenario(True).get("links.0.error.synth.shadowing_db") == 3.0
    hyst = paper.reading("hysteresis").alternatives[0]
    assert hyst.sweeps == ("gate",)
    # Every reading is applied to the sweeps the claims read, no other.
    for r in paper.readings:
        for v in r.alternatives:
            assert set(v.sweeps) <= {"reno", "gate"}, (r.name, v.name)
    assert not paper.reading("fading-speed").alternatives[0].applies("coh-gate")
