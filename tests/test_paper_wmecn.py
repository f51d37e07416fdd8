"""Seed paper 000 reproduction (`airtcp reproduce wmecn`), multi-level ECN queues from Python,
verdict traces and name patterns in scenario paths."""

from __future__ import annotations

import pytest

import airtcp
from airtcp import Store, papers
from airtcp.builders import dumbbell
from airtcp.cli import main
from airtcp.papers import wmecn
from airtcp.scenario import PathError

from .test_report import ReportParser


def test_quick_reproduction_report_and_store(tmp_path, capsys):
    args = ["reproduce", "wmecn", "--quick", "--out", str(tmp_path), "--workers", "2"]
    assert main(args) == 0
    html = (tmp_path / "wmecn" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    paper = papers.get("wmecn")
    assert set(p.figures) == {f.name for f in paper.figures}
    assert set(p.claims) == {c.id for c in paper.claims}
    assert p.external == []
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
    assert e.value.path == "links[R1-R2].queue.mid_threshold" or "mid_threshold" in str(e.value)
    assert "red" in str(e.value)
