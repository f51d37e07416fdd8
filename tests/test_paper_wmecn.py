"""Seed paper 000 reproduction (`airtcp reproduce wmecn`), multi-level ECN queues from Python,
verdict traces and name patterns in scenario paths."""

from __future__ import annotations

import random

import polars as pl
import pytest

import airtcp
from airtcp import Store, papers
from airtcp.builders import dumbbell
from airtcp.cli import main
from airtcp.papers import PaperData, wmecn
from airtcp.scenario import PathError
from airtcp.stats import INCONCLUSIVE, NOT_SUPPORTED, SUPPORTED

from .test_report import OUTCOMES, ReportParser, assert_oracle_shares, claim_lines


@pytest.mark.long
def test_quick_reproduction_report_and_store(tmp_path, capsys):
    args = ["reproduce", "wmecn", "--quick", "--out", str(tmp_path), "--workers", "2"]
    assert main(args) == 0
    out = capsys.readouterr().out
    html = (tmp_path / "wmecn" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    assert_oracle_shares(p, papers.get("wmecn"))
    paper = papers.get("wmecn")
    assert set(p.figures) == {f.name for f in paper.figures}
    assert set(p.claims) == {c.id for c in paper.claims}
    assert set(p.claims.values()) <= OUTCOMES
    assert claim_lines(out) == p.claims
    assert p.external == []
    # The quick report lives apart from the full one.
    assert not (tmp_path / "wmecn" / "index.html").exists()
    # Captions name the sweeps the points come from, not the derived table.
    cap = p.captions["goodput_n2"]
    assert "runs_all" not in cap and "runs (the FTP flows of each run summed)" in cap
    for scheme in wmecn.SCHEMES:
        assert f"wmecn/{scheme}-n2-quick" in cap
    assert "wmecn/reno-n4-quick" not in cap
    assert "clipped to the metric's range [0, 100]" in p.captions["type2_wmecn"]
    # No WMECN + LRT type-2 figure, and the report says why.
    assert "type2_wmecn_lrt" not in p.figures and "PER⁴" in html
    with Store(tmp_path / "wmecn" / "runs.sqlite") as st:
        flows = st.flows("wmecn/wmecn-n2-quick")
        reno = st.flows("wmecn/reno-n2-quick")
    spec = paper.sweep("wmecn-n2")
    n_points = len(spec.quick_grid[wmecn.PER_PATH]) * spec.quick_seeds
    ftp = flows.filter(flows["name"].str.starts_with("ftp"))
    assert ftp.height == 2 * n_points
    # WMECN judges losses; Reno does not.
    assert ftp["verdicts"].sum() > 0
    assert reno["verdicts"].sum() == 0
    # Every verdict is accounted for by its true cause.
    judged = (
        ftp["verdicts_on_wireless_loss"]
        + ftp["verdicts_on_congestion_loss"]
        + ftp["verdicts_on_no_loss"]
        + ftp["verdicts_on_other_loss"]
    )
    assert (judged == ftp["verdicts"]).all()
    # The docs' tables render from the same runs: one row per load and PER.
    data = papers.load_data(paper, tmp_path / "wmecn" / "runs.sqlite", quick=True)
    n_cells = len(wmecn.SOURCES) * len(wmecn.QUICK_PERS)
    for name, render in paper.doc_tables.items():
        table = render(data)
        body = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
        if name == "claims":
            assert len(body) == 1 + len(paper.claims)
        elif name == "oracle-share":
            # One table a goodput figure (a load): header, the oracle's goodput, each scheme.
            assert table.count("(figure `goodput_n") == len(wmecn.SOURCES)
            assert len(body) == len(wmecn.SOURCES) * (1 + len(wmecn.SCHEMES))
        else:
            assert len(body) == 1 + n_cells, name
    assert "| 8 | 10 % |" in paper.doc_tables["goodput"](data)
    # A second run finds everything in the store.
    capsys.readouterr()
    assert main(args) == 0
    assert "0 ran" in capsys.readouterr().err


def test_scheme_scenarios_are_valid_and_differ_as_the_paper_says():
    for scheme in wmecn.SCHEMES:
        sc = wmecn.build(scheme, 2).validate()
        q = sc.get("links.R1-R2.queue.kind")
        assert q == ("wmecn" if scheme.startswith("wmecn") else "red")
        assert sc.get("links.R2-D*.kind") == ["wireless", "wireless"]
        assert "error" not in sc.get("links.R2-V1"), "the UDP destination is wired"
    assert wmecn.build("snoop", 2).get("agents.0.kind") == "snoop"
    lrt = wmecn.build("wmecn_lrt", 2)
    assert lrt.get("links.R2-D*.arq.retry_limit") == [3, 3]
    assert lrt.get("tcp.dda_delay") == "30ms"
    assert wmecn.build("ecn", 2).get("tcp.ecn") is True
    with pytest.raises(ValueError, match="unknown scheme 'vegas'"):
        wmecn.build("vegas", 2)


def test_name_patterns_in_paths():
    sc = dumbbell(3, per=0.01, wireless=[1, 2, 3])
    sc.set("links.R2-D*.error.per", 0.05)
    assert sc.get("links.R2-D*.error.per") == [0.05, 0.05, 0.05]
    assert sc.get("links.R2-D?.rate") == ["10Mbps"] * 3
    assert sc.get("links.S1-R1.rate") == "10Mbps"
    with pytest.raises(PathError, match="no link named 'R9\\*'"):
        sc.set("links.R9*.error.per", 0.1)


def test_wmecn_queue_and_verdict_trace():
    sc = dumbbell(
        2,
        cc="wmecn",
        per=0.05,
        wireless=[1, 2],
        duration=30,
        bottleneck_queue={"kind": "wmecn", "limit": 50},
    )
    sc.set("trace.verdicts", True)
    r = airtcp.run(sc)
    v = r.verdicts()
    assert v.columns == ["flow", "t", "seq", "kind", "verdict", "truth"]
    assert v.height == sum(f["verdicts"] for f in r.raw["flows"])
    assert set(v["verdict"].unique()) <= {"wireless", "congestion"}
    assert set(v["truth"].unique()) <= {"wireless", "congestion", "no_loss", "other"}
    assert set(v["kind"].unique()) <= {"dup_acks", "timeout"}
    one = r.verdicts("ftp1")
    assert set(one["flow"].unique()) == {"ftp1"}
    link = r.link("R1->R2")
    assert link["drops_aqm"] == 0 and link["ecn_marks_mild"] > 0
    # Without the trace: a clear error saying how to record it.
    sc.set("trace.verdicts", False)
    with pytest.raises(KeyError, match="verdicts = true"):
        airtcp.run(sc).verdicts("ftp1")


def test_bad_queue_settings_name_the_field():
    sc = dumbbell(1, bottleneck_queue={"kind": "red", "limit": 50, "mid_threshold": 8})
    with pytest.raises(airtcp.ScenarioError) as e:
        sc.validate()
    assert e.value.path == "links[1].queue.mid_threshold"
    assert "red" in str(e.value)


# --------------------------------------------------------------------------------------------
# claims on constructed data


def _runs_all(make, seeds=10, pers=(0.0, 0.01, 0.1)):
    """The table the claims read (one row per run), from ``make(scheme, n, per, rng)`` giving
    the run's goodput (kbps) and verdict counts."""
    rng = random.Random(3)
    rows = []
    for scheme in wmecn.SCHEMES.values():
        for n in wmecn.SOURCES:
            for per in pers:
                for seed in range(1, seeds + 1):
                    r = {
                        "goodput_kbps": 600.0,
                        "verdicts_on_wireless_loss": 0,
                        "type2_errors": 0,
                        "verdicts_on_congestion_loss": 0,
                        "type1_errors": 0,
                    }
                    r.update(make(scheme, n, per, rng))
                    for k in list(r):
                        if k.startswith(("verdicts_", "type")):
                            r.setdefault(f"steady_{k}", r[k] if "type" in k else r[k])
                    rows.append({"scheme": scheme, "sources": n, "per": per, "seed": seed, **r})
    df = pl.DataFrame(rows).with_columns(
        pl.when(pl.col("verdicts_on_wireless_loss") > 0)
        .then(100.0 * pl.col("type2_errors") / pl.col("verdicts_on_wireless_loss"))
        .otherwise(None)
        .alias("type2_pct")
    )
    d = PaperData(wmecn.PAPER, quick=False, sweeps=[], tables={}, store=None)
    d.set_table(wmecn.FIRST, "runs_all", df)
    return d


def _outcomes(d):
    return {c.id: c.check(d) for c in wmecn.PAPER.claims}


def _good(scheme, n, per, rng):
    """The paper's picture: WMECN ahead of every end-to-end scheme, WMECN + LRT ahead of
    Snoop, no type-1 error in many congestion losses judged, rare type-2 errors falling."""
    lead = {"WMECN": 700, "WMECN + LRT": 760, "Snoop": 650}.get(scheme, 600)
    r = {"goodput_kbps": lead + rng.gauss(0, 5), "verdicts_on_congestion_loss": 40}
    if per > 0:
        rate = 0.005 if per < 0.05 else 0.001
        judged = 4000
        # Counts that vary between runs: identical runs would decide nothing (stats.welch).
        err = round(judged * rate) + rng.randint(-2, 2)
        r.update(verdicts_on_wireless_loss=judged, type2_errors=err)
    r.update(steady_verdicts_on_congestion_loss=30, steady_type1_errors=0)
    return r


def test_wmecn_claims_supported_on_data_that_match_the_paper():
    res = _outcomes(_runs_all(_good))
    for cid, r in res.items():
        assert r.outcome is SUPPORTED and r.supported, (cid, r.sentence)
    # "never": 0 errors in enough congestion losses to rule out a 1% rate
    # 2 schemes x 3 loads x 3 PERs x 10 seeds x 40
    assert "0 type-1 errors in 7200 congestion losses judged" in res["type1-never"].sentence
    under = [row for row in res["type2-rare-and-falling"].numbers if row.get("under 1%")]
    assert len(under) == 6 and {row["under 1%"] for row in under} == {"supported"}
    assert all(row["CI high %"] < 1.0 for row in under)
    for n in wmecn.SOURCES:
        beats = res[f"beats-end-to-end-n{n}"].numbers
        assert len(beats) == 2 * 3, "this load's PERs > 0 and end-to-end schemes"
        assert {row["sources"] for row in beats} == {n}
        assert {row["outcome"] for row in beats} == {"supported"}
        assert all(row["difference %"] == pytest.approx(100 / 6, abs=1) for row in beats)
        assert f"At {n} sources." in res[f"beats-end-to-end-n{n}"].sentence
    assert "0 type-1 errors in 5400 congestion losses judged" in res["type1-never-steady"].sentence


def test_wmecn_claims_not_supported_on_data_that_contradict_the_paper():
    def bad(scheme, n, per, rng):
        r = _good(scheme, n, per, rng)
        if scheme == "ECN" and n == 8 and per == 0.01:
            r["goodput_kbps"] = 760 + rng.gauss(0, 5)  # ECN ahead of WMECN at one point
        if scheme == "Snoop":
            r["goodput_kbps"] = 800 + rng.gauss(0, 5)  # Snoop ahead of WMECN + LRT
        if scheme == "WMECN" and per == 0.01:
            r["type1_errors"] = 1
            r["type2_errors"] = round(r["verdicts_on_wireless_loss"] * 0.05)  # 5%, not < 1%
        return r

    res = _outcomes(_runs_all(bad))
    # Decided per load: ECN's lead at 8 sources does not carry over to 2 and 4, and errors
    # only in the warm-up leave "never in the steady state" standing.
    expect = {c.id: NOT_SUPPORTED for c in wmecn.PAPER.claims}
    expect.update({"beats-end-to-end-n2": SUPPORTED, "beats-end-to-end-n4": SUPPORTED})
    expect["type1-never-steady"] = SUPPORTED
    assert {cid: r.outcome for cid, r in res.items()} == expect
    beats = res["beats-end-to-end-n8"]
    below = [row for row in beats.numbers if row["outcome"] == "not supported"]
    assert [(row["against"], row["sources"], row["PER %"]) for row in below] == [("ECN", 8, 1.0)]
    assert "ECN at 8 sources, PER 1%" in beats.sentence
    # The intervals are simultaneous over every load's comparisons, not this load's only.
    assert "over all 18 comparisons of every load" in beats.sentence
    for n in wmecn.SOURCES:
        lrt = res[f"lrt-beats-snoop-n{n}"].numbers
        assert {row["outcome"] for row in lrt} == {"not supported"}
    t1 = res["type1-never"]
    assert "30 type-1 errors" in t1.sentence and "Every error falls in the first" in t1.sentence
    t2 = res["type2-rare-and-falling"].numbers
    over = [row for row in t2 if row.get("under 1%") == "not supported"]
    assert [(row["sources"], row["PER %"]) for row in over] == [(2, 1.0), (4, 1.0), (8, 1.0)]


def test_wmecn_claims_inconclusive_when_the_data_cannot_decide():
    def scattered(scheme, n, per, rng):
        r = {"goodput_kbps": 650 + rng.gauss(0, 80)}
        if per > 0:
            judged = 40
            r.update(verdicts_on_wireless_loss=judged, type2_errors=rng.randint(0, 2))
        return r  # no congestion loss judged at all

    res = _outcomes(_runs_all(scattered, seeds=2))
    for cid, r in res.items():
        assert r.outcome is INCONCLUSIVE and not r.supported, (cid, r.sentence)
    # 0 of 0 is not evidence for "never"
    assert "0 type-1 errors in 0 congestion losses judged" in res["type1-never"].sentence


def test_never_outcome_needs_enough_judged_losses():
    assert wmecn.never_outcome(0, 0)[0] is INCONCLUSIVE
    assert wmecn.never_outcome(0, 100)[0] is INCONCLUSIVE, "95% bound 3% is above 1%"
    o, upper = wmecn.never_outcome(0, 400)
    assert o is SUPPORTED and upper == pytest.approx(1 - 0.05 ** (1 / 400))
    assert wmecn.never_outcome(1, 10_000)[0] is NOT_SUPPORTED
    # Losses of one run are not independent verdicts: one run decides nothing.
    assert wmecn.never_outcome(0, 10_000, runs=1)[0] is INCONCLUSIVE


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
    paper = wmecn.PAPER
    assert [r.name for r in paper.readings] == [
        "marks",
        "buffer",
        "udp",
        "mid-th",
        "max-th",
        "p-max",
        "red-gentle",
        "ack-errors",
        "westwood-recovery",
    ]
    for r in paper.readings:
        assert r.passage and r.default.is_identity, r.name
        for v in r.alternatives:
            used = [s.name for s in paper.sweeps if v.applies(s.name)]
            assert used, (r.name, v.name)
            for sweep in used:
                _variant_scenario(paper, v, sweep).validate()
    marks = paper.reading("marks").alternatives[0]
    sc = _variant_scenario(paper, marks, "wmecn-n4")
    assert [f.get("cc_params") for f in sc.to_dict()["flows"]] == [{"react_to_marks": 0}] * 4 + [
        None
    ]
    assert not marks.applies("reno-n4") and marks.applies("wmecn_lrt-n8")
    wr = paper.reading("westwood-recovery")
    assert wr.alternatives[0].sweeps == ("westwood-n2", "westwood-n4", "westwood-n8")
    assert set(wr.claims) == {f"beats-end-to-end-n{n}" for n in wmecn.SOURCES}
    assert not paper.reading("mid-th").alternatives[0].applies("reno-n2")


def test_gentle_and_ack_error_axes():
    paper = wmecn.PAPER
    (gentle,) = paper.reading("red-gentle").alternatives
    assert gentle.applies("snoop-n4") and gentle.applies(f"{wmecn.ORACLE}-n2")
    assert not gentle.applies("wmecn-n4") and not gentle.applies("wmecn_lrt-n2")
    q = _variant_scenario(paper, gentle, "reno-n4").get(wmecn.BOTTLENECK)
    assert q["kind"] == "red" and q["gentle"] is True
    (acks,) = paper.reading("ack-errors").alternatives
    d = _variant_scenario(paper, acks, "wmecn-n2").to_dict()
    errs = [ln["error"] for ln in d["links"] if ln["name"].startswith("R2-D")]
    assert len(errs) == 2 and all(e["applies_to"] == "all" for e in errs)
    # The runs at 0% PER are the default's: not run again, and identical (no packet is hit).
    (r,) = [
        x
        for x in paper.resolve(quick=False, replace={"ack-errors": acks})
        if x.spec.name == "reno-n2"
    ]
    assert 0.0 not in r.grid[wmecn.PER_PATH] and r.shared.grid == {wmecn.PER_PATH: [0.0]}
    runs = []
    for v in (None, acks):
        sc = paper.sweep("reno-n2").scenario(True)
        if v is not None:
            sc = _variant_scenario(paper, v, "reno-n2")
        sc = sc.set(wmecn.PER_PATH, 0.0).update({"duration": 5, "warmup": 1})
        runs.append(airtcp.run(sc, seed=3).flows.drop("wall_time_s", strict=False))
    assert runs[0].equals(runs[1])


def test_udp_background_readings():
    paper = wmecn.PAPER
    two, none = paper.reading("udp").alternatives
    d = _variant_scenario(paper, two, "reno-n2").to_dict()
    udp = [f for f in d["flows"] if f["name"].startswith("udp")]
    assert [(f["name"], f["src"], f["dst"]) for f in udp] == [
        ("udp1", "U1", "V1"),
        ("udp2", "U2", "V2"),
    ]
    assert udp[0]["app"] == udp[1]["app"]
    d = _variant_scenario(paper, none, "reno-n2").to_dict()
    assert [f["name"] for f in d["flows"]] == ["ftp1", "ftp2"]
    assert {n["name"] for n in d["nodes"]}.isdisjoint({"U1", "V1"})
    # Without background the FTP flows start at a seeded offset: seeds differ at 0% loss.
    sc = _variant_scenario(paper, none, "reno-n2").update({"duration": 5, "warmup": 1})
    a, b = (airtcp.run(sc, seed=k).flows["goodput_bps"].to_list() for k in (1, 2))
    assert a != b
    assert all(f["start_jitter"] == "100ms" for f in d["flows"])
