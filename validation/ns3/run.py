"""Cross-check airtcp's TCP against ns-3.44 on one path (``make validate-ns3``).

Builds ``validation/ns3/dumbbell.cc`` against the ns-3 wheel from PyPI (``pip install
ns3==3.44.post0``; headers and shared libraries, linked with plain g++), runs it and airtcp
with the ``ns3`` TCP profile on the same scenarios (one and five bulk flows; PER 0, 1, 5, 10
and 20 % on data at the last hop; every congestion control both simulators have, by the
table ``SCHEMES``; several seeds), and writes the side-by-side table of mean goodput into
docs/validation.md between its ns-3 markers.

Each run's result is kept in ``validation/ns3/results.json`` (ns-3's by scheme, point, seed
and duration; airtcp's also by the core's build fingerprint, so a changed core is rerun), so
the check can be run in parts (``--schemes``, ``--per``, ``--flows``, ``--seeds``) and the
table is written from every point that has results. Seeds are added in batches until the 95 %
interval of the airtcp / ns-3 goodput ratio is within +-10 % of the ratio or ``--seeds`` is
reached.

    python validation/ns3/run.py [--schemes westwood+,vegas] [--per 0.05] [--flows 1]
                                 [--seeds N] [--min-seeds N] [--duration S] [--jobs J]
                                 [--ns3-venv DIR] [--quick] [--no-write] [--table-only]
                                 [--side airtcp --tcp 'KEY = VALUE' ...]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DOC = ROOT / "docs" / "validation.md"
RESULTS = HERE / "results.json"
BEGIN, END = "<!-- BEGIN ns3 cross-check -->", "<!-- END ns3 cross-check -->"
PERS = (0.0, 0.01, 0.05, 0.10, 0.20)
FLOWS = (1, 5)
TOLERANCE = 0.10
NS3_VERSION = "3.44"


class Scheme(NamedTuple):
    """One row of the mapping: airtcp's scheme (the first of ``airtcp`` the build has), ns-3's
    TypeId, and what each side sets beyond its defaults (airtcp ``[tcp]`` lines, ns-3
    attributes as program arguments)."""

    name: str
    ns3: str
    airtcp: tuple[str, ...]
    tcp: tuple[str, ...] = ()
    ns3_args: tuple[str, ...] = ()
    # Step ECN marking at S's queue from this many waiting packets (0: DropTail), in both
    # simulators (the program's --ecnK; airtcp's ecn_threshold queue).
    ecn_k: int = 0


# Every congestion control ns-3.44 ships. ns-3 has no Reno recovery: without SACK its
# TcpSocketBase guesses a scoreboard from duplicate ACKs and recovers on it as with SACK (the
# `ns3` profile's `reno_sack`), and TcpLinuxReno differs from TcpNewReno only in window growth
# (Linux's per-segment counting, where airtcp's reno adds SMSS^2/cwnd per ACK as TcpNewReno
# does). So reno is checked against TcpNewReno with SACK off on both sides, with the whole
# `ns3` profile; airtcp's own Reno recovery against it is `--tcp "reno_sack = false"`
# (docs/validation.md).
SCHEMES: tuple[Scheme, ...] = (
    Scheme(
        "reno",
        "ns3::TcpNewReno",
        ("reno",),
        ("sack = false",),
        ("--ns3::TcpSocketBase::Sack=0",),
    ),
    Scheme("newreno", "ns3::TcpNewReno", ("newreno",)),
    Scheme("cubic", "ns3::TcpCubic", ("cubic",)),
    Scheme("westwood+", "ns3::TcpWestwoodPlus", ("westwood+",)),
    Scheme("vegas", "ns3::TcpVegas", ("vegas",)),
    Scheme("veno", "ns3::TcpVeno", ("veno",)),
    Scheme("bbr", "ns3::TcpBbr", ("bbr",)),
    Scheme("highspeed", "ns3::TcpHighSpeed", ("highspeed", "hstcp")),
    Scheme("scalable", "ns3::TcpScalable", ("scalable", "stcp")),
    Scheme("bic", "ns3::TcpBic", ("bic",)),
    Scheme("hybla", "ns3::TcpHybla", ("hybla",)),
    Scheme("illinois", "ns3::TcpIllinois", ("illinois",)),
    Scheme("htcp", "ns3::TcpHtcp", ("htcp", "h-tcp")),
    Scheme("yeah", "ns3::TcpYeah", ("yeah",)),
    Scheme("lp", "ns3::TcpLp", ("lp", "tcp-lp")),
    Scheme("ledbat", "ns3::TcpLedbat", ("ledbat",)),
    # DCTCP needs a marking queue. K = 20 packets: ns-3's default 128 KiB receive window (244
    # segments of 536 bytes against a path of about 217) keeps S's queue under 30 packets, so
    # a K above that (Alizadeh et al.'s C·RTT/7 is 31 here) would never mark.
    Scheme("dctcp", "ns3::TcpDctcp", ("dctcp",), ns3_args=("--ecnK=20",), ecn_k=20),
)
BY_NAME = {s.name: s for s in SCHEMES}
# Kept for trace.py's --cc choices.
CCS = tuple(BY_NAME)


def airtcp_name(s: Scheme, available: set[str]) -> str | None:
    """airtcp's name for the scheme, or None when this build lacks it."""
    return next((n for n in s.airtcp if n in available), None)


def path_toml(
    cc: str,
    per: float,
    flows: int,
    duration: float,
    seed: int,
    tcp: tuple[str, ...] = (),
    ecn_k: int = 0,
) -> str:
    """airtcp's side: the path of dumbbell.cc with the ``ns3`` profile (and ``tcp`` lines)."""
    # ns-3 opens every connection with a handshake: the first flight leaves one RTT later,
    # with the SYN's RTT sample taken.
    s = f'name = "ns3-check"\nduration = {duration:g}\nseed = {seed}\n[tcp]\nprofile = "ns3"\n'
    s += "handshake = true\n"
    # ns-3's point-to-point links frame every packet with a 2-byte PPP header: 590 bytes a
    # data segment, 54 an ACK. Without it airtcp's ACKs run ahead by 1.6 us per packet and
    # hop, enough to move a millisecond timestamp, hence Vegas's and TCP-LP's decisions.
    s += "header_size = 54\n"
    # `cc_params.KEY = VALUE` lines are the flows' scheme parameters, the rest [tcp] lines.
    params = [ln.split(".", 1)[1] for ln in tcp if ln.startswith("cc_params.")]
    s += "".join(f"{line}\n" for line in tcp if not line.startswith("cc_params."))
    for n in ("S", "D"):
        s += f'[[nodes]]\nname = "{n}"\n'
    for n in ("R1", "R2"):
        s += f'[[nodes]]\nname = "{n}"\nkind = "router"\n'
    q = "queue = { limit = 1000 }\n"
    q0 = q
    if ecn_k:
        # ns-3 enqueues an arrival before the device's dequeue at the same instant (the
        # arrival was scheduled earlier), so a packet starting then still counts.
        q0 = (
            f'queue = {{ kind = "ecn_threshold", limit = 1000, mark_threshold = {ecn_k}, '
            "count_starting = true }\n"
        )
    s += f'[[links]]\na = "S"\nb = "R1"\nrate = "10Mbps"\ndelay = "10ms"\n{q0}'
    s += f'[[links]]\na = "R1"\nb = "R2"\nrate = "10Mbps"\ndelay = "30ms"\n{q}'
    s += (
        f'[[links]]\na = "R2"\nb = "D"\nkind = "wireless"\nrate = "10Mbps"\ndelay = "10ms"\n{q}'
        # ns-3's RateErrorModel sits at D's receiver and drops any packet, the SYN too.
        f'error_ab = {{ model = "bernoulli", per = {per}, applies_to = "all" }}\n'
    )
    for i in range(flows):
        s += (
            f'[[flows]]\nname = "f{i}"\nsrc = "S"\ndst = "D"\ncc = "{cc}"\n'
            f'start = {i * 0.001:g}\napp = {{ kind = "bulk" }}\n'
        )
        if params:
            s += "cc_params = { " + ", ".join(params) + " }\n"
    return s


def airtcp_goodput(args: tuple) -> dict:
    import airtcp
    from airtcp import _core

    r = airtcp.run(airtcp.Scenario.from_toml_str(path_toml(*args)))
    f = r.flows
    # Summed delivered bytes over the run, as the ns-3 program counts them.
    return {
        "build": str(_core.__build__),
        "goodput_bps": float(sum(f["delivered_bytes"])) * 8.0 / args[3],
        "recoveries": int(sum(f["fast_retransmits"])),
        "timeouts": int(sum(f["timeouts"])),
    }


def ns3_goodput(args: tuple) -> dict:
    exe, tid, per, flows, duration, seed, extra = args
    out = subprocess.run(
        [
            exe,
            f"--cc={tid}",
            f"--per={per}",
            f"--flows={flows}",
            f"--duration={duration}",
            f"--run={seed}",
            *extra,
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


def ratio_bounds(a: list[float], n: list[float]) -> tuple[float, float] | None:
    """Approximate 95 % interval of mean(a) / mean(n) over independent seeds (first-order
    error propagation of the two means' standard errors); None below two seeds a side."""
    if len(a) < 2 or len(n) < 2 or mean(n) <= 0 or mean(a) <= 0:
        return None
    ma, mn = mean(a), mean(n)
    rel = math.hypot(
        statistics.stdev(a) / math.sqrt(len(a)) / ma, statistics.stdev(n) / math.sqrt(len(n)) / mn
    )
    r = ma / mn
    return r * (1 - 1.96 * rel), r * (1 + 1.96 * rel)


def ratio_interval(a: list[float], n: list[float]) -> str:
    b = ratio_bounds(a, n)
    return "–" if b is None else f"{b[0]:.2f}–{b[1]:.2f}"


def seeds_wanted(a: list[float], n: list[float], have: int, least: int, most: int) -> int:
    """How many seeds a point should have: at least ``least``; then, while the interval's
    half-width exceeds TOLERANCE of the ratio, as many as the seeds' spread says would bring it
    within (at least ``least`` more), up to ``most``. A point without spread (every seed the
    same, as without loss) stops at ``least``."""
    if have < least:
        return least
    b = ratio_bounds(a, n)
    if b is None:
        return have
    r = (b[0] + b[1]) / 2
    half = (b[1] - b[0]) / 2
    if half <= TOLERANCE * r:
        return have
    grow = math.ceil(have * (half / (TOLERANCE * r)) ** 2 * 1.1)
    return min(most, max(have + least, grow))


def table(rows: list[dict]) -> str:
    """Markdown table of the comparison (rows: flows, cc, per, and per seed the ``airtcp`` and
    ``ns3`` results: goodput in bit/s, recovery entries, timeouts (ns-3's: entries into
    CA_LOSS, and ``rtos`` every timeout); a row with ``missing`` set says why it has no
    results)."""
    out = [
        "| flows | scheme | PER | seeds | airtcp (Mbit/s) | ns-3 (Mbit/s) | airtcp / ns-3 "
        "| 95 % interval | within 10% | recoveries per run airtcp / ns-3 "
        "| timeouts per run airtcp / ns-3 entries into CA_LOSS | ns-3 timeouts per run |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        head = f"| {r['flows']} | {r['cc']} | {r['per'] * 100:g} % |"
        if r.get("missing"):
            out.append(f"{head} – | – | – | – | – | {r['missing']} | – | – | – |")
            continue
        ga = [x["goodput_bps"] for x in r["airtcp"]]
        gn = [x["goodput_bps"] for x in r["ns3"]]
        a, n = mean(ga), mean(gn)
        ratio = a / n if n > 0 else float("nan")
        ok = "yes" if abs(ratio - 1) <= TOLERANCE else "no"
        seeds = len(ga) if len(ga) == len(gn) else f"{len(ga)} / {len(gn)}"

        def per_run(k: str, r: dict = r) -> str:
            a = mean([x[k] for x in r["airtcp"]])
            n = mean([x[k] for x in r["ns3"]])
            return f"{a:.1f} / {n:.1f}"

        # Every timeout, as airtcp counts them: only runs of the program that counts them
        # (``rtos``) have it.
        rtos = [x.get("rtos") for x in r["ns3"]]
        every = "–" if None in rtos else f"{mean(rtos):.1f}"
        out.append(
            f"{head} {seeds} | {a / 1e6:.3f} | {n / 1e6:.3f} | {ratio:.2f} | "
            f"{ratio_interval(ga, gn)} | {ok} | {per_run('recoveries')} | {per_run('timeouts')} "
            f"| {every} |"
        )
    return "\n".join(out)


def summary(rows: list[dict]) -> str:
    """One line: how many points are within 10 %, and the others with their ratios."""
    off = []
    for r in rows:
        a = mean([x["goodput_bps"] for x in r["airtcp"]])
        n = mean([x["goodput_bps"] for x in r["ns3"]])
        if n <= 0 or abs(a / n - 1) > TOLERANCE:
            off.append(f"{r['cc']} {r['flows']}×{r['per'] * 100:g} % ({a / n if n > 0 else 0:.2f})")
    line = f"Within 10 %: {len(rows) - len(off)} of {len(rows)} points."
    return line + (f" Outside: {', '.join(off)}." if off else "")


def write_doc(body: str, note: str) -> None:
    text = DOC.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"error: {DOC} lacks the markers {BEGIN} / {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{body}\n\n{note}\n{END}{tail}")


def with_lines(base: tuple[str, ...], extra: list[str]) -> tuple[str, ...]:
    """``base``'s [tcp] lines with ``extra`` added, an extra line replacing a base line that
    sets the same key (TOML refuses a key set twice)."""
    keys = {line.split("=", 1)[0].strip() for line in extra}
    kept = [line for line in base if line.split("=", 1)[0].strip() not in keys]
    return (*kept, *extra)


def ns3_key(s: Scheme, flows: int, per: float, duration: float) -> str:
    return "|".join([s.ns3, *s.ns3_args, f"{flows}", f"{per:g}", f"{duration:g}"])


def airtcp_key(cc: str, s: Scheme, flows: int, per: float, duration: float) -> str:
    return "|".join([cc, *s.tcp, f"{flows}", f"{per:g}", f"{duration:g}"])


def load_results(path: Path) -> dict:
    if not path.exists():
        return {"ns3": {}, "airtcp": {}}
    return json.loads(path.read_text())


def save_results(path: Path, res: dict) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=0, sort_keys=True) + "\n")
    tmp.replace(path)


def point_results(res: dict, build: str, s: Scheme, cc: str, flows: int, per: float, dur: float):
    """The seeds both sides have for a point, as two lists in seed order."""
    n = res["ns3"].get(ns3_key(s, flows, per, dur), {})
    a = res["airtcp"].get(build, {}).get(airtcp_key(cc, s, flows, per, dur), {})
    both = sorted(set(n) & set(a), key=int)
    return [a[k] for k in both], [n[k] for k in both]


def rows_for(res: dict, build: str, available: set[str], dur: float) -> tuple[list, list, list]:
    """Table rows over the whole grid from stored results; the schemes this build lacks; and
    the points not yet run."""
    rows, absent, pending = [], [], []
    for f in FLOWS:
        for s in SCHEMES:
            cc = airtcp_name(s, available)
            if cc is None:
                if f == FLOWS[0]:
                    absent.append(s)
                continue
            for per in PERS:
                ai, ns = point_results(res, build, s, cc, f, per, dur)
                if not ai:
                    pending.append((f, s.name, per))
                    continue
                rows.append({"flows": f, "cc": s.name, "per": per, "airtcp": ai, "ns3": ns})
    return rows, absent, pending


def merge_results(into: dict, other: dict) -> None:
    """Adds every stored run of ``other`` (a results file of another part of the check) that
    ``into`` lacks."""
    for key, seeds in other.get("ns3", {}).items():
        for k, v in seeds.items():
            into["ns3"].setdefault(key, {}).setdefault(k, v)
    for core, points in other.get("airtcp", {}).items():
        for key, seeds in points.items():
            for k, v in seeds.items():
                into["airtcp"].setdefault(core, {}).setdefault(key, {}).setdefault(k, v)


def parse_list(text: str, kind, what: str) -> list:
    try:
        return [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"error: --{what}: cannot read {text!r}") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--schemes", default=",".join(BY_NAME), help="comma-separated, of " + ", ".join(BY_NAME)
    )
    ap.add_argument("--per", default=",".join(f"{p:g}" for p in PERS), help="comma-separated PERs")
    ap.add_argument("--flows", default=",".join(map(str, FLOWS)), help="1, 5 or both")
    ap.add_argument("--seeds", type=int, default=200, help="most seeds a point gets")
    ap.add_argument("--min-seeds", type=int, default=5, help="fewest seeds, and the batch size")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ns3-venv", type=Path, default=ROOT / ".ns3venv")
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument(
        "--merge",
        type=Path,
        action="append",
        default=[],
        help="add the runs of another results file",
    )
    ap.add_argument("--quick", action="store_true", help="one seed of 10 s, nothing stored")
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    ap.add_argument("--table-only", action="store_true", help="no runs: the table from results")
    ap.add_argument(
        "--side", choices=("both", "ns3", "airtcp"), default="both", help="run one simulator only"
    )
    ap.add_argument(
        "--tcp",
        action="append",
        default=[],
        metavar="LINE",
        help="with --side airtcp: add a [tcp] line to every airtcp run (e.g. a profile switch "
        "set back), or a scheme parameter as `cc_params.KEY = VALUE`; those runs are not "
        "stored and the table is only printed",
    )
    ap.add_argument(
        "--ns3-refresh",
        action="store_true",
        help="with --side ns3: run ns-3's stored runs that lack the count of every timeout "
        "(`rtos`, stored runs of an earlier program) again at their seeds, and nothing else",
    )
    a = ap.parse_args(argv)
    if a.ns3_refresh and a.side != "ns3":
        ap.error("--ns3-refresh needs --side ns3")
    if a.tcp and a.side != "airtcp":
        ap.error("--tcp needs --side airtcp")
    if a.tcp:
        a.no_write = True
    # Runs are stored unless they are a quick look or of a changed configuration.
    a.store = not (a.quick or a.tcp)
    if a.seeds < 1 or a.min_seeds < 1 or a.duration <= 0 or a.jobs < 1:
        ap.error("--seeds, --min-seeds, --duration and --jobs must be positive")
    names = parse_list(a.schemes, str, "schemes")
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        ap.error(f"--schemes: unknown {', '.join(unknown)} (known: {', '.join(BY_NAME)})")
    pers = parse_list(a.per, float, "per")
    if any(not 0 <= p < 1 for p in pers):
        ap.error("--per: each must be in [0, 1)")
    flows = parse_list(a.flows, int, "flows")
    if any(f < 1 for f in flows):
        ap.error("--flows: each must be at least 1")
    if a.quick:
        a.seeds, a.min_seeds, a.duration, a.no_write = 1, 1, 10.0, True
    import airtcp
    from airtcp import _core

    core = str(_core.__build__)
    available = {n for n, _ in airtcp.schemes()}
    res = {"ns3": {}, "airtcp": {}} if a.quick else load_results(a.results)
    for path in a.merge:
        merge_results(res, load_results(path))
    if not a.table_only:
        # Runs of other core builds are rerun, not kept.
        res["airtcp"] = {core: {} if a.tcp else res["airtcp"].get(core, {})}
    if a.merge and not a.tcp:
        save_results(a.results, res)
    if not a.table_only:
        chosen = [BY_NAME[n] for n in names]
        for s in chosen:
            if airtcp_name(s, available) is None:
                print(f"{s.name}: not in this airtcp build ({s.ns3} not checked)")
        points = [
            (s, airtcp_name(s, available), f, p)
            for f in flows
            for s in chosen
            if airtcp_name(s, available)
            for p in pers
        ]
        if a.tcp:
            # A bad --tcp line is the user's: say so before any run, not from a worker.
            for s, cc, f, _ in points:
                toml = path_toml(cc, 0.0, f, 1.0, 1, with_lines(s.tcp, a.tcp), s.ecn_k)
                try:
                    airtcp.Scenario.from_toml_str(toml).validate()
                except (ValueError, airtcp.ScenarioError) as e:
                    ap.error(f"--tcp {' / '.join(a.tcp)}: {e}")
        exe = build(a.ns3_venv)
        run_points(points, res, core, exe, a)
    rows, absent, pending = rows_for(res, core, available, a.duration)
    if a.quick:
        rows = [r for r in rows if r["cc"] in names]
        absent = [s for s in absent if s.name in names]
        pending = []
    body = table(rows) + "\n\n" + summary(rows)
    if absent:
        body += (
            "\n\nNot in this airtcp build, so not checked: "
            + ", ".join(f"{s.name} (`{s.ns3}`)" for s in absent)
            + "."
        )
    if pending:
        body += (
            "\n\nNot run yet: "
            + ", ".join(f"{n} {f} flow{'s' * (f > 1)} {p * 100:g} %" for f, n, p in pending)
            + "."
        )
    print(body)
    if not a.no_write:
        date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
        note = (
            f"*Written by `make validate-ns3` (`python validation/ns3/run.py`) on {date} from "
            f"`validation/ns3/results.json`: runs of {a.duration:g} s, mean over the seeds of "
            f"the seeds column (RngRun 1, 2, ...; added in batches until the interval is within "
            f"±10 % of the ratio or {a.seeds} seeds); ns-{NS3_VERSION} from the "
            f'`ns3=={NS3_VERSION}.post0` wheel, airtcp with `tcp.profile = "ns3"`, core build '
            f"{core}.*"
        )
        write_doc(body, note)
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


def run_points(points: list, res: dict, core: str, exe: Path, a) -> None:
    """Runs seeds for every point until each has what ``seeds_wanted`` asks, storing every
    result as it arrives. With ``a.side`` one simulator only, the other side's spread is taken
    to be the same (so the other side can be run later, to the same seeds); airtcp alone on a
    point whose ns-3 runs are stored runs the seeds ns-3 has."""
    with ProcessPoolExecutor(a.jobs) as pool:
        while True:
            jobs = []
            done_a = res["airtcp"].setdefault(core, {})
            for s, cc, f, per in points:
                nk, ak = ns3_key(s, f, per, a.duration), airtcp_key(cc, s, f, per, a.duration)
                ns, ai = res["ns3"].setdefault(nk, {}), done_a.setdefault(ak, {})
                seeds = map(str, range(1, a.seeds + 1))
                if getattr(a, "ns3_refresh", False):
                    # The same seeds again, so the table's seed sets stay as they are.
                    for k in [k for k in ns if "rtos" not in ns[k]]:
                        args = (str(exe), s.ns3, per, f, a.duration, int(k), s.ns3_args)
                        jobs.append((ns, k, ns3_goodput, args))
                    continue
                if a.side == "ns3":
                    have = [k for k in seeds if k in ns]
                    ga = gn = [ns[k]["goodput_bps"] for k in have]
                elif a.side == "airtcp" and ns:
                    # ns-3's runs are stored: airtcp runs exactly their seeds, so that a
                    # rerun of one side (a new core build) compares the same seed set.
                    have = [k for k in seeds if k in ns]
                    ga = gn = [ns[k]["goodput_bps"] for k in have]
                    want_seeds = [k for k in have if k not in ai]
                elif a.side == "airtcp":
                    have = [k for k in seeds if k in ai]
                    ga = gn = [ai[k]["goodput_bps"] for k in have]
                else:
                    # A new core build first runs airtcp at every seed ns-3 has, so that its
                    # table compares the same seed sets before the rule asks for more.
                    lacking = [k for k in ns if k not in ai and int(k) <= a.seeds]
                    if lacking:
                        for k in lacking:
                            args = (cc, per, f, a.duration, int(k), s.tcp, s.ecn_k)
                            jobs.append((ai, k, airtcp_goodput, args))
                        continue
                    have = [k for k in seeds if k in ns and k in ai]
                    ga = [ai[k]["goodput_bps"] for k in have]
                    gn = [ns[k]["goodput_bps"] for k in have]
                if a.side == "airtcp" and ns:
                    for k in want_seeds:
                        args = (cc, per, f, a.duration, int(k), with_lines(s.tcp, a.tcp), s.ecn_k)
                        jobs.append((ai, k, airtcp_goodput, args))
                    continue
                want = seeds_wanted(ga, gn, len(have), a.min_seeds, a.seeds)
                for seed in range(1, want + 1):
                    k = str(seed)
                    if k not in ns and a.side != "airtcp":
                        args = (str(exe), s.ns3, per, f, a.duration, seed, s.ns3_args)
                        jobs.append((ns, k, ns3_goodput, args))
                    if k not in ai and a.side != "ns3":
                        args = (cc, per, f, a.duration, seed, s.tcp, s.ecn_k)
                        jobs.append((ai, k, airtcp_goodput, args))
            if not jobs:
                return
            print(f"running {len(jobs)} runs", flush=True)
            futs = {pool.submit(fn, args): (store, k) for store, k, fn, args in jobs}
            for i, fut in enumerate(futs):
                store, k = futs[fut]
                out = fut.result()
                if out.pop("build", core) != core:
                    # A worker loaded another build of the core (rebuilt during the run).
                    raise SystemExit("error: the airtcp core changed during the run; rerun")
                store[k] = out
                if a.store and (i % 20 == 19 or i == len(futs) - 1):
                    save_results(a.results, res)


if __name__ == "__main__":
    sys.exit(main())
