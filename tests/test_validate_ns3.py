"""The ns-3 cross-check script's own logic (no ns-3 needed): airtcp's side of the scenario,
the comparison table and argument errors."""

import importlib.util
from pathlib import Path

import pytest

import airtcp

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("ns3_run", ROOT / "validation/ns3/run.py")
ns3_run = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ns3_run)


def test_airtcp_side_is_the_ns3_profile_on_the_program_path():
    sc = airtcp.Scenario.from_toml_str(ns3_run.path_toml("cubic", 0.05, 5, 10.0, 2))
    assert sc.get("tcp.profile") == "ns3"
    assert [f["cc"] for f in sc.get("flows")] == ["cubic"] * 5
    assert sc.get("links.R2-D.error.per") == 0.05
    assert [link["delay"] for link in sc.get("links")] == ["10ms", "30ms", "10ms"]


def test_table_marks_points_outside_ten_percent():
    def res(g, rec=3, to=1):
        return {"goodput_bps": g, "recoveries": rec, "timeouts": to}

    rows = [
        {
            "flows": 1,
            "cc": "newreno",
            "per": 0.01,
            "airtcp": [res(1.0e6), res(1.1e6)],
            "ns3": [res(1.0e6, 5, 0)],
        },
        {
            "flows": 5,
            "cc": "cubic",
            "per": 0.2,
            "airtcp": [res(0.8e6)],
            "ns3": [res(1.0e6), res(1.0e6)],
        },
    ]
    rows.append(
        {
            "flows": 1,
            "cc": "cubic",
            "per": 0.05,
            "airtcp": [res(1.0e6), res(1.3e6)],
            "ns3": [res(1.0e6), res(1.0e6)],
        }
    )
    lines = ns3_run.table(rows).splitlines()
    assert lines[2] == "| 1 | newreno | 1 % | 1.050 | 1.000 | 1.05 | – | yes | 6 / 5 | 2 / 0 |"
    assert lines[3] == "| 5 | cubic | 20 % | 0.800 | 1.000 | 0.80 | – | no | 3 / 6 | 1 / 2 |"
    # Mean ratio 1.15, standard error 0.15 (airtcp's alone): 1.15 ± 1.96 · 0.15.
    assert lines[4] == "| 1 | cubic | 5 % | 1.150 | 1.000 | 1.15 | 0.86–1.44 | no | 6 / 6 | 2 / 2 |"


def test_bad_arguments_and_missing_ns3_are_clear(tmp_path, capsys):
    with pytest.raises(SystemExit):
        ns3_run.main(["--seeds", "0"])
    assert "--seeds" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no ns-3 virtualenv"):
        ns3_run.main(["--quick", "--ns3-venv", str(tmp_path / "none")])


spec_t = importlib.util.spec_from_file_location("ns3_trace", ROOT / "validation/ns3/trace.py")
ns3_trace = importlib.util.module_from_spec(spec_t)
spec_t.loader.exec_module(ns3_trace)


def test_trace_drops_are_seeded_and_near_the_rate():
    a = ns3_trace.drops(0.05, 1, n=20_000)
    assert a == ns3_trace.drops(0.05, 1, n=20_000)
    assert a != ns3_trace.drops(0.05, 2, n=20_000)
    assert 900 < len(a) < 1100


def test_trace_scenario_loses_exactly_the_listed_packets():
    error, args = ns3_trace.loss_setup("index", 0.05, 1)
    assert args[0].startswith("--drops=")
    lost = ns3_trace.drops(0.05, 1)
    toml = ns3_trace.trace_toml("newreno", error, 3.0, ["sack = false"])
    sc = airtcp.Scenario.from_toml_str(toml)
    assert sc.get("links.R2-D.error.model") == "list"
    assert sc.get("tcp.sack") is False
    r = airtcp.run(sc)
    sent = int(r.flows["sent_packets"][0])
    assert int(r.flows["lost_packets"][0]) == sum(1 for i in lost if i < sent)


def test_trace_hashed_loss_is_the_same_rule_on_both_sides():
    error, args = ns3_trace.loss_setup("hashed", 0.05, 7)
    assert args == ["--hashed=0.05", "--hashSeed=7"]
    sc = airtcp.Scenario.from_toml_str(ns3_trace.trace_toml("newreno", error, 20.0, []))
    assert sc.get("links.R2-D.error.model") == "hashed"
    assert sc.get("links.R2-D.error.seed") == 7
    r = airtcp.run(sc)
    f = r.flows.row(0, named=True)
    # The rule written out here (dumbbell.cc has it too): copy k of the segment at sequence
    # number s is lost when SplitMix64(SplitMix64(SplitMix64(seed) ^ s) ^ k) / 2^64 < per. A
    # segment is resent until a copy passes, so it loses the copies before the first whose
    # draw is at least per.
    mss = f["sent_bytes"] // f["sent_packets"]
    segments = f["sent_packets"] - f["retransmissions"]

    def copies_lost(seq: int) -> int:
        k = 0
        while _hashed_unit(7, seq, k) < 0.05:
            k += 1
        return k

    want = sum(copies_lost(i * mss) for i in range(segments))
    assert want > 10 and f["lost_packets"] == want


def _splitmix64(x: int) -> int:
    m = (1 << 64) - 1
    z = (x + 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return z ^ (z >> 31)


def _hashed_unit(seed: int, seq: int, copy: int) -> float:
    return (_splitmix64(_splitmix64(_splitmix64(seed) ^ seq) ^ copy) >> 11) / (1 << 53)


def test_trace_segments_collapse_repeats_and_unset_ssthresh():
    rows = [(0.0, 5360, 2**31), (0.1, 5400, 2**31), (0.2, 5360 * 2, 5360)]
    assert ns3_trace.segments(rows, 536) == [(0.0, 10, -1), (0.2, 20, 10)]
