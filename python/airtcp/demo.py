"""``airtcp demo``: goodput of a TCP flow over a lossy wireless last hop, against the packet
error rate, on the seed-000 dumbbell.

Two NewReno flows share the 1 Mbps bottleneck; flow ftp1 ends at D1 whose last hop is wireless
with Bernoulli data-packet errors at the swept PER, flow ftp2 ends at D2 over a wired hop. Each
PER runs with several seeds in a process pool. Writes a CSV and a PNG plot.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from .sweeps.progress import PROGRESS_INTERVAL

PERS = (0.0, 0.005, 0.01, 0.02, 0.05)
SEEDS = tuple(range(1, 11))
DURATION = 30.0

QUICK_PERS = (0.0, 0.02)
QUICK_SEEDS = (1, 2)
QUICK_DURATION = 5.0

# Two-sided Student t quantiles for a 95% interval, by degrees of freedom.
_T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    15: 2.131,
    20: 2.086,
    30: 2.042,
}


def _t95(df: int) -> float:
    if df <= 0:
        return float("nan")
    for k in sorted(_T95):
        if df <= k:
            return _T95[k]
    return 1.96


def one_run(per: float, seed: int, duration: float) -> dict[str, Any]:
    """Run the demo scenario once; goodputs in kbps."""
    from . import dumbbell, run

    sc = dumbbell(2, per=per, wireless=[1], duration=duration, seed=seed, name="demo")
    r = run(sc)
    g = r.goodput_bps
    return {
        "per": per,
        "seed": seed,
        "wireless_kbps": g["ftp1"] / 1e3,
        "wired_kbps": g["ftp2"] / 1e3,
        "wireless_retx": r.flow("ftp1")["retransmissions"],
        "wireless_timeouts": r.flow("ftp1")["timeouts"],
        "fairness": r.fairness,
    }


def summarise(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-PER mean, min, max and 95% CI half-width of both flows' goodput."""
    out = []
    for per in sorted({r["per"] for r in runs}):
        rs = [r for r in runs if r["per"] == per]
        row: dict[str, Any] = {"per": per, "runs": len(rs)}
        for col in ("wireless_kbps", "wired_kbps"):
            xs = [r[col] for r in rs]
            mean = statistics.fmean(xs)
            sd = statistics.stdev(xs) if len(xs) > 1 else float("nan")
            half = _t95(len(xs) - 1) * sd / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
            base = col.removesuffix("_kbps")
            row[f"{base}_mean_kbps"] = mean
            row[f"{base}_min_kbps"] = min(xs)
            row[f"{base}_max_kbps"] = max(xs)
            row[f"{base}_ci95_kbps"] = half
        out.append(row)
    return out


def _write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def _plot(path: Path, rows: Sequence[dict[str, Any]], duration: float, nseeds: int) -> None:
    from matplotlib.figure import Figure

    x = [100 * r["per"] for r in rows]
    fig = Figure(figsize=(6.4, 4.2), dpi=120)
    ax = fig.subplots()
    for base, label, fmt in (
        ("wireless", "ftp1 (wireless last hop)", "o-"),
        ("wired", "ftp2 (wired last hop)", "s--"),
    ):
        mean = [r[f"{base}_mean_kbps"] for r in rows]
        # max(0, .) absorbs rounding when every seed gave the same value
        lo = [max(0.0, r[f"{base}_mean_kbps"] - r[f"{base}_min_kbps"]) for r in rows]
        hi = [max(0.0, r[f"{base}_max_kbps"] - r[f"{base}_mean_kbps"]) for r in rows]
        ax.errorbar(x, mean, yerr=[lo, hi], fmt=fmt, capsize=4, label=label)
    ax.set_xlabel("packet error rate on R2-D1 (%)")
    ax.set_ylabel("goodput (kbps)")
    ax.set_title(
        f"NewReno over a lossy last hop: dumbbell, 1 Mbps bottleneck\n"
        f"{duration:g} s runs, mean of {nseeds} seeds, bars = min/max",
        fontsize=10,
    )
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)


def run_demo(
    out: str | os.PathLike[str] = "out/demo",
    *,
    pers: Sequence[float] = PERS,
    seeds: Sequence[int] = SEEDS,
    duration: float = DURATION,
    workers: int | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run the sweep and write ``goodput_vs_per.csv``, ``goodput_runs.csv`` and
    ``goodput_vs_per.png`` into ``out``. Returns the summary rows and the paths."""
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    jobs = [(per, seed) for per in pers for seed in seeds]
    runs: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    tty = progress and sys.stderr.isatty()
    last_line = t0  # in a log, a line every PROGRESS_INTERVAL seconds, as sweeps do
    nworkers = workers or min(len(jobs), os.cpu_count() or 1)
    with ProcessPoolExecutor(max_workers=nworkers) as pool:
        futs = {pool.submit(one_run, per, seed, duration): (per, seed) for per, seed in jobs}
        for done, fut in enumerate(as_completed(futs), 1):
            per, seed = futs[fut]
            runs.append(fut.result())
            if progress:
                msg = (
                    f"[{done}/{len(jobs)}] PER {per:g}, seed {seed} done "
                    f"({time.perf_counter() - t0:.1f} s)"
                )
                if tty:  # rewrite one line in a terminal, one line per run in a log
                    end = "\n" if done == len(jobs) else ""
                    print(f"\r{msg}   ", end=end, file=sys.stderr, flush=True)
                elif (now := time.perf_counter()) - last_line >= PROGRESS_INTERVAL or done == len(
                    jobs
                ):
                    last_line = now
                    print(msg, file=sys.stderr, flush=True)
    runs.sort(key=lambda r: (r["per"], r["seed"]))
    rows = summarise(runs)
    paths = {
        "csv": outdir / "goodput_vs_per.csv",
        "runs_csv": outdir / "goodput_runs.csv",
        "png": outdir / "goodput_vs_per.png",
    }
    _write_csv(paths["csv"], rows)
    _write_csv(paths["runs_csv"], runs)
    _plot(paths["png"], rows, duration, len(seeds))
    return {"rows": rows, "runs": runs, "paths": paths}


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    from ._common import table

    def ci(v: float) -> str:
        return "-" if math.isnan(v) else f"±{v:.1f}"

    return table(
        [
            [
                f"{r['per']:g}",
                r["runs"],
                f"{r['wireless_mean_kbps']:.1f}",
                ci(r["wireless_ci95_kbps"]),
                f"{r['wireless_min_kbps']:.1f}-{r['wireless_max_kbps']:.1f}",
                f"{r['wired_mean_kbps']:.1f}",
                ci(r["wired_ci95_kbps"]),
            ]
            for r in rows
        ],
        ["PER", "runs", "ftp1 kbps", "95% CI", "min-max", "ftp2 kbps", "95% CI"],
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="out/demo", metavar="DIR", help="output directory")
    p.add_argument("--quick", action="store_true", help="2 PER values x 2 seeds x 5 s (for tests)")
    p.add_argument("--workers", type=int, metavar="N", help="worker processes (default: cores)")


def run_cli(args: argparse.Namespace) -> int:
    from ._common import UserError

    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be >= 1, got {args.workers}")
    if args.quick:
        pers, seeds, duration = QUICK_PERS, QUICK_SEEDS, QUICK_DURATION
    else:
        pers, seeds, duration = PERS, SEEDS, DURATION
    print(
        f"demo: 2 NewReno flows on the dumbbell, PER on R2-D1 in {list(pers)}, "
        f"{len(seeds)} seeds, {duration:g} s each",
        file=sys.stderr,
    )
    res = run_demo(args.out, pers=pers, seeds=seeds, duration=duration, workers=args.workers)
    print(format_rows(res["rows"]))
    print()
    for key in ("csv", "runs_csv", "png"):
        print(f"wrote {res['paths'][key]}")
    return 0
