"""Instructions and first-level data-cache misses per packet-hop of the wired scale points,
for one or more revisions of the core, counted by cachegrind (``valgrind`` must be
installed). Wall time on a shared machine varies by tens of percent from run to run; these
counts do not, so they show what a change to the engine did.

    python benches/htsim/instructions.py [--revs REV,REV,...] [--only b,nodelack,500]
                                         [--seconds 5] [--htsim [EXE]] [--pgo]
                                         [--file SCENARIO ...]

Each point is the one of ``run.py`` cut to ``--seconds`` of simulated time (set-up, about
2 % of a 5 s cut, is counted too). A revision is built in a git worktree under
``out/compare-builds/`` by ``tools/compare_builds.py`` (``--revs`` left out: the working tree).
``--htsim`` adds a row for htsim's program on the same points and simulated time, by default
the one ``make bench-htsim`` built (``out/bench-htsim/htsim_dumbbell``); its packet-hops are
the ones it counts itself. ``--pgo`` adds a row for the working tree built as ``make setup``
builds it, with profile-guided optimization (``tools/pgo.py``). ``--file`` counts the given
scenario files (TOML or JSON, also cut to ``--seconds``) in place of the scale points.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "out" / "instructions"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tools"))

import run  # noqa: E402
from compare_builds import build  # noqa: E402

import airtcp  # noqa: E402


def count(exe: Path, scenario: Path) -> tuple[int, int, int]:
    """(instructions, D1 misses, packet-hops) of one run under cachegrind."""
    p = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--cachegrind-out-file=/dev/null",
            str(exe),
            str(scenario),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    num = lambda pat: int(re.search(pat, p.stderr).group(1).replace(",", ""))  # noqa: E731
    hops = int(p.stdout.strip().splitlines()[-1].split()[4])
    return num(r"I\s+refs:\s+([\d,]+)"), num(r"D1\s+misses:\s+([\d,]+)"), hops


def count_htsim(exe: Path, p: run.Point, seconds: float) -> tuple[int, int, int]:
    """(instructions, D1 misses, packet-hops) of htsim's program on point ``p``."""
    args = [p.flows, p.bottleneck_mbps, p.access_mbps, p.per, int(p.delack), f"{seconds:.6f}"]
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=yes",
            "--cachegrind-out-file=/dev/null",
            str(exe),
            *map(str, args),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    num = lambda pat: int(re.search(pat, proc.stderr).group(1).replace(",", ""))  # noqa: E731
    return num(r"I\s+refs:\s+([\d,]+)"), num(r"D1\s+misses:\s+([\d,]+)"), num(r"packet_hops=(\d+)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--revs", default="", help="comma-separated revisions (default: worktree)")
    ap.add_argument("--only", default="b,nodelack,500,1g")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument(
        "--htsim",
        nargs="?",
        const=str(ROOT / "out" / "bench-htsim" / "htsim_dumbbell"),
        default=None,
        metavar="EXE",
        help="also count htsim's program (default: the one make bench-htsim built)",
    )
    ap.add_argument(
        "--pgo",
        action="store_true",
        help="also count the working tree built with profile-guided optimization",
    )
    ap.add_argument(
        "--file",
        nargs="+",
        type=Path,
        default=None,
        metavar="SCENARIO",
        help="count these scenario files instead of the scale points",
    )
    args = ap.parse_args(argv)
    if args.file and args.htsim:
        sys.exit("error: --htsim counts the scale points only; leave out --file")
    htsim = Path(args.htsim) if args.htsim else None
    if htsim is not None and not htsim.is_file():
        sys.exit(
            f"error: --htsim: no program at {htsim}; build it with "
            "`make bench-htsim HTSIM_SRC=...` or give its path"
        )
    revs = [r for r in args.revs.split(",") if r] or [None]
    if not args.seconds > 0:
        sys.exit(f"error: --seconds must be > 0, got {args.seconds:g}")
    if shutil.which("valgrind") is None:
        sys.exit("error: valgrind is not installed (apt-get install valgrind)")
    keys = args.only.split(",")
    unknown = [k for k in keys if k not in {p.key for p in run.POINTS}]
    if unknown:
        sys.exit(f"error: --only: unknown point(s) {', '.join(unknown)}")
    OUT.mkdir(parents=True, exist_ok=True)
    files = {}
    for f in args.file or []:
        if not f.is_file():
            sys.exit(f"error: --file: no scenario at {f}")
        try:
            sc = airtcp.Scenario.load(f).set("duration", args.seconds).validate()
        except ValueError as e:
            sys.exit(f"error: --file {f}: {e}")
        out = OUT / f"{f.stem}_{args.seconds:g}s.json"
        out.write_text(sc.to_json())
        files[f.stem] = out
    if args.file:
        keys = list(files)
    for p in run.POINTS:
        if p.key in keys and not args.file:
            sc = json.loads(run.scenario_file(p, OUT).read_text())
            sc["duration"] = args.seconds
            f = OUT / f"point_{p.key}_{args.seconds:g}s.json"
            f.write_text(json.dumps(sc))
            files[p.key] = f
    exes = {(rev or "worktree"): build(rev, example="bench") for rev in revs}
    if args.pgo:
        profile = run.PGO.train()
        if profile is None:
            sys.exit("error: --pgo: no profile could be made (see the note above)")
        exes["worktree+pgo"] = run.PGO.bench(profile)
    print(
        f"cachegrind, {args.seconds:g} s of each point; per packet-hop: instructions "
        "(first-level data misses)"
    )
    print(f"{'revision':<14}" + "".join(f"{k:>20}" for k in keys))
    for rev, exe in exes.items():
        cells = []
        for k in keys:
            ins, miss, hops = count(exe, files[k])
            cells.append(f"{ins / hops:>12.0f} ({miss / hops:>4.1f})")
        print(f"{rev:<14}" + "".join(f"{c:>20}" for c in cells), flush=True)
    if htsim is not None:
        points = {p.key: p for p in run.POINTS}
        cells = []
        for k in keys:
            ins, miss, hops = count_htsim(htsim, points[k], args.seconds)
            cells.append(f"{ins / hops:>12.0f} ({miss / hops:>4.1f})")
        print(f"{'htsim':<14}" + "".join(f"{c:>20}" for c in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
