"""How fast sweeps of many short runs go, on one worker and on two.

Each measurement is a fresh child process running ``airtcp.sweeps.run_sweep`` of the dumbbell
example cut to ``--duration`` into an empty store. A sweep's wall time is a fixed part (plan,
registering the runs, starting the pool) plus a part per run, so each worker count is run at
two sizes and the rate per run is taken from the difference: the marginal rate, the one a
long sweep approaches. Efficiency is the 2-worker marginal rate over twice the 1-worker one.
With ``--pinned`` the 1-worker sweep is also measured confined to one core (driver and worker
sharing it, as on a one-core machine); with ``--pair`` two 1-worker sweeps run at once, each
confined to its own core, and their runs count together: what the machine gives two
single-core sweeps, the second core's share of memory and caches included.

    python benches/sweep_rate.py [--runs N] [--duration 5s] [--reps 3] [--pinned] [--pair]
                                 [--revs REV,REV,...]

``--revs`` measures the Python front (sweep driver, workers, store) of several revisions
interleaved, each with the installed core: a change to the front is measured against the
one before it on the same machine minutes apart.

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
    n, workers, core, duration, store = sys.argv[1:6]
    if core != "-":
        os.sched_setaffinity(0, {int(core)})
    sc = airtcp.load(sys.argv[6]).set("duration", duration)
    cpu = time.process_time()
    out = run_sweep(sc, seeds=int(n), store=store, workers=int(workers), progress=False)
    assert out.ok == int(n), out.summary()
    print(json.dumps({"wall": out.wall_s, "driver_cpu": time.process_time() - cpu}))

if __name__ == "__main__":
    main()
"""


def front(rev: str, tmp: Path) -> dict[str, str] | None:
    """The environment that makes a child import the Python front of revision ``rev`` (with
    the installed core), or None for the working tree's."""
    if rev == "-":
        return None
    import airtcp

    dest = tmp / f"front-{rev}"
    if not dest.exists():
        dest.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "python/airtcp"],
            capture_output=True,
            check=False,
        )
        if archive.returncode != 0:
            sys.exit(f"error: --revs: no revision {rev!r} here: {archive.stderr.decode().strip()}")
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        core = Path(airtcp._core.__file__)
        (dest / "python" / "airtcp" / core.name).symlink_to(core)
    return {**os.environ, "PYTHONPATH": str(dest / "python")}


def measure(
    n: int,
    workers: int,
    cores: list[int | None],
    duration: str,
    tmp: Path,
    env: dict[str, str] | None = None,
) -> dict[str, float]:
    """One sweep of ``n`` runs per entry of ``cores``, all at once (each confined to that
    core, or free with None); the wall time is the longest one's, the driver CPU the mean.
    ``env`` (see :func:`front`) picks the Python front."""
    procs = []
    for i, core in enumerate(cores):
        store = tmp / f"s{n}-{workers}-{i}.sqlite"
        for p in tmp.glob(store.name + "*"):
            p.unlink()
        args = [str(n), str(workers), "-" if core is None else str(core), duration, str(store)]
        scenario = str(ROOT / "scenarios" / "dumbbell.toml")
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", CHILD, *args, scenario],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
        )
    outs = []
    for p in procs:
        stdout, stderr = p.communicate()
        if p.returncode != 0:
            lines = (stderr or stdout).strip().splitlines() or ["(no output)"]
            sys.exit(f"error: the sweep of {n} runs on {workers} worker(s) failed: {lines[-1]}")
        outs.append(json.loads(stdout.strip().splitlines()[-1]))
    return {
        "wall": max(o["wall"] for o in outs),
        "driver_cpu": statistics.fmean(o["driver_cpu"] for o in outs),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3000, help="runs of the larger sweep")
    ap.add_argument("--duration", default="5s", help="simulated time of each run")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pinned", action="store_true", help="also 1 worker on one core")
    ap.add_argument(
        "--revs",
        help="compare the Python fronts of these git revisions (comma-separated, '-' for the "
        "working tree), interleaved, all with the installed core",
    )
    ap.add_argument(
        "--pair",
        action="store_true",
        help="also two 1-worker sweeps at once, each confined to one core",
    )
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
    first = min(os.sched_getaffinity(0))
    kinds: list[tuple[str, int, list[int | None]]] = [
        ("1 worker", 1, [None]),
        ("2 workers", 2, [None]),
    ]
    if a.pinned:
        kinds.append(("1 worker, one core", 1, [first]))
    if a.pair:
        if len(os.sched_getaffinity(0)) < 2:
            ap.error("--pair needs two cores")
        second = sorted(os.sched_getaffinity(0))[1]
        kinds.append(("two 1-worker sweeps", 1, [first, second]))
    revs = a.revs.split(",") if a.revs else ["-"]
    walls: dict[tuple[str, str, int], list[float]] = {}
    cpus: dict[tuple[str, str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as d:
        envs = {rev: front(rev, Path(d)) for rev in revs}
        for rep in range(a.reps):
            for n in (small, large):
                for rev in revs:
                    for name, w, cores in kinds:
                        m = measure(n, w, cores, a.duration, Path(d), envs[rev])
                        walls.setdefault((rev, name, n), []).append(m["wall"])
                        cpus.setdefault((rev, name, n), []).append(m["driver_cpu"])
                        print(
                            f"  rep {rep + 1}: {rev if rev != '-' else 'working tree'} "
                            f"{name:<20} {n:>6} runs  {m['wall']:.2f} s",
                            file=sys.stderr,
                        )
    print(
        f"sweeps of the dumbbell at {a.duration} ({os.cpu_count()} cores), medians of "
        f"{a.reps}: {small} and {large} runs"
    )
    for rev in revs:
        print(f"\nPython front: {'the working tree' if rev == '-' else rev}")
        report(rev, kinds, walls, cpus, small, large)


def report(
    rev: str,
    kinds: list[tuple[str, int, list[int | None]]],
    walls: dict[tuple[str, str, int], list[float]],
    cpus: dict[tuple[str, str, int], list[float]],
    small: int,
    large: int,
) -> None:
    """The table of one front: marginal rate (from the two sizes), whole rate (the larger
    sweep's runs over its wall time), fixed cost, driver CPU; then the efficiencies."""
    print(
        f"{'':<20} {'wall small s':>12} {'wall large s':>12} {'runs/s':>8} {'whole':>8}"
        f" {'fixed s':>8} {'driver CPU ms/run':>18}"
    )
    rate, whole = {}, {}
    for name, _, cores in kinds:
        ws, wl = (statistics.median(walls[(rev, name, n)]) for n in (small, large))
        cs, cl = (statistics.median(cpus[(rev, name, n)]) for n in (small, large))
        # Sweeps run at once share the wall time: their runs are all counted.
        per_run = (wl - ws) / (len(cores) * (large - small))
        rate[name] = 1 / per_run
        whole[name] = len(cores) * large / wl
        fixed = ws - len(cores) * small * per_run
        print(
            f"{name:<20} {ws:>12.2f} {wl:>12.2f} {rate[name]:>8.0f} {whole[name]:>8.0f}"
            f" {fixed:>8.2f} {1e3 * (cl - cs) / (large - small):>18.3f}"
        )

    def eff(baseline: str, times: int) -> str:
        m = rate["2 workers"] / (times * rate[baseline])
        w = whole["2 workers"] / (times * whole[baseline])
        return f"{m:.0%} marginal, {w:.0%} whole"

    print(f"efficiency (2 workers / twice 1 worker): {eff('1 worker', 2)}")
    if "1 worker, one core" in rate:
        print(
            f"efficiency (2 workers / twice 1 worker on one core): {eff('1 worker, one core', 2)}"
        )
    if "two 1-worker sweeps" in rate:
        print(
            "efficiency (2 workers / two 1-worker sweeps at once, one a core): "
            f"{eff('two 1-worker sweeps', 1)}"
        )


if __name__ == "__main__":
    main()
