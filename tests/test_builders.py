"""The dumbbell builder."""

from __future__ import annotations

from pathlib import Path

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


# --------------------------------------------------------------------------------------------
# multi-hop wireless builders


def test_chain_places_nodes_on_a_line_with_hosts_at_the_ends():
    sc = airtcp.chain(3, spacing=150)
    nodes = sc["nodes"]
    assert [n["name"] for n in nodes] == ["n0", "n1", "n2", "n3"]
    assert [n["kind"] for n in nodes] == ["host", "router", "router", "host"]
    assert [n["position"] for n in nodes] == [[0, 0], [150, 0], [300, 0], [450, 0]]
    assert sc["media"][0]["kind"] == "wifi" and sc["media"][0]["preset"] == "ns2"
    assert sc["flows"] == [
        {"name": "ftp", "src": "n0", "dst": "n3", "cc": "newreno", "app": {"kind": "bulk"}}
    ]
    r = airtcp.run(sc.with_values(duration=5))
    assert r.flows["goodput_bps"][0] > 0
    macs = r.table("macs")
    assert macs["node"].to_list() == ["n0@air", "n1@air", "n2@air", "n3@air"]
    assert macs["data_frames"].sum() > 0


def test_chain_over_tdma_uses_links_with_propagation_delay():
    sc = airtcp.chain(2, mac="tdma", spacing=10_000, per=0.01)
    assert "position" not in sc["nodes"][0]
    assert [ln["medium"] for ln in sc["links"]] == ["mesh", "mesh"]
    assert sc["links"][0]["delay"] == "33356ns"  # 10 km at the speed of light
    assert sc["links"][0]["error"]["per"] == 0.01
    r = airtcp.run(sc.with_values(duration=5))
    assert r.flows["goodput_bps"][0] > 0
    assert "macs" not in r.tables


def test_cross_shares_the_middle_node_and_takes_a_scheme_per_flow():
    sc = airtcp.cross(4, cc=["newreno", "vegas"])
    names = [n["name"] for n in sc["nodes"]]
    assert names.count("c") == 1 and len(names) == 9
    pos = {n["name"]: n["position"] for n in sc["nodes"]}
    assert pos["c"] == [0, 0] and pos["h0"] == [-400, 0] and pos["v4"] == [0, 400]
    assert [(f["src"], f["dst"], f["cc"]) for f in sc["flows"]] == [
        ("h0", "h4", "newreno"),
        ("v0", "v4", "vegas"),
    ]
    with pytest.raises(ValueError, match="hops must be even"):
        airtcp.cross(3)
    with pytest.raises(ValueError, match=r"cc: 1 scheme\(s\) given for 2 flow\(s\)"):
        airtcp.cross(4, cc=["newreno"])


def test_grid_puts_six_pairs_at_the_edges_of_a_3x3_mesh():
    sc = airtcp.grid(3, 3)
    routers = [n["name"] for n in sc["nodes"] if n["kind"] == "router"]
    assert len(routers) == 9
    flows = [(f["src"], f["dst"]) for f in sc["flows"]]
    assert flows == [
        ("sE0", "cW0"),
        ("sE1", "cW1"),
        ("sE2", "cW2"),
        ("sS0", "cN0"),
        ("sS1", "cN1"),
        ("sS2", "cN2"),
    ]
    mesh = [ln for ln in sc["links"] if ln.get("medium") == "mesh"]
    assert len(mesh) == 12  # 6 horizontal + 6 vertical neighbour pairs
    r = airtcp.run(sc.with_values(duration=5))
    assert (r.flows["goodput_bps"] > 0).all()


@pytest.mark.parametrize("bad", [{"hops": 0}, {"hops": True}, {"hops": 2, "mac": "lte"}])
def test_mesh_builders_reject_bad_arguments(bad):
    with pytest.raises(ValueError):
        airtcp.chain(**bad)


def test_unreachable_node_is_a_clear_error():
    sc = airtcp.chain(2).set("nodes.n2.position", [5000, 0])
    with pytest.raises(airtcp.ScenarioError, match="'n2' is not reachable from 'n0'"):
        sc.validate()


def test_toml_examples_are_what_the_builders_write():
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("make_examples", root / "tools/make_examples.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for name in mod.EXAMPLES:
        text = (root / "scenarios" / name).read_text()
        assert text == mod.render(name), f"{name} is stale: run python tools/make_examples.py"
        airtcp.Scenario.from_toml(root / "scenarios" / name).validate()


@pytest.mark.parametrize("builder", [airtcp.chain, airtcp.cross, airtcp.grid])
def test_mesh_builders_document_their_parameters(builder):
    doc = builder.__doc__ or ""
    # Their own parameters and the ones they share, as help() shows them.
    assert "Parameters" in doc and "mac:" in doc and "queue_limit:" in doc
    own = {"chain": "hops:", "cross": "hops:", "grid": "rows, cols:"}[builder.__name__]
    assert own in doc


def test_a_wifi_result_has_its_stations_table_and_says_so():
    r = airtcp.run(airtcp.chain(2, duration=1.0))
    assert r.links.height == 0  # no [[links]] in a wifi chain
    assert r.macs["node"].to_list() == ["n0@air", "n1@air", "n2@air"]
    assert r.macs.equals(r.table("macs"))
    assert "media=air (wifi) stations=3" in repr(r)
    assert "media=" not in repr(airtcp.run(airtcp.dumbbell(1, duration=1.0)))


def test_rate_control_puts_the_rate_use_in_the_stations_table():
    # One 120 m hop under the ns3 preset at 20 dBm (SNR about 4 dB): AARF sends the data
    # frames at lower rates than 11 Mbit/s, and the macs table counts them per rate.
    radio = {"preset": "ns3", "tx_power_dbm": 20, "rx_threshold_dbm": -99, "cs_threshold_dbm": -99}
    medium = {**radio, "rate_control": {"manager": "aarf"}}
    r = airtcp.run(airtcp.chain(1, spacing=120.0, duration=3.0, medium=medium))
    row = r.macs.row(0, named=True)
    cols = ["data_frames_1mbps", "data_frames_2mbps", "data_frames_5_5mbps", "data_frames_11mbps"]
    assert sum(row[c] for c in cols) == row["data_frames"] > 0
    assert row["data_frames_11mbps"] < 0.1 * row["data_frames"]
    # Without the key the table has no rate columns.
    plain = airtcp.run(airtcp.chain(1, spacing=120.0, duration=3.0, medium=radio))
    assert "data_frames_11mbps" not in plain.macs.columns


def test_rate_control_errors_name_the_field():
    sc = airtcp.chain(1, duration=1.0, medium={"rate_control": {"manager": "ideal"}})
    with pytest.raises(airtcp.ScenarioError, match=r"^media\[0\]\.rate_control\.manager: .*sinr"):
        airtcp.run(sc)
    sc = airtcp.chain(1, duration=1.0, medium={"preset": "ns3", "rate_control": {"manager": "x"}})
    with pytest.raises(airtcp.ScenarioError, match=r"rate_control"):
        airtcp.run(sc)
