"""airtcp against htsim on the wired dumbbell scale points, side by side.

Builds htsim's library from a copy of its source (``--htsim-src`` or ``$HTSIM_SRC``: a checkout
or a bare clone of Broadcom/csg-htsim; only its ``sim/`` folder is used, and nothing of it is
kept in this repository), links ``benches/htsim/dumbbell.cpp`` against it, builds airtcp's core
benchmark example, then runs both on each scale point, interleaved, several times each. Prints
medians of wall time, packet-hops, wall time per packet-hop and the ratio, and peak RSS.

Usage: ``python benches/htsim/run.py [--runs 5] [--only b,nodelack,500,1g,10x] [--json OUT]``
(``make bench-htsim``). Needs g++, make, cargo and the airtcp Python package (for the scenario
files of the scale points other than (b)).

Same work: htsim's TCP loses more time to timeouts at 1 % loss than airtcp's, so at equal
simulated time it does a few per cent fewer packet-hops. When the two differ by more than 1 %,
htsim's simulated duration is scaled so its packet-hops match airtcp's (the duration used is
printed); the comparison is per packet-hop either way.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools"))
import pgo as PGO  # noqa: E402

_FAST_TCP = {
    "initial_cwnd": 10,
    "delayed_ack": True,
    "delack_count": 2,
    "delack_timeout": "200ms",
    "rcv_window": "128KiB",
}


@dataclass
class Point:
    key: str
    desc: str
    flows: int
    bottleneck_mbps: int
    access_mbps: int
    per: float
    delack: bool
    duration: float


POINTS = [
    Point("b", "(b): 50 flows, 100 Mb/s, 1% loss, 30 s", 50, 100, 1000, 0.01, True, 30),
    Point("nodelack", "(b) without delayed ACKs", 50, 100, 1000, 0.01, False, 30),
    Point("500", "(b) with 500 flows", 500, 100, 1000, 0.01, True, 30),
    Point("1g", "1 Gb/s bottleneck, 10 Gb/s access, no loss, 10 s", 50, 1000, 10000, 0.0, True, 10),
    Point("10x", "(b) for 300 s", 50, 100, 1000, 0.01, True, 300),
]


def scenario_file(p: Point, out: Path) -> Path:
    """airtcp's scenario for a scale point: (b) is the checked-in file, the rest vary it.
    Each is handed to the benchmark as JSON, which the core reads straight into the scenario
    (TOML goes through a document first: 9 MB of heap for the 500-flow point, more than the
    run itself)."""
    from airtcp import Scenario

    if p.key == "b":
        sc = Scenario.from_toml(ROOT / "scenarios" / "bench_b.toml")
    else:
        from airtcp.builders import dumbbell

        tcp = dict(_FAST_TCP, delayed_ack=p.delack)
        rate = lambda mbps: f"{mbps}Mbps"  # noqa: E731
        sc = dumbbell(
            p.flows,
            duration=p.duration,
            start_spacing=0.001,
            src_rate=rate(p.access_mbps),
            src_delay="2ms",
            bottleneck_rate=rate(p.bottleneck_mbps),
            bottleneck_delay="10ms",
            queue_limit=1000,
            dst_rate=rate(p.access_mbps),
            dst_delay="4ms",
            per=p.per,
            error_applies_to="all",
            tcp=tcp,
            name="bench_b",
        )
    path = out / f"point_{p.key}.json"
    path.write_text(sc.to_json())
    return path


def copy_htsim(src: Path, dst: Path) -> None:
    """Copy htsim's sim/ folder (top level only) from a checkout or a bare git clone."""
    dst.mkdir(parents=True, exist_ok=True)
    if (src / "sim").is_dir():
        for f in (src / "sim").iterdir():
            if f.is_file():
                shutil.copy2(f, dst / f.name)
        return
    git = ["git", f"--git-dir={src}"]
    names = subprocess.run(
        [*git, "ls-tree", "HEAD:sim"], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    for line in names:
        meta, name = line.split("\t", 1)
        if meta.split()[1] != "blob":
            continue
        blob = subprocess.run([*git, "show", f"HEAD:sim/{name}"], check=True, capture_output=True)
        (dst / name).write_bytes(blob.stdout)


def build(htsim_src: Path, out: Path, pgo: bool) -> tuple[Path, Path]:
    lib_dir = out / "htsim-sim"
    lib = lib_dir / "libhtsim.a"
    if not lib.exists():
        copy_htsim(htsim_src, lib_dir)
        subprocess.run(
            ["make", "-C", str(lib_dir), "-j2", "libhtsim.a"], check=True, stdout=subprocess.DEVNULL
        )
    exe = out / "htsim_dumbbell"
    prog = HERE / "dumbbell.cpp"
    if not exe.exists() or exe.stat().st_mtime < max(prog.stat().st_mtime, lib.stat().st_mtime):
        subprocess.run(
            ["g++", "-std=c++11", "-O3", "-w", f"-I{lib_dir}", str(prog), str(lib), "-o", str(exe)],
            check=True,
        )
    # airtcp as `make setup` builds it: profile-guided where rustc's llvm-profdata is at hand,
    # trained on scenarios other than these points (tools/pgo.py).
    airtcp = PGO.bench(PGO.train() if pgo else None)
    return exe, airtcp


def build_htsim_pgo(out: Path, points: list[Point]) -> Path:
    """htsim and the program built in one g++ run with GCC's profile-guided optimization,
    trained on the very points measured (the most favourable training there can be)."""
    lib_dir = out / "htsim-sim"
    make = (lib_dir / "Makefile").read_text()
    objs = re.search(r"^OBJS\s*=\s*(.*)$", make, re.M).group(1).split()
    srcs = [o[:-2] + ".cpp" for o in objs if (lib_dir / (o[:-2] + ".cpp")).exists()]
    name = "htsim_dumbbell_pgo"
    exe = lib_dir / name
    if exe.exists() and exe.stat().st_mtime >= (HERE / "dumbbell.cpp").stat().st_mtime:
        return exe
    for f in lib_dir.glob(f"{name}-*.gcda"):
        f.unlink()
    base = ["g++", "-std=c++11", "-O3", "-w", "-I.", *srcs, str(HERE / "dumbbell.cpp"), "-o", name]
    print("htsim: instrumented build", file=sys.stderr, flush=True)
    subprocess.run(
        [*base, "-fprofile-generate", "-fprofile-update=single"], check=True, cwd=lib_dir
    )
    for p in points:
        run_htsim(exe, p, float(p.duration))
    print("htsim: build with the profile", file=sys.stderr, flush=True)
    subprocess.run([*base, "-fprofile-use", "-fprofile-correction"], check=True, cwd=lib_dir)
    return exe


# Both programs report their own wall time (of the simulation, not process start-up) and peak
# RSS (VmHWM of the process image: the rusage of a child forked from this interpreter would
# include the interpreter's pages from before exec).


def run_airtcp(exe: Path, toml: Path) -> tuple[float, int, float]:
    text = subprocess.run([str(exe), str(toml)], check=True, capture_output=True, text=True).stdout
    cols = text.strip().splitlines()[-1].split()
    return float(cols[1]), int(cols[4]), float(cols[6])


def run_htsim(exe: Path, p: Point, duration: float) -> tuple[float, int, float]:
    args = [p.flows, p.bottleneck_mbps, p.access_mbps, p.per, int(p.delack), f"{duration:.6f}"]
    # htsim's TCP prints a line per timeout on stdout; the figures come on stderr.
    proc = subprocess.run(
        [str(exe), *map(str, args)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    m = re.search(r"wall_s=([\d.]+) packet_hops=(\d+) peak_rss_kb=(\d+)", proc.stderr)
    if not m:
        raise RuntimeError(f"htsim printed no figures: {proc.stderr[-500:]}")
    return float(m.group(1)), int(m.group(2)), int(m.group(3)) / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--htsim-src", default=os.environ.get("HTSIM_SRC"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default=",".join(p.key for p in POINTS))
    ap.add_argument("--out", default=str(ROOT / "out" / "bench-htsim"))
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--no-pgo", action="store_true", help="airtcp's plain release build (no profile)"
    )
    ap.add_argument(
        "--htsim-pgo",
        action="store_true",
        help="build htsim with GCC's profile-guided optimization, trained on these points",
    )
    args = ap.parse_args(argv)
    if not args.htsim_src:
        print(
            "error: set HTSIM_SRC (or --htsim-src) to a checkout or bare clone of "
            "Broadcom/csg-htsim",
            file=sys.stderr,
        )
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    htsim, airtcp = build(Path(args.htsim_src), out, not args.no_pgo)
    keys = args.only.split(",")
    points = [p for p in POINTS if p.key in keys]
    if args.htsim_pgo:
        htsim = build_htsim_pgo(out, points)
    files = {p.key: scenario_file(p, out) for p in points}

    # Same work: scale htsim's duration until its packet-hops are within 1 % of airtcp's.
    durations = {}
    for p in points:
        _, a_hops, _ = run_airtcp(airtcp, files[p.key])
        d = float(p.duration)
        for _ in range(3):
            _, h_hops, _ = run_htsim(htsim, p, d)
            if abs(h_hops / a_hops - 1) <= 0.01:
                break
            d *= a_hops / h_hops
        durations[p.key] = d

    samples: dict[str, dict[str, list]] = {p.key: {"a": [], "h": []} for p in points}
    for r in range(args.runs):
        for p in points:
            # Alternate who goes first, so drifting load on the machine falls on both.
            order = ["a", "h"] if r % 2 == 0 else ["h", "a"]
            for who in order:
                if who == "a":
                    samples[p.key]["a"].append(run_airtcp(airtcp, files[p.key]))
                else:
                    samples[p.key]["h"].append(run_htsim(htsim, p, durations[p.key]))
            time.sleep(0.05)

    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    builds = (
        f"airtcp {'plain' if args.no_pgo else 'as make setup builds it'}, "
        f"htsim {'with GCC PGO' if args.htsim_pgo else '-O3'}"
    )
    print(f"airtcp {rev}, {args.runs} runs each, interleaved; medians (min); {builds}")
    hdr = (
        f"{'point':<9} {'airtcp s':>15} {'htsim s':>15} {'airtcp hops':>12} "
        f"{'htsim hops':>12} {'diff':>6} {'htsim sim s':>11} {'airtcp ns/hop':>13} "
        f"{'htsim ns/hop':>12} {'speed-up':>8} {'RSS MB a/h':>11}"
    )
    print(hdr)
    rows = []
    for p in points:
        a, h = samples[p.key]["a"], samples[p.key]["h"]
        aw, hw = statistics.median(x[0] for x in a), statistics.median(x[0] for x in h)
        ah, hh = a[0][1], h[0][1]
        ans, hns = aw / ah * 1e9, hw / hh * 1e9
        ar, hr = max(x[2] for x in a), max(x[2] for x in h)
        row = {
            "point": p.key,
            "desc": p.desc,
            "airtcp_wall_s": aw,
            "htsim_wall_s": hw,
            "airtcp_wall_min_s": min(x[0] for x in a),
            "htsim_wall_min_s": min(x[0] for x in h),
            "airtcp_hops": ah,
            "htsim_hops": hh,
            "htsim_duration_s": durations[p.key],
            "airtcp_ns_per_hop": ans,
            "htsim_ns_per_hop": hns,
            "speedup": hns / ans,
            "airtcp_peak_rss_mb": ar,
            "htsim_peak_rss_mb": hr,
        }
        rows.append(row)
        print(
            f"{p.key:<9} {aw:>7.3f} ({row['airtcp_wall_min_s']:.3f}) "
            f"{hw:>7.3f} ({row['htsim_wall_min_s']:.3f}) {ah:>12,} {hh:>12,} "
            f"{(hh / ah - 1) * 100:>+5.1f}% {durations[p.key]:>11.2f} {ans:>13.1f} "
            f"{hns:>12.1f} {hns / ans:>7.2f}x {ar:>5.1f}/{hr:<5.1f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
