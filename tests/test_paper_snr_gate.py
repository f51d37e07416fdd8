"""Seed paper 004 reproduction (`airtcp reproduce snr-gate`)."""

from __future__ import annotations

from airtcp import Store, papers
from airtcp.cli import main
from airtcp.papers import snr_gate

from .test_report import ReportParser


def test_quick_reproduction_report_and_store(tmp_path):
    code = main(["reproduce", "snr-gate", "--quick", "--out", str(tmp_path), "--workers", "2"])
    assert code == 0
    html = (tmp_path / "snr-gate" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    paper = papers.get("snr-gate")
    assert set(p.figures) == {"throughput", "connection_time", "overhead"}
    assert set(p.claims) == {c.id for c in paper.claims}
    assert p.external == []
    with Store(tmp_path / "snr-gate" / "runs.sqlite") as st:
        gate = st.flows("snr-gate/gate-quick")
        reno = st.flows("snr-gate/reno-quick")
        runs = st.runs("snr-gate/gate-quick")
        agents = st.table("agents", "snr-gate/gate-quick").to_dicts()
    spec = paper.sweep("gate")
    assert gate.height == len(snr_gate.THRESHOLDS) * spec.quick_seeds
    assert reno.height == spec.quick_seeds
    # Every transfer completes and moves exactly the file.
    for df in (gate, reno):
        assert df["delivered_bytes"].to_list() == [snr_gate.FILE_BYTES] * df.height
        assert df["completion_time_s"].null_count() == 0
    assert (runs["status"] == "ok").all()
    # The gate never lets TCP emit new data while closed (recorded per run by the core, one
    # row per hook in the store's agents table).
    assert len(agents) == gate.height and all(a["new_data_while_closed"] == 0 for a in agents)
    assert all(a["closures"] > 0 for a in agents)


