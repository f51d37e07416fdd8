"""Every congestion-control scheme is selectable by name from Python, with parameters."""

from __future__ import annotations

import pytest

import airtcp

ALL = [
    "reno",
    "newreno",
    "sack",
    "vegas",
    "westwood",
    "westwood+",
    "veno",
    "cubic",
    "bbr",
    "mecn",
    "wmecn",
    "muzha",
    "tibet",
    "newreno-ern",
    "newreno-adaptive",
    "newreno-adaptive-online",
    "jersey",
    "newjersey",
    "ewr",
    "highspeed",
    "scalable",
    "bic",
    "hybla",
    "illinois",
    "htcp",
    "yeah",
    "lp",
    "ledbat",
    "dctcp",
    "oracle",
]


def test_schemes_lists_every_scheme_with_a_description():
    listed = dict(airtcp.schemes())
    assert sorted(listed) == sorted(ALL)
    assert all(len(d) > 20 for d in listed.values())


@pytest.mark.parametrize("cc", ALL)
def test_each_scheme_runs_and_reports_itself(cc):
    r = airtcp.run(airtcp.dumbbell(2, cc=cc, per=0.01, duration=20.0))
    flows = r.flows
    assert flows["cc"].to_list() == [cc, cc]
    # Both flows move data; the bottleneck is 1 Mbps, so each gets a real share.
    assert all(g > 50_000 for g in flows["goodput_bps"].to_list())
    assert flows["order_violations"].sum() == 0


def test_bandwidth_estimate_only_from_the_schemes_that_make_one():
    # The rate estimators (Westwood's, TIBET's, Jersey's) and BBR's bottleneck bandwidth.
    estimators = {"westwood", "westwood+", "bbr", "tibet", "jersey", "newjersey"}
    have = {
        cc
        for cc in ALL
        if airtcp.run(airtcp.dumbbell(1, cc=cc, duration=5.0)).flows["bwe_bps"][0] is not None
    }
    assert have == estimators
    # A lone flow's estimate is the 1 Mbps bottleneck's payload rate.
    r = airtcp.run(airtcp.dumbbell(1, cc="westwood+", duration=20.0))
    assert r.flows["bwe_bps"][0] == pytest.approx(1e6 * 1000 / 1040, rel=0.10)


def test_bbr_runs_from_python_and_records_its_states():
    r = airtcp.run(airtcp.dumbbell(1, cc="bbr", duration=20.0, trace=True))
    f = r.flows.row(0, named=True)
    assert f["cc"] == "bbr"
    # The 1 Mbps bottleneck carries 1000-byte segments in 1040-byte packets.
    assert f["goodput_bps"] > 0.85e6 * 1000 / 1040
    assert f["bbr_rounds"] > 50
    t, state = r.cc_state("ftp1")
    # DRAIN may begin and end on the same ACK (the 20-packet buffer already limits inflight),
    # and the series notes the state after each ACK.
    assert state[0] == "startup" and "probe_bw" in state
    assert set(state) <= {"startup", "drain", "probe_bw", "probe_rtt"}
    assert t[0] == 0.0 and (t[1:] > t[:-1]).all()
    assert "cc_state" in r.raw["series"]
    # A scheme without states records none.
    plain = airtcp.run(airtcp.dumbbell(1, cc="cubic", duration=5.0, trace=True))
    assert "cc_state" not in plain.raw["series"]
    with pytest.raises(KeyError, match="only schemes with states"):
        plain.cc_state("ftp1")


def test_scheme_parameters_change_behaviour():
    base = airtcp.run(airtcp.dumbbell(1, cc="vegas", duration=30.0, trace=True))
    deeper = airtcp.run(
        airtcp.dumbbell(1, cc="vegas", cc_params={"alpha": 6, "beta": 8}, duration=30.0, trace=True)
    )
    q0 = base.links.filter(base.links["name"] == "R1->R2")["mean_queue_packets"][0]
    q1 = deeper.links.filter(deeper.links["name"] == "R1->R2")["mean_queue_packets"][0]
    assert q1 > q0 + 2, (q0, q1)


def test_bad_scheme_parameter_names_the_field():
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(airtcp.dumbbell(1, cc="cubic", cc_params={"bta": 0.5}))
    assert ei.value.path == "flows[0].cc_params.bta"
    assert "did you mean 'beta'" in str(ei.value)


def test_ecn_flow_against_marking_queue():
    sc = airtcp.dumbbell(1, cc="newreno", duration=20.0, tcp={"ecn": True})
    sc.set("links.R1-R2.queue", {"kind": "ecn_threshold", "limit": 50, "mark_threshold": 5})
    r = airtcp.run(sc)
    f = r.flows.row(0, named=True)
    link = r.links.filter(r.links["name"] == "R1->R2").row(0, named=True)
    assert link["ecn_marks"] > 0
    assert f["ecn_reductions"] > 0
    assert f["lost_packets"] == 0, "marking keeps the queue far from its 50-packet limit"
