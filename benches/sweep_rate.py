"""How fast sweeps of many short runs go, on one worker and on two.

Each measurement is a fresh child process running ``airtcp.sweeps.run_sweep`` of the dumbbell
example cut to ``--duration`` into an empty store. A sweep's wall time is a fixed part (plan,
registering the runs, starting the pool) plus a part per run, so each worker count is run at
two sizes and the rate per run is taken from the difference: the marginal rate, the one a
long sweep approaches. Efficiency is the 2-worker marginal rate over twice the 1-worker one.
With ``--pinned`` the 1-worker sweep is also measured confined to one core (driver and worker
sharing it, as on a one-core machine).

    python benches/sweep_rate.py [--runs N] [--duration 5s] [--reps 3] [--pinned]

Prints the median of ``--reps`` interleaved repetitions of every measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time
from airtcp.sweeps import run_sweep
import airtcp

def main():
    n, workers, pinned, duration, store = sys.argv[1:6]
    if pinned == "1":
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sc = airtcp.load(sys.argv[6]).set("duration", duration)
    cpu = time.process_time()
    out = run_sweep(sc, seeds=int(n), store=store, workers=int(workers), progress=False)
    assert out.ok == int(n), out.summary()
    print(json.dumps({"wall": out.wall_s, "driver_cpu": time.process_time() - cpu}))

if __name__ == "__main__":
    main()
"""


def measure(n: int, workers: int, pinned: bool, duration: str, tmp: Path) -> dict[str, float]:
    store = tmp / f"s{n}-{workers}-{int(pinned)}.sqlite"
    for p in tmp.glob(store.name + "*"):
        p.unlink()
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            str(n),
            str(workers),
            "1" if pinned else "0",
            duration,
            str(store),
            str(ROOT / "scenarios" / "dumbbell.toml"),
        ],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        lines = (out.stderr or out.stdout).strip().splitlines() or ["(no output)"]
        sys.exit(f"error: the sweep of {n} runs on {workers} worker(s) failed: {lines[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3000, help="runs of the larger sweep")
    ap.add_argument("--duration", default="5s", help="simulated time of each run")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pinned", action="store_true", help="also 1 worker on one core")
    a = ap.parse_args()
    if a.runs < 30:
        ap.error(f"--runs must be at least 30 (the smaller sweep is a third of it), got {a.runs}")
    if a.reps < 1:
        ap.error(f"--reps must be at least 1, got {a.reps}")
    try:
        from airtcp import parse_seconds

        parse_seconds(a.duration)
    except ValueError as e:
        ap.error(f"--duration {a.duration!r}: {e}")
    small, large = a.runs // 3, a.runs
    kinds = [("1 worker", 1, False), ("2 workers", 2, False)]
    if a.pinned:
        kinds.append(("1 worker, one core", 1, True))
    walls: dict[tuple[str, int], list[float]] = {}
    cpus: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as d:
        for rep in range(a.reps):
            for n in (small, large):
                for name, w, pin in kinds:
                    m = measure(n, w, pin, a.duration, Path(d))
                    walls.setdefault((name, n), []).append(m["wall"])
                    cpus.setdefault((name, n), []).append(m["driver_cpu"])
                    print(
                        f"  rep {rep + 1}: {name:<20} {n:>6} runs  {m['wall']:.2f} s",
                        file=sys.stderr,
                    )
    print(
        f"sweeps of the dumbbell at {a.duration} ({os.cpu_count()} cores), medians of "
        f"{a.reps}: {small} and {large} runs"
    )
    print(
        f"{'':<20} {'wall small s':>12} {'wall large s':>12} {'runs/s':>8} {'fixed s':>8}"
        f" {'driver CPU ms/run':>18}"
    )
    rate = {}
    for name, _, _ in kinds:
        ws, wl = (statistics.median(walls[(name, n)]) for n in (small, large))
        cs, cl = (statistics.median(cpus[(name, n)]) for n in (small, large))
        per_run = (wl - ws) / (large - small)
        rate[name] = 1 / per_run
        fixed = ws - small * per_run
        print(
            f"{name:<20} {ws:>12.2f} {wl:>12.2f} {rate[name]:>8.0f} {fixed:>8.2f}"
            f" {1e3 * (cl - cs) / (large - small):>18.3f}"
        )
    print(
        f"efficiency (2 workers / twice 1 worker): {rate['2 workers'] / (2 * rate['1 worker']):.0%}"
    )
    if a.pinned:
        eff = rate["2 workers"] / (2 * rate["1 worker, one core"])
        print(f"efficiency (2 workers / twice 1 worker on one core): {eff:.0%}")


if __name__ == "__main__":
    main()
