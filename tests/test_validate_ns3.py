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
    # ns-3 always opens with a handshake.
    assert sc.get("tcp.handshake") is True
    # The ns-3 program's links add a 2-byte PPP header to the profile's 52 bytes.
    assert sc.get("tcp.header_size") == 54
    assert [f["cc"] for f in sc.get("flows")] == ["cubic"] * 5
    # ns-3's RateErrorModel sits on D's device: R2->D only, every packet (the SYN too).
    assert sc.get("links.R2-D.error_ab.per") == 0.05
    assert sc.get("links.R2-D.error_ab.applies_to") == "all"
    assert [link["delay"] for link in sc.get("links")] == ["10ms", "30ms", "10ms"]


def test_dctcp_runs_over_a_step_marking_queue_at_s_in_both_simulators():
    d = ns3_run.BY_NAME["dctcp"]
    assert d.ecn_k == 20 and "--ecnK=20" in d.ns3_args
    toml = ns3_run.path_toml("dctcp", 0.0, 1, 5.0, 1, d.tcp, d.ecn_k)
    sc = airtcp.Scenario.from_toml_str(toml)
    q = sc.get("links")[0]["queue"]
    assert (q["kind"], q["mark_threshold"], q["limit"]) == ("ecn_threshold", 20, 1000)
    # The other links, and every other scheme's path, keep DropTail.
    assert "ecn_threshold" not in str(sc.get("links")[1:])
    assert all(s.ecn_k == 0 for s in ns3_run.SCHEMES if s.name != "dctcp")
    # The queue marks and DCTCP answers: marks on S -> R1 and window cuts for them.
    r = airtcp.run(sc)
    marks = dict(zip(r.links["name"], r.links["ecn_marks"], strict=True))
    assert marks["S->R1"] > 0
    assert r.flows["ecn_reductions"][0] > 0


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
            # Runs of the program that counts every timeout (rtos), 2 and 3 of them.
            "ns3": [res(1.0e6) | {"rtos": 2}, res(1.0e6) | {"rtos": 3}],
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
    assert lines[2] == (
        "| 1 | newreno | 1 % | 2 / 1 | 1.050 | 1.000 | 1.05 | – | yes | 3.0 / 5.0 | 1.0 / 0.0 | – |"
    )
    assert lines[3] == (
        "| 5 | cubic | 20 % | 1 / 2 | 0.800 | 1.000 | 0.80 | – | no | 3.0 / 3.0 | 1.0 / 1.0 | 2.5 |"
    )
    # Mean ratio 1.15, standard error 0.15 (airtcp's alone): 1.15 ± 1.96 · 0.15.
    assert lines[4] == (
        "| 1 | cubic | 5 % | 2 | 1.150 | 1.000 | 1.15 | 0.86–1.44 | no | 3.0 / 3.0 | 1.0 / 1.0 "
        "| – |"
    )
    assert ns3_run.summary(rows) == (
        "Within 10 %: 1 of 3 points. Outside: cubic 5×20 % (0.80), cubic 1×5 % (1.15)."
    )
    missing = {"flows": 1, "cc": "vegas", "per": 0.0, "missing": "not run"}
    assert ns3_run.table([missing]).splitlines()[2] == (
        "| 1 | vegas | 0 % | – | – | – | – | – | not run | – | – | – |"
    )


def test_seeds_grow_until_the_interval_is_within_ten_percent():
    # Below the least number: the least.
    assert ns3_run.seeds_wanted([1.0], [1.0], 1, 5, 40) == 5
    # No spread (a lossless point): stop at what it has.
    same = [2.0e6] * 5
    assert ns3_run.seeds_wanted(same, same, 5, 5, 40) == 5
    # Half-width 1.96 * hypot(cv_a, cv_n) / sqrt(n): cv 0.5 on each side, five seeds ->
    # 0.62 of the ratio; within 10 % needs about 5 * 6.2^2 * 1.1 = 211 seeds, capped at 40.
    wide = [0.5e6, 1.5e6, 0.5e6, 1.5e6, 1.0e6]
    assert ns3_run.seeds_wanted(wide, wide, 5, 5, 40) == 40
    # A little too wide: at least one more batch.
    a = [1.0e6, 1.1e6, 0.9e6, 1.05e6, 0.95e6, 1.2e6, 0.8e6, 1.0e6]
    n = [1.0e6] * 8
    b = ns3_run.ratio_bounds(a, n)
    assert (b[1] - b[0]) / 2 <= 0.1
    assert ns3_run.seeds_wanted(a, n, 8, 5, 40) == 8
    a2 = [1.0e6, 1.6e6, 0.4e6, 1.3e6, 0.7e6]
    assert 10 <= ns3_run.seeds_wanted(a2, [1.0e6] * 5, 5, 5, 40) <= 40


def test_scheme_table_maps_every_ns3_congestion_control_once():
    tids = [s.ns3 for s in ns3_run.SCHEMES if s.name != "reno"]
    assert len(tids) == len(set(tids)) == 16
    assert ns3_run.BY_NAME["westwood+"].ns3 == "ns3::TcpWestwoodPlus"
    # reno runs without SACK on both sides, in airtcp with the whole ns3 profile (ns-3's
    # guessed marks included); the others keep the profiles' defaults.
    reno = ns3_run.BY_NAME["reno"]
    assert reno.tcp == ("sack = false",)
    assert reno.ns3_args == ("--ns3::TcpSocketBase::Sack=0",)
    sc = airtcp.Scenario.from_toml_str(ns3_run.path_toml("reno", 0.01, 1, 5.0, 1, reno.tcp))
    assert sc.get("tcp.sack") is False and sc.get("tcp.profile") == "ns3"
    # An extra line replaces the row's line for the same key, so airtcp's own Reno recovery
    # can be printed against the row (--tcp "reno_sack = false").
    own = ns3_run.with_lines(reno.tcp, ["reno_sack = false", "sack = false"])
    assert own == ("reno_sack = false", "sack = false")
    sc = airtcp.Scenario.from_toml_str(ns3_run.path_toml("reno", 0.01, 1, 5.0, 1, own))
    assert sc.get("tcp.reno_sack") is False and sc.get("tcp.sack") is False
    # A `cc_params.KEY = VALUE` line is a scheme parameter of every flow, not a [tcp] key.
    toml = ns3_run.path_toml("bbr", 0.01, 2, 5.0, 1, ("cc_params.ns3 = 0",))
    sc = airtcp.Scenario.from_toml_str(toml)
    assert "cc_params" not in toml.split("[[nodes]]")[0]
    assert [f["cc_params"] for f in sc.to_dict()["flows"]] == [{"ns3": 0}] * 2
    # A scheme this build lacks is named as such, by the first of its airtcp names it has.
    have = {"newreno", "h-tcp"}
    assert ns3_run.airtcp_name(ns3_run.BY_NAME["htcp"], have) == "h-tcp"
    assert ns3_run.airtcp_name(ns3_run.BY_NAME["ledbat"], have) is None


def test_rows_come_from_stored_results_of_this_core_build_only():
    s = ns3_run.BY_NAME["newreno"]
    one = {"goodput_bps": 1.0e6, "recoveries": 1, "timeouts": 0}
    res = {
        "ns3": {ns3_run.ns3_key(s, 1, 0.05, 60.0): {"1": one, "2": one}},
        "airtcp": {
            "abc": {ns3_run.airtcp_key("newreno", s, 1, 0.05, 60.0): {"1": one}},
            "old": {ns3_run.airtcp_key("newreno", s, 1, 0.01, 60.0): {"1": one}},
        },
    }
    rows, absent, pending = ns3_run.rows_for(res, "abc", {"newreno"}, 60.0)
    assert [(r["cc"], r["per"], len(r["airtcp"]), len(r["ns3"])) for r in rows] == [
        ("newreno", 0.05, 1, 1)
    ]
    assert "ledbat" in [a.name for a in absent] and "newreno" not in [a.name for a in absent]
    assert (1, "newreno", 0.01) in pending and (5, "newreno", 0.05) in pending


def test_bad_arguments_and_missing_ns3_are_clear(tmp_path, capsys):
    with pytest.raises(SystemExit):
        ns3_run.main(["--seeds", "0"])
    assert "--seeds" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no ns-3 virtualenv"):
        ns3_run.main(["--quick", "--ns3-venv", str(tmp_path / "none")])
    with pytest.raises(SystemExit):
        ns3_run.main(["--schemes", "westwood"])
    assert "unknown westwood" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ns3_run.main(["--per", "0.05,x"])


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


def test_ns3_profile_runs_the_ns3_variants_of_westwood_vegas_and_veno():
    d = airtcp.defaults()["profiles"]
    assert d["ns3"]["ns3_schemes"] and not d["linux"]["ns3_schemes"]
    assert d["ns3"]["ack_first_segment"] and d["ns3"]["ts_echo_earliest"]
    assert d["ns3"]["syn_options"] == 4 and d["ns3"]["handshake_ack"]
    assert airtcp.defaults()["tcp"]["syn_options"] == 0
    assert not airtcp.defaults()["tcp"]["handshake_ack"]
    assert not airtcp.defaults()["tcp"]["ts_echo_earliest"]
    for cc in ("westwood+", "vegas", "veno"):

        def goodput(params: str, cc: str = cc) -> float:
            toml = ns3_run.path_toml(cc, 0.02, 1, 8.0, 3)
            if params:
                toml = toml.replace(f'cc = "{cc}"\n', f'cc = "{cc}"\ncc_params = {{ {params} }}\n')
            return float(
                airtcp.run(airtcp.Scenario.from_toml_str(toml)).flows["delivered_bytes"][0]
            )

        assert goodput("") == goodput("ns3 = 1") != goodput("ns3 = 0"), cc


def test_results_of_parts_merge_without_overwriting():
    one = {"goodput_bps": 1.0, "recoveries": 0, "timeouts": 0}
    two = {"goodput_bps": 2.0, "recoveries": 0, "timeouts": 0}
    a = {"ns3": {"k": {"1": one}}, "airtcp": {"b": {"k": {"1": one}}}}
    b = {"ns3": {"k": {"1": two, "2": two}, "j": {"1": two}}, "airtcp": {"c": {"k": {"1": two}}}}
    ns3_run.merge_results(a, b)
    assert a["ns3"] == {"k": {"1": one, "2": two}, "j": {"1": two}}
    assert a["airtcp"] == {"b": {"k": {"1": one}}, "c": {"k": {"1": two}}}


def test_airtcp_alone_reruns_exactly_the_seeds_ns3_has(monkeypatch):
    # A new core build reruns airtcp's side only: the stopping rule must not draw a different
    # seed set from the one ns-3's stored runs have (the table compares common seeds).
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    s = ns3_run.BY_NAME["newreno"]
    nk = ns3_run.ns3_key(s, 1, 0.05, 60.0)
    spread = {str(k): {"goodput_bps": 1.0e6 * (1 + 0.3 * (k % 3))} for k in (1, 2, 3, 5, 8)}
    res = {"ns3": {nk: spread}, "airtcp": {}}
    ran = []

    def fake(args):
        ran.append(args[4])
        return {"goodput_bps": 1.0e6, "build": "abc"}

    monkeypatch.setattr(ns3_run, "airtcp_goodput", fake)
    monkeypatch.setattr(ns3_run, "ProcessPoolExecutor", ThreadPoolExecutor)
    a = SimpleNamespace(
        side="airtcp", seeds=40, min_seeds=5, duration=60.0, jobs=1, tcp=[], store=False
    )
    ns3_run.run_points([(s, "newreno", 1, 0.05)], res, "abc", None, a)
    assert sorted(ran) == [1, 2, 3, 5, 8]
    stored = res["airtcp"]["abc"][ns3_run.airtcp_key("newreno", s, 1, 0.05, 60.0)]
    assert sorted(stored, key=int) == ["1", "2", "3", "5", "8"]


def test_a_new_build_runs_airtcp_at_every_stored_ns3_seed_before_the_rule(monkeypatch):
    # Both sides, a core build without runs: airtcp first runs every seed ns-3 has (here 30,
    # a narrow interval the rule would have met at 5), so the table keeps its seed sets.
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    s = ns3_run.BY_NAME["newreno"]
    nk = ns3_run.ns3_key(s, 1, 0.05, 60.0)
    res = {"ns3": {nk: {str(k): {"goodput_bps": 1.0e6} for k in range(1, 31)}}, "airtcp": {}}
    ran = []

    def fake(args):
        ran.append(args[4])
        return {"goodput_bps": 1.0e6 * (1 + 0.001 * args[4]), "build": "abc"}

    monkeypatch.setattr(ns3_run, "airtcp_goodput", fake)
    monkeypatch.setattr(ns3_run, "ns3_goodput", lambda _: pytest.fail("ns-3 needs no run"))
    monkeypatch.setattr(ns3_run, "ProcessPoolExecutor", ThreadPoolExecutor)
    a = SimpleNamespace(
        side="both", seeds=200, min_seeds=5, duration=60.0, jobs=1, tcp=[], store=False
    )
    ns3_run.run_points([(s, "newreno", 1, 0.05)], res, "abc", None, a)
    assert sorted(ran) == list(range(1, 31))


def test_extra_tcp_lines_reach_every_airtcp_run_and_are_not_stored(monkeypatch, tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    line = 'rtt_sampling = "rfc"'
    sc = airtcp.Scenario.from_toml_str(ns3_run.path_toml("newreno", 0.05, 1, 10.0, 1, (line,)))
    assert sc.get("tcp.rtt_sampling") == "rfc" and sc.get("tcp.profile") == "ns3"
    s = ns3_run.BY_NAME["reno"]
    nk = ns3_run.ns3_key(s, 1, 0.05, 60.0)
    res = {"ns3": {nk: {"1": {"goodput_bps": 1.0e6}}}, "airtcp": {}}
    got = []

    def fake(args):
        got.append(args[5])
        return {"goodput_bps": 1.0e6, "build": "abc"}

    monkeypatch.setattr(ns3_run, "airtcp_goodput", fake)
    monkeypatch.setattr(ns3_run, "ProcessPoolExecutor", ThreadPoolExecutor)
    monkeypatch.setattr(ns3_run, "save_results", lambda *_: pytest.fail("stored"))
    a = SimpleNamespace(
        side="airtcp", seeds=40, min_seeds=5, duration=60.0, jobs=1, tcp=[line], store=False
    )
    ns3_run.run_points([(s, "reno", 1, 0.05)], res, "abc", None, a)
    # The scheme's own lines (reno runs without SACK) stay, the extra one follows.
    assert got == [(*s.tcp, line)]
    with pytest.raises(SystemExit):
        ns3_run.main(["--tcp", line, "--results", str(tmp_path / "r.json")])


def test_ns3_refresh_reruns_only_stored_runs_without_the_timeout_count(monkeypatch):
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    s = ns3_run.BY_NAME["newreno"]
    nk = ns3_run.ns3_key(s, 1, 0.1, 60.0)
    old = {"goodput_bps": 1.0e5, "recoveries": 3, "timeouts": 2}
    res = {"ns3": {nk: {"1": old, "2": old | {"rtos": 4}, "7": dict(old)}}, "airtcp": {}}
    ran = []

    def fake(args):
        ran.append(args[5])
        return old | {"rtos": 5}

    monkeypatch.setattr(ns3_run, "ns3_goodput", fake)
    monkeypatch.setattr(ns3_run, "ProcessPoolExecutor", ThreadPoolExecutor)
    a = SimpleNamespace(
        side="ns3", ns3_refresh=True, seeds=40, min_seeds=5, duration=60.0, jobs=1, store=False
    )
    ns3_run.run_points([(s, "newreno", 1, 0.1)], res, "abc", "exe", a)
    assert sorted(ran) == [1, 7]
    assert [res["ns3"][nk][k]["rtos"] for k in ("1", "2", "7")] == [5, 4, 5]


def test_a_bad_extra_line_is_named_before_any_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(ns3_run, "build", lambda *_: pytest.fail("built before the check"))
    for line, said in [
        ("cc_params.nope = 1", "'bbr' has no parameter 'nope'"),
        ("garbage", "invalid TOML"),
    ]:
        args = ["--side", "airtcp", "--schemes", "bbr", "--per", "0.01", "--flows", "1"]
        args += ["--tcp", line, "--results", str(tmp_path / "r.json")]
        with pytest.raises(SystemExit):
            ns3_run.main(args)
        err = capsys.readouterr().err
        assert f"--tcp {line}" in err and said in err


spec_p = importlib.util.spec_from_file_location("ns3_paired", ROOT / "validation/ns3/paired.py")
ns3_paired = importlib.util.module_from_spec(spec_p)
spec_p.loader.exec_module(ns3_paired)


def test_paired_ratio_takes_its_interval_from_the_per_seed_differences():
    # Differences 0.1, 0.3, 0.2: mean 0.2, sd 0.1, t(0.975, 2 df) = 4.3027; ns-3's mean 1.0.
    r, lo, hi = ns3_paired.paired_ratio([1.1, 1.3, 1.2], [1.0, 1.0, 1.0])
    assert r == pytest.approx(1.2)
    half = 4.3027 * 0.1 / 3**0.5
    assert (lo, hi) == (pytest.approx(1.2 - half, abs=1e-4), pytest.approx(1.2 + half, abs=1e-4))
    # The same goodputs unpaired would spread as widely as each side's seeds; paired, a
    # constant offset has no spread at all.
    r, lo, hi = ns3_paired.paired_ratio([0.6, 1.1, 1.6], [0.5, 1.0, 1.5])
    assert (r, lo, hi) == (pytest.approx(1.1), pytest.approx(1.1), pytest.approx(1.1))
    with pytest.raises(ValueError):
        ns3_paired.paired_ratio([1.0], [1.0])


def test_paired_seed_ranges():
    assert ns3_paired.seeds("3-5") == [3, 4, 5] and ns3_paired.seeds("7") == [7]
    for bad in ("0-3", "5-2", "a"):
        with pytest.raises(SystemExit, match="--seeds"):
            ns3_paired.seeds(bad)
