"""A second look at points of the ns-3 cross-check: both simulators lose the same data
segments (the ``hashed`` loss of trace.py: copy k of the segment at sequence number s is lost
when a hash of (seed, s, k) is below the PER), seed by seed, so that the two goodputs of a
seed differ only by the simulators' rules, not by which segments each one happened to lose.

The table of run.py draws each side's losses independently, and its interval is that of two
independent means. Here the seeds pair the runs, and the interval is the paired one: the mean
of the per-seed differences (airtcp - ns-3) with Student's t over the seeds, divided by ns-3's
mean goodput. One flow only (the loss applies to the first flow's segments).

    python validation/ns3/paired.py --cc westwood+ --per 0.05 --seeds 1-20
    python validation/ns3/paired.py --cc all --per 0.01,0.05,0.1,0.2 --seeds 1-20 --jobs 2
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from airtcp.analysis import t_ppf

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402

# trace.py by its path: the standard library has a `trace` module of its own.
_spec = importlib.util.spec_from_file_location("ns3_trace_script", HERE / "trace.py")
trace = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(trace)


def paired_ratio(a: list[float], n: list[float]) -> tuple[float, float, float]:
    """mean(a) / mean(n) and its paired 95 % interval (the mean difference's)."""
    if len(a) != len(n) or len(a) < 2:
        raise ValueError("paired_ratio needs two or more seeds, one pair each")
    d = [x - y for x, y in zip(a, n, strict=True)]
    mn = statistics.fmean(n)
    half = t_ppf(0.975, len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))
    r = statistics.fmean(a) / mn
    return r, r - half / mn, r + half / mn


def seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    try:
        first, last = int(lo), int(hi or lo)
    except ValueError:
        raise SystemExit(f"paired.py: --seeds {text!r}: give N or A-B") from None
    if first < 1 or last < first:
        raise SystemExit(f"paired.py: --seeds {text!r}: seeds are 1 or more, A <= B")
    return list(range(first, last + 1))


def point(args: tuple) -> tuple[list[float], list[float]]:
    """Goodputs (bit/s) of one point's seeds on each side."""
    exe, cc, per, duration, seed_list = args
    mine, theirs = [], []
    for seed in seed_list:
        error, loss_args = trace.loss_setup("hashed", per, seed)
        mine.append(trace.airtcp_run(cc, error, duration, [])[0]["goodput_bps"])
        theirs.append(trace.ns3_run(exe, cc, loss_args, duration, [])[0]["goodput_bps"])
    return mine, theirs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", required=True, help=f"comma-separated, or all: {', '.join(run.CCS)}")
    ap.add_argument("--per", required=True, help="comma-separated PERs, each in (0, 1)")
    ap.add_argument("--seeds", default="1-12", help="N or A-B")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--ns3-venv", type=Path, default=run.ROOT / ".ns3venv")
    a = ap.parse_args(argv)
    ccs = list(run.CCS) if a.cc == "all" else run.parse_list(a.cc, str, "cc")
    for cc in ccs:
        if cc not in run.CCS:
            raise SystemExit(f"paired.py: --cc {cc!r}: one of {', '.join(run.CCS)}")
    pers = run.parse_list(a.per, float, "per")
    for per in pers:
        if not 0.0 < per < 1.0:
            raise SystemExit(f"paired.py: --per {per:g}: a loss probability in (0, 1)")
    seed_list = seeds(a.seeds)
    if len(seed_list) < 2:
        raise SystemExit("paired.py: --seeds: two or more, for an interval")
    exe = run.build(a.ns3_venv)
    pts = [(cc, per) for cc in ccs for per in pers]
    print(
        f"One flow, the same lost segments in both (hashed, seeds {a.seeds}), {a.duration:g} s;"
        " ratio of mean goodputs, paired 95 % interval:"
    )
    print()
    print(
        "| scheme | PER | airtcp (Mbit/s) | ns-3 (Mbit/s) | airtcp / ns-3 | paired 95 % interval "
        "| within 10% |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    args = [(exe, cc, per, a.duration, seed_list) for cc, per in pts]
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        outside = []
        for (cc, per), (mine, theirs) in zip(pts, pool.map(point, args), strict=True):
            r, lo, hi = paired_ratio(mine, theirs)
            ok = abs(r - 1.0) <= run.TOLERANCE
            if not ok:
                outside.append(f"{cc} {per:.0%} ({r:.2f})")
            print(
                f"| {cc} | {per:.0%} | {statistics.fmean(mine) / 1e6:.3f} "
                f"| {statistics.fmean(theirs) / 1e6:.3f} | {r:.2f} | {lo:.2f}–{hi:.2f} "
                f"| {'yes' if ok else 'no'} |",
                flush=True,
            )
    print()
    print(
        f"Within 10 %: {len(pts) - len(outside)} of {len(pts)} points."
        + (f" Outside: {', '.join(outside)}." if outside else "")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
