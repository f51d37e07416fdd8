"""Wall time of the core's plain release build against its profile-guided build.

    python benches/pgo_wall.py [--runs 15] [--only b,nodelack,500,1g]

Builds the benchmark example both ways (``tools/pgo.py``), writes the wired scale points of
``benches/htsim/run.py``, runs the two builds on each point alternately, ``--runs`` times each,
and prints medians and minima of wall time and the plain build's time over the profiled one's.
Both builds must do the same work: the script stops if their packet-hops differ.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "htsim"))

import run  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--only", default="b,nodelack,500,1g")
    ap.add_argument("--out", default=str(ROOT / "out" / "pgo-wall"))
    args = ap.parse_args(argv)
    if args.runs < 1:
        sys.exit(f"error: --runs must be at least 1, got {args.runs}")
    keys = args.only.split(",")
    unknown = [k for k in keys if k not in {p.key for p in run.POINTS}]
    if unknown:
        sys.exit(f"error: --only: unknown point(s) {', '.join(unknown)}")
    profile = run.PGO.train()
    if profile is None:
        sys.exit("error: no profile could be made (see the note above)")
    exes = {"plain": run.PGO.bench(None), "pgo": run.PGO.bench(profile)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    points = [p for p in run.POINTS if p.key in keys]
    files = {p.key: run.scenario_file(p, out) for p in points}
    walls: dict[str, dict[str, list[float]]] = {p.key: {"plain": [], "pgo": []} for p in points}
    hops: dict[str, set[int]] = {p.key: set() for p in points}
    for r in range(args.runs):
        for p in points:
            order = ["plain", "pgo"] if r % 2 == 0 else ["pgo", "plain"]
            for build in order:
                wall, h, _ = run.run_airtcp(exes[build], files[p.key])
                walls[p.key][build].append(wall)
                hops[p.key].add(h)
            if len(hops[p.key]) != 1:
                sys.exit(f"error: {p.key}: the builds ran different packet-hops {hops[p.key]}")
    print(f"{args.runs} interleaved runs each; wall s, median (min)")
    print(f"{'point':<9} {'plain':>15} {'pgo':>15} {'plain/pgo':>10} {'by minima':>10}")
    for p in points:
        a, b = walls[p.key]["plain"], walls[p.key]["pgo"]
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{p.key:<9} {ma:>7.3f} ({min(a):.3f}) {mb:>7.3f} ({min(b):.3f}) "
            f"{ma / mb:>9.2f}x {min(a) / min(b):>9.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
