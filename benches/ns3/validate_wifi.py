"""airtcp's ``ns3`` 802.11 preset against ns-3.44 on the 200 m chain (``make validate-ns3-wifi``).

For each hop count, ``--seeds`` runs of ns-3 (``wifi_chain.cc --ns2Rx=0``: ns-3's own SINR
reception, RngRun = seed) and of airtcp (the ``ns3`` preset with the chain's radio, scenario
seed = seed): goodput, TCP retransmissions and MAC transmissions per delivered data frame.
The ratio airtcp / ns-3 of the mean goodputs gets a 95% interval from the delta method on the
two independent means. Writes the table between the ``ns3-wifi`` markers of
docs/validation.md (``--write``) or prints it. Not in CI: each ns-3 run takes seconds of a core.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import chain  # noqa: E402  (benches/ns3/chain.py: the ns-3 build and its result line)

DOC = ROOT / "docs" / "validation.md"
BEGIN = "<!-- ns3-wifi:begin (benches/ns3/validate_wifi.py --write) -->"
END = "<!-- ns3-wifi:end -->"

# ns-2's radio on the chain (wifi_chain.cc): two-ray ground at 914 MHz, 24.5 dBm, decoded up
# to 250 m (the preamble-detection minimum RSSI), sensed and received as energy up to 550 m.
RX_DBM = 10 * math.log10(3.652e-10) + 30
CS_DBM = 10 * math.log10(1.559e-11) + 30


def scenario(hops: int, seed: int, duration: float) -> dict:
    nodes = [
        {
            "name": f"n{i}",
            "kind": "host" if i in (0, hops) else "router",
            "position": [200.0 * i, 0.0],
        }
        for i in range(hops + 1)
    ]
    medium = {
        "name": "air",
        "kind": "wifi",
        "preset": "ns3",
        "rate": "2Mbps",
        "basic_rate": "1Mbps",
        "propagation": "two_ray_ground",
        "frequency_hz": 914e6,
        "tx_power_dbm": 10 * math.log10(0.28183815) + 30,
        "system_loss": 1.0,
        "rx_threshold_dbm": RX_DBM,
        "cs_threshold_dbm": CS_DBM,
        "rx_sensitivity_dbm": CS_DBM,
        "rts_threshold": 0,
        "queue": {"kind": "droptail", "limit": 50},
    }
    return {
        "name": f"ns3chain{hops}",
        "duration": duration,
        "seed": seed,
        "tcp": {"profile": "ns2", "segment_size": 1460},
        "nodes": nodes,
        "media": [medium],
        "flows": [
            {
                "name": "ftp",
                "src": "n0",
                "dst": f"n{hops}",
                "cc": "newreno",
                "app": {"kind": "bulk"},
            }
        ],
    }


def run_airtcp(hops: int, seed: int, duration: float) -> dict:
    from airtcp import _core

    r = json.loads(_core.run_json(json.dumps(scenario(hops, seed, duration)), series=False))
    f = r["flows"][0]
    data = sum(m["data_frames"] for m in r["macs"])
    return {
        "goodput_kbps": f["goodput_bps"] / 1e3,
        "retx": f["retransmissions"],
        "tx_per_frame": tx_per_frame(data, f["delivered_bytes"], hops),
    }


def tx_per_frame(data_frames: float, delivered_bytes: float, hops: int) -> float:
    """Data frames on the air (segments and TCP ACKs) per frame a delivered segment and its
    ACK needed: 2 per segment per hop with an ACK per segment."""
    return data_frames / max(2.0 * hops * delivered_bytes / 1460.0, 1.0)


def run_ns3(exe: Path, hops: int, seed: int, duration: float) -> dict:
    cmd = [str(exe), f"--run={seed}", f"--duration={duration:g}", f"--hops={hops}", "--ns2Rx=0"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("wall_s=")][-1]
    kv = dict(x.split("=", 1) for x in line.split())
    return {
        "goodput_kbps": float(kv["goodput_kbps"]),
        "retx": float(kv["tcp_retransmissions"]),
        "tx_per_frame": tx_per_frame(float(kv["mac_data_tx"]), float(kv["delivered_bytes"]), hops),
    }


def ratio_ci(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """Ratio of means a/b and its 95% interval (delta method, independent samples)."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    va = statistics.variance(a) / len(a) if len(a) > 1 else float("nan")
    vb = statistics.variance(b) / len(b) if len(b) > 1 else float("nan")
    r = ma / mb
    se = r * math.sqrt(va / ma**2 + vb / mb**2)
    return r, r - 1.96 * se, r + 1.96 * se


def table(rows: list[dict], seeds: int, duration: float) -> str:
    out = [
        f'ns-3.44 (`wifi_chain.cc --ns2Rx=0`) and airtcp (`preset = "ns3"` with the chain\'s '
        f"radio), {seeds} seeds each, {duration:g} s; goodput in kbit/s (mean over seeds), TCP "
        "retransmissions per run, MAC data transmissions per frame needed (segments and TCP ACKs "
        "delivered, per hop); ratio "
        "airtcp / ns-3 of mean goodput with its 95% interval.",
        "",
        "| hops | ns-3 goodput | airtcp goodput | ratio [95% CI] | ns-3 retx | airtcp retx "
        "| ns-3 tx/frame | airtcp tx/frame |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        n, a = row["ns3"], row["airtcp"]
        g = lambda xs, k: statistics.fmean(x[k] for x in xs)  # noqa: E731
        r, lo, hi = ratio_ci([x["goodput_kbps"] for x in a], [x["goodput_kbps"] for x in n])
        out.append(
            f"| {row['hops']} | {g(n, 'goodput_kbps'):.1f} | {g(a, 'goodput_kbps'):.1f} "
            f"| {r:.3f} [{lo:.3f}, {hi:.3f}] | {g(n, 'retx'):.1f} | {g(a, 'retx'):.1f} "
            f"| {g(n, 'tx_per_frame'):.2f} | {g(a, 'tx_per_frame'):.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hops", default="1,2,3,4,6,8,12,16")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=50.0)
    ap.add_argument("--write", action="store_true", help="update docs/validation.md")
    ap.add_argument(
        "--defaults", action="store_true", help="print ns-3's defaults the ns3 preset takes, only"
    )
    a = ap.parse_args(argv)
    if a.defaults:
        venv = ROOT / ".ns3venv"
        defines = ["-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE"]
        exe = chain._validation_ns3().compile_program(
            venv, HERE / "ns3_defaults.cc", chain.OUT / "ns3_defaults", defines
        )
        subprocess.run([str(exe)], check=True)
        return 0
    hops = [int(h) for h in a.hops.split(",")]
    exe = chain.build_ns3(ROOT / ".ns3venv")
    rows = []
    for h in hops:
        row = {"hops": h, "ns3": [], "airtcp": []}
        for s in range(1, a.seeds + 1):
            row["ns3"].append(run_ns3(exe, h, s, a.duration))
            row["airtcp"].append(run_airtcp(h, s, a.duration))
        rows.append(row)
        print(f"hops {h}: done", file=sys.stderr, flush=True)
    text = table(rows, a.seeds, a.duration)
    print(text)
    if a.write:
        doc = DOC.read_text()
        i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:i] + "\n" + text + "\n" + doc[j:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
