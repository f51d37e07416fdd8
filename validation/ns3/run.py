"""Cross-check airtcp's TCP against ns-3.44 on one path (``make validate-ns3``).

Builds ``validation/ns3/dumbbell.cc`` against the ns-3 wheel from PyPI (``pip install
ns3==3.44.post0``; headers and shared libraries, linked with plain g++), runs it and airtcp
with the ``ns3`` TCP profile on the same scenarios (one and five bulk flows; PER 0, 1, 5, 10
and 20 % on data at the last hop; NewReno and CUBIC; several seeds), and writes the
side-by-side table of mean goodput into docs/validation.md between its ns-3 markers.

    python validation/ns3/run.py [--seeds N] [--duration S] [--jobs J] [--ns3-venv DIR]
                                 [--quick] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DOC = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- BEGIN ns3 cross-check -->", "<!-- END ns3 cross-check -->"
PERS = (0.0, 0.01, 0.05, 0.10, 0.20)
CCS = ("newreno", "cubic")
FLOWS = (1, 5)
TOLERANCE = 0.10


def path_toml(cc: str, per: float, flows: int, duration: float, seed: int) -> str:
    """airtcp's side: the path of dumbbell.cc with the ``ns3`` profile."""
    s = f'name = "ns3-check"\nduration = {duration:g}\nseed = {seed}\n[tcp]\nprofile = "ns3"\n'
    for n in ("S", "D"):
        s += f'[[nodes]]\nname = "{n}"\n'
    for n in ("R1", "R2"):
        s += f'[[nodes]]\nname = "{n}"\nkind = "router"\n'
    q = "queue = { limit = 1000 }\n"
    s += f'[[links]]\na = "S"\nb = "R1"\nrate = "10Mbps"\ndelay = "10ms"\n{q}'
    s += f'[[links]]\na = "R1"\nb = "R2"\nrate = "10Mbps"\ndelay = "30ms"\n{q}'
    s += (
        f'[[links]]\na = "R2"\nb = "D"\nkind = "wireless"\nrate = "10Mbps"\ndelay = "10ms"\n{q}'
        f'error = {{ model = "bernoulli", per = {per}, applies_to = "data" }}\n'
    )
    for i in range(flows):
        s += (
            f'[[flows]]\nname = "f{i}"\nsrc = "S"\ndst = "D"\ncc = "{cc}"\n'
            f'start = {i * 0.001:g}\napp = {{ kind = "bulk" }}\n'
        )
    return s


def airtcp_goodput(args: tuple[str, float, int, float, int]) -> dict:
    import airtcp

    r = airtcp.run(airtcp.Scenario.from_toml_str(path_toml(*args)))
    f = r.flows
    # Summed delivered bytes over the run, as the ns-3 program counts them.
    return {
        "goodput_bps": float(sum(f["delivered_bytes"])) * 8.0 / args[3],
        "recoveries": int(sum(f["fast_retransmits"])),
        "timeouts": int(sum(f["timeouts"])),
    }


def ns3_goodput(args: tuple[str, str, float, int, float, int]) -> dict:
    exe, cc, per, flows, duration, seed = args
    out = subprocess.run(
        [
            exe,
            f"--cc={cc}",
            f"--per={per}",
            f"--flows={flows}",
            f"--duration={duration}",
            f"--run={seed}",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def find_ns3(venv: Path) -> tuple[Path, Path]:
    """The wheel's include and lib directories (install it with ``--no-deps``: the C++ side
    needs none of the Python dependencies)."""
    py = venv / "bin" / "python"
    if not py.exists():
        raise SystemExit(
            f"error: no ns-3 virtualenv at {venv}; create it with\n"
            f"  python3 -m venv {venv} && {venv}/bin/pip install --no-deps ns3==3.44.post0"
        )
    # The wheel's Python bindings need cppyy; the C++ side needs only its files.
    code = "import sysconfig; print(sysconfig.get_paths()['platlib'])"
    site = Path(
        subprocess.run([py, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    )
    pkg = site / "ns3"
    inc, lib = pkg / "include", pkg / "lib64"
    if (inc / "ns3" / "core-module.h").exists() and any(lib.glob("libns3*-core*.so*")):
        return inc, lib
    raise SystemExit(f"error: ns-3 headers or libraries not found under {pkg}")


def compile_program(venv: Path, src: Path, exe: Path, defines: list[str]) -> Path:
    """``src`` linked with g++ against every ns-3 library of the wheel in ``venv``, unless
    ``exe`` is newer than it (``benches/ns3/chain.py`` builds its program with this too)."""
    inc, lib = find_ns3(venv)
    exe.parent.mkdir(parents=True, exist_ok=True)
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    libs = sorted({re.sub(r"^lib|\.so.*$", "", p.name) for p in lib.glob("libns3*.so*")})
    cmd = [
        "g++",
        "-std=c++20",
        "-O2",
        *defines,
        str(src),
        "-o",
        str(exe),
        f"-I{inc}",
        f"-L{lib}",
        f"-Wl,-rpath,{lib}",
        *(f"-l{n}" for n in libs),
    ]
    print("build:", " ".join(cmd[: 5 + len(defines)]), "...", flush=True)
    subprocess.run(cmd, check=True)
    return exe


def build(venv: Path) -> Path:
    return compile_program(
        venv, HERE / "dumbbell.cc", HERE / "build" / "dumbbell", ["-DNS3_LOG_ENABLE"]
    )


def mean(xs: list[float]) -> float:
    return math.fsum(xs) / len(xs)


def ratio_interval(a: list[float], n: list[float]) -> str:
    """Approximate 95 % interval of mean(a) / mean(n) over independent seeds (first-order
    error propagation of the two means' standard errors); a dash below two seeds a side."""
    if len(a) < 2 or len(n) < 2 or mean(n) <= 0 or mean(a) <= 0:
        return "–"
    ma, mn = mean(a), mean(n)
    rel = math.hypot(
        statistics.stdev(a) / math.sqrt(len(a)) / ma, statistics.stdev(n) / math.sqrt(len(n)) / mn
    )
    r = ma / mn
    return f"{r * (1 - 1.96 * rel):.2f}–{r * (1 + 1.96 * rel):.2f}"


def table(rows: list[dict]) -> str:
    """Markdown table of the comparison (rows: flows, cc, per, and per seed the ``airtcp`` and
    ``ns3`` results: goodput in bit/s, recovery entries, timeouts)."""
    out = [
        "| flows | scheme | PER | airtcp (Mbit/s) | ns-3 (Mbit/s) | airtcp / ns-3 | 95 % interval "
        "| within 10% | recoveries airtcp / ns-3 | timeouts airtcp / ns-3 entries into CA_LOSS |",
        "|---:|---|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        ga = [x["goodput_bps"] for x in r["airtcp"]]
        gn = [x["goodput_bps"] for x in r["ns3"]]
        a, n = mean(ga), mean(gn)
        ratio = a / n if n > 0 else float("nan")
        ok = "yes" if abs(ratio - 1) <= TOLERANCE else "no"

        def total(k: str, r: dict = r) -> str:
            return f"{sum(x[k] for x in r['airtcp'])} / {sum(x[k] for x in r['ns3'])}"

        out.append(
            f"| {r['flows']} | {r['cc']} | {r['per'] * 100:g} % | {a / 1e6:.3f} | "
            f"{n / 1e6:.3f} | {ratio:.2f} | {ratio_interval(ga, gn)} | {ok} | "
            f"{total('recoveries')} | {total('timeouts')} |"
        )
    return "\n".join(out)


def write_doc(body: str, note: str) -> None:
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"error: {DOC} lacks the markers {BEGIN} / {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{body}\n\n{note}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ns3-venv", type=Path, default=ROOT / ".ns3venv")
    ap.add_argument("--quick", action="store_true", help="one seed of 10 s, no doc update")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    a = ap.parse_args(argv)
    if a.seeds < 1 or a.duration <= 0 or a.jobs < 1:
        ap.error("--seeds, --duration and --jobs must be positive")
    if a.quick:
        a.seeds, a.duration, a.no_write = 1, 10.0, True
    exe = build(a.ns3_venv)
    points = [(f, cc, per) for f in FLOWS for cc in CCS for per in PERS]
    seeds = range(1, a.seeds + 1)
    with ProcessPoolExecutor(a.jobs) as pool:
        ns = list(
            pool.map(
                ns3_goodput,
                [(str(exe), cc, per, f, a.duration, s) for f, cc, per in points for s in seeds],
            )
        )
        ai = list(
            pool.map(
                airtcp_goodput,
                [(cc, per, f, a.duration, s) for f, cc, per in points for s in seeds],
            )
        )
    k = a.seeds
    rows = [
        {
            "flows": f,
            "cc": cc,
            "per": per,
            "ns3": ns[i * k : (i + 1) * k],
            "airtcp": ai[i * k : (i + 1) * k],
        }
        for i, (f, cc, per) in enumerate(points)
    ]
    body = table(rows)
    print(body)
    if not a.no_write:
        note = (
            f"*Written by `make validate-ns3` (`python validation/ns3/run.py --seeds "
            f"{a.seeds} --duration {a.duration:g}`): mean over {a.seeds} seeds of "
            f"{a.duration:g} s; ns-3.44 from the `ns3` wheel, airtcp with `tcp.profile = "
            f'"ns3"`.*'
        )
        write_doc(body, note)
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
