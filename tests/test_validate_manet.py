"""The MANET cross-check script's own logic (no ns-3 needed): the movement files and flows
both simulators get, airtcp's side of each scenario, the results store and the table."""

import importlib.util
import math
import re
import sys
from pathlib import Path

import airtcp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches" / "ns3"))
spec = importlib.util.spec_from_file_location(
    "validate_manet", ROOT / "benches/ns3/validate_manet.py"
)
vm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vm)

SETDEST = re.compile(r'\$ns_ at (\S+) "\$node_\((\d+)\) setdest (\S+) (\S+) (\S+)"')
SET = re.compile(r"\$node_\((\d+)\) set ([XY])_ (\S+)")


def parse(text: str):
    start, moves = {}, []
    for line in text.splitlines():
        if m := SETDEST.fullmatch(line):
            t, n, x, y, v = m.groups()
            moves.append((float(t), int(n), float(x), float(y), float(v)))
        elif m := SET.fullmatch(line):
            start.setdefault(int(m[1]), {})[m[2]] = float(m[3])
        else:
            raise AssertionError(f"not an ns-2 movement line: {line!r}")
    return start, moves


def test_walk_takes_the_middle_node_out_of_decoding_range_and_back():
    start, moves = parse(vm.walk_movement(4))
    assert {n: (p["X"], p["Y"]) for n, p in start.items()} == {
        i: (200.0 * i, 0.0) for i in range(5)
    }
    assert [(t, n) for t, n, *_ in moves] == [(vm.WALK_LEAVE, 2), (vm.WALK_BACK, 2)]
    # Off the line at 100 m/s: beyond 250 m of both neighbours (200 m along the line) when
    # more than 150 m off, 1.5 s after leaving, and 400 m off before it turns back.
    _, _, x, y, v = moves[0]
    assert (x, y) == (400.0, vm.WALK_OFFSET)
    assert math.isclose(vm.WALK_LEAVE + 150.0 / v, 51.5)
    assert vm.WALK_LEAVE + y / v < vm.WALK_BACK
    assert moves[1][2:4] == (400.0, 0.0)


def test_random_waypoint_stays_in_the_area_at_the_speeds_and_covers_the_run():
    text = vm.rwp_movement(3, 0.0, 50, 200.0)
    assert text == vm.rwp_movement(3, 0.0, 50, 200.0)
    assert text != vm.rwp_movement(4, 0.0, 50, 200.0)
    start, moves = parse(text)
    assert sorted(start) == list(range(50))
    for p in start.values():
        assert 0 <= p["X"] <= vm.AREA[0] and 0 <= p["Y"] <= vm.AREA[1]
    pos = {n: (p["X"], p["Y"]) for n, p in start.items()}
    arrive = {n: 0.0 for n in start}
    tol = {n: 0.0 for n in start}
    for t, n, x, y, v in moves:
        assert 0 <= x <= vm.AREA[0] and 0 <= y <= vm.AREA[1]
        assert vm.SPEED[0] <= v <= vm.SPEED[1]
        # Pause 0: the next leg starts when the node arrives, to the file's 4 decimals (a
        # speed rounded by 5e-5 m/s moves the arrival by up to distance * 5e-5 / v^2).
        assert abs(t - arrive[n]) < 1e-3 + tol[n]
        d = math.hypot(x - pos[n][0], y - pos[n][1])
        arrive[n], tol[n] = t + d / v, d * 5e-5 / v**2
        pos[n] = (x, y)
    assert min(arrive.values()) >= 200.0


def test_random_waypoint_pause_holds_the_node():
    _, moves = parse(vm.rwp_movement(1, 30.0, 2, 200.0))
    first = [m for m in moves if m[1] == 0][:2]
    assert first[1][0] - first[0][0] > 30.0


def test_cbr_flows_are_distinct_random_pairs_starting_in_the_window():
    flows = vm.cbr_flows(1, 50)
    assert flows == vm.cbr_flows(1, 50) and flows != vm.cbr_flows(2, 50)
    assert len(flows) == vm.CBR_FLOWS
    for s, d, t in flows:
        assert s != d and 0 <= s < 50 and 0 <= d < 50
        assert vm.CBR_START[0] <= t < vm.CBR_START[1]


def test_airtcp_side_uses_the_routing_and_ns2_mobility_keys():
    sc = vm.airtcp_scenario("cbr", 50, "olsr", 2, 0.0, 200.0)
    assert sc["routing"] == {"protocol": "olsr"}
    mv = vm.movement_file("cbr", 2, 0.0, 50).name
    assert [n["mobility"] for n in sc["nodes"]] == [
        {"model": "ns2", "file": mv, "node": i} for i in range(50)
    ]
    # 4 packets/s of 512 bytes.
    assert {f["app"]["rate"] for f in sc["flows"]} == {"16384bps"}
    assert [(f["src"], f["dst"]) for f in sc["flows"]] == [
        (f"n{s}", f"n{d}") for s, d, _ in vm.cbr_flows(2, 50)
    ]
    walk = vm.airtcp_scenario("walk", 4, "aodv", 1, 0.0, 90.0)
    assert walk["routing"] == {"protocol": "aodv"}
    assert walk["nodes"][2]["mobility"]["node"] == 2


def test_static_chain_is_a_valid_airtcp_scenario_with_the_flow_from_30s():
    sc = vm.airtcp_scenario("chain", 4, "static", 1, 0.0, 90.0)
    assert "routing" not in sc and all("mobility" not in n for n in sc["nodes"])
    parsed = airtcp.Scenario.from_dict(sc).validate()
    assert parsed.get("tcp.handshake") is True
    assert [n["position"] for n in parsed.get("nodes")] == [[200.0 * i, 0.0] for i in range(5)]
    assert parsed.get("flows")[0]["start"] in ("30s", 30.0)


def test_store_merges_runs_written_in_turn(tmp_path):
    path = tmp_path / "manet.json"
    vm.store(path, "ns3", "chain|4|aodv", 1, {"goodput_kbps": 300.0})
    vm.store(path, "ns3", "chain|4|aodv", 2, {"goodput_kbps": 310.0})
    vm.store(path, "airtcp", "chain|4|aodv", 1, {"goodput_kbps": 330.0}, "abc")
    res = vm.load(path)
    assert sorted(res["ns3"]["chain|4|aodv"]) == ["1", "2"]
    assert res["airtcp"]["abc"]["chain|4|aodv"]["1"]["goodput_kbps"] == 330.0


def test_compare_marks_points_outside_the_target():
    assert vm.compare([1.0], [1.0, 1.0], 0.1) == "pending"
    assert vm.compare([1.05, 1.06], [1.0, 1.01], 0.1).endswith("yes")
    assert vm.compare([1.2, 1.21], [1.0, 1.01], 0.1).endswith("no")
    assert vm.compare([1.2, 1.21], [1.0, 1.01], 0.25).endswith("yes")


def test_airtcp_walk_bins_start_with_the_flow_and_run_the_short_cuts():
    # Short runs: the bins before the flow's start are zero without a run (a run must outlast
    # its flows' start), and the bins after it add up to the whole run's delivered bytes.
    old = vm.CHAIN_END
    vm.CHAIN_END = vm.CHAIN_START + 2 * vm.BIN
    try:
        out = vm.run_airtcp("walk", 2, "olsr", 1, 0.0)
    finally:
        vm.CHAIN_END = old
    bins = out["bin_goodput_kbps"]
    first = int(vm.CHAIN_START / vm.BIN)
    assert len(bins) == first + 2 and bins[:first] == [0.0] * first
    total = sum(bins) * vm.BIN / (2 * vm.BIN)
    assert math.isclose(total, out["goodput_kbps"], rel_tol=1e-9)


def test_walk_table_marks_bins_per_target_and_empty_bins():
    runs = {
        str(s): {"bin_goodput_kbps": [0.0, g], "bin_delivery_ratio": [-1, 1.0]}
        for s, g in ((1, 300.0), (2, 310.0))
    }
    res = {
        "ns3": {"walk|4|aodv": runs},
        "airtcp": {
            "b": {
                "walk|4|aodv": {
                    "1": {"bin_goodput_kbps": [0.0, 200.0]},
                    "2": {"bin_goodput_kbps": [0.0, 210.0]},
                }
            }
        },
    }
    old = vm.CHAIN_START
    vm.CHAIN_START = 0.0
    try:
        rows = [
            ln for ln in vm.tables(res, "b").splitlines() if ln.startswith("| ") and ln[2].isdigit()
        ]
    finally:
        vm.CHAIN_START = old
    # No airtcp delivery ratio stored: its column is "-".
    assert rows[0].endswith("| both 0 | - |")
    assert rows[1].endswith("no | - |") and "0.6" in rows[1]


def test_aodv_keys_set_only_aodv_and_ns3_side_keys_ns3_runs(tmp_path):
    assert vm.aodv_keys("link_feedback=false,rreq_ratelimit=5,hello_from=all") == {
        "link_feedback": False,
        "rreq_ratelimit": 5,
        "hello_from": "all",
    }
    ns3 = vm.aodv_keys("ns3")
    assert ns3["hello_from"] == "all" and ns3["on_break"] == "keep"
    assert ns3["seq_on_break"] is False and ns3["relay_every_rrep"] is True
    assert ns3["hello_suppress"] == "rreq_defer"
    assert ns3["rerr_no_route"] == "toward_source" and ns3["rerr_routes"] == "all"
    assert ns3["control_routed"] and ns3["rrep_ack"] and ns3["hear_revives"] is False
    assert ns3["rreq_revives"] is False and ns3["rreq_loop_drop"] is True
    try:
        vm.AODV_KEYS.update({"link_feedback": False})
        assert vm.airtcp_scenario("chain", 4, "aodv", 1, 0.0, 90.0)["routing"] == {
            "protocol": "aodv",
            "link_feedback": False,
        }
        assert vm.airtcp_scenario("chain", 4, "olsr", 1, 0.0, 90.0)["routing"] == {
            "protocol": "olsr"
        }
    finally:
        vm.AODV_KEYS.clear()
    assert "link_feedback" not in vm.airtcp_scenario("chain", 4, "aodv", 1, 0.0, 90.0)["routing"]
    # ns-3 without link-layer feedback: its own side key and manet.cc's switch.
    assert vm.ns3_side() == "ns3"
    assert "--l2Feedback=0" not in vm.ns3_command(Path("m"), "chain", 4, "aodv", 1, 0.0)
    vm.NS3_L2_FEEDBACK[0] = False
    try:
        assert vm.ns3_side() == "ns3/l2-feedback-off"
        assert "--l2Feedback=0" in vm.ns3_command(Path("m"), "chain", 4, "aodv", 1, 0.0)
        assert "--l2Feedback=0" not in vm.ns3_command(Path("m"), "chain", 4, "olsr", 1, 0.0)
    finally:
        vm.NS3_L2_FEEDBACK[0] = True
    path = tmp_path / "m.json"
    vm.main(["--table-only", "--results", str(path), "--aodv", "ns3"])
    assert vm.AODV_KEYS == ns3
    vm.AODV_KEYS.clear()


def test_ns3_choices_count_rreq_retries_as_ns3_does_and_tcp_keys_reach_the_scenario(tmp_path):
    # ns-3 gives up after RreqRetries (2) RREQs at NET_DIAMETER, the first included.
    assert vm.aodv_keys("ns3")["rreq_retries"] == 1
    rules = vm.tcp_keys("ns3rules")
    assert rules["recover_guard"] == "less_careful"
    assert rules["fast_retransmit_restarts_rto"] is False
    assert vm.tcp_keys("recover_guard=less_careful") == {"recover_guard": "less_careful"}
    try:
        vm.main(["--table-only", "--results", str(tmp_path / "m.json"), "--airtcp-tcp", "ns3rules"])
        tcp = vm.airtcp_scenario("chain", 4, "aodv", 1, 0.0, 90.0)["tcp"]
        # Over the ns2 profile and the harness's own keys, which stay.
        assert tcp["profile"] == "ns2" and tcp["handshake"] is True
        assert {k: tcp[k] for k in rules} == rules
    finally:
        vm.TCP_KEYS.clear()
    assert "recover_guard" not in vm.airtcp_scenario("chain", 4, "aodv", 1, 0.0, 90.0)["tcp"]


def _timeline_module():
    spec = importlib.util.spec_from_file_location(
        "manet_timeline", ROOT / "benches/ns3/manet_timeline.py"
    )
    tl = importlib.util.module_from_spec(spec)
    sys.modules["manet_timeline"] = tl  # its dataclass looks its module up
    spec.loader.exec_module(tl)
    return tl


def test_timeline_reads_airtcp_packet_traces_of_a_chain():
    tl = _timeline_module()
    side = tl.airtcp_side("chain", 2, 1, vm.CHAIN_START + 3.0, {})
    ev = side.events
    sent = {e[3] for e in ev if e[1] == 0 and e[2] == "tx" and e[5]}
    got = {e[3] for e in ev if e[1] == 2 and e[2] == "rx" and e[5]}
    acks = [e[4] for e in ev if e[1] == 0 and e[2] == "rx"]
    # Segments of 1460 bytes from offset 0, each received by the sink after the source sent
    # it, and cumulative ACKs that never go back.
    assert sent and got and got <= sent and min(sent) == 0
    assert all(s % 1460 == 0 for s in sent)
    assert acks == sorted(acks) and acks[-1] > 0
    # The relay passes every packet on at once, so nothing waits or is lost there here.
    assert [e for e in ev if e[2] == "held_or_dropped"] == []
    assert {e[3] for e in ev if e[1] == 1 and e[2] == "tx"} >= got
    # The source's first data opened a discovery: its RREQ (a 52-byte AODV packet) went out
    # before its first segment, and the sink answered with a RREP to the relay.
    first_rreq = min(e[0] for e in ev if e[1] == 0 and e[2] == "rreq")
    first_seg = min(e[0] for e in ev if e[1] == 0 and e[2] == "tx")
    assert first_rreq < first_seg
    assert any(e[1] == 2 and e[2] == "rrep" and e[3] == "n1" for e in ev)
    r = tl.analyse(side, 0, 2, vm.CHAIN_START, vm.CHAIN_START + 3.0)
    assert r["retx"] == r["spurious"] == 0 and r["timeouts"] == [] and r["breaks"] == []


def test_a_bad_key_the_user_passed_is_named_as_theirs(monkeypatch):
    import pytest

    monkeypatch.setattr(vm, "TCP_KEYS", {"bogus_key": 1})
    with pytest.raises(SystemExit, match=r"^error: --airtcp-tcp: tcp\.bogus_key"):
        vm.check_airtcp()
    monkeypatch.setattr(vm, "TCP_KEYS", {})
    monkeypatch.setattr(vm, "AODV_KEYS", {"bogus": 1})
    with pytest.raises(SystemExit, match=r"^error: --aodv: routing\.bogus"):
        vm.check_airtcp()


def test_named_variants_are_stored_under_their_key_set():
    ns3 = vm.aodv_keys("ns3")
    rules = vm.tcp_keys("ns3rules")
    named = vm.variant_suffix(True, ns3, "ns3rules", rules)
    assert named.startswith("/aodv-ns3-") and "/tcp-ns3rules-" in named
    # A change to a named set is a new key: runs of the old set are not reused.
    changed = dict(ns3, rreq_retries=2)
    assert vm.variant_suffix(True, changed, "", {}) != vm.variant_suffix(True, ns3, "", {})
    assert vm.variant_suffix(False, {"rreq_retries": 1}, "", {}) == "/aodv:rreq_retries=1"
    assert vm.variant_suffix(False, {"link_feedback": False}, "", {}) == "/aodv-link-feedback-off"
    assert vm.variant_suffix(False, {}, "", {}) == ""


def test_random_waypoint_aodv_table_lists_each_seed_both_ran():
    def run(pdr: float, ctrl: float) -> dict:
        return {"pdr": pdr, "ctrl_packets": ctrl}

    key = "cbr|50|aodv|pause0"
    res = {
        "ns3": {key: {"1": run(0.5, 170000), "2": run(0.9, 70000), "3": run(0.8, 80000)}},
        "airtcp": {"b": {key: {"2": run(0.95, 50000), "1": run(0.4, 160000)}}},
    }
    text = vm.tables(res, "b")
    block = text[text.index("seed by seed") :].split("\n\n")[1]
    # Seeds in order, only those both sides ran (seed 3 has no airtcp run).
    assert block.splitlines()[2:] == [
        "| 1 | 0.500 | 170000 | 0.400 | 160000 |",
        "| 2 | 0.900 | 70000 | 0.950 | 50000 |",
    ]


def test_tables_use_the_first_seeds_asked_for():
    # Seeds 1-3 stored for a chain point and a random-waypoint point: --seeds 2 tables seeds
    # 1-2 of the chain, --cbr-seeds 1 seed 1 of the random waypoint, whatever else is stored.
    points = {
        "chain|4|aodv": {"1": {"g": 1}, "2": {"g": 2}, "3": {"g": 3}},
        "cbr|50|aodv|pause0": {"1": {"p": 1}, "2": {"p": 2}, "3": {"p": 3}},
    }
    got = vm.first_seeds(points, 2, 1)
    assert sorted(got["chain|4|aodv"]) == ["1", "2"]
    assert sorted(got["cbr|50|aodv|pause0"]) == ["1"]
    assert vm.first_seeds(points, 10**9, 10**9) == points


def test_calm_stretch_ends_at_the_first_timeout_and_pools_per_minute():
    tl = _timeline_module()
    side = tl.Side("x")
    # New ACKs at the source (node 0) every 0.1 s from 30 s, a 0.45 s gap after 31.0 s, then
    # none after 32.0 s: the timeout at 32.6 s ends the calm stretch 0.6 s after the last
    # new ACK. A duplicate ACK (31.2 s) is no new ACK. The relay (node 1) drops the ACK for
    # 12000 at 31.05 s; one at least as new reaches the source 0.4 s later.
    acks = [(30.0 + 0.1 * i, 1000 * (i + 1)) for i in range(11)]
    acks += [(31.45, 3000 * 10), (31.2, 1000 * 11)]
    acks += [(31.45 + 0.11 * i, 30000 + 1000 * i) for i in range(1, 6)]
    for t, a in sorted(acks):
        side.events.append((t, 0, "rx", 0, a, 0))
    side.events.append((31.05, 1, "drop_ip_2", 0, 12000, 0))
    # The sink (node 2) asks for a route in both long gaps; the first time its neighbour
    # (node 1) answers at once, the second time only after 0.6 s, too late to count.
    side.events += [(31.1, 2, "rreq", "bcast"), (31.15, 1, "rrep", "n2")]
    side.events += [(32.1, 2, "rreq", "bcast"), (32.7, 1, "rrep", "10.0.0.3")]
    # The second one got as far as the relay, which passed it on, and no RREP came in time.
    side.events.append((32.15, 1, "rreq", "bcast"))
    side.events.sort(key=lambda e: e[0])
    side.timeouts = [32.6, 33.5]
    c = tl.calm_stretch(side, 0, 2, 30.0, 40.0)
    assert c["entered"] and abs(c["calm_s"] - 2.6) < 1e-9
    last_new = 31.45 + 0.11 * 5
    assert abs(c["rto_at_entry"] - (32.6 - last_new)) < 1e-9
    assert sum(g >= 0.4 for g in c["gaps"]) == 2  # 31.0 -> 31.45 and the last one, cut at 32.6
    assert abs(max(c["gaps"]) - (32.6 - last_new)) < 1e-9
    assert len(c["repairs"]) == 1 and abs(c["repairs"][0] - 0.4) < 1e-9
    assert (c["long_gaps_asked"], c["long_gaps_unanswered"]) == (2, 1)
    assert c["unanswered_how"] == {"relayed as far as n1, no RREP": 1}
    # A run without a timeout stays calm to the end and contributes no entry.
    quiet = tl.Side("y")
    quiet.events = [(30.0 + 0.2 * i, 0, "rx", 0, 1000 * (i + 1), 0) for i in range(50)]
    q = tl.calm_stretch(quiet, 0, 2, 30.0, 40.0)
    assert not q["entered"] and q["rto_at_entry"] is None and q["calm_s"] == 10.0
    p = tl.pooled_states([c, q])
    assert p["entries"] == 1 and abs(p["calm_s"] - 12.6) < 1e-9
    assert abs(p["entries_per_min"] - 60 / 12.6) < 1e-9
    assert abs(p["gaps_per_min"][0.4] - 2 * 60 / 12.6) < 1e-9
    assert p["repairs"] == 1 and abs(p["repair_median"] - 0.4) < 1e-9
    assert (p["long_gaps_asked"], p["long_gaps_unanswered"]) == (2, 1)
    assert p["unanswered_how"] == {"relayed as far as n1, no RREP": 1}


def test_rreq_fate_names_the_farthest_relay_and_a_rrep_within_the_window():
    tl = _timeline_module()
    side = tl.Side("x")
    # Sink n4: n3 and n2 relay, n1 answers with a RREP; a RREQ from n1 after the window
    # does not count, nor does the sink's own retry.
    side.events = [
        (10.0, 4, "rreq", "bcast"),
        (10.01, 3, "rreq", "bcast"),
        (10.02, 2, "rreq", "bcast"),
        (10.03, 1, "rrep", "n2"),
        (10.1, 4, "rreq", "bcast"),
        (10.0 + tl.FATE_WINDOW + 0.01, 1, "rreq", "bcast"),
    ]
    assert tl.rreq_fate(side, 4, 10.0) == "relayed as far as n2, a RREP sent"
    assert tl.rreq_fate(side, 4, 20.0) == "not relayed, no RREP"


def test_rate_ratio_interval_follows_the_event_counts():
    tl = _timeline_module()
    r, lo, hi = tl.rate_ratio(35, 1053.0, 29, 1461.0)
    assert abs(r - (35 / 1053) / (29 / 1461)) < 1e-12
    assert lo < r < hi and lo > 1.0  # 35 events against 29 in 1.4x the time
    r2, lo2, hi2 = tl.rate_ratio(350, 1053.0, 290, 1461.0)
    assert abs(r2 - r) < 1e-12 and lo < lo2 < r2 < hi2 < hi  # ten times the events, narrower


def test_a_named_key_set_can_be_changed_key_by_key():
    ns3 = vm.aodv_keys("ns3")
    changed = vm.aodv_keys("ns3,jitter=9.9ms")
    assert changed == {**ns3, "jitter": "9.9ms"}
    # A later item wins over the set's own value.
    assert vm.aodv_keys("ns3,rreq_retries=2")["rreq_retries"] == 2
    # Stored key by key, as the same keys written out in full would be.
    assert vm.variant_suffix(False, changed, "", {}) == vm.variant_suffix(
        False, vm.aodv_keys(vm.AODV_NS3 + ",jitter=9.9ms"), "", {}
    )
    assert vm.tcp_keys("ns3rules,reno_sack=false") == {
        **vm.tcp_keys("ns3rules"),
        "reno_sack": False,
    }


def test_timeline_names_a_bad_seed_list_and_a_bad_key_before_running(capsys):
    import pytest

    tl = _timeline_module()
    with pytest.raises(SystemExit):
        tl.main(["--seeds", "x", "--side", "airtcp"])
    assert "--seeds: expected" in capsys.readouterr().err
    try:
        with pytest.raises(SystemExit, match=r"^error: --aodv: routing\.bogus"):
            tl.main(["--seeds", "1", "--side", "airtcp", "--aodv", "ns3,bogus=1"])
    finally:
        vm.AODV_KEYS.clear()


def _air_module():
    _timeline_module()  # manet_air imports it by name
    spec = importlib.util.spec_from_file_location("manet_air", ROOT / "benches/ns3/manet_air.py")
    air = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(air)
    return air


def test_same_slot_pairs_count_close_starts_of_different_stations_only():
    air = _air_module()
    w = air.WINDOW
    frames = [
        (1.0, 1, "rreq"),
        (1.0 + 0.667e-6, 2, "rts"),  # same slot as the RREQ: a pair
        (1.0 + 0.9e-6, 1, "data"),  # the same station: no pair with the RREQ
        (2.0, 3, "bcast"),
        (2.0 + w * 1.5, 2, "rts"),  # too late: sensed
        (3.0, 0, "cts"),  # a response, not a contention start
        (3.0 + 1e-7, 1, "rts"),
        (9.0, 1, "rts"),  # outside the span
        (9.0, 2, "rts"),
    ]
    c = air.same_slot(frames, 0.0, 5.0)
    # The RREQ pairs with the RTS, and that RTS with the later data frame of station 1.
    assert c["starts"] == 6 and c["pairs"] == 2
    assert (c["rreq"], c["rreq_in_pair"]) == (1, 1)
    assert (c["bcast"], c["bcast_in_pair"]) == (1, 0)


def test_rreq_reception_counts_each_neighbour_once_with_the_drop_reason():
    air = _air_module()
    sent = [(1.0, 2), (2.0, 0), (50.0, 2)]  # the last one outside the span
    got = {
        1: [(1.0 + 0.9e-3, 2, "rx"), (2.0 + 1e-6, None, "txing")],
        3: [(1.0 + 1e-6, None, "preamble_detect_failure")],
    }
    c = air.rreq_reception(sent, got, 4, 0.0, 10.0)
    # RREQ 1 from n2: n1 received it, n3 dropped it; RREQ 2 from n0: n1 was sending.
    assert c["pairs"] == 3 and c["lost"] == 2
    assert c["lost:preamble_detect_failure"] == 1 and c["lost:txing"] == 1
    # An "rx" from another sender does not count for this one.
    c2 = air.rreq_reception([(1.0, 2)], {1: [(1.0 + 0.9e-3, 0, "rx")]}, 3, 0.0, 10.0)
    assert (c2["pairs"], c2["lost"], c2["lost:no_event"]) == (1, 1, 1)


def test_first_rreq_outcomes_join_the_timeline_with_the_frames_on_the_air():
    air = _air_module()
    tl = sys.modules["manet_timeline"]
    side = tl.Side("x")
    # New ACKs at the source every 0.1 s, with two gaps of 0.5 s (after 30.5 and 31.5 s) and
    # the sink (node 2) asking for a route in each; the first answer comes at once.
    times = [30.0 + 0.1 * i for i in range(6)] + [31.0 + 0.1 * i for i in range(6)]
    times += [32.0 + 0.1 * i for i in range(6)]
    side.events = [(t, 0, "rx", 0, 1000 * (i + 1), 0) for i, t in enumerate(times)]
    side.events += [(30.6, 2, "rreq", "bcast"), (30.62, 1, "rrep", "n2")]
    side.events += [(31.6, 2, "rreq", "bcast")]
    side.events.sort(key=lambda e: e[0])
    sent = [(30.605, 2), (31.61, 2)]
    got = {1: [(30.605 + 0.9e-3, 2, "rx"), (31.61 + 1e-6, None, "txing")]}
    # The relay (node 1) started an RTS 0.67 us after the second RREQ: the same slot.
    frames = [(30.605, 2, "rreq"), (31.61, 2, "rreq"), (31.61 + 0.67e-6, 1, "rts")]
    c = air.first_rreq_outcomes(side, frames, sent, got, 2, 30.0, 40.0)
    assert c == {("answered", "rx"): 1, ("not relayed, no RREP", "txing, same slot"): 1}
    c1 = air.first_rreq_outcomes(side, frames[:2], sent, got, 2, 30.0, 40.0)
    assert c1[("not relayed, no RREP", "txing")] == 1
    # A RREQ that never reaches the air within the window is said so.
    c2 = air.first_rreq_outcomes(side, frames, [], got, 2, 30.0, 40.0)
    assert c2 == {("answered", "not_on_air"): 1, ("not relayed, no RREP", "not_on_air"): 1}


def test_sink_rreq_ties_count_every_rreq_of_the_sink_met_in_the_same_slot():
    air = _air_module()
    frames = [(1.0 + 0.67e-6, 2, "rts"), (2.0 + 5e-6, 2, "rts"), (3.0 - 0.5e-6, 2, "cts")]
    sent = [(1.0, 3), (2.0, 3), (3.0, 3), (1.0, 1), (99.0, 3)]
    # Sink n3: the first RREQ is met by n2's RTS, the second too late, the third by a CTS
    # (a response, not a contention start); n1's RREQ and one outside the span do not count.
    assert air.sink_rreq_ties(frames, sent, 3, 0.0, 10.0) == (3, 1)
