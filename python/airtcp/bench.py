"""``airtcp bench``: speed and memory of the simulator on fixed scenarios.

Each scenario runs in a fresh child process, so the peak RSS reported is that scenario's own
(the child process as a whole: interpreter, numpy and the simulation). Wall time is measured
around the core's run call only; it includes turning the result into JSON, not parsing or
building the scenario in Python.

Scenarios (``--quick`` divides every duration by 10):

a. the seed-000 dumbbell (sources 10 Mbps/2 ms, bottleneck 1 Mbps/30 ms with 20 packets,
   destinations 10 Mbps/4 ms, D1 wireless with 1% data packet error), 5 NewReno flows, 100 s;
b. 50 NewReno flows started 1 ms apart, sources 1 Gbps/2 ms, bottleneck 100 Mbps/10 ms DropTail
   1000 packets, destinations 1 Gbps/4 ms each with 1% Bernoulli packet error (all packets),
   1000-byte segments, initial cwnd 10, delayed ACKs (2 segments / 200 ms), 128 KiB receive
   window, 30 s;
c. as b with a 1 Gbps bottleneck and no packet error, 10 s;
d. a 16-hop IEEE 802.11 chain (ns-2 defaults: 2 Mbps, 200 m spacing, RTS/CTS), one NewReno
   flow, 1460-byte segments, 50 s;
e. a 3x3 TDMA mesh (2 Mbps links, 2 ms slots) with 6 client/server NewReno flows, 50 s;
f. d with the ``sinr`` reception (SINR chunks and error-rate curves, 7 dB noise figure);
g. f with Rayleigh fading per frame, 100 Hz Doppler;
h. a mobile ad hoc network: 20 nodes moving by random waypoint (1-20 m/s, 2 s pauses, the
   stationary start) in 1000 m x 1000 m on one 802.11 medium (ns-2 defaults), 4 UDP CBR flows
   of 100 kbit/s between random pairs, 50 s (the medium recomputes who hears a station from
   the positions at each frame it starts);
i. the random-waypoint scenario of Broch et al. (MobiCom 1998) with AODV: 50 nodes in
   1500 m x 300 m, 1-20 m/s, no pause, uniform start, 10 UDP CBR flows of 4 packets/s of 512
   bytes between random pairs, 200 s, on ns-3's 802.11b radio of the chain (2 Mbit/s, RTS/CTS,
   two-ray ground at 914 MHz, 24.5 dBm, decoded up to 250 m, sensed up to 550 m): the scenario
   ``benches/ns3/validate_manet.py`` runs in both simulators.

Frames are MAC frames on the air (data, RTS, CTS, ACK) for 802.11, and packet transmissions
over one hop elsewhere.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .builders import chain, dumbbell, grid
from .manet import manet
from .scenario import Scenario

__all__ = ["BENCHMARKS", "scenario", "run_one", "run_benchmarks", "write_scenarios"]

_FAST_TCP = {
    "initial_cwnd": 10,
    "delayed_ack": True,
    "delack_count": 2,
    "delack_timeout": "200ms",
    "rcv_window": "128KiB",
}


# The 802.11 chain's receivers under ns-3's SINR model, and with per-frame fading.
_SINR = {"reception": "sinr", "noise_figure_db": 7}
_FADING = {"fading": {"model": "rayleigh", "doppler_hz": 100}}


# ns-3's 802.11b chain radio (benches/ns3/validate_wifi.py): 0.28183815 W, thresholds 3.652e-10 W
# (decode) and 1.559e-11 W (sense) as in ns-2's chain.
_NS3_RADIO = {
    "preset": "ns3",
    "rate": "2Mbps",
    "basic_rate": "1Mbps",
    "propagation": "two_ray_ground",
    "frequency_hz": 914e6,
    "tx_power_dbm": 10 * math.log10(0.28183815) + 30,
    "system_loss": 1.0,
    "rx_threshold_dbm": 10 * math.log10(3.652e-10) + 30,
    "cs_threshold_dbm": 10 * math.log10(1.559e-11) + 30,
    "rx_sensitivity_dbm": 10 * math.log10(1.559e-11) + 30,
    # manet.cc's CcaEdThreshold: every sensed signal holds the medium busy.
    "cca_ed_threshold_dbm": 10 * math.log10(1.559e-11) + 30,
    "rts_threshold": 0,
    "queue": {"kind": "droptail", "limit": 50},
}


def _bench_i(duration: float) -> Scenario:
    return manet(
        50,
        1500,
        300,
        speed=(1.0, 20.0),
        pause=0,
        stationary=False,
        flows=10,
        transport="udp",
        rate=f"{4 * 512 * 8}bps",
        packet_size=512,
        duration=duration,
        medium=_NS3_RADIO,
        routing={"protocol": "aodv"},
        name="bench_i",
    )


def _bench_a(duration: float) -> Scenario:
    return dumbbell(5, duration=duration, per=0.01, wireless=[1], name="bench_a")


def _fifty(bottleneck: str, per: float, duration: float, name: str) -> Scenario:
    return dumbbell(
        50,
        duration=duration,
        start_spacing=0.001,
        src_rate="1Gbps",
        src_delay="2ms",
        bottleneck_rate=bottleneck,
        bottleneck_delay="10ms",
        queue_limit=1000,
        dst_rate="1Gbps",
        dst_delay="4ms",
        per=per,
        error_applies_to="all",
        tcp=_FAST_TCP,
        name=name,
    )


#: key -> (description, full duration in seconds, builder taking the duration)
BENCHMARKS: dict[str, tuple[str, float, Callable[[float], Scenario]]] = {
    "a": ("dumbbell, 5 flows, 1 Mbps bottleneck, 1% PER on D1", 100.0, _bench_a),
    "b": (
        "50 flows, 100 Mbps bottleneck, 1% PER on every last hop",
        30.0,
        lambda d: _fifty("100Mbps", 0.01, d, "bench_b"),
    ),
    "c": (
        "50 flows, 1 Gbps bottleneck, no errors",
        10.0,
        lambda d: _fifty("1Gbps", 0.0, d, "bench_c"),
    ),
    "d": (
        "802.11 chain, 16 hops, 1 TCP flow",
        50.0,
        lambda d: chain(16, duration=d, name="bench_d"),
    ),
    "e": (
        "3x3 TDMA mesh, 6 TCP flows",
        50.0,
        lambda d: grid(3, 3, duration=d, name="bench_e"),
    ),
    "f": (
        "802.11 chain, 16 hops, 1 TCP flow, sinr reception",
        50.0,
        lambda d: chain(16, duration=d, medium=_SINR, name="bench_f"),
    ),
    "g": (
        "802.11 chain, 16 hops, 1 TCP flow, sinr reception, Rayleigh fading",
        50.0,
        lambda d: chain(16, duration=d, medium={**_SINR, **_FADING}, name="bench_g"),
    ),
    "h": (
        "802.11 MANET, 20 nodes random waypoint, 4 UDP flows",
        50.0,
        lambda d: manet(20, 1000, 1000, flows=4, transport="udp", duration=d, name="bench_h"),
    ),
    "i": (
        "802.11 MANET with AODV, 50 nodes random waypoint, 10 UDP CBR flows",
        200.0,
        _bench_i,
    ),
}


def scenario(key: str, *, quick: bool = False) -> Scenario:
    """The benchmark scenario ``key`` (see :data:`BENCHMARKS`); ``quick`` divides the duration by
    10."""
    if key not in BENCHMARKS:
        raise KeyError(f"no benchmark {key!r} (have: {', '.join(BENCHMARKS)})")
    _, dur, build = BENCHMARKS[key]
    return build(dur / 10 if quick else dur)


def write_scenarios(directory: str | os.PathLike[str] = "scenarios") -> list[Path]:
    """Write the full-length benchmark scenarios as ``bench_<key>.toml``."""
    out = []
    for key, (desc, _, _) in BENCHMARKS.items():
        p = Path(directory) / f"bench_{key}.toml"
        scenario(key).to_toml(
            p,
            header=(
                f"Benchmark {key}: {desc}.\n"
                "Generated by `python -m airtcp.bench --write-scenarios scenarios` from\n"
                "python/airtcp/bench.py; `airtcp bench` builds the same scenario in Python."
            ),
        )
        out.append(p)
    return out


def _maxrss_mb(who: int = resource.RUSAGE_SELF) -> float:
    rss = resource.getrusage(who).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _child() -> int:
    """Child side: read a scenario (JSON) on stdin, run it once, print figures as JSON."""
    from . import _core

    text = sys.stdin.read()
    before = _maxrss_mb()
    t0 = time.perf_counter()
    out = _core.run_json(text)
    wall = time.perf_counter() - t0
    res = json.loads(out)
    macs = res.get("macs", [])
    frames = (
        sum(m[k] for m in macs for k in ("data_frames", "rts_frames", "cts_frames", "ack_frames"))
        if macs
        else res["packet_hops"]
    )
    print(
        json.dumps(
            {
                "wall_s": wall,
                "sim_s": res["duration_s"],
                "events": res["events"],
                "packet_hops": res["packet_hops"],
                "frames": frames,
                "delivered": res["packets"]["delivered"],
                "rss_before_mb": before,
                "peak_rss_mb": _maxrss_mb(),
            }
        )
    )
    return 0


def run_one(sc: Scenario) -> dict[str, Any]:
    """Run one scenario in a fresh Python process and return its figures."""
    proc = subprocess.run(
        [sys.executable, "-m", "airtcp.bench", "--child"],
        input=sc.to_json(),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"benchmark {sc.name} failed:\n" + "\n".join(tail))
    fig = json.loads(proc.stdout.strip().splitlines()[-1])
    fig["events_per_s"] = fig["events"] / fig["wall_s"] if fig["wall_s"] > 0 else float("inf")
    fig["hops_per_s"] = fig["packet_hops"] / fig["wall_s"] if fig["wall_s"] > 0 else float("inf")
    fig["frames_per_s"] = fig["frames"] / fig["wall_s"] if fig["wall_s"] > 0 else float("inf")
    return fig


def run_benchmarks(
    keys: Sequence[str], *, quick: bool = False, repeat: int = 1, progress: bool = True
) -> list[dict[str, Any]]:
    rows = []
    for key in keys:
        sc = scenario(key, quick=quick)
        best: dict[str, Any] | None = None
        for i in range(repeat):
            if progress:
                print(f"bench {key}: run {i + 1}/{repeat} ...", file=sys.stderr, flush=True)
            fig = run_one(sc)
            if best is None or fig["wall_s"] < best["wall_s"]:
                best = fig
        assert best is not None
        best["scenario"] = key
        best["description"] = BENCHMARKS[key][0]
        rows.append(best)
    return rows


def _si(v: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= scale:
            return f"{v / scale:.2f}{unit}"
    return f"{v:.0f}"


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    from ._common import table

    body = [
        [
            r["scenario"],
            f"{r['sim_s']:g}",
            f"{r['wall_s']:.3f}",
            f"{r['events']:,}",
            _si(r["events_per_s"]),
            f"{r['delivered']:,}",
            f"{r['packet_hops']:,}",
            _si(r["hops_per_s"]),
            _si(r["frames_per_s"]),
            f"{r['peak_rss_mb']:.1f}",
        ]
        for r in rows
    ]
    return table(
        body,
        [
            "scenario",
            "sim s",
            "wall s",
            "events",
            "events/s",
            "delivered",
            "packet-hops",
            "packet-hops/s",
            "frames/s",
            "peak RSS MB",
        ],
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="a tenth of each duration (for CI)")
    p.add_argument(
        "--only",
        metavar="KEYS",
        action="append",
        help=f"run only these scenarios, e.g. --only a or --only a,c (of {', '.join(BENCHMARKS)})",
    )
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="best wall time of N runs")
    p.add_argument("--json", metavar="OUT", help="also write the figures as JSON to OUT")


def run_cli(args: argparse.Namespace) -> int:
    from ._common import UserError

    keys: list[str] = []
    for item in args.only or []:
        for k in item.split(","):
            k = k.strip()
            if not k:
                continue
            if k not in BENCHMARKS:
                raise UserError(f"--only: no benchmark {k!r} (have: {', '.join(BENCHMARKS)})")
            if k not in keys:
                keys.append(k)
    if not keys:
        keys = list(BENCHMARKS)
    if args.repeat < 1:
        raise UserError(f"--repeat must be >= 1, got {args.repeat}")
    rows = run_benchmarks(keys, quick=args.quick, repeat=args.repeat)
    print(format_table(rows))
    print()
    for r in rows:
        print(f"{r['scenario']}: {r['description']}")
    base = min(r["rss_before_mb"] for r in rows)
    print(
        f"(wall time is the core's run call only; peak RSS is the whole child process, "
        f"{base:.0f} MB of it before the run; {'quick durations, ' if args.quick else ''}"
        f"best of {args.repeat})"
    )
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps({"quick": args.quick, "repeat": args.repeat, "results": rows}, indent=1)
            + "\n"
        )
        print(f"wrote {args.json}")
    return 0


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--child"]:
        return _child()
    if argv[:1] == ["--write-scenarios"]:
        for p in write_scenarios(argv[1] if len(argv) > 1 else "scenarios"):
            print(f"wrote {p}")
        return 0
    from .cli import main

    return main(["bench", *argv])


if __name__ == "__main__":
    sys.exit(_main())
