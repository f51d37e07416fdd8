"""The dumbbell builder."""

from __future__ import annotations

import pytest

import airtcp
from airtcp.builders import parse_seconds


def _link(s, name):
    return s.get(f"links.{name}")


def test_defaults_match_seed_paper_000():
    s = airtcp.dumbbell()
    assert s["tcp"]["segment_size"] == 1000 and s["tcp"]["header_size"] == 40
    assert [n["name"] for n in s["nodes"]] == ["S1", "R1", "R2", "D1"]
    assert (_link(s, "S1-R1")["rate"], _link(s, "S1-R1")["delay"]) == ("10Mbps", "2ms")
    bott = _link(s, "R1-R2")
    assert (bott["rate"], bott["delay"]) == ("1Mbps", "30ms")
    assert bott["queue"] == {"kind": "droptail", "limit": 20, "unit": "packets"}
    assert (_link(s, "R2-D1")["rate"], _link(s, "R2-D1")["delay"]) == ("10Mbps", "4ms")
    assert "error" not in _link(s, "R2-D1")
    assert s["duration"] == 100 and s.seed == 1
    f = s["flows"][0]
    assert (f["name"], f["src"], f["dst"], f["cc"], f["app"]) == (
        "ftp1",
        "S1",
        "D1",
        "newreno",
        {"kind": "bulk"},
    )
    s.validate()


def test_names_for_n_flows():
    s = airtcp.dumbbell(3)
    names = [n["name"] for n in s["nodes"]]
    assert names == ["S1", "S2", "S3", "R1", "R2", "D1", "D2", "D3"]
    assert [link["name"] for link in s["links"]] == [
        "S1-R1",
        "S2-R1",
        "S3-R1",
        "R1-R2",
        "R2-D1",
        "R2-D2",
        "R2-D3",
    ]
    assert [f["name"] for f in s["flows"]] == ["ftp1", "ftp2", "ftp3"]


def test_wireless_and_per():
    s = airtcp.dumbbell(3, per=0.02)
    for i in (1, 2, 3):
        link = _link(s, f"R2-D{i}")
        assert link["kind"] == "wireless"
        assert link["error"] == {"model": "bernoulli", "per": 0.02, "applies_to": "data"}
    s = airtcp.dumbbell(3, per=0.02, wireless=[2], error_applies_to="all")
    assert _link(s, "R2-D1")["kind"] == "wired" and "error" not in _link(s, "R2-D1")
    assert _link(s, "R2-D2")["error"]["applies_to"] == "all"
    # a wireless hop without errors still carries an error table, ready for a sweep
    s = airtcp.dumbbell(2, wireless=[1])
    assert _link(s, "R2-D1")["error"]["per"] == 0.0
    s.set("links.R2-D1.error.per", 0.1).validate()


def test_spacing_tcp_trace_udp_and_cc_list():
    s = airtcp.dumbbell(
        3,
        start_spacing="1ms",
        tcp={"initial_cwnd": 10},
        trace=True,
        udp_background=2,
        cc=["newreno", "newreno", "newreno"],
    )
    assert [f.get("start") for f in s["flows"][:3]] == [0, 0.001, 0.002]
    assert s["tcp"]["initial_cwnd"] == 10 and s["tcp"]["segment_size"] == 1000
    assert s["trace"] == {"cwnd": True, "queue": ["R1->R2"]}
    udp = s["flows"][3:]
    assert [(f["name"], f["src"], f["dst"]) for f in udp] == [
        ("udp1", "S4", "D4"),
        ("udp2", "S5", "D5"),
    ]
    assert udp[0]["app"] == {
        "kind": "onoff",
        "rate": "500kbps",
        "on_mean": "100ms",
        "off_mean": "100ms",
        "packet_size": 1000,
    }
    r = airtcp.run(s.set("duration", 2))
    assert r.flows.height == 5


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_flows": -1},
        {"n_flows": 0},
        {"per": 1.5},
        {"wireless": [0]},
        {"wireless": [3]},
        {"cc": ["newreno", "newreno"]},
        {"start_spacing": "soon"},
    ],
)
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        airtcp.dumbbell(**{"n_flows": 1, **kwargs})


def test_parse_seconds():
    assert parse_seconds(2) == 2.0
    assert parse_seconds("2ms") == pytest.approx(0.002)
    assert parse_seconds("100 us") == pytest.approx(1e-4)
    assert parse_seconds("1min") == 60.0


def test_bottleneck_queue_and_cc_params():
    q = {"kind": "ecn_threshold", "limit": 20, "mark_threshold": 5}
    s = airtcp.dumbbell(2, bottleneck_queue=q, cc="westwood", cc_params={"tau": 0.5}, duration=1)
    assert s.get("links.R1-R2.queue") == q
    assert s.get("flows.*.cc_params") == [{"tau": 0.5}, {"tau": 0.5}]
    s.validate()
