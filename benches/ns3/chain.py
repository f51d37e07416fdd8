"""Wall time of airtcp against ns-3.44 on a 16-hop 802.11 chain (``make bench-ns3-chain``).

airtcp runs ``scenarios/bench_d.toml`` (17 nodes 200 m apart, the ``ns2`` wifi preset and TCP
profile, one NewReno bulk flow n0 -> n16, 50 s) with its core alone (the ``bench`` example:
scenario build and run, no Python); ns-3.44 runs ``benches/ns3/wifi_chain.cc``, the same
chain, built with g++ against the ns-3 wheel in ``.ns3venv`` and timing ``Simulator::Run()``
only. The two alternate, ``--runs`` times each, on one core at a time; the table gives the
median (min) wall time, their ratio, and for each the goodput, the MAC frames sent and the
peak resident memory (VmHWM).

    python benches/ns3/chain.py [--runs 3] [--duration 50] [--ns3-run 1] [--plain-ns3]
                                [--ns3-venv DIR]

The modelling differences that remain between the two are listed in benches/ns3/README.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SRC = HERE / "wifi_chain.cc"
OUT = ROOT / "out" / "bench-ns3"
SCENARIO = ROOT / "scenarios" / "bench_d.toml"
EXAMPLES = ROOT / "target" / "release" / "examples"


def _validation_ns3() -> Any:
    """``validation/ns3/run.py``, whose lookup of the wheel and g++ build this script shares."""
    spec = importlib.util.spec_from_file_location(
        "_airtcp_validation_ns3_run", ROOT / "validation" / "ns3" / "run.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("error: validation/ns3/run.py not found")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_ns3(venv: Path) -> Path:
    """Compiles wifi_chain.cc unless the binary is newer than the source."""
    if not (venv / "bin" / "python").exists():
        raise SystemExit(
            f"error: no ns-3 virtualenv at {venv}; create it with `make .ns3venv/.stamp` "
            "(installs the ns3==3.44.post0 wheel's headers and libraries)"
        )
    if shutil.which("g++") is None:
        raise SystemExit("error: g++ not found (needed to build benches/ns3/wifi_chain.cc)")
    # The wheel's libraries are ns-3's "release" profile with logging and asserts compiled in
    # (lib64/cmake/ns3/ns3Targets.cmake); the program's headers are compiled to match.
    defines = ["-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE"]
    return _validation_ns3().compile_program(venv, SRC, OUT / "wifi_chain", defines)


def build_airtcp() -> tuple[Path, Path]:
    """airtcp's ``bench`` (timing) and ``run`` (result JSON) examples, release build."""
    if shutil.which("cargo") is None:
        raise SystemExit("error: cargo not found; install Rust from https://rustup.rs")
    cmd = ["cargo", "build", "--release", "-p", "airtcp-core"]
    print("build:", " ".join(cmd), "--example bench --example run", flush=True)
    subprocess.run([*cmd, "--example", "bench", "--example", "run"], check=True, cwd=ROOT)
    return EXAMPLES / "bench", EXAMPLES / "run"


def scenario_for(duration: float) -> Path:
    """bench_d.toml, or a copy under out/bench-ns3/ with another duration."""
    if duration == 50:
        return SCENARIO
    text = SCENARIO.read_text()
    text, k = re.subn(r"(?m)^duration\s*=.*$", f"duration = {duration:g}", text, count=1)
    if k != 1:
        raise SystemExit(f"error: no top-level duration in {SCENARIO}")
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"bench_d_{duration:g}s.toml"
    path.write_text(text)
    return path


def run_airtcp_bench(exe: Path, scenario: Path) -> dict:
    out = subprocess.run(
        [exe, scenario], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0].endswith(".toml"):
            return {"wall_s": float(f[1]), "events": int(f[2]), "peak_mb": float(f[6])}
    raise SystemExit(f"error: unexpected output of {exe.name}:\n{out}")


def airtcp_result(exe: Path, scenario: Path) -> dict:
    """Goodput and MAC frames of airtcp's run (deterministic for the scenario's seed)."""
    out = subprocess.run(
        [exe, scenario], check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout
    r = json.loads(out)
    flow = r["flows"][0]
    macs = r.get("macs", [])

    def total(key: str) -> int:
        return sum(int(m.get(key, 0)) for m in macs)

    data = total("data_frames")
    return {
        "goodput_kbps": flow["delivered_bytes"] * 8 / r["duration_s"] / 1e3,
        "delivered_bytes": int(flow["delivered_bytes"]),
        "mac_data_tx": data,
        "mac_frames_tx": data + total("rts_frames") + total("cts_frames") + total("ack_frames"),
        "retransmissions": int(flow["retransmissions"]),
        "timeouts": int(flow["timeouts"]),
        "mac_drops": total("drops_retry_limit") + total("drops_queue_overflow"),
    }


def run_ns3(exe: Path, duration: float, run: int, plain: bool) -> dict:
    cmd = [str(exe), f"--run={run}", f"--duration={duration:g}"]
    if plain:
        cmd.append("--ns2Rx=0")
    p = subprocess.run(cmd, check=True, capture_output=True, text=True)
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("wall_s=")]
    if not lines:
        raise SystemExit(f"error: no result line from {' '.join(cmd)}:\n{p.stderr}")
    out: dict = {}
    for kv in lines[-1].split():
        k, v = kv.split("=", 1)
        out[k] = float(v) if "." in v or "e" in v else int(v)
    return out


def med_min(xs: list[float]) -> str:
    return f"{statistics.median(xs):.3f} ({min(xs):.3f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="timed runs of each simulator")
    ap.add_argument("--duration", type=float, default=50.0, help="simulated seconds")
    ap.add_argument("--ns3-run", type=int, default=1, help="ns-3 RngRun of every run")
    ap.add_argument(
        "--plain-ns3",
        action="store_true",
        help="ns-3's own receiver (SINR) instead of the emulation of ns-2's (--ns2Rx=0)",
    )
    ap.add_argument("--ns3-venv", type=Path, default=ROOT / ".ns3venv")
    a = ap.parse_args(argv)
    if a.runs < 1 or a.duration <= 0 or a.ns3_run < 1:
        ap.error("--runs, --duration and --ns3-run must be positive")

    ns3 = build_ns3(a.ns3_venv)
    bench, run = build_airtcp()
    scenario = scenario_for(a.duration)
    ares = airtcp_result(run, scenario)

    at: list[dict] = []
    nt: list[dict] = []
    for i in range(a.runs):
        at.append(run_airtcp_bench(bench, scenario))
        nt.append(run_ns3(ns3, a.duration, a.ns3_run, a.plain_ns3))
        print(
            f"run {i + 1}/{a.runs}: airtcp {at[-1]['wall_s']:.3f} s, ns-3 {nt[-1]['wall_s']:.3f} s",
            flush=True,
        )

    aw = [r["wall_s"] for r in at]
    nw = [r["wall_s"] for r in nt]
    n0 = nt[0]
    ratio_med = statistics.median(nw) / statistics.median(aw)
    ratio_min = min(nw) / min(aw)
    rows = [
        ("wall s, median (min)", med_min(aw), med_min(nw)),
        ("goodput kbit/s", f"{ares['goodput_kbps']:.1f}", f"{n0['goodput_kbps']:.1f}"),
        ("delivered bytes", str(ares["delivered_bytes"]), str(n0["delivered_bytes"])),
        ("MAC frames sent (all)", str(ares["mac_frames_tx"]), str(n0["mac_frames_tx"])),
        ("MAC data frames sent", str(ares["mac_data_tx"]), str(n0["mac_data_tx"])),
        (
            "MAC drops (retry limit + queue)",
            str(ares["mac_drops"]),
            str(n0["mpdu_drops"] + n0["queue_drops"]),
        ),
        ("TCP retransmissions", str(ares["retransmissions"]), str(n0["tcp_retransmissions"])),
        (
            "peak RSS MB",
            f"{statistics.median(r['peak_mb'] for r in at):.1f}",
            f"{statistics.median(r['peak_rss_kb'] for r in nt) / 1024:.1f}",
        ),
    ]
    fa = ares["mac_frames_tx"] / statistics.median(aw)
    fn = n0["mac_frames_tx"] / statistics.median(nw)
    rows += [
        ("MAC frames per wall s", f"{fa:.0f}", f"{fn:.0f}"),
        ("ns-3 / airtcp wall, median", "", f"{ratio_med:.1f}x"),
        ("ns-3 / airtcp wall, min", "", f"{ratio_min:.1f}x"),
        ("ns-3 / airtcp, per MAC frame", "", f"{fa / fn:.1f}x"),
    ]
    rx = "ns-2 receiver emulated" if not a.plain_ns3 else "ns-3's own receiver"
    print()
    print(
        f"16-hop 802.11 chain, 1 TCP flow, {a.duration:g} s simulated, {a.runs} runs each "
        f"(ns-3.44: {rx}, RngRun {a.ns3_run})"
    )
    w = max(len(r[0]) for r in rows)
    print(f"{'':<{w}}  {'airtcp':>16}  {'ns-3.44':>16}")
    for name, x, y in rows:
        print(f"{name:<{w}}  {x:>16}  {y:>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
