"""The highest link rate the real-time emulator carries within its timing bound.

For each rate R, one kernel TCP flow (cubic) runs for ``--seconds`` over A - R - B, both links
at R with 2 ms of delay each way and a buffer of one bandwidth-delay product: the emulator
carries the data one way and the ACKs back, about R / (1500 bytes x 8) data packets per
second plus their ACKs. Printed per rate: goodput, the packets it released and their
lateness (p50, p99, max), packets dropped before it read them, and whether the run met the
bound: p99 <= 1 ms, nothing dropped outside the link models, and a goodput of at least 90 % of
R (a packet the emulator reads late is delayed without showing in its lateness, but the flow
then falls short of the link's rate). The figure is the highest rate that met it. Needs root.

    sudo python benches/emulate_rate.py [--rates 10,50,100,200,500,1000] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import warnings

import airtcp
from airtcp.emulate import EmulationLateWarning


def scenario(rate_mbps: float, seconds: float) -> airtcp.Scenario:
    bdp = int(rate_mbps * 1e6 / 8 * 0.008)  # 8 ms round trip
    link = {"rate": f"{rate_mbps}Mbps", "delay": "2ms"}
    return airtcp.Scenario(
        {
            "name": f"emu-rate-{rate_mbps:g}",
            "duration": f"{seconds}s",
            "nodes": [{"name": "A"}, {"name": "R", "kind": "router"}, {"name": "B"}],
            "links": [
                {"a": "A", "b": "R", **link},
                {
                    "a": "R",
                    "b": "B",
                    **link,
                    "queue": {"kind": "droptail", "limit": max(bdp, 20_000), "unit": "bytes"},
                },
            ],
            "flows": [{"src": "A", "dst": "B", "cc": "cubic", "app": {"kind": "bulk"}}],
        }
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rates", default="10,20,50,100,200,500", help="Mbit/s, comma-separated")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2
    print(
        f"kernel {os.uname().release}, {os.cpu_count()} CPUs, {a.seconds:g} s per run, "
        f"{a.repeat} runs per rate, load average {os.getloadavg()[0]:.1f}"
    )
    head = "rate Mbit/s  goodput Mbit/s   packets  p50 µs  p99 µs   max µs  tun drops  bound"
    print(head)
    best = None
    failed = False
    for r in (float(x) for x in a.rates.split(",")):
        goods, p50, p99, mx, drops, late, packets = [], [], [], [], 0, False, 0
        for _ in range(a.repeat):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EmulationLateWarning)
                res = airtcp.emulate(scenario(r, a.seconds))
            em = res.raw["emulation"]
            lat = em["lateness_us"]
            goods.append(res.flow("flow0")["goodput_bps"])
            p50.append(lat["p50_us"])
            p99.append(lat["p99_us"])
            mx.append(lat["max_us"])
            drops += em["tun_dropped"]
            late |= bool(em["late"])
            packets = max(packets, lat["packets"])
        good = statistics.median(goods)
        ok = not late and good >= 0.9 * r * 1e6
        failed |= not ok
        if ok and not failed:
            best = r
        print(
            f"{r:11g}  {good / 1e6:14.1f}  {packets:8d}  {max(p50):6.0f}  {max(p99):6.0f}  "
            f"{max(mx):7.0f}  {drops:9d}  {'met' if ok else 'MISSED'}",
            flush=True,
        )
    print(
        f"highest rate within the bound (and every lower one): {best:g} Mbit/s"
        if best
        else "no rate met the bound"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
