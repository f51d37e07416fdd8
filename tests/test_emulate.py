"""The real-time emulator with real sockets: UDP through emulated links (rate, delay, loss,
queue drops against the scenario), a short kernel-TCP emulation whose result loads like a
simulated one, and cleanup on SIGINT. Needs root, /dev/net/tun and `ip` (CI has them)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import airtcp
from airtcp import bpf
from airtcp.emulate import NS_PREFIX, Emulator, NamespaceSet, requirements_problem
from airtcp.store import Store

pytestmark = pytest.mark.kernel


@pytest.fixture(autouse=True)
def _can_emulate():
    # Not a skip: CI runs as root with iproute2 (.ci/run installs it), so this must hold.
    problem = requirements_problem()
    assert problem is None, problem


def chain(bottleneck: dict, duration: str = "3s") -> airtcp.Scenario:
    """A - R - B: a fast access link, then the link under test."""
    return airtcp.Scenario(
        {
            "name": "emu-chain",
            "duration": duration,
            "seed": 3,
            "nodes": [{"name": "A"}, {"name": "R", "kind": "router"}, {"name": "B"}],
            "links": [
                {"a": "A", "b": "R", "rate": "100Mbps", "delay": "1ms"},
                {"a": "R", "b": "B", **bottleneck},
            ],
            "flows": [{"src": "A", "dst": "B", "app": {"kind": "bulk"}}],
        }
    )


def udp_through(sc: airtcp.Scenario, rate_bps: float, size: int, seconds: float):
    """Send UDP from A to B at `rate_bps` (datagrams of `size` IP bytes) for `seconds`;
    the receiver's record and the emulator's report."""
    with NamespaceSet(["A", "B"]) as bed:
        t0 = time.time() + 0.5
        rx = bed.spawn(
            1,
            ["udp-recv", "--t0", repr(t0), "--port", "9000", "--addr", bed.addr(1)]
            + ["--end", repr(seconds + 0.6)],
        )
        assert rx.stdout is not None and rx.stdout.readline().strip() == "ready"
        emu = Emulator(sc, bed, t0, seconds + 5, None)
        emu.start()
        tx = bed.spawn(
            0,
            ["udp-send", "--t0", repr(t0), "--port", "9000", "--dst", bed.addr(1)]
            + ["--stop", repr(seconds), "--rate", repr(rate_bps), "--size", str(size)],
        )
        sent = json.loads(tx.communicate()[0])["sent"]
        got = json.loads(rx.communicate()[0])
        report = emu.stop()
    return sent, got, report


def test_requirements_are_named_plainly(monkeypatch):
    em = sys.modules["airtcp.emulate"]  # the module (airtcp.emulate is the function)
    monkeypatch.setattr(em.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(em.shutil, "which", lambda name: None)
    problem = em.requirements_problem()
    assert problem is not None
    assert "root privileges" in problem and "iproute2" in problem
    with pytest.raises(em.EmulationError, match="root privileges"):
        airtcp.emulate(chain({"rate": "10Mbps", "delay": "1ms"}))


def test_what_cannot_be_emulated_is_refused_with_its_path():
    sc = airtcp.load(Path(__file__).parents[1] / "scenarios" / "dumbbell.toml")
    sc.set("flows.0.cc", "vegas")
    with pytest.raises(airtcp.ScenarioError, match=r"flows\[0\]\.cc: 'vegas' has no kernel"):
        airtcp.emulate(sc, duration=1)
    wifi = airtcp.chain(2, duration=1)
    wifi.set("agents", [{"kind": "eln", "node": "n1"}])
    with pytest.raises(airtcp.ScenarioError, match=r"agents\[0\]\.kind: node agents are not"):
        airtcp.emulate(wifi)
    udp = chain({"rate": "10Mbps", "delay": "1ms"})
    udp.set("flows.0.app", {"kind": "onoff", "rate": "1Mbps", "on_mean": "1s", "off_mean": "1s"})
    with pytest.raises(airtcp.ScenarioError, match=r"flows\[0\]\.app\.kind: 'onoff' is not"):
        airtcp.emulate(udp)


def test_udp_rate_delay_and_queue_drops_match_the_scenario():
    # 1000-byte IP datagrams at 8 Mbit/s into a 4 Mbit/s, 10 ms link with 20 packets of
    # buffer: the link runs full, half the datagrams overflow its queue.
    size, link_bps, delay = 1000, 4e6, 0.010
    sc = chain({"rate": "4Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 20}})
    sent, got, rep = udp_through(sc, 8e6, size, 2.0)
    links = {r["name"]: r for r in rep["links"]}
    bott = links["R->B"]
    n = len(got["seqs"])
    # Conservation: every datagram read is delivered, dropped by the queue or still held.
    assert (
        rep["read_packets"]
        == rep["delivered_packets"]
        + bott["drops_queue_overflow"]
        + rep["in_flight_packets"]
        + rep["ignored_not_ipv4"]
        + rep["ignored_unknown_destination"]
    )
    assert n == rep["delivered_packets"] == sent - bott["drops_queue_overflow"]
    assert bott["drops_queue_overflow"] > 0.4 * sent
    # Delivered rate over the arrivals' span: the link's rate, up to the spacing of two
    # datagrams at each end of the span (measured from the first to the last arrival).
    span = got["arrivals"][-1] - got["arrivals"][0]
    rate = (n - 1) * size * 8 / span
    assert abs(rate - link_bps) / link_bps < 0.02, rate
    # One-way delay: never less than both serializations and propagation delays; with the
    # queue full most of the time, a datagram typically waits behind 20 others (40 ms). The
    # median is robust to the odd late wake-up of the two Python endpoints.
    tx = size * 8 / link_bps
    ideal = size * 8 / 100e6 + 0.001 + tx + delay
    delays = sorted(got["delays"])
    assert delays[0] >= ideal - 50e-6
    median = delays[len(delays) // 2]
    assert ideal + 19 * tx < median < ideal + 21 * tx + 0.001, median


def test_udp_loss_rate_matches_bernoulli_per():
    per = 0.1
    sc = chain(
        {
            "rate": "20Mbps",
            "delay": "5ms",
            "error": {"model": "bernoulli", "per": per},
            "queue": {"kind": "droptail", "limit": 1000},
        }
    )
    sent, got, rep = udp_through(sc, 2e6, 250, 2.0)
    # No queueing at a tenth of the link's rate: a datagram's one-way delay is the path's,
    # plus the emulator's lateness and the endpoints' stacks (median within 1 ms).
    delays = sorted(got["delays"])
    ideal = 250 * 8 / 100e6 + 0.001 + 250 * 8 / 20e6 + 0.005
    assert delays[0] >= ideal - 50e-6
    assert delays[len(delays) // 2] < ideal + 0.001, delays[len(delays) // 2]
    lost = sent - len(got["seqs"])
    bott = {r["name"]: r for r in rep["links"]}["R->B"]
    # Every loss is the channel's, counted by the emulator.
    assert lost == bott["drops_channel_error"]
    assert bott["drops_queue_overflow"] == 0
    # Binomial(n = 2000, p = 0.1): sd 0.67 %; 5 sd either side.
    sd = (per * (1 - per) / sent) ** 0.5
    assert abs(lost / sent - per) < 5 * sd, (lost, sent)


def test_emulate_one_tcp_flow_loads_like_a_simulated_result(tmp_path):
    sc = chain({"rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 50}})
    sc.set("flows.0.cc", "cubic")
    sc.set("trace", {"cwnd": True})
    path = tmp_path / "sc.json"
    path.write_text(sc.to_json())
    out = tmp_path / "r.json"
    cli = [sys.executable, "-m", "airtcp", "emulate", str(path), "--duration", "3"]
    p = subprocess.run([*cli, "--json", str(out)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "emulated: Linux TCP" in p.stdout and "emulator lateness over" in p.stdout
    r = airtcp.Result.from_json(out)
    f = r.flow("flow0")
    assert f["backend"] == "linux" and f["kernel_cc"] == "cubic"
    # A bulk flow fills most of a 10 Mbit/s link within 3 s (slow start takes ~0.3 s).
    assert 5e6 < f["goodput_bps"] <= 10e6
    assert f["rtt_min_s"] >= 0.022  # 2 x (1 ms + 10 ms) of propagation
    t, cwnd, _ = r.cwnd("flow0")
    assert len(t) > 100 and cwnd.max() > 10
    em = r.raw["emulation"]
    assert em["lateness_us"]["packets"] > 1000
    assert set(r.links["name"]) == {"A->R", "R->A", "R->B", "B->R"}
    # Stored beside a simulated run of the same scenario, told apart by `backend`.
    sim = airtcp.run(sc.with_values({"duration": "3s"}))
    kernel_only = {"kernel_cc", "kernel_cc_used", "backend"}
    assert set(sim.flows.columns) >= set(r.flows.columns) - kernel_only
    with Store(tmp_path / "s.sqlite", create=True) as st:
        for res, key in ((sim, "sim"), (r, "linux")):
            st.record(
                scenario_hash=f"{sc.hash()}-{key}",
                seed=3,
                params="{}",
                scenario=sc.to_json(),
                status="ok",
                raw=res.raw,
            )
        flows = st.flows()
    assert sorted(flows["backend"].to_list()) == ["linux", "sim"]
    # The run's namespaces are gone.
    prefix = em["namespace_prefix"]
    assert prefix.startswith(NS_PREFIX)
    assert not [n for n in os.listdir("/run/netns") if n.startswith(prefix)]


def test_emulate_tcp_over_a_two_hop_80211_chain():
    # n0 - n1 - n2, 200 m apart, ns-2's 802.11 (2 Mbit/s, RTS/CTS for every frame): the
    # simulator carries the kernel's packets through the MAC of every station in real time.
    sc = airtcp.chain(2, duration=3, cc="cubic")
    r = airtcp.emulate(sc)
    em = r.raw["emulation"]
    assert em["engine"] == "simulator" and em["unmatched_packets"] == 0
    f = r.flow("ftp")
    assert f["backend"] == "linux" and f["kernel_cc"] == "cubic"
    macs = {m["node"]: m for m in r.raw["macs"]}
    assert set(macs) == {"n0@air", "n1@air", "n2@air"}
    # Every data segment n2 received was relayed by n1, after an RTS/CTS exchange.
    assert macs["n1@air"]["data_frames"] >= macs["n2@air"]["data_frames"] > 50
    assert macs["n0@air"]["rts_frames"] >= macs["n0@air"]["data_frames"] > 50
    # Two hops share one channel: at most half of what one 802.11 hop carries (the
    # simulator's one-hop UDP saturation at this size, about 1.35 Mbit/s), and the kernel's
    # flow gets a good part of what airtcp's own TCP gets over the same chain.
    sim = airtcp.run(sc).flow("ftp")["goodput_bps"]
    assert 0.4 * sim < f["goodput_bps"] < 0.7e6, (f["goodput_bps"], sim)
    assert f["rtt_min_s"] > 0.004  # two RTS/CTS/data/ACK exchanges of a segment each way
    assert em["lateness_us"]["packets"] > 100
    prefix = em["namespace_prefix"]
    assert not [n for n in os.listdir("/run/netns") if n.startswith(prefix)]


def test_emulate_udp_cbr_over_80211_delivers_the_simulated_saturation_rate():
    # One ns-2 802.11 hop offered 2 Mbit/s of 1000-byte datagrams: the MAC (RTS/CTS, data,
    # ACK, backoff) carries about 1.3 Mbit/s and the station's queue overflows with the
    # rest (less the 50 it holds at the end). Saturated, the delivered rate is the MAC's, not
    # the sender's timing: the kernel's datagrams through the emulator get the simulated CBR
    # flow's within 5 %.
    sc = airtcp.chain(1, duration=2)
    sc.set("flows.0.app", {"kind": "cbr", "rate": "2Mbps", "packet_size": 1000})
    sc.set("flows.0.cc", None)
    r = airtcp.emulate(sc)
    f = r.flow("ftp")
    assert f["transport"] == "udp" and f["backend"] == "linux"
    sim = airtcp.run(sc).flow("ftp")
    assert abs(f["goodput_bps"] - sim["goodput_bps"]) < 0.05 * sim["goodput_bps"], (
        f["goodput_bps"],
        sim["goodput_bps"],
    )
    n0 = next(m for m in r.raw["macs"] if m["node"] == "n0@air")
    # Every packet read was delivered, dropped or is still inside; what was dropped, the
    # station's queue dropped (no collisions or channel errors with one sender at 200 m).
    pk, em = r.raw["packets"], r.raw["emulation"]
    ignored = em["ignored_not_ipv4"] + em["ignored_unknown_destination"]
    assert pk["sent"] == pk["delivered"] + pk["dropped"] + pk["in_flight"] + ignored
    assert pk["dropped"] == n0["drops_queue_overflow"] > 0.1 * f["sent_packets"]


@pytest.mark.parametrize(
    ("sig", "cc"),
    [(signal.SIGINT, "newreno"), (signal.SIGTERM, "newreno"), (signal.SIGINT, "westwood")],
)
def test_signal_mid_run_removes_the_namespaces(tmp_path, sig, cc):
    # With westwood the run registered airtcp_westwood itself: it must be gone after too.
    had = set(bpf.available())
    sc = chain({"rate": "10Mbps", "delay": "5ms"}, duration="30s")
    sc.set("flows.0.cc", cc)
    path = tmp_path / "sc.json"
    path.write_text(sc.to_json())
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "emulate", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    mine = f"{NS_PREFIX}{p.pid}x"
    deadline = time.time() + 20
    while time.time() < deadline:
        names = os.listdir("/run/netns") if Path("/run/netns").exists() else []
        if sum(n.startswith(mine) for n in names) == 2:
            break
        time.sleep(0.05)
    else:
        p.kill()
        pytest.fail(f"the emulation did not create its namespaces: {p.communicate()}")
    time.sleep(1.0)  # into the run: flows started, emulator running
    p.send_signal(sig)
    _, err = p.communicate(timeout=20)
    assert p.returncode != 0
    left = [n for n in os.listdir("/run/netns") if n.startswith(mine)]
    assert left == [], err
    assert set(bpf.available()) == had, err


def test_snr_gate_stops_the_kernel_sender_while_closed():
    # MH's uplink SNR is 20 dB, 0 dB over [1.0, 1.5) and [2.0, 2.5) (threshold 5 dB); the
    # model applies to no packet (applies_to = "ack" on a direction that carries data), so
    # only the gate acts. It reads each 0.5 s sample as it ends: closed over [1.5, 2.0) and
    # [2.5, 3.0) of a 3.5 s run: 2 closures, 1 s closed.
    samples = [20.0, 20.0, 0.0, 20.0, 0.0, 20.0, 20.0, 20.0, 20.0]
    sc = airtcp.Scenario(
        {
            "name": "emu-gate",
            "duration": "3.5s",
            "nodes": [{"name": "MH"}, {"name": "FH"}],
            "links": [
                {
                    "name": "up",
                    "a": "MH",
                    "b": "FH",
                    "kind": "wireless",
                    "rate": "5Mbps",
                    "delay": "5ms",
                    "queue": {"kind": "droptail", "limit": 20},
                    "error_ab": {
                        "model": "snr",
                        "modulation": "cck5.5",
                        "interval": "500ms",
                        "samples": samples,
                        "applies_to": "ack",
                    },
                }
            ],
            "flows": [{"src": "MH", "dst": "FH", "cc": "cubic", "app": {"kind": "bulk"}}],
            "agents": [{"kind": "snr_gate", "node": "MH", "link": "up", "threshold_db": 5.0}],
        }
    )
    r = airtcp.emulate(sc)
    g = r.table("agents").row(0, named=True)
    assert g["kind"] == "snr_gate" and g["closures"] == 2
    assert abs(g["closed_s"] - 1.0) < 1e-6
    # Open 2.5 s of 3.5 at 5 Mbit/s: 3.57 Mbit/s on average at most, plus what the 20-packet
    # queue held at each closure (0.07 Mbit/s each); and the sender filled the open periods
    # (over 60 % of them: cubic's start and its recovery after each reopening).
    good = r.flow("flow0")["goodput_bps"]
    assert 0.6 * 3.57e6 < good < 3.75e6, good
    # The kernel's sender stopped: new data while closed is at most what it sent before
    # the first zeroed ACK reached it (one round trip of data per closure, ~8 segments).
    assert g["new_data_while_closed"] <= 2 * 12, g


def test_westwood_flow_runs_on_the_registered_bpf_congestion_control():
    # CI has clang and bpftool (.ci/run), so airtcp_westwood is built and registered for the
    # run, and unregistered after when the kernel did not have it before.
    before = set(bpf.available())
    sc = chain({"rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": 50}})
    sc.set("flows.0.cc", "westwood")
    r = airtcp.emulate(sc, duration=2)
    f = r.flow("flow0")
    assert f["kernel_cc"] == "airtcp_westwood"
    # The socket itself reports the BPF program as its congestion control.
    assert f["kernel_cc_used"] == "airtcp_westwood"
    assert f["goodput_bps"] > 2e6
    assert set(bpf.available()) == before
