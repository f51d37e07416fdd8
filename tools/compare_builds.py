"""Compare two builds of the core on the same scenarios over many seeds.

A change that moves results on purpose (an ordering rule, a model fix) shows here whether the
figures a study reads moved as a whole, or only run by run. Each build's
``examples/seeds.rs`` runs every scenario for seeds 1..N; for each metric, Welch's t-test
compares the two samples, with Holm's correction over all the tests, and the table gives the
means, the relative difference with its 95 % interval and the adjusted p-value.

    python tools/compare_builds.py --old REV [--new REV] [--seeds 30] [SCENARIO.json ...]

A revision is built in a git worktree under ``out/compare-builds/`` (the working tree when
``--new`` is left out). Scenarios default to the golden files listed in ``DEFAULT``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

from airtcp.stats import welch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "compare-builds"

DEFAULT = [
    "bench_b",
    "bench_c",
    "dumbbell",
    "padhye__loss__0",
    "ewr__mixed__0",
    "ewr__friend37__0",
    "membrane__grid-ern__1",
    "wmecn__wmecn-n8__2",
    "wmecn__snoop-n2__2",
]


def metrics(r: dict) -> dict[str, float]:
    flows = [f for f in r["flows"] if f["transport"] == "tcp"]
    busiest = max(r["links"], key=lambda link: link["utilization"]) if r["links"] else None
    rtts = [f["rtt_mean_s"] for f in flows if f["rtt_mean_s"] is not None]
    return {
        "goodput Mb/s": sum(f["goodput_bps"] for f in r["flows"]) / 1e6,
        "fairness": r["fairness"] if r["fairness"] is not None else math.nan,
        "congestion drops": r["drops"]["queue_overflow"] + r["drops"]["aqm"],
        "channel drops": r["drops"]["channel_error"],
        "retransmissions": sum(f["retransmissions"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "mean RTT ms": 1e3 * sum(rtts) / len(rtts) if rtts else math.nan,
        "busiest link mean queue": busiest["mean_queue_packets"] if busiest else math.nan,
    }


def build(rev: str | None, example: str = "seeds") -> Path:
    """An example of the core (``seeds`` by default) at `rev` (None: the working tree), built
    in release mode; for a revision, the binary is kept apart under ``out/compare-builds/``."""
    if rev is None:
        src, target = ROOT, ROOT / "target"
    else:
        sha = subprocess.run(
            ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if sha.returncode:
            sys.exit(f"error: {rev!r} is not a commit of this repository")
        sha_s = sha.stdout.strip()[:12]
        # A target directory per revision: with one shared by the worktrees cargo took the
        # first revision's build for the others (the same binary measured under each name).
        src, target = OUT / f"tree-{sha_s}", OUT / f"target-{sha_s}"
        if not src.exists():
            OUT.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                ["git", "worktree", "add", "--detach", str(src), sha_s],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
        if not (src / "crates" / "airtcp-core" / "examples" / f"{example}.rs").exists():
            sys.exit(f"{rev}: has no crates/airtcp-core/examples/{example}.rs (too old to compare)")
    print(f"building the {example} example of {rev or 'the working tree'} ...", file=sys.stderr)
    subprocess.run(
        [
            "cargo",
            "build",
            "--release",
            "-q",
            "-p",
            "airtcp-core",
            "--example",
            example,
            "--target-dir",
            str(target),
        ],
        cwd=src,
        check=True,
    )
    exe = target / "release" / "examples" / example
    if rev is not None:
        # Kept under the revision's name, where the measuring scripts look.
        kept = OUT / f"{example}-{rev.replace('/', '_')}"
        kept.write_bytes(exe.read_bytes())
        kept.chmod(0o755)
        return kept
    return exe


def run(exe: Path, scenario: Path, seeds: int) -> list[dict[str, float]]:
    out = subprocess.run(
        [str(exe), str(scenario), "1", str(seeds)],
        cwd=scenario.parent,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        sys.exit(f"{exe} {scenario}: {out.stderr.strip()}")
    return [metrics(json.loads(line)) for line in out.stdout.splitlines()]


def holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (family-wise error)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adj = [1.0] * len(ps)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        adj[i] = running
    return adj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the build before the change (a git rev)")
    ap.add_argument("--new", help="the build after it (default: the working tree)")
    ap.add_argument("--seeds", type=int, default=30, help="seeds per scenario (default 30)")
    ap.add_argument("scenarios", nargs="*", type=Path, help="scenario JSON files")
    a = ap.parse_args(argv)
    if a.seeds < 3:
        ap.error(f"--seeds must be at least 3, got {a.seeds}")
    files = a.scenarios or [ROOT / "tests" / "golden" / f"{n}.scenario.json" for n in DEFAULT]
    for f in files:
        if not f.is_file():
            ap.error(f"no scenario file {f}")
    old, new = build(a.old), build(a.new)
    rows = []
    for f in files:
        print(f"{f.name}: {a.seeds} seeds on each build ...", file=sys.stderr)
        before, after = run(old, f.resolve(), a.seeds), run(new, f.resolve(), a.seeds)
        same = sum(x == y for x, y in zip(before, after, strict=True))
        for m in before[0]:
            w = welch([r[m] for r in after], [r[m] for r in before])
            rows.append((f.name.removesuffix(".scenario.json"), m, w, same))
    adj = holm([1.0 if math.isnan(w.p) else w.p for _, _, w, _ in rows])
    print(
        f"{a.seeds} seeds per scenario; old = {a.old}, new = {a.new or 'working tree'}; "
        f"Welch's t-test per metric, p adjusted by Holm over {len(rows)} tests\n"
    )
    print(
        "| scenario | runs identical | metric | old mean | new mean | new − old (95 % interval) "
        "| adjusted p |"
    )
    print("|---|---|---|---|---|---|---|")
    for (name, m, w, same), p in zip(rows, adj, strict=True):
        base = abs(w.mean_b) if w.mean_b else math.nan
        rel = (
            (
                f"{100 * w.diff / base:+.1f} % ({100 * w.ci_low / base:+.1f} to "
                f"{100 * w.ci_high / base:+.1f} %)"
            )
            if base == base and base > 0
            else (f"{w.diff:+.3g}")
        )
        if w.diff == 0 and w.se == 0:
            rel = "0"
        print(
            f"| {name} | {same}/{a.seeds} | {m} | {w.mean_b:.4g} | {w.mean_a:.4g} | {rel} | "
            f"{p:.2f} |"
        )
    worst = min(adj) if adj else 1.0
    print(
        f"\nSmallest adjusted p-value: {worst:.3f} "
        f"({'no metric differs at the 5 % level' if worst >= 0.05 else 'a metric differs'})."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
