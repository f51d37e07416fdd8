"""airtcp's BPF congestion controls (bpf/, airtcp.bpf) in the running kernel: each builds,
registers under its name, carries a real TCP transfer between network namespaces, and shows
its scheme's rule after losses. Needs root (CI runs as root, with clang, bpftool and libbpf's
headers installed by .ci/run)."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

from airtcp import bpf

ROOT = Path(__file__).resolve().parents[1]


# TBF's rate counts Ethernet frames: the payload rate of full 1448-byte segments.
RATE_BPS = 10e6
PAYLOAD_BPS = RATE_BPS * 1448 / 1514
DELAY_MS = 10


def _netns_path():
    spec = importlib.util.spec_from_file_location("netns_path", ROOT / "tools/netns_path.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def progs():
    # Not a skip: CI runs as root with these tools (.ci/run installs them), so this must hold.
    assert os.geteuid() == 0, "needs root (network namespaces, BPF)"
    for tool in ("clang", "bpftool", "tc", "ip"):
        assert shutil.which(tool), f"{tool} is needed (apt-get install clang bpftool libbpf-dev)"
    with bpf.loaded() as loaded:
        yield loaded
    # Unregistered on exit.
    assert not {p.name for p in loaded.values()} & set(bpf.available())


def _transfer(cc: str, **path) -> dict:
    netns = _netns_path()
    with netns.Path_(rate="10mbit", delay_ms=DELAY_MS, queue_bytes=100_000, **path) as p:
        # 6 s, and on until 1,200 data segments went out (12 drops at every 100th), however
        # slowly a loaded machine relays them or the scheme sends.
        return p.transfer(cc, 6, min_segments=1200)


def test_each_program_is_offered_under_its_name(progs):
    assert {"airtcp_westwood", "airtcp_ewr"} <= set(bpf.available())


def test_westwood_sets_ssthresh_from_its_bandwidth_estimate_and_min_rtt(progs):
    # Every 100th data segment dropped: fast recoveries, each setting ssthresh.
    rep = _transfer("airtcp_westwood", every=100)
    assert rep["cc"] == "airtcp_westwood"
    rec = bpf.record(progs["westwood"], rep["local_port"])
    assert rec["reductions"] >= 10
    # ssthresh = max(BWE x RTTmin, 2 segments), as the simulated westwood+.
    target = rec["bwe"] * rec["rtt_min_us"] // 1_000_000 // rec["mss"]
    assert rec["ssthresh"] == max(target, 2)
    # RTTmin is the path's propagation delay (two 10 ms legs), not a queueing-inflated RTT.
    assert 2 * DELAY_MS * 1000 <= rec["rtt_min_us"] < 2 * DELAY_MS * 1000 + 3000
    # The estimate is the rate the path delivered: at most the bottleneck's payload rate, and
    # not a halved window's share of it.
    assert 0.5 * PAYLOAD_BPS < rec["bwe"] * 8 < 1.02 * PAYLOAD_BPS
    assert rep["info"]["total_retrans"] >= rec["reductions"]


def test_ewr_judges_random_losses_as_not_congestion(progs):
    # The receiver acknowledges every segment (as the simulated EWR receiver sees every
    # packet), every 100th data segment is dropped and the queue stays short: EWR's backlog x
    # stays at or below beta, so no loss takes the congestion branch (cwnd = 1).
    rep = _transfer("airtcp_ewr", every=100, quickack=True)
    assert rep["cc"] == "airtcp_ewr"
    rec = bpf.record(progs["ewr"], rep["local_port"])
    linear, wait, congestion = rec["branches"]
    assert linear + wait >= 10
    assert congestion == 0
    # Eq. 1 counts every byte once: its samples' bytes, the first ACK's (it only starts the
    # clock) and those still pending make what the receiver got (the FIN's ACK may add one),
    # less a few segments the program's ACKs do not cover (one to three in every run here,
    # read at once or half a second later; docs/bpf.md).
    mss = rec["mss"]
    counted = rec["sampled_bytes"] + rec["unsampled"]
    assert rep["received"] - 4 * mss <= counted <= rep["received"] + 1
    # Eq. 2's estimate, averaged over the samples, lies between the rate the connection
    # delivered while ACKs came and the bottleneck's. Not at the delivered rate: a window that
    # does not fill the path returns its ACKs in trains at the bottleneck's spacing with an
    # idle gap after each, and the train's many short samples outnumber the one spanning the
    # gap. Nor at the bottleneck's: cwnd = oCwnd = estimate x RTTmin is a fixed point that does
    # not grow (docs/bpf.md), so the rate stays near where the first estimates put it.
    delivered = rec["sampled_bytes"] / (rec["sampled_us"] / 1e6)
    mean_est = rec["est_sum"] / rec["samples"]
    assert 0.8 * delivered < mean_est < 1.05 * PAYLOAD_BPS / 8
    assert rec["ocwnd"] == max(rec["est"] * rec["rtt_min_us"] // 1_000_000 // rec["mss"], 2)
