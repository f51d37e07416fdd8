"""airtcp bench and airtcp demo, in their quick forms."""

from __future__ import annotations

import csv

import pytest

from airtcp.bench import scenario
from airtcp.cli import main

BENCH_COLUMNS = [
    "scenario",
    "sim s",
    "wall s",
    "events",
    "events/s",
    "delivered",
    "packet-hops",
    "packet-hops/s",
    "peak RSS MB",
]


def test_bench_quick_only_a(capsys, tmp_path):
    code = main(["bench", "--quick", "--only", "a", "--json", str(tmp_path / "b.json")])
    out, err = capsys.readouterr()
    assert code == 0, err
    header = out.splitlines()[0]
    for col in BENCH_COLUMNS:
        assert col in header
    row = out.splitlines()[2].split()
    assert row[0] == "a" and row[1] == "10"
    assert float(row[-1]) > 1  # peak RSS in MB
    assert (tmp_path / "b.json").exists()


def test_bench_rejects_unknown_key(capsys):
    assert main(["bench", "--only", "z"]) == 2
    assert capsys.readouterr().err.startswith("error: --only: no benchmark 'z'")


def test_bench_scenarios_as_specified():
    b = scenario("b")
    assert b["duration"] == 30 and len(b["flows"]) == 50
    assert b["flows"][1]["start"] == 0.001
    assert b.get("links.R1-R2.rate") == "100Mbps" and b.get("links.R1-R2.queue.limit") == 1000
    assert b.get("links.S1-R1.rate") == "1Gbps" and b.get("links.R2-D50.delay") == "4ms"
    assert b.get("links.R2-D7.error") == {"model": "bernoulli", "per": 0.01, "applies_to": "all"}
    assert b["tcp"] == {
        "segment_size": 1000,
        "header_size": 40,
        "initial_cwnd": 10,
        "delayed_ack": True,
        "delack_count": 2,
        "delack_timeout": "200ms",
        "rcv_window": "128KiB",
    }
    c = scenario("c")
    assert c["duration"] == 10 and c.get("links.R1-R2.rate") == "1Gbps"
    assert all("error" not in link for link in c["links"])
    assert scenario("b", quick=True)["duration"] == 3


def test_bench_i_is_the_broch_manet_with_aodv():
    i = scenario("i")
    assert i["duration"] == 200 and len(i["nodes"]) == 50
    assert i["routing"] == {"protocol": "aodv"}
    assert i["mobility"] == {
        "model": "random_waypoint",
        "area": [1500, 300],
        "speed": [1, 20],
        "pause": 0,
        "stationary": False,
    }
    # 4 packets/s of 512 bytes per flow.
    assert len(i["flows"]) == 10
    assert all(
        f["app"] == {"kind": "cbr", "rate": "16384bps", "packet_size": 512} for f in i["flows"]
    )
    air = i["media"][0]
    assert air["preset"] == "ns3" and air["rate"] == "2Mbps" and air["rts_threshold"] == 0
    # ns-2's chain radio: 0.28183815 W, decoded to 3.652e-10 W.
    assert air["tx_power_dbm"] == pytest.approx(24.5, abs=0.01)
    assert air["rx_threshold_dbm"] == pytest.approx(-64.37, abs=0.01)


def test_demo_quick(capsys, tmp_path):
    out_dir = tmp_path / "demo"
    code = main(["demo", "--quick", "--out", str(out_dir), "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    # Without a terminal: a line per 30 s and the last one, not a line per run.
    progress = [ln for ln in err.splitlines() if ln.startswith("[")]
    assert progress == [ln for ln in progress if ln.startswith("[4/4]")] and len(progress) == 1
    assert "ftp1 kbps" in out
    csv_path = out_dir / "goodput_vs_per.csv"
    png_path = out_dir / "goodput_vs_per.png"
    assert str(csv_path) in out and str(png_path) in out
    rows = list(csv.DictReader(csv_path.open()))
    assert [float(r["per"]) for r in rows] == [0.0, 0.02]
    assert all(float(r["wireless_mean_kbps"]) > 0 for r in rows)
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv", [["demo", "--workers", "0"], ["bench", "--repeat", "0"]])
def test_bad_numbers(capsys, argv):
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("error: ")
