"""airtcp's ``ns3`` 802.11 preset against ns-3.44 on the 200 m chain (``make validate-ns3-wifi``).

For each hop count, ``--seeds`` runs of ns-3 (``wifi_chain.cc --ns2Rx=0``: ns-3's own SINR
reception, RngRun = seed) and of airtcp (the ``ns3`` preset with the chain's radio, scenario
seed = seed): goodput, TCP retransmissions and MAC transmissions per delivered data frame.
The ratio airtcp / ns-3 of the mean goodputs gets a 95% interval from the delta method on the
two independent means. ``--cross`` does the same for two chains of ``--cross`` hops crossing
at their middle node (``wifi_chain.cc --cross``), one flow on each: each flow and their sum.

Every run's result is kept in benches/ns3/wifi_results.json (airtcp's under the core's build
fingerprint, so a changed core is rerun), so the check runs in parts (``--side``, ``--hops``,
``--seeds``; ``--merge`` takes another store's results) and ``--write`` writes the tables
between the ``ns3-wifi`` and ``ns3-wifi-cross`` markers of docs/validation.md from every
stored run. Not in CI: each ns-3 run takes seconds of a core.

    python benches/ns3/validate_wifi.py --seeds 10 --side ns3 --hops 1,2,3,4
    python benches/ns3/validate_wifi.py --seeds 10 --cross 4,8 --hops ''
    python benches/ns3/validate_wifi.py --seeds 10 --table-only --write
    python benches/ns3/validate_wifi.py --cross-trace 4,8 --write

``--cross-trace`` runs ns-3 with ``wifi_chain.cc --trace`` and tabulates each run's timeouts and
fast recoveries per sender beside airtcp's.
"""

from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import chain  # noqa: E402  (benches/ns3/chain.py: the ns-3 build and its result line)

DOC = ROOT / "docs" / "validation.md"
STORE = HERE / "wifi_results.json"
BEGIN = "<!-- ns3-wifi:begin (benches/ns3/validate_wifi.py --write) -->"
END = "<!-- ns3-wifi:end -->"
CROSS_BEGIN = "<!-- ns3-wifi-cross:begin (benches/ns3/validate_wifi.py --write) -->"
CROSS_END = "<!-- ns3-wifi-cross:end -->"
SAT_BEGIN = "<!-- ns3-wifi-saturation:begin (benches/ns3/validate_wifi.py --write) -->"
SAT_END = "<!-- ns3-wifi-saturation:end -->"
TRACE_BEGIN = "<!-- ns3-wifi-cross-trace:begin (benches/ns3/validate_wifi.py --cross-trace 4,8) -->"
TRACE_END = "<!-- ns3-wifi-cross-trace:end -->"
PER_BEGIN = "<!-- ns3-wifi-per:begin (benches/ns3/validate_wifi.py --per --write) -->"
PER_END = "<!-- ns3-wifi-per:end -->"
# The link of the PER check: 10 m under the ns3 preset's log-distance loss (46.6777 dB at 1 m,
# exponent 3), a 1064-byte frame (1000 bytes of UDP payload, 28 of IP and UDP, 36 of MAC
# header, LLC/SNAP and FCS), noise kTB over the channel raised by the 7 dB noise figure.
PER_LOSS_DB = 46.6777 + 30.0
PER_PACKET = 1028
PER_FRAME = PER_PACKET + 36
PER_MODES = [
    ("DsssRate1Mbps", 1e6),
    ("DsssRate2Mbps", 2e6),
    ("DsssRate5_5Mbps", 5.5e6),
    ("DsssRate11Mbps", 11e6),
    ("OfdmRate6Mbps", 6e6),
    ("OfdmRate54Mbps", 54e6),
]

# ns-2's radio on the chain (wifi_chain.cc): two-ray ground at 914 MHz, 24.5 dBm, decoded up
# to 250 m (the preamble-detection minimum RSSI), sensed and received as energy up to 550 m.
RX_DBM = 10 * math.log10(3.652e-10) + 30
CS_DBM = 10 * math.log10(1.559e-11) + 30


# wifi_chain.cc's TCP settings on airtcp's `ns3` profile (ns-3's own loss recovery, as far as
# the profile models it): handshake, 1460-byte segments without timestamps, initial window 2,
# an ACK per segment, 20000-byte receive window, MinRto 0.2 s, the SYN's 3 s timeout, no SACK,
# limited transmit, classic (not PRR) recovery.
NS3_TCP = {
    "profile": "ns3",
    "segment_size": 1460,
    "header_size": 40,
    "initial_cwnd": 2,
    "rcv_window": 20000,
    "min_rto": 0.2,
    "initial_rto": 3,
    "delayed_ack": False,
    "sack": False,
    "timestamps": False,
    "limited_transmit": True,
    "prr": False,
    "handshake": True,
}


def scenario(hops: int, seed: int, duration: float, cross: bool = False, tcp: str = "ns2") -> dict:
    nodes = [
        {
            "name": f"n{i}",
            "kind": "host" if i in (0, hops) else "router",
            "position": [200.0 * i, 0.0],
        }
        for i in range(hops + 1)
    ]
    # The crossing chain (wifi_chain.cc --cross): along y through the middle node n(hops/2).
    mid = hops // 2
    if cross:
        nodes += [
            {
                "name": f"c{j}",
                "kind": "host" if j in (0, hops) else "router",
                "position": [200.0 * mid, 200.0 * (j - mid)],
            }
            for j in range(hops + 1)
            if j != mid
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
        # wifi_chain.cc's CcaEdThreshold: every sensed signal holds the medium busy.
        "cca_ed_threshold_dbm": CS_DBM,
        "rts_threshold": 0,
        "queue": {"kind": "droptail", "limit": 50},
    }
    flows = [
        {"name": "ftp", "src": "n0", "dst": f"n{hops}", "cc": "newreno", "app": {"kind": "bulk"}}
    ]
    if cross:
        flows.append(
            {
                "name": "ftp2",
                "src": "c0",
                "dst": f"c{hops}",
                "cc": "newreno",
                "app": {"kind": "bulk"},
            }
        )
    return {
        "name": f"ns3{'cross' if cross else 'chain'}{hops}",
        "duration": duration,
        "seed": seed,
        "tcp": NS3_TCP if tcp == "ns3" else {"profile": "ns2", "segment_size": 1460},
        "nodes": nodes,
        "media": [medium],
        "flows": flows,
    }


def run_airtcp(hops: int, seed: int, duration: float, cross: bool = False) -> dict:
    from airtcp import _core

    sc = json.dumps(scenario(hops, seed, duration, cross))
    r = json.loads(_core.run_json(sc, series=False))
    f = r["flows"][0]
    data = sum(m["data_frames"] for m in r["macs"])
    delivered = sum(x["delivered_bytes"] for x in r["flows"])
    out = {
        "goodput_kbps": f["goodput_bps"] / 1e3,
        "retx": f["retransmissions"],
        "tx_per_frame": tx_per_frame(data, delivered, hops),
    }
    if cross:
        out["goodput2_kbps"] = r["flows"][1]["goodput_bps"] / 1e3
    return out


def tx_per_frame(data_frames: float, delivered_bytes: float, hops: int) -> float:
    """Data frames on the air (segments and TCP ACKs) per frame a delivered segment and its
    ACK needed: 2 per segment per hop with an ACK per segment."""
    return data_frames / max(2.0 * hops * delivered_bytes / 1460.0, 1.0)


def run_ns3(exe: Path, hops: int, seed: int, duration: float, cross: bool = False) -> dict:
    cmd = [str(exe), f"--run={seed}", f"--duration={duration:g}", f"--hops={hops}", "--ns2Rx=0"]
    if cross:
        cmd.append("--cross=1")
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("wall_s=")][-1]
    kv = dict(x.split("=", 1) for x in line.split())
    delivered = float(kv["delivered_bytes"])
    out = {
        "goodput_kbps": float(kv["goodput_kbps"]),
        "retx": float(kv["tcp_retransmissions"]),
        "tx_per_frame": 0.0,
    }
    if cross:
        out["goodput2_kbps"] = float(kv["goodput2_kbps"])
        delivered += out["goodput2_kbps"] * 1e3 * duration / 8
    out["tx_per_frame"] = tx_per_frame(float(kv["mac_data_tx"]), delivered, hops)
    return out


def noise_dbm(ofdm: bool) -> float:
    return 10 * math.log10(1.380649e-23 * 290 * (20e6 if ofdm else 22e6)) + 30 + 7.0


def per_scenario(rate: float, snr_db: float, seed: int, duration: float) -> dict:
    """One link of PER_FRAME-byte frames at ``rate`` with the SNR ``snr_db``: detection and
    sensing thresholds out of the way, so every frame is judged by the error-rate curves."""
    ofdm = rate in (6e6, 54e6)
    medium = {
        "name": "air",
        "kind": "wifi",
        "preset": "80211g" if ofdm else "ns3",
        "rate": rate,
        "tx_power_dbm": snr_db + noise_dbm(ofdm) + PER_LOSS_DB,
        "rx_threshold_dbm": -200,
        "cs_threshold_dbm": -200,
        "rx_sensitivity_dbm": -200,
        "preamble_snr_db": -50,
    }
    # A frame every 40 ms: well below the link's capacity at 1 Mbit/s even with retries.
    return {
        "name": "per",
        "duration": duration,
        "seed": seed,
        "nodes": [{"name": "a", "position": [0, 0]}, {"name": "b", "position": [10, 0]}],
        "media": [medium],
        "flows": [
            {
                "src": "a",
                "dst": "b",
                "app": {"kind": "cbr", "rate": PER_PACKET * 8 / 0.04, "packet_size": PER_PACKET},
            }
        ],
    }


def airtcp_per(rate: float, snr_db: float, duration: float) -> float:
    """Measured frame error rate: frames b could not decode over data frames a sent."""
    from airtcp import _core

    r = json.loads(
        _core.run_json(json.dumps(per_scenario(rate, snr_db, 1, duration)), series=False)
    )
    a = next(m for m in r["macs"] if m["node"] == "a@air")
    b = next(m for m in r["macs"] if m["node"] == "b@air")
    return b["rx_channel_errors"] / max(a["data_frames"], 1)


def ns3_per_thresholds() -> dict:
    """ns-3's SNR (dB) at PER 0.1, 0.5, 0.9 per (model, mode) from per_curve.cc."""
    defines = ["-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE"]
    exe = chain._validation_ns3().compile_program(
        ROOT / ".ns3venv", HERE / "per_curve.cc", chain.OUT / "per_curve", defines
    )
    out = subprocess.run(
        [str(exe), f"--bytes={PER_FRAME}"], capture_output=True, text=True, check=True
    )
    res = {}
    for ln in out.stdout.splitlines():
        kv = dict(x.split("=", 1) for x in ln.split())
        res[(kv["model"], kv["mode"])] = [float(kv[f"per{p}"]) for p in ("0.1", "0.5", "0.9")]
    return res


def crossing(points: list[tuple[float, float]], per: float) -> float:
    """SNR where the measured PER falls through ``per`` (linear between grid points)."""
    for (s0, p0), (s1, p1) in zip(points, points[1:], strict=False):
        if p0 >= per >= p1 and p0 != p1:
            return s0 + (p0 - per) / (p0 - p1) * (s1 - s0)
    return float("nan")


def per_table(duration: float, step: float) -> str:
    ns3 = ns3_per_thresholds()
    out = [
        f"SNR (dB) at which a {PER_FRAME}-byte frame is lost with probability 0.1, 0.5 and 0.9 on "
        "one link without interference: ns-3.44's curve (`benches/ns3/per_curve.cc`, its "
        "`YansErrorRateModel`, and in brackets `TableBasedErrorRateModel`, the default of "
        "`YansWifiPhyHelper`; for DSSS/CCK both are the DSSS model) and airtcp's measured PER "
        f"(data frames b could not decode over frames a sent, {duration:g} s of a frame every "
        f"40 ms per point, SNR in steps of {step:g} dB, linear between them).",
        "",
        "| mode | ns-3 PER 0.1 | airtcp | ns-3 PER 0.5 | airtcp | ns-3 PER 0.9 | airtcp "
        "| largest difference (dB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rate in PER_MODES:
        yans, table = ns3[("Yans", name)], ns3[("TableBased", name)]
        lo, hi = math.floor(yans[2]) - 2, math.ceil(yans[0]) + 2
        n = round((hi - lo) / step)
        pts = [(lo + k * step, airtcp_per(rate, lo + k * step, duration)) for k in range(n + 1)]
        ours = [crossing(pts, p) for p in (0.1, 0.5, 0.9)]
        cells = []
        for y, t, a in zip(yans, table, ours, strict=True):
            other = f" ({t:.2f})" if abs(t - y) > 0.005 else ""
            cells += [f"{y:.2f}{other}", f"{a:.2f}"]
        worst = max(abs(a - y) for a, y in zip(ours, yans, strict=True))
        out.append(f"| {name} | " + " | ".join(cells) + f" | {worst:.2f} |")
        print(f"per {name}: done", file=sys.stderr, flush=True)
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    out += [
        "",
        f"*Written by `python benches/ns3/validate_wifi.py --per --write` on {day}: ns-3.44 "
        f"from the `ns3==3.44.post0` wheel, airtcp seed 1, core build {airtcp_build()}.*",
    ]
    return "\n".join(out)


def sat_scenario(n: int, rts: bool, seed: int, duration: float) -> dict:
    """wifi_saturation.cc in airtcp: n stations 10 m around a sink under the ns3 preset at
    2 Mbit/s, each with a UDP source of 22 Mbit/s (its queue never empties)."""
    nodes = [{"name": "s", "position": [0.0, 0.0]}] + [
        {
            "name": f"t{i}",
            "position": [10 * math.cos(2 * math.pi * i / n), 10 * math.sin(2 * math.pi * i / n)],
        }
        for i in range(n)
    ]
    medium = {
        "name": "air",
        "kind": "wifi",
        "preset": "ns3",
        "rate": "2Mbps",
        "rts_threshold": 0 if rts else 1 << 20,
    }
    flows = [
        {
            "src": f"t{i}",
            "dst": "s",
            "start": 0.001 * (i + 1),
            "app": {"kind": "cbr", "rate": 22e6, "packet_size": PER_PACKET},
        }
        for i in range(n)
    ]
    return {
        "name": "saturation",
        "duration": duration,
        "seed": seed,
        "nodes": nodes,
        "media": [medium],
        "flows": flows,
    }


def run_sat_airtcp(n: int, rts: bool, seed: int, duration: float) -> dict:
    from airtcp import _core

    r = json.loads(_core.run_json(json.dumps(sat_scenario(n, rts, seed, duration)), series=False))
    got = sum(f["received_packets"] for f in r["flows"])
    return {"throughput_mbps": got * 1000 * 8 / duration / 1e6}


def run_sat_ns3(exe: Path, n: int, rts: bool, seed: int, duration: float) -> dict:
    cmd = [
        str(exe),
        f"--run={seed}",
        f"--stations={n}",
        f"--duration={duration:g}",
        "--warmup=0",
        f"--rts={int(rts)}",
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = [ln for ln in p.stderr.splitlines() if ln.startswith("throughput_mbps=")][-1]
    kv = dict(x.split("=", 1) for x in line.split())
    return {"throughput_mbps": float(kv["throughput_mbps"])}


def sat_table(store: dict, ns: list[int], seeds: int, duration: float, build: str) -> str:
    out = [
        "Saturation throughput (Bianchi's setup): n stations 10 m around a sink, each with a "
        "UDP source that keeps its queue full (1000-byte payloads, 1064-byte frames), 802.11b "
        "DSSS at 2 Mbit/s, RTS/CTS at 1 Mbit/s for every frame or never "
        f'(`wifi_saturation.cc`; airtcp `preset = "ns3"`, `rate = "2Mbps"`), {duration:g} s; '
        "UDP payload delivered to the sink in Mbit/s (mean over seeds), ratio airtcp / ns-3 "
        "with its 95% interval.",
        "",
        "| stations | access | seeds | ns-3 | airtcp | ratio [95% CI] |",
        "|---|---|---|---|---|---|",
    ]
    for rts in (False, True):
        case = "sat-rts" if rts else "sat-basic"
        for n in ns:
            row = collect(store, case, n, seeds, duration, build)
            if not row["ns3"] or not row["airtcp"]:
                continue
            a = [x["throughput_mbps"] for x in row["airtcp"]]
            b = [x["throughput_mbps"] for x in row["ns3"]]
            r, lo, hi = ratio_ci(a, b)
            out.append(
                f"| {n} | {'RTS/CTS' if rts else 'basic'} | {min(len(a), len(b))} "
                f"| {statistics.fmean(b):.4f} | {statistics.fmean(a):.4f} "
                f"| {r:.3f} [{lo:.3f}, {hi:.3f}] |"
            )
    out += ["", _footer(seeds, duration, build)]
    return "\n".join(out)


def load_store(path: Path = STORE) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def save_store(store: dict, path: Path = STORE) -> None:
    """Adds ``store`` to the file, keeping what other processes (the other side, run at the
    same time) wrote since it was read; under a lock, so that neither loses the other's."""
    chain.OUT.mkdir(parents=True, exist_ok=True)
    with open(chain.OUT / "wifi_results.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = {**load_store(path), **store}
        store.update(merged)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)


def key(side: str, case: str, hops: int, seed: int, duration: float, build: str = "") -> str:
    who = f"airtcp@{build}" if side == "airtcp" else "ns3"
    return f"{who}/{case}/{hops}/{seed}/{duration:g}"


def airtcp_build() -> str:
    from airtcp import _core

    return str(_core.__build__)


def collect(store: dict, case: str, hops: int, seeds: int, duration: float, build: str) -> dict:
    row: dict = {"hops": hops, "ns3": [], "airtcp": []}
    for s in range(1, seeds + 1):
        for side in ("ns3", "airtcp"):
            r = store.get(key(side, case, hops, s, duration, build))
            if r is not None:
                row[side].append(r)
    return row


def ratio_ci(a: list[float], b: list[float]) -> tuple[float, float, float]:
    """Ratio of means a/b and its 95% interval (delta method, independent samples)."""
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    va = statistics.variance(a) / len(a) if len(a) > 1 else float("nan")
    vb = statistics.variance(b) / len(b) if len(b) > 1 else float("nan")
    r = ma / mb
    se = r * math.sqrt(va / ma**2 + vb / mb**2)
    return r, r - 1.96 * se, r + 1.96 * se


def _footer(seeds: int, duration: float, build: str) -> str:
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    return (
        f"*Written by `python benches/ns3/validate_wifi.py --write` on {day}: ns-3.44 from the "
        f"`ns3==3.44.post0` wheel, RngRun and airtcp seeds 1-{seeds}, runs of {duration:g} s, "
        f"core build {build}.*"
    )


def _mean(xs: list[dict], k: str) -> float:
    return statistics.fmean(x[k] for x in xs)


def table(rows: list[dict], seeds: int, duration: float, build: str) -> str:
    out = [
        f'ns-3.44 (`wifi_chain.cc --ns2Rx=0`) and airtcp (`preset = "ns3"` with the chain\'s '
        f"radio), {duration:g} s; goodput in kbit/s (mean over seeds), TCP "
        "retransmissions per run, MAC retries per frame (data transmissions beyond one per "
        "segment and TCP ACK delivered, per hop); ratio "
        "airtcp / ns-3 of mean goodput with its 95% interval.",
        "",
        "| hops | seeds | ns-3 goodput | airtcp goodput | ratio [95% CI] | ns-3 retx | airtcp retx "
        "| ns-3 MAC retries/frame | airtcp MAC retries/frame |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        n, a = row["ns3"], row["airtcp"]
        if not n or not a:
            continue
        r, lo, hi = ratio_ci([x["goodput_kbps"] for x in a], [x["goodput_kbps"] for x in n])
        out.append(
            f"| {row['hops']} | {min(len(n), len(a))} | {_mean(n, 'goodput_kbps'):.1f} "
            f"| {_mean(a, 'goodput_kbps'):.1f} "
            f"| {r:.3f} [{lo:.3f}, {hi:.3f}] | {_mean(n, 'retx'):.1f} | {_mean(a, 'retx'):.1f} "
            f"| {_mean(n, 'tx_per_frame') - 1:.3f} | {_mean(a, 'tx_per_frame') - 1:.3f} |"
        )
    out += ["", _footer(seeds, duration, build)]
    return "\n".join(out)


def cross_table(rows: list[dict], seeds: int, duration: float, build: str) -> str:
    out = [
        "Two chains of the same hop count crossing at right angles at their middle node "
        "(`wifi_chain.cc --ns2Rx=0 --cross`), one NewReno bulk flow along each; goodput in "
        f"kbit/s (mean over seeds, {duration:g} s) and the ratio airtcp / ns-3 with its 95% "
        "interval, per flow and for their sum.",
        "",
        "| hops | seeds | flow | ns-3 goodput | airtcp goodput | ratio [95% CI] |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        n, a = row["ns3"], row["airtcp"]
        if not n or not a:
            continue
        for label, f in (
            ("first chain", lambda x: x["goodput_kbps"]),
            ("crossing chain", lambda x: x["goodput2_kbps"]),
            ("sum", lambda x: x["goodput_kbps"] + x["goodput2_kbps"]),
        ):
            gn, ga = [f(x) for x in n], [f(x) for x in a]
            r, lo, hi = ratio_ci(ga, gn)
            out.append(
                f"| {row['hops']} | {min(len(n), len(a))} | {label} | {statistics.fmean(gn):.1f} "
                f"| {statistics.fmean(ga):.1f} | {r:.3f} [{lo:.3f}, {hi:.3f}] |"
            )
    out += ["", _footer(seeds, duration, build)]
    return "\n".join(out)


def sender_timeline(lines: list[str], flow: int) -> dict:
    """One sender's loss recovery from ``wifi_chain.cc --trace`` lines: timeouts (entries into
    CA_LOSS) and the first one's time, fast recoveries (entries into CA_RECOVERY) and how many
    of them began before the third duplicate ACK, retransmitted segments."""
    out = {"timeouts": 0, "first_timeout": None, "recoveries": 0, "early_recoveries": 0}
    last_ack, dups, highest, retx, state = -1, 0, 0, 0, "CA_OPEN"
    for ln in lines:
        f = ln.split()
        if f[0] != "tcp" or int(f[2]) != flow:
            continue
        t, what = float(f[1]), f[3]
        if what == "ack":
            ack = int(f[4])
            dups = dups + 1 if ack == last_ack else 0
            last_ack = ack
        elif what == "tx":
            seq = int(f[4])
            if seq < highest:
                retx += 1
            highest = max(highest, seq + int(f[5]))
        elif what == "state":
            if f[4] == "CA_LOSS":
                out["timeouts"] += 1
                out["first_timeout"] = out["first_timeout"] or t
            elif f[4] == "CA_RECOVERY" and state != "CA_RECOVERY":
                out["recoveries"] += 1
                out["early_recoveries"] += dups < 3
            state = f[4]
    out["retx"] = retx
    return out


def cross_trace_table(hops_list: list[int], seeds: int, duration: float, tcp: str) -> str:
    """What the two senders of the crossing chains did in each run: ns-3 from its timeline
    (``wifi_chain.cc --trace``), airtcp from its result."""
    exe = chain.build_ns3(ROOT / ".ns3venv")
    hl = ",".join(str(h) for h in hops_list)
    opt = f" --airtcp-tcp {tcp}" if tcp != "ns2" else ""
    out = [
        f"Loss recovery of the two senders on the crossing chains, per run ({duration:g} s): "
        "goodput (kbit/s), timeouts (ns-3: the first one's time in s after the @), fast "
        "recoveries (ns-3: in brackets those it entered before the third duplicate ACK) and "
        "retransmitted segments; ns-3 from `wifi_chain --run=SEED --hops=HOPS --cross "
        f"--ns2Rx=0 --trace`, airtcp (TCP profile `{tcp}`) from its result.",
        "",
        "| hops | seed | flow | ns-3 goodput | timeouts | recoveries | retx | airtcp goodput "
        "| timeouts | recoveries | retx |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    from airtcp import _core

    calm = []
    for hops in hops_list:
        sums: dict[int, tuple[float, float]] = {}
        for seed in range(1, seeds + 1):
            cmd = [str(exe), f"--run={seed}", f"--duration={duration:g}", f"--hops={hops}"]
            cmd += ["--ns2Rx=0", "--cross=1", "--trace=1"]
            p = subprocess.run(cmd, capture_output=True, text=True, check=True)
            line = [ln for ln in p.stderr.splitlines() if ln.startswith("wall_s=")][-1]
            kv = dict(x.split("=", 1) for x in line.split())
            sc = scenario(hops, seed, duration, True, tcp)
            r = json.loads(_core.run_json(json.dumps(sc), series=False))
            lines = p.stdout.splitlines()
            quiet = True
            for flow, gk in ((1, "goodput_kbps"), (2, "goodput2_kbps")):
                n = sender_timeline(lines, flow)
                quiet = quiet and n["timeouts"] == 0
                a = r["flows"][flow - 1]
                first = f" @{n['first_timeout']:.2f}" if n["first_timeout"] else ""
                out.append(
                    f"| {hops} | {seed} | {flow} | {float(kv[gk]):.1f} | {n['timeouts']}{first} "
                    f"| {n['recoveries']} ({n['early_recoveries']}) | {n['retx']} "
                    f"| {a['goodput_bps'] / 1e3:.1f} | {a['timeouts']} "
                    f"| {a['fast_retransmits']} | {a['retransmissions']} |"
                )
            if quiet:
                ga = sum(f["goodput_bps"] for f in r["flows"][:2]) / 1e3
                sums[seed] = (float(kv["goodput_kbps"]) + float(kv["goodput2_kbps"]), ga)
            print(f"cross-trace {hops} hops, seed {seed}: done", file=sys.stderr, flush=True)
        if len(sums) > 1:
            b, a = [x[0] for x in sums.values()], [x[1] for x in sums.values()]
            r, lo, hi = ratio_ci(a, b)
            calm.append(
                f"{hops} hops, seeds {', '.join(map(str, sums))} (no ns-3 timeout): sum "
                f"{statistics.fmean(b):.1f} (ns-3) and {statistics.fmean(a):.1f} (airtcp), "
                f"ratio {r:.3f} [{lo:.3f}, {hi:.3f}]."
            )
    day = datetime.datetime.now(datetime.UTC).date().isoformat()
    out += ["", "Runs in which neither ns-3 sender timed out: " + " ".join(calm)] if calm else []
    out += [
        "",
        f"*Written by `python benches/ns3/validate_wifi.py --cross-trace {hl}{opt} --write` on "
        f"{day}: ns-3.44 from the `ns3==3.44.post0` wheel, RngRun and airtcp seeds 1-{seeds}, "
        f"core build {airtcp_build()}.*",
    ]
    return "\n".join(out)


def write_between(begin: str, end: str, text: str) -> None:
    doc = DOC.read_text()
    i, j = doc.index(begin) + len(begin), doc.index(end)
    DOC.write_text(doc[:i] + "\n" + text + "\n" + doc[j:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hops", default="1,2,3,4,6,8,12,16")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=50.0)
    ap.add_argument("--cross", default="", help="hop counts of the crossing chains, e.g. 4,8")
    ap.add_argument("--per", action="store_true", help="PER against SNR per mode, only")
    ap.add_argument(
        "--cross-trace",
        default="",
        help="the senders' loss recovery per run on crossing chains of these hop counts, only",
    )
    ap.add_argument(
        "--airtcp-tcp",
        choices=("ns2", "ns3"),
        default="ns2",
        help="--cross-trace: airtcp's TCP profile (ns3: with wifi_chain.cc's TCP settings)",
    )
    ap.add_argument(
        "--saturation", default="", help="station counts of the saturation check, e.g. 1,5,10,20"
    )
    ap.add_argument("--per-step", type=float, default=0.25, help="SNR step of --per, dB")
    ap.add_argument("--side", choices=("both", "ns3", "airtcp"), default="both")
    ap.add_argument("--table-only", action="store_true", help="run nothing, tabulate the store")
    ap.add_argument("--merge", type=Path, help="add another store's results to this one")
    ap.add_argument("--store", type=Path, default=STORE, help="the results file")
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
    if a.cross_trace:
        hl = [int(h) for h in a.cross_trace.split(",") if h]
        text = cross_trace_table(hl, a.seeds, a.duration, a.airtcp_tcp)
        print(text)
        if a.write and a.airtcp_tcp == "ns2":
            write_between(TRACE_BEGIN, TRACE_END, text)
        return 0
    if a.per:
        text = per_table(min(a.duration, 40.0), a.per_step)
        print(text)
        if a.write:
            write_between(PER_BEGIN, PER_END, text)
        return 0
    hops = [int(h) for h in a.hops.split(",") if h]
    crosses = [int(h) for h in a.cross.split(",") if h]
    sats = [int(h) for h in a.saturation.split(",") if h]
    store = load_store(a.store)
    if a.merge:
        store.update(load_store(a.merge))
        save_store(store, a.store)
    build = airtcp_build() if a.side != "ns3" or a.table_only else ""
    todo_chain = hops or crosses
    if not a.table_only:
        exe = chain.build_ns3(ROOT / ".ns3venv") if a.side != "airtcp" and todo_chain else None
        sat_exe = None
        if sats and a.side != "airtcp":
            defines = ["-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE"]
            sat_exe = chain._validation_ns3().compile_program(
                ROOT / ".ns3venv",
                HERE / "wifi_saturation.cc",
                chain.OUT / "wifi_saturation",
                defines,
            )
        todo = [("chain", h) for h in hops] + [("cross", h) for h in crosses]
        todo += [(c, n) for c in ("sat-basic", "sat-rts") for n in sats]
        for case, h in todo:
            for s in range(1, a.seeds + 1):
                for side in ("ns3", "airtcp"):
                    k = key(side, case, h, s, a.duration, build)
                    if a.side not in ("both", side) or k in store:
                        continue
                    rts = case == "sat-rts"
                    if case.startswith("sat") and side == "ns3":
                        store[k] = run_sat_ns3(sat_exe, h, rts, s, a.duration)
                    elif case.startswith("sat"):
                        store[k] = run_sat_airtcp(h, rts, s, a.duration)
                    elif side == "ns3":
                        store[k] = run_ns3(exe, h, s, a.duration, case == "cross")
                    else:
                        store[k] = run_airtcp(h, s, a.duration, case == "cross")
                    save_store(store, a.store)
            print(f"{case} {h}: done", file=sys.stderr, flush=True)
    if a.side == "ns3" and not a.table_only:
        return 0
    rows = [collect(store, "chain", h, a.seeds, a.duration, build) for h in hops]
    text = table(rows, a.seeds, a.duration, build)
    print(text)
    cross_rows = [collect(store, "cross", h, a.seeds, a.duration, build) for h in crosses]
    cross_text = cross_table(cross_rows, a.seeds, a.duration, build) if crosses else ""
    print(cross_text)
    if a.write:
        if hops:
            write_between(BEGIN, END, text)
        if crosses:
            write_between(CROSS_BEGIN, CROSS_END, cross_text)
    if sats:
        sat_text = sat_table(store, sats, a.seeds, a.duration, build)
        print(sat_text)
        if a.write:
            write_between(SAT_BEGIN, SAT_END, sat_text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
