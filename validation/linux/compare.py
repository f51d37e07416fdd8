"""airtcp's `linux` profile against the running kernel's TCP on one path (path.toml): mean
goodput of 20 s bulk transfers per congestion control, airtcp over seeds 1..N, the kernel
over K runs between network namespaces (tools/netns_path.py: TBF 10 Mbit/s with a 100 kB
queue, 20 ms each way, 1% Bernoulli loss of data segments, drawn per run from the seed).
Needs root for the kernel side. Prints a markdown table.

    python validation/linux/compare.py --cc reno --cc cubic --cc bbr --seeds 10 --kernel-runs 8
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
from pathlib import Path

import airtcp

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _netns():
    spec = importlib.util.spec_from_file_location("netns_path", ROOT / "tools/netns_path.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def simulated(cc: str, seeds: int) -> list[float]:
    base = airtcp.Scenario.load(HERE / "path.toml").set("flows.*.cc", cc)
    out = []
    for seed in range(1, seeds + 1):
        res = airtcp.run(base.set("seed", seed))
        out.append(res.flows["goodput_bps"][0] / 1e6)
    return out


def kernel(cc: str, runs: int) -> list[float]:
    netns = _netns()
    out = []
    for seed in range(1, runs + 1):
        with netns.Path_("10mbit", 20.0, 100_000, loss=0.01, seed=seed) as p:
            rep = p.transfer(cc, 20.0)
        assert rep["cc"] == cc
        out.append(rep["received"] * 8 / 20.0 / 1e6)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cc", action="append", required=True)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--kernel-runs", type=int, default=8)
    a = ap.parse_args()
    print("| cc | airtcp `linux` (Mb/s, mean ± sd) | kernel (Mb/s, mean ± sd) | airtcp / kernel |")
    print("|---|---:|---:|---:|")
    for cc in a.cc:
        s, k = simulated(cc, a.seeds), kernel(cc, a.kernel_runs)
        ms, mk = statistics.mean(s), statistics.mean(k)
        print(
            f"| {cc} | {ms:.2f} ± {statistics.stdev(s):.2f} | {mk:.2f} ± {statistics.stdev(k):.2f}"
            f" | {ms / mk:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
