"""Kernel TCP (through ``airtcp.emulate``) against airtcp's ``linux`` TCP profile (simulated)
on the same scenarios, for reno (``newreno`` in the scenario, the kernel's ``reno``), cubic and
bbr at PER 0, 0.5, 1, 2 and 5 %, on two paths:

- ``path``: one bulk flow over 10 Mbit/s with 20 ms of delay each way, a 100 kB DropTail
  buffer and Bernoulli loss on the data direction;
- ``dumbbell``: seed paper 000's dumbbell (``airtcp.papers.wmecn``, §5.1) with its four FTP
  flows: S_i -10 Mbit/s, 2 ms- R1 -1 Mbit/s, 30 ms, RED- R2 -10 Mbit/s, 4 ms- D_i, the PER on
  every wireless last hop R2-D_i (data direction), 1000-byte segments. The paper's UDP on/off
  source is left out: the emulator runs TCP flows only. Goodput is the four flows' sum;
- ``dumbbell-droptail``: the same with scenarios/dumbbell.toml's bottleneck, DropTail of 20
  packets.

Each point runs ``--runs`` seeds both ways (the seed drives the links' loss streams and RED's
draws in both); the table gives mean goodput with a 95 % interval (t) on each side and the
ratio kernel / simulated with an approximate 95 % interval (the two means' standard errors
propagated). ``--write`` puts the table into docs/validation.md between its markers.

Every run is kept in ``--out`` (JSON), keyed by what determines it: the scenario's JSON digest
and, for a simulated run, the core build (``airtcp._core.__build__``), for a kernel run the
kernel release. So the grid runs in parts, a profile change reruns only the simulated side,
and ``--rerun-late`` reruns the kernel runs the emulator marked late. Needs root.

    sudo python benches/validate_linux.py [--runs 5] [--seconds 20] [--path path,dumbbell]
                                          [--cc cubic] [--per 0,0.01] [--side linux] [--write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import sys
import warnings
from pathlib import Path
from typing import Any

import airtcp
from airtcp import _core
from airtcp._emu_endpoint import RT_PRIORITY
from airtcp.builders import dumbbell
from airtcp.emulate import EmulationLateWarning
from airtcp.papers import wmecn

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "validation.md"
BEGIN = "<!-- validate-linux:begin -->"
END = "<!-- validate-linux:end -->"
CCS = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}
PATHS = ("path", "dumbbell", "dumbbell-droptail")
PERS = (0.0, 0.005, 0.01, 0.02, 0.05)
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}
#: the target: the simulated goodput within 10 % of the kernel's at every point
TARGET = 0.10
#: what else determines a kernel run: the endpoints' scheduling (airtcp._emu_endpoint)
TESTBED = f"endpoints SCHED_FIFO {RT_PRIORITY}"
#: what a kernel run's key holds beside the scenario
KERNEL = f"{os.uname().release}|{TESTBED}"
#: the dumbbell's FTP flows (the paper's main case, wmecn.MAIN_N)
DUMBBELL_FLOWS = wmecn.MAIN_N


def scenario(path: str, cc: str, per: float, seconds: float, seed: int) -> airtcp.Scenario:
    if path in ("dumbbell", "dumbbell-droptail"):
        # The paper's RED bottleneck, or scenarios/dumbbell.toml's 20-packet DropTail one.
        red = {"kind": "red", **wmecn.QUEUE} if path == "dumbbell" else None
        return dumbbell(
            DUMBBELL_FLOWS,
            cc=CCS[cc],
            duration=seconds,
            seed=seed,
            per=per,
            wireless=list(range(1, DUMBBELL_FLOWS + 1)),
            bottleneck_queue=red,
            tcp={"profile": "linux"},
            name=f"linux-{path}-{cc}-{per:g}",
        )
    link: dict[str, Any] = {
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


def digest(sc: airtcp.Scenario, what: str) -> str:
    """What determines a run: the scenario and the simulator's build or the kernel."""
    return hashlib.sha256(f"{sc.to_json()}|{what}".encode()).hexdigest()[:16]


def point_key(path: str, cc: str, per: float, seconds: float) -> str:
    return f"{path}|{cc}|{per:g}|{seconds:g}"


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


#: per-run counters kept beside goodput (both sides name them alike) to tell where they part
COUNTERS = ("retransmissions", "timeouts", "avg_cwnd_segments", "srtt_s", "rtt_mean_s")


def record(flows: list[dict[str, Any]]) -> dict[str, Any]:
    """A run's figures: the TCP flows' summed goodput and each flow's counters."""
    tcp = [f for f in flows if f.get("transport", "tcp") == "tcp"]
    return {
        "goodput_bps": sum(f["goodput_bps"] for f in tcp),
        "flows": [{c: f.get(c) for c in ("goodput_bps", *COUNTERS)} for f in tcp],
    }


def table(points: list[tuple[str, str, float, list[dict], list[dict]]]) -> str:
    lines = [
        "| path | cc | PER | kernel Mbit/s | simulated (`linux`) Mbit/s | ratio "
        "| 95 % interval | within 10 % | runs (late) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path, cc, per, kr, sr in points:
        if not kr:
            continue
        k = [r["goodput_bps"] for r in kr]
        s = [r["goodput_bps"] for r in sr]
        (mk, hk), (ms, hs) = mean_ci(k), mean_ci(s)
        r, lo, hi = ratio_ci(k, s)
        ok = "yes" if abs(r - 1.0) <= TARGET else "no"
        late = sum(1 for x in kr if x.get("late"))
        lines.append(
            f"| {path} | {cc} | {per * 100:g} % | {mk / 1e6:.2f} ± {hk / 1e6:.2f} | "
            f"{ms / 1e6:.2f} ± {hs / 1e6:.2f} | {r:.2f} | {lo:.2f}-{hi:.2f} | {ok} | "
            f"{len(k)} ({late}) |"
        )
    return "\n".join(lines)


def caption(points: list[tuple[str, str, float, list[dict], list[dict]]]) -> str:
    kr = [x for p in points for x in p[3]]
    if not kr:
        return ""
    late = sum(1 for x in kr if x.get("late"))
    p99 = [x["lateness_p99_us"] for x in kr]
    kernels = sorted({x["kernel"] for x in kr})
    builds = sorted({x["build"] for p in points for x in p[4]})
    ok = sum(1 for p in points if p[3] and abs(ratio_ci(*goodputs(p))[0] - 1) <= TARGET)
    return (
        f"*{len(kr)} kernel runs (Linux {', '.join(kernels)}), {late} of them marked late "
        f"(the emulator's release lateness p99 above 1 ms, or packets dropped before it read "
        f"them); the runs' p99 lateness: median {statistics.median(p99):.0f} µs, largest "
        f"{max(p99):.0f} µs. Simulated at core build {', '.join(builds)}. "
        f"{ok} of {sum(1 for p in points if p[3])} points within 10 %.*"
    )


def goodputs(p: tuple[str, str, float, list[dict], list[dict]]) -> tuple[list[float], list[float]]:
    return [r["goodput_bps"] for r in p[3]], [r["goodput_bps"] for r in p[4]]


def run_kernel(sc: airtcp.Scenario, series: Path | None) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmulationLateWarning)
        r = airtcp.emulate(sc)
    em = r.raw["emulation"]
    if series is not None:
        # The cwnd samples, to set a run beside the simulated one's trace.
        series.parent.mkdir(parents=True, exist_ok=True)
        series.write_text(json.dumps(r.raw["series"]["cwnd"]))
    rec = record(r.raw["flows"])
    rec.update(
        late=bool(em["late"]),
        lateness_p99_us=float(em["lateness_us"]["p99_us"]),
        tun_dropped=int(em["tun_dropped"]),
        kernel=em["kernel"],
    )
    return rec


def run_sim(sc: airtcp.Scenario) -> dict[str, Any]:
    rec = record(airtcp.run(sc).raw["flows"])
    rec["build"] = str(_core.__build__)
    return rec


def dynamics(t: list[float], cwnd: list[float], ssthresh: list[float]) -> dict[str, Any]:
    """Window reductions (ssthresh falling) and congestion-avoidance growth (segments per
    second, by cwnd band of 4) of one flow's cwnd series sampled every 10 ms."""
    red = sum(1 for a, b in zip(ssthresh, ssthresh[1:], strict=False) if b < a)
    bands: dict[int, list[float]] = {}
    for i in range(1, len(t)):
        c0, s0 = cwnd[i - 1], ssthresh[i - 1]
        if ssthresh[i] == s0 and s0 < 1e6 and c0 >= s0 and cwnd[i] >= c0:
            b = int(c0) // 4 * 4
            acc = bands.setdefault(b, [0.0, 0.0])
            acc[0] += t[i] - t[i - 1]
            acc[1] += cwnd[i] - c0
    return {"reductions": red, "bands": bands}


def sampled(t: list[float], v: list[float], step: float, end: float) -> list[float]:
    """A step series (value from each t on) read every ``step`` s as whole segments."""
    out, j, n = [], 0, int(end / step)
    for i in range(1, n):
        at = i * step
        while j + 1 < len(t) and t[j + 1] <= at:
            j += 1
        out.append(math.floor(v[j]))
    return out


def compare(path: str, cc: str, per: float, seconds: float, runs: int, series: Path) -> None:
    """The kernel's stored cwnd series beside a simulated trace of the same seeds (flow 1)."""
    sums: dict[str, dict[str, Any]] = {}
    for seed in range(1, runs + 1):
        sc = scenario(path, cc, per, seconds, seed)
        key = f"{point_key(path, cc, per, seconds)}|{seed}"
        kfile = series / f"{key}|{digest(sc, KERNEL)}.json".replace("|", "_")
        if not kfile.exists():
            continue
        name = sc.get("flows")[0].get("name") or "flow0"
        k = json.loads(kfile.read_text())[name]
        data = sc.to_dict()
        data["trace"] = {"cwnd": True}
        t, cw, ss = airtcp.run(airtcp.Scenario(data)).cwnd(name)
        step = 0.01
        ts = [i * step for i in range(1, int(seconds / step))]
        sim = (
            ts,
            sampled(list(t), list(cw), step, seconds),
            sampled(list(t), list(ss), step, seconds),
        )
        for side, (a, b, c) in (("kernel", (k["t"], k["cwnd"], k["ssthresh"])), ("sim", sim)):
            d = dynamics(a, b, c)
            acc = sums.setdefault(side, {"reductions": [], "bands": {}})
            acc["reductions"].append(d["reductions"])
            for band, (dt, n) in d["bands"].items():
                x = acc["bands"].setdefault(band, [0.0, 0.0])
                x[0] += dt
                x[1] += n
    if not sums:
        print(f"{path} {cc} PER {per:g}: no stored kernel series")
        return
    print(f"{path} {cc} PER {per:g}: window reductions per run")
    for side, acc in sums.items():
        print(f"  {side}: {acc['reductions']}")
    print("  congestion-avoidance growth, segments/s (time at the band) kernel | simulated")
    for band in sorted(set(sums["kernel"]["bands"]) | set(sums.get("sim", {}).get("bands", {}))):
        cells = []
        for side in ("kernel", "sim"):
            dt, n = sums.get(side, {}).get("bands", {}).get(band, (0.0, 0.0))
            cells.append(f"{n / dt if dt else 0:5.1f} ({dt:5.1f} s)")
        print(f"  cwnd {band:3d}-{band + 3:3d}: {cells[0]} | {cells[1]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument(
        "--path", default=",".join(PATHS), help="comma-separated: path,dumbbell,dumbbell-droptail"
    )
    ap.add_argument("--cc", default=",".join(CCS), help="comma-separated: reno,cubic,bbr")
    ap.add_argument("--per", default=",".join(f"{p:g}" for p in PERS))
    ap.add_argument("--out", default=str(ROOT / "out" / "validate-linux.json"))
    ap.add_argument(
        "--side",
        choices=("both", "sim", "linux"),
        default="both",
        help="run only the simulated or only the kernel side (the other is taken from --out)",
    )
    ap.add_argument(
        "--rerun-late", action="store_true", help="run again the kernel runs marked late"
    )
    ap.add_argument("--write", action="store_true", help="write the table into validation.md")
    ap.add_argument(
        "--compare",
        action="store_true",
        help="print, per point, window reductions and congestion-avoidance growth from the "
        "stored kernel cwnd series beside a simulated trace (runs nothing on the kernel)",
    )
    a = ap.parse_args(argv)
    if a.compare:
        for path in a.path.split(","):
            for cc in a.cc.split(","):
                for per in [float(x) for x in a.per.split(",")]:
                    compare(path, cc, per, a.seconds, a.runs, Path(a.out).with_suffix(""))
        return 0
    if a.side != "sim" and os.geteuid() != 0:
        print("error: needs root (network namespaces, TUN devices)", file=sys.stderr)
        return 2
    paths, ccs = a.path.split(","), a.cc.split(",")
    pers = [float(x) for x in a.per.split(",")]
    out = Path(a.out)
    runs: dict[str, dict[str, Any]] = json.loads(out.read_text()) if out.exists() else {}
    build, kernel = str(_core.__build__), KERNEL

    def save() -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(runs, indent=1))

    points = []
    for path in paths:
        for cc in ccs:
            for per in pers:
                keys = []
                for seed in range(1, a.runs + 1):
                    sc = scenario(path, cc, per, a.seconds, seed)
                    key = f"{point_key(path, cc, per, a.seconds)}|{seed}"
                    skey = f"{key}|{digest(sc, build)}"
                    kkey = f"{key}|{digest(sc, kernel)}"
                    # The two sides pair by seed; their keys differ in what determines them.
                    keys.append((skey, kkey))
                    if a.side != "linux" and f"sim|{skey}" not in runs:
                        runs[f"sim|{skey}"] = run_sim(sc)
                        save()
                    old = runs.get(f"linux|{kkey}")
                    if a.side != "sim" and (old is None or (a.rerun_late and old["late"])):
                        trace = out.with_suffix("") / f"{kkey.replace('|', '_')}.json"
                        runs[f"linux|{kkey}"] = run_kernel(sc, trace)
                        save()
                    kr, sr = runs.get(f"linux|{kkey}"), runs.get(f"sim|{skey}")
                    ks = "-" if kr is None else f"{kr['goodput_bps'] / 1e6:.3f}"
                    ks += " (late)" if kr is not None and kr["late"] else ""
                    ss = "-" if sr is None else f"{sr['goodput_bps'] / 1e6:.3f}"
                    print(f"{path} {cc} PER {per:g} seed {seed}: kernel {ks}, simulated {ss}")
                    sys.stdout.flush()
                pairs = [(f"linux|{k}", f"sim|{s}") for s, k in keys]
                pairs = [(k, s) for k, s in pairs if k in runs and s in runs]
                points.append(
                    (path, cc, per, [runs[k] for k, _ in pairs], [runs[s] for _, s in pairs])
                )
    text = table(points)
    cap = caption(points)
    print(text)
    print(cap)
    if a.write:
        doc = DOC.read_text()
        if BEGIN not in doc:
            raise SystemExit(f"{DOC}: no {BEGIN} marker")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(f"{head}{BEGIN}\n{text}\n\n{cap}\n{END}{tail}")
        print(f"wrote the table into {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
