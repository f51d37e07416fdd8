"""Kernel TCP (through ``airtcp.emulate``) against airtcp's ``linux`` TCP profile (simulated)
on the same scenario: one bulk flow over 10 Mbit/s with 20 ms of delay each way, a 100 kB
DropTail buffer and Bernoulli loss on the data direction, for reno (``newreno`` in the
scenario, the kernel's ``reno``), cubic and bbr at PER 0, 0.5, 1, 2 and 5 %.

Each point runs ``--runs`` seeds both ways (the seed drives the link's loss stream in both);
the table gives mean goodput with a 95 % interval (t) on each side and the ratio
kernel / simulated with an approximate 95 % interval (the two means' standard errors
propagated). ``--write`` puts the table into docs/validation.md between its markers. Every
run is kept in ``--out`` (JSON), so the grid runs in parts. Needs root.

    sudo python benches/validate_linux.py [--runs 5] [--seconds 20] [--cc cubic] [--per 0,0.01]
                                          [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import warnings
from pathlib import Path

import airtcp
from airtcp.emulate import EmulationLateWarning

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "validation.md"
BEGIN = "<!-- validate-linux:begin -->"
END = "<!-- validate-linux:end -->"
CCS = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}
PERS = (0.0, 0.005, 0.01, 0.02, 0.05)
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def scenario(cc: str, per: float, seconds: float, seed: int) -> airtcp.Scenario:
    link = {
        "name": "path",
        "a": "S",
        "b": "D",
        "rate": "10Mbps",
        "delay": "20ms",
        "queue": {"kind": "droptail", "limit": 100_000, "unit": "bytes"},
    }
    if per > 0:
        link["error_ab"] = {"model": "bernoulli", "per": per, "applies_to": "data"}
    return airtcp.Scenario(
        {
            "name": f"linux-{cc}-{per:g}",
            "duration": f"{seconds:g}s",
            "seed": seed,
            "tcp": {"profile": "linux", "segment_size": 1448},
            "nodes": [{"name": "S"}, {"name": "D"}],
            "links": [link],
            "flows": [{"src": "S", "dst": "D", "cc": CCS[cc], "app": {"kind": "bulk"}}],
        }
    )


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.nan
    return m, T95.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))


def ratio_ci(a: list[float], b: list[float]) -> tuple[float, float, float]:
    ma, ha = mean_ci(a)
    mb, hb = mean_ci(b)
    r = ma / mb
    half = r * math.sqrt((ha / ma) ** 2 + (hb / mb) ** 2) if ma > 0 else math.nan
    return r, r - half, r + half


def table(results: dict[str, dict[str, float]], ccs: list[str], pers: list[float]) -> str:
    lines = [
        "| cc | PER | kernel Mbit/s | simulated (`linux`) Mbit/s | ratio | 95 % interval | runs |",
        "|---|---|---|---|---|---|---|",
    ]
    for cc in ccs:
        for per in pers:
            k = [v for key, v in results.items() if key.startswith(f"linux|{cc}|{per:g}|")]
            s = [v for key, v in results.items() if key.startswith(f"sim|{cc}|{per:g}|")]
            if not k or not s:
                continue
            (mk, hk), (ms, hs) = mean_ci(k), mean_ci(s)
            r, lo, hi = ratio_ci(k, s)
            lines.append(
                f"| {cc} | {per * 100:g} % | {mk / 1e6:.2f} ± {hk / 1e6:.2f} | "
                f"{ms / 1e6:.2f} ± {hs / 1e6:.2f} | {r:.2f} | {lo:.2f}-{hi:.2f} | "
                f"{min(len(k), len(s))} |"
            )
    return "\n".join(lines)


#: per-run counters kept beside goodput (both sides name them alike) to tell where they part
COUNTERS = ("retransmissions", "timeouts", "avg_cwnd_segments", "srtt_s")


def keep(results: dict[str, float], side: str, key: str, flow: dict) -> None:
    for c in COUNTERS:
        if flow.get(c) is not None:
            results[f"{c}:{side}|{key}"] = float(flow[c])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--cc", default=",".join(CCS), help="comma-separated: reno,cubic,bbr")
    ap.add_argument("--per", default=",".join(f"{p:g}" for p in PERS))
    ap.add_argument("--out", default=str(ROOT / "out" / "validate-linux.json"))
    ap.add_argument(
        "--side",
        choices=("both", "sim", "linux"),
        default="both",
        help="run only the simulated or only the kernel side (the other is taken from --out); "
        "the kernel's runs do not depend on the profile, so after a profile change only "
        "`--side sim --redo-sim` is rerun",
    )
    ap.add_argument(
        "--redo-sim", action="store_true", help="drop the stored simulated runs of the grid first"
    )
    ap.add_argument("--write", action="store_true", help="write the table into validation.md")
    a = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("error: needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2
    ccs = a.cc.split(",")
    pers = [float(x) for x in a.per.split(",")]
    out = Path(a.out)
    results: dict[str, float] = json.loads(out.read_text()) if out.exists() else {}
    late = 0
    for cc in ccs:
        for per in pers:
            for seed in range(1, a.runs + 1):
                sc = scenario(cc, per, a.seconds, seed)
                key = f"{cc}|{per:g}|{a.seconds:g}|{seed}"
                if a.redo_sim:
                    results.pop(f"sim|{key}", None)
                if a.side != "linux" and f"sim|{key}" not in results:
                    f = airtcp.run(sc).flow("flow0")
                    results[f"sim|{key}"] = f["goodput_bps"]
                    keep(results, "sim", key, f)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(json.dumps(results, indent=1))
                if a.side != "sim" and f"linux|{key}" not in results:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", EmulationLateWarning)
                        r = airtcp.emulate(sc)
                    # Kept with the runs, so a grid run in parts still reports them.
                    results[f"late|{key}"] = float(bool(r.raw["emulation"]["late"]))
                    results[f"linux|{key}"] = r.flow("flow0")["goodput_bps"]
                    keep(results, "linux", key, r.flow("flow0"))
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(json.dumps(results, indent=1))
                late += int(results.get(f"late|{key}", 0.0))
                k, sim = results.get(f"linux|{key}"), results.get(f"sim|{key}")
                print(
                    f"{cc} PER {per:g} seed {seed}: kernel "
                    f"{'-' if k is None else f'{k / 1e6:.2f}'}, simulated "
                    f"{'-' if sim is None else f'{sim / 1e6:.2f}'} Mbit/s",
                    flush=True,
                )
    text = table({k: v for k, v in results.items() if f"|{a.seconds:g}|" in k}, ccs, pers)
    print(text)
    if late:
        print(f"note: {late} emulated runs were marked late", file=sys.stderr)
    if a.write:
        doc = DOC.read_text()
        if BEGIN not in doc:
            raise SystemExit(f"{DOC}: no {BEGIN} marker")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}")
        print(f"wrote the table into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
