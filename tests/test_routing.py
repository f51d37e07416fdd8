"""Dynamic routing from Python: the ``routing`` keys, the builders' ``routing=``, and the
``routing`` table, drop causes and delivery ratios in results and the store."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import airtcp
from airtcp.scenario import Scenario


def test_builders_put_the_routing_key_where_it_applies():
    s = airtcp.chain(3, routing="aodv")
    assert s["routing"] == {"protocol": "aodv"}
    s = airtcp.cross(2, routing={"protocol": "aodv", "hello": False, "on_break": "salvage"})
    assert s["routing"] == {"protocol": "aodv", "hello": False, "on_break": "salvage"}
    assert "routing" not in airtcp.chain(3).data
    # The grid's wired clients and servers route statically: the mesh routers get the key.
    g = airtcp.grid(2, 2, mac="wifi", routing="aodv")
    assert "routing" not in g.data
    by_name = {n["name"]: n for n in g["nodes"]}
    assert by_name["g0_0"]["routing"] == {"protocol": "aodv"}
    assert "routing" not in by_name["cW0"]
    with pytest.raises(ValueError, match="mac='wifi'"):
        airtcp.chain(3, mac="tdma", routing="aodv")


def test_an_aodv_chain_reports_overhead_breaks_and_delivery_ratio():
    r = airtcp.run(airtcp.chain(3, duration=10, routing="aodv"))
    t = r.routing
    assert t.height == 4
    assert set(t["kind"]) == {"aodv"}
    assert set(t["node"]) == {"n0", "n1", "n2", "n3"}
    o = r.routing_overhead
    assert o["control_packets"] == int(t["control_packets"].sum()) > 0
    kinds = ("rreq", "rrep", "rerr", "hello", "tc")
    assert o["control_bytes"] == sum(o[f"{k}_bytes"] for k in kinds)
    # RFC 3561: a RREQ is 24 bytes, with IP and UDP 52.
    assert o["rreq_bytes"] == 52 * o["rreq_packets"] > 0
    assert o["discoveries"] >= 1
    f = r.flow("ftp")
    assert 0 < f["pdr"] <= 1
    assert f["pdr"] == pytest.approx(f["received_packets"] / f["sent_packets"])
    assert "route_break" in r.raw["drops"] and "no_route" in r.raw["drops"]
    assert "routing" in r.tables


def test_static_results_have_no_routing_table():
    r = airtcp.run(airtcp.chain(2, duration=2))
    assert r.routing.height == 0
    assert r.routing_overhead == {}
    assert "route_break" not in r.raw["drops"]
    assert "pdr" not in r.flow("ftp")


def test_toml_routing_keys_top_level_and_per_node():
    text = """
name = "olsr3"
duration = 12
routing = { protocol = "olsr", hello_interval = "1s" }

[[nodes]]
name = "a"
position = [0, 0]

[[nodes]]
name = "b"
position = [200, 0]
routing = { willingness = 7 }

[[nodes]]
name = "c"
position = [400, 0]

[[media]]
name = "air"
kind = "wifi"
preset = "ns2"

[[flows]]
src = "a"
dst = "c"
start = 6
app = { kind = "cbr", rate = "100kbps", packet_size = 500 }
"""
    r = airtcp.run(Scenario.from_toml_str(text))
    t = r.routing
    assert set(t["kind"]) == {"olsr"}
    # Hellos every second for 12 s from each node (less the jitter).
    assert all(h >= 10 for h in t["hello_packets"])
    assert r.flow("flow0")["received_packets"] > 0


@pytest.mark.parametrize(
    ("routing", "path"),
    [
        ({"protocol": "dsr"}, "routing.protocol"),
        ({"protocol": "aodv", "willingness": 3}, "routing.willingness"),
        ({"protocol": "aodv", "hello": False, "link_feedback": False}, "routing.link_feedback"),
        ({"protocol": "aodv", "ttl_start": 0}, "routing.ttl_start"),
        ({"protocol": "aodv", "hops": 3}, "routing.hops"),
    ],
)
def test_bad_routing_keys_name_their_field(routing, path):
    s = airtcp.chain(2, duration=1)
    s.data["routing"] = routing
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(s)
    assert path in str(ei.value)


def test_a_sweep_stores_the_routing_table(tmp_path):
    store = tmp_path / "runs.sqlite"
    sc = airtcp.chain(2, duration=3, routing="aodv")
    grid = {"routing.on_break": ["drop", "salvage"]}
    runs = airtcp.sweep(sc, grid, seeds=1, store=store, progress=False)
    assert runs.height == 2 and set(runs["status"]) == {"ok"}
    with airtcp.Store(store) as st:
        assert "routing" in st.tables()
        rows = st.table("routing")
    assert rows.height == 6  # three nodes, two runs
    assert set(rows["routing.on_break"]) == {"drop", "salvage"}
    assert int(rows["rreq_packets"].sum()) >= 2


def test_a_medium_trace_shows_aodv_control_packets_as_udp_654(tmp_path):
    import dpkt

    sc = airtcp.chain(2, duration=3.0, routing="aodv")
    sc.set("trace", {"pcap": ["air"], "pcap_dir": str(tmp_path)})
    r = airtcp.run(sc)
    with open(tmp_path / "air.pcap", "rb") as f:
        recs = list(dpkt.pcap.Reader(f))
    broadcast, aodv = 0, Counter()
    for _, buf in recs:
        frame = dpkt.radiotap.Radiotap(buf).data
        if frame.type != dpkt.ieee80211.DATA_TYPE:
            continue
        ip = dpkt.ip.IP(bytes(frame.data)[8:])  # past the LLC/SNAP header
        if frame.data_frame.dst == b"\xff" * 6:
            broadcast += 1
        if isinstance(ip.data, dpkt.udp.UDP) and ip.data.dport == 654:
            aodv[ip.len - 28] += 1
    o = r.routing_overhead
    assert broadcast == int(r.macs["broadcast_frames"].sum()) > 0
    # RREQs are 24 bytes of UDP payload, RREPs and HELLOs 20 (RFC 3561 section 5).
    assert aodv[24] == o["rreq_packets"]
    assert aodv[20] >= o["rrep_packets"] + o["hello_packets"]


def test_the_cli_prints_the_routing_table(tmp_path, capsys):
    from airtcp.cli import main

    f = tmp_path / "c.toml"
    f.write_text(airtcp.chain(2, duration=3, routing="aodv").to_toml())
    assert main(["run", str(f)]) == 0
    out = capsys.readouterr().out
    assert "routing\n" in out and "rreq" in out and "route breaks" in out
    assert "n0" in out.split("routing\n", 1)[1]


def test_aodv_hello_from_all_has_every_node_say_hello():
    # RFC 3561 6.9: only nodes on an active route send HELLOs; `all` (ns-3's AODV) has every
    # node send them, flow or not. No flow here: nobody is on a route.
    def hellos(**keys):
        sc = airtcp.chain(3, duration=10, routing={"protocol": "aodv", **keys})
        sc = sc.set("flows", [])
        return airtcp.run(sc).routing_overhead["hello_packets"]

    assert hellos() == 0
    # 4 nodes, one a second each from 1 s on (the jitter moves each by at most 5 ms): 9 each.
    assert hellos(hello_from="all") == 4 * 9


def test_aodv_ns3_settings_are_keys_and_the_other_protocol_refuses_them():
    keys = {"hello_from": "all", "gratuitous_rrep": True, "on_break": "keep"}
    keys |= {"data_liveness": True, "rreq_ratelimit": 5}
    keys |= {"seq_on_break": False, "relay_every_rrep": True, "hello_suppress": "rreq_defer"}
    keys |= {"rerr_no_route": "toward_source", "rerr_routes": "all"}
    r = airtcp.run(airtcp.chain(3, duration=10, routing={"protocol": "aodv", **keys}))
    assert r.flow("ftp")["pdr"] > 0.9
    # `keep` leaves the MAC's queue alone: nothing is dropped from it at a break.
    assert r.routing_overhead["mac_queue_dropped"] == 0
    for key in keys:
        olsr = {"protocol": "olsr", key: keys[key]}
        with pytest.raises(ValueError, match=f"{key}: is an AODV setting"):
            airtcp.run(airtcp.chain(3, duration=1, routing=olsr))


def walking_chain(routing: str | None = "aodv", duration: float = 20) -> Scenario:
    """n0-n1-n2-n3, 200 m apart, with a longer detour n0-m1-m2-n2 below; n1 walks north at
    20 m/s (out of n0's 250 m range after 7.5 s). One CBR flow n0 -> n3, its routes and
    positions traced."""
    pos = {"n0": (0, 0), "n1": (200, 0), "n2": (400, 0), "n3": (600, 0)}
    pos |= {"m1": (100, -200), "m2": (300, -200)}
    nodes: list[dict] = [{"name": n, "position": list(p)} for n, p in pos.items()]
    nodes[1]["mobility"] = {"model": "constant_velocity", "velocity": [0.0, 20.0]}
    d: dict = {
        "name": "walking_chain",
        "duration": duration,
        "seed": 1,
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2"}],
        "flows": [
            {
                "name": "f",
                "src": "n0",
                "dst": "n3",
                "app": {"kind": "cbr", "rate": "40kbps", "packet_size": 500},
            }
        ],
        "trace": {"routes": True, "positions": "1s"},
    }
    if routing:
        d["routing"] = {"protocol": routing}
    return Scenario(d)


DETOUR = ["n0", "m1", "m2", "n2", "n3"]


def test_the_routes_table_loads_with_the_paths_aodv_used():
    r = airtcp.run(walking_chain())
    t = r.routes()
    assert t.columns == ["flow", "t", "path"]
    assert set(t["flow"]) == {"f"} and t["t"].is_sorted()
    paths = [list(p) for p in t["path"]]
    # The chain's route first, the detour around n1 once it walked off, kept to the end.
    assert ["n0", "n1", "n2", "n3"] in paths
    assert paths[-1] == DETOUR
    assert r.routes("f").height == t.height
    with pytest.raises(KeyError, match="no flow named 'g'"):
        r.routes("g")
    # A result file keeps it, and it is one of the result's tables.
    back = airtcp.Result.from_json(r.to_json())
    assert back.routes().equals(t)
    assert "routes" in r.tables
    # Not recorded without the trace key.
    sc = walking_chain()
    sc.data["trace"] = {}
    with pytest.raises(KeyError, match="trace"):
        airtcp.run(sc).routes()


def test_a_sweep_stores_the_routes_table(tmp_path):
    store = tmp_path / "runs.sqlite"
    runs = airtcp.sweep(walking_chain(duration=10), None, seeds=2, store=store, progress=False)
    assert set(runs["status"]) == {"ok"}
    with airtcp.Store(store) as st:
        rows = st.table("routes")
    assert rows.height > 2 and set(rows["flow"]) == {"f"}
    # Paths are stored as JSON lists of node names.
    assert ["n0", "n1", "n2", "n3"] in [json.loads(p) for p in rows["path"]]


def test_aodv_control_message_settings_are_keys_with_their_counters():
    keys = {"hear_revives": False, "control_routed": True, "rrep_ack": True}
    r = airtcp.run(airtcp.chain(3, duration=10, routing={"protocol": "aodv", **keys}))
    assert r.flow("ftp")["pdr"] > 0.9
    for col in ("rrep_ack_packets", "rrep_ack_bytes", "control_held", "control_held_dropped"):
        assert col in r.routing.columns
    with pytest.raises(ValueError, match="control_routed: is an AODV setting"):
        airtcp.run(
            airtcp.chain(3, duration=1, routing={"protocol": "olsr", "control_routed": True})
        )
