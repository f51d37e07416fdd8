"""The kernel-validation script's own logic: its two scenarios, the keys its cached runs are
stored under, the table, and the simulated side run in parts (no emulation needed); and the
endpoints' real-time scheduling the kernel side relies on."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import airtcp
from airtcp import _core
from airtcp.papers import wmecn

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("validate_linux", ROOT / "benches/validate_linux.py")
vl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vl)


def test_path_scenario_loses_data_only_when_per_is_set():
    sc = vl.scenario("path", "reno", 0, 20, 1)
    link = sc.get("links")[0]
    assert (link["rate"], link["delay"], link["queue"]["limit"]) == ("10Mbps", "20ms", 100_000)
    assert "error_ab" not in link
    lossy = vl.scenario("path", "cubic", 0.02, 20, 3).get("links")[0]["error_ab"]
    assert lossy == {"model": "bernoulli", "per": 0.02, "applies_to": "data"}
    # The kernel's reno is newreno in the scenario; every run takes the linux profile.
    assert sc.get("flows")[0]["cc"] == "newreno"
    assert sc.get("tcp.profile") == "linux"
    assert sc.get("duration") == "20s" and sc.get("seed") == 1


def test_dumbbell_is_the_seed_paper_setup_with_its_tcp_flows():
    sc = vl.scenario("dumbbell", "bbr", 0.05, 20, 2)
    flows = sc.get("flows")
    assert [f["cc"] for f in flows] == ["bbr"] * wmecn.MAIN_N
    assert all(f["app"]["kind"] == "bulk" for f in flows)
    links = {x["name"]: x for x in sc.get("links")}
    bott = links["R1-R2"]
    assert (bott["rate"], bott["delay"]) == ("1Mbps", "30ms")
    assert bott["queue"] == {"kind": "red", **wmecn.QUEUE}
    for i in range(1, wmecn.MAIN_N + 1):
        assert links[f"S{i}-R1"]["delay"] == "2ms"
        last = links[f"R2-D{i}"]
        assert (last["delay"], last["error"]["per"], last["error"]["applies_to"]) == (
            "4ms",
            0.05,
            "data",
        )
    assert sc.get("tcp.profile") == "linux" and sc.get("tcp.segment_size") == 1000


def test_a_run_is_keyed_by_what_determines_it():
    a = vl.scenario("path", "cubic", 0.01, 20, 1)
    b = vl.scenario("path", "cubic", 0.01, 20, 2)
    assert vl.digest(a, "build1") == vl.digest(a, "build1")
    assert vl.digest(a, "build1") != vl.digest(a, "build2")
    assert vl.digest(a, "build1") != vl.digest(b, "build1")


def rec(g, late=False):
    return {"goodput_bps": g, "late": late, "lateness_p99_us": 100.0, "kernel": "k", "build": "b"}


def test_table_gives_the_ratio_its_interval_and_the_target():
    k = [rec(9e6), rec(11e6, late=True)]
    s = [rec(10e6), rec(10e6)]
    far = [rec(8e6), rec(8e6)]
    points = [("path", "reno", 0.01, k, s), ("path", "cubic", 0.01, far, s)]
    text = vl.table(points)
    lines = text.splitlines()
    # Means 10 and 10: ratio 1.00; the kernel's interval is 12.71 · sd / √2 = ±12.71 Mbit/s.
    assert lines[2].startswith("| path | reno | 1 % | 10.00 ± 12.71 | 10.00 ± 0.00 | 1.00 |")
    assert lines[2].endswith("| yes | 2 (1) |")
    assert "| 0.80 | 0.80-0.80 | no | 2 (0) |" in lines[3]
    cap = vl.caption(points)
    assert "4 kernel runs" in cap and "1 of them marked late" in cap
    assert "1 of 2 points within 10 %" in cap


def test_the_simulated_side_runs_in_parts_and_is_kept(tmp_path):
    out = tmp_path / "runs.json"
    args = ["--side", "sim", "--path", "path", "--cc", "reno", "--per", "0.01"]
    args += ["--runs", "2", "--seconds", "2", "--out", str(out)]
    assert vl.main(args) == 0
    runs = json.loads(out.read_text())
    assert len(runs) == 2
    for key, r in runs.items():
        assert key.startswith("sim|path|reno|0.01|2|")
        assert r["build"] == str(_core.__build__)
        seed = int(key.split("|")[5])
        direct = airtcp.run(vl.scenario("path", "reno", 0.01, 2, seed)).flow("flow0")
        assert r["goodput_bps"] == direct["goodput_bps"]
    # A second call finds them and runs nothing: the file is left as it was.
    before = out.read_text()
    assert vl.main(args) == 0
    assert out.read_text() == before


def test_tcp_endpoints_run_under_sched_fifo_below_the_emulator():
    # The suite runs as root (CI too), where the endpoint can take the policy.
    assert os.geteuid() == 0
    code = (
        "import os; from airtcp import _emu_endpoint as e; e._realtime(); "
        "print(os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    policy, prio = map(int, out.stdout.split())
    assert policy == os.SCHED_FIFO
    from airtcp._emu_endpoint import RT_PRIORITY

    assert prio == RT_PRIORITY
    # Below the emulator thread's priority (docs/emulation.md: SCHED_FIFO 10).
    assert 0 < RT_PRIORITY < 10


def test_dynamics_counts_reductions_and_growth_in_congestion_avoidance():
    # 10 ms samples: slow start to 8 (ssthresh unset), a cut to 4, then +1 every 50 ms.
    t = [i * 0.01 for i in range(12)]
    cwnd = [2, 4, 8, 4, 4, 4, 4, 4, 5, 5, 5, 5]
    ss = [1e9, 1e9, 1e9, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    d = vl.dynamics(t, cwnd, ss)
    assert d["reductions"] == 1
    # Congestion avoidance from the sample after the cut: 0.08 s in the 4-7 band, one added.
    dt, n = d["bands"][4]
    assert abs(dt - 0.08) < 1e-9 and n == 1
    assert set(d["bands"]) == {4}


def test_sampled_reads_a_step_series_in_whole_segments():
    assert vl.sampled([0.0, 0.025, 0.031], [10.0, 12.7, 6.2], 0.01, 0.05) == [10, 10, 12, 6]
