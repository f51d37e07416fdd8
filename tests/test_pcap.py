"""Packet traces: pcap files read back with dpkt and tcpdump, checked against the run's own
counters."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter

import dpkt
import pytest

import airtcp
from airtcp.cli import main


def _records(path):
    with open(path, "rb") as f:
        r = dpkt.pcap.Reader(f)
        return r.datalink(), list(r)


def _lossy_dumbbell(tmp_path):
    sc = airtcp.dumbbell(
        1, duration=5.0, per=0.02, tcp={"sack": True, "timestamps": True, "delayed_ack": False}
    )
    sc.set("trace", {"pcap": ["S1", "D1"], "pcap_dir": str(tmp_path / "pcap")})
    return sc


def test_node_traces_carry_the_flows_segments_and_options(tmp_path):
    r = airtcp.run(_lossy_dumbbell(tmp_path))
    flow = r.flows.row(0, named=True)
    linktype, sent = _records(tmp_path / "pcap" / "S1.pcap")
    assert linktype == 101  # LINKTYPE_RAW in files (DLT_RAW is 12 in memory)
    data_out, acks_in, seen, resent, sack_acks, ts = [], [], set(), 0, 0, 0
    for _, buf in sent:
        ip = dpkt.ip.IP(buf)
        tcp = ip.data
        opts = dict(dpkt.tcp.parse_opts(tcp.opts))
        ts += dpkt.tcp.TCP_OPT_TIMESTAMP in opts
        if ip.src == bytes([10, 0, 0, 1]):  # S1 is node 0
            if ip.len > 20 + tcp.off * 4:
                data_out.append(tcp)
                resent += tcp.seq in seen
                seen.add(tcp.seq)
        else:
            acks_in.append(tcp)
            sack_acks += dpkt.tcp.TCP_OPT_SACK in opts
    # Every data segment the sender sent, and its retransmissions, are in its trace.
    assert len(data_out) == flow["sent_packets"]
    assert resent == flow["retransmissions"] > 0
    # Losses make the receiver send SACK blocks; every segment carries timestamps.
    assert sack_acks > 0 and ts == len(sent)
    # The receiver's trace: the highest byte it received is what it delivered in order, up to
    # a tail still in flight or reordered at the end.
    _, received = _records(tmp_path / "pcap" / "D1.pcap")
    top = 0
    for _, buf in received:
        ip = dpkt.ip.IP(buf)
        if ip.dst == bytes([10, 0, 0, 4]) and ip.len > 20 + ip.data.off * 4:  # D1: node 3
            top = max(top, ip.data.seq + ip.len - 20 - ip.data.off * 4)
    assert 0 <= top - flow["delivered_bytes"] < 20 * 1000
    # The last cumulative ACK the sender got is at most what the receiver delivered.
    assert max(a.ack for a in acks_in) <= flow["delivered_bytes"]


def test_tcpdump_reads_the_traces(tmp_path):
    assert shutil.which("tcpdump"), "tcpdump is needed (apt-get install tcpdump)"
    airtcp.run(_lossy_dumbbell(tmp_path))
    p = subprocess.run(
        ["tcpdump", "-r", str(tmp_path / "pcap" / "S1.pcap"), "-n", "-c", "50"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert "10.0.0.1.10000 > 10.0.0.4.20000" in p.stdout  # data
    assert "10.0.0.4.20000 > 10.0.0.1.10000" in p.stdout  # its ACKs
    assert "sackOK" in p.stdout or "sack" in p.stdout or "TS val" in p.stdout


def test_an_80211_medium_trace_holds_every_frame_the_stations_sent(tmp_path):
    sc = airtcp.chain(3, duration=2.0, trace={"pcap": ["air"], "pcap_dir": str(tmp_path)})
    r = airtcp.run(sc)
    linktype, recs = _records(tmp_path / "air.pcap")
    assert linktype == dpkt.pcap.DLT_IEEE802_11_RADIO
    kinds: Counter[str] = Counter()
    for _, buf in recs:
        frame = dpkt.radiotap.Radiotap(buf).data
        if frame.type == dpkt.ieee80211.CTL_TYPE:
            kinds[{11: "rts", 12: "cts", 13: "ack"}[frame.subtype]] += 1
        else:
            assert frame.type == dpkt.ieee80211.DATA_TYPE
            kinds["data"] += 1
    macs = r.macs
    for k in ("rts", "cts", "data", "ack"):
        assert kinds[k] == macs[f"{k}_frames"].sum() > 0, k
    p = subprocess.run(
        ["tcpdump", "-r", str(tmp_path / "air.pcap"), "-n", "-c", "20"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert "Request-To-Send" in p.stdout and "Clear-To-Send" in p.stdout


def test_no_trace_writes_nothing_and_bad_names_are_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sc = airtcp.dumbbell(1, duration=1.0, trace={"pcap": ["S1"]})
    sc.validate()
    assert not (tmp_path / "pcap").exists()  # checking a scenario writes no file
    airtcp.run(airtcp.dumbbell(1, duration=1.0))
    assert list(tmp_path.iterdir()) == []
    airtcp.run(sc)
    assert (tmp_path / "pcap" / "S1.pcap").stat().st_size > 24
    with pytest.raises(airtcp.ScenarioError, match=r"trace.pcap\[1\]: 'X9' is no node"):
        airtcp.dumbbell(1, duration=1.0, trace={"pcap": ["S1", "X9"]}).validate()
    tdma = airtcp.chain(2, mac="tdma", duration=1.0, trace={"pcap": ["mesh"]})
    with pytest.raises(airtcp.ScenarioError, match="TDMA medium"):
        tdma.validate()


def test_cli_pcap_traces_every_node(tmp_path, capsys):
    f = tmp_path / "d.toml"
    airtcp.dumbbell(1, duration=1.0).to_toml(f)
    code = main(["run", str(f), "--pcap", str(tmp_path / "caps")])
    assert code == 0, capsys.readouterr().err
    names = sorted(p.name for p in (tmp_path / "caps").iterdir())
    assert names == ["D1.pcap", "R1.pcap", "R2.pcap", "S1.pcap"]
