"""How late the real-time emulator releases packets over 802.11 chains and TDMA meshes.

On a shared medium the emulator runs the simulator itself in real time (docs/emulation.md):
every frame of every station is a handful of events (backoff, RTS, CTS, data, ACK and the
end of each at every listener), so the work per packet grows with the hop count. For each
802.11 preset (``ns2``: 2 Mbit/s with RTS/CTS for every frame; ``80211b``: 11 Mbit/s, the
sinr reception), with ns-2's ranges (250 m, carrier sense 550 m, nodes 200 m apart), and hop
count, one kernel cubic flow runs for ``--seconds`` over ``airtcp.chain(hops)``;
printed are its goodput, the packets the emulator released and their lateness (p50, p99,
max), the simulator's events per second of wall time, and whether the run met the bound
(p99 <= 1 ms and no packet dropped at a TUN queue). Then the TDMA mesh of
scenarios/grid3x3_tdma.toml with its six flows. Needs root.

    sudo python benches/emulate_media.py [--hops 1,2,4,8,16,32,64] [--presets ns2,80211b]
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import airtcp
from airtcp.emulate import EmulationLateWarning


def one(sc: airtcp.Scenario) -> tuple[float, dict, int, bool, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmulationLateWarning)
        res = airtcp.emulate(sc)
    em = res.raw["emulation"]
    good = sum(f["goodput_bps"] for f in res.raw["flows"])
    rate = em["events"] / max(em["elapsed_s"], 1e-9)
    return good, em["lateness_us"], em["tun_dropped"], bool(em["late"]), rate


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hops", default="1,2,4,8,16,32,64")
    ap.add_argument("--presets", default="ns2,80211b")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--no-tdma", action="store_true")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2
    print(
        f"kernel {os.uname().release}, {os.cpu_count()} CPUs, {a.seconds:g} s per run, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        "scenario              goodput Mbit/s  packets  events/s  p50 µs  p99 µs   max µs  "
        "tun drops  bound"
    )
    best: dict[str, int] = {}
    runs = []
    for preset in a.presets.split(","):
        for hops in (int(h) for h in a.hops.split(",")):
            # Every preset with ns-2's ranges, so each node reaches only its neighbours.
            medium = {"preset": preset, "range": 250.0, "cs_range": 550.0}
            sc = airtcp.chain(hops, duration=a.seconds, cc="cubic", medium=medium)
            runs.append((f"chain {hops:2d} {preset}", sc, preset, hops))
    if not a.no_tdma:
        grid = airtcp.load(Path(__file__).parents[1] / "scenarios" / "grid3x3_tdma.toml")
        grid.set("duration", f"{a.seconds}s")
        for f in range(6):
            grid.set(f"flows.{f}.cc", "cubic")
        runs.append(("grid3x3 tdma 6 flows", grid, "tdma", 0))
    for label, sc, preset, hops in runs:
        good, lat, drops, late, evs = one(sc)
        ok = not late and drops == 0
        if ok and hops > best.get(preset, -1):
            best[preset] = hops
        print(
            f"{label:22s}  {good / 1e6:14.2f}  {lat['packets']:7d}  {evs:8.0f}  "
            f"{lat['p50_us']:6.0f}  "
            f"{lat['p99_us']:6.0f}  {lat['max_us']:7.0f}  {drops:9d}  "
            f"{'met' if ok else 'MISSED'}",
            flush=True,
        )
    for preset, hops in best.items():
        if preset != "tdma":
            print(f"{preset}: highest hop count within the bound: {hops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
