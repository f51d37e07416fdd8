"""One flow of the cross-check path in both simulators with the same lost packets, and the
first flow's window traces side by side (``make validate-ns3`` does not run this).

Both sides lose the same data segments. By default (``--loss hashed``) copy k of the segment at
sequence number s is lost when a hash of (seed, s, k) is below ``--per`` (airtcp's ``hashed``
error model, dumbbell.cc's ``--hashed``): the same segments are lost whatever each simulator's
timing, so whole runs compare. ``--loss index`` drops instead the data packets whose arrival
indices at D are drawn with probability ``--per`` (airtcp's ``list`` model, ``--drops``), which
match only until the two senders' orders diverge. The printed rows are each side's successive
(cwnd, ssthresh) in segments; the first row where they part shows which rule differs.

    python validation/ns3/trace.py --cc newreno --per 0.05 [--seed 1] [--duration 20]
                                   [--rows 60] [--loss hashed|index] [--set KEY=VALUE ...]
                                   [--cc-param KEY=VALUE ...] [--packets]

With ``--packets`` it compares the sender's packets instead: every data segment S sends and
every ACK it receives, airtcp's from a pcap of S and ns-3's from dumbbell.cc's ``--packets``,
and prints where the two first part (an ACK's number or arrival time, a segment's sequence
number or send time) with the events around it side by side.
"""

from __future__ import annotations

import argparse
import json
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402


def drops(per: float, seed: int, n: int = 200_000) -> list[int]:
    rng = random.Random(seed)
    return [i for i in range(n) if rng.random() < per]


def loss_setup(kind: str, per: float, seed: int) -> tuple[str, list[str]]:
    """The last hop's loss on each side: airtcp's error table and dumbbell.cc's arguments."""
    if kind == "hashed":
        return f'{{ model = "hashed", per = {per}, seed = {seed} }}', [
            f"--hashed={per}",
            f"--hashSeed={seed}",
        ]
    lost = drops(per, seed)
    return f'{{ model = "list", packets = {lost}, applies_to = "data" }}', [
        "--drops=" + ",".join(map(str, lost))
    ]


def trace_toml(
    cc: str, error: str, duration: float, extra: list[str], cc_params: dict | None = None
) -> str:
    """airtcp's side: the cross-check path with the last hop's ``error`` table, extra ``[tcp]``
    lines (beside those of the scheme's row in run.SCHEMES), the flow's ``cc_params``, and the
    window traced."""
    s = run.BY_NAME.get(cc)
    # An extra line replaces the row's own line for the same key.
    lines = run.with_lines(s.tcp if s else (), extra)
    toml = run.path_toml(s.airtcp[0] if s else cc, 0.0, 1, duration, 1, lines, s.ecn_k if s else 0)
    bern = 'error_ab = { model = "bernoulli", per = 0.0, applies_to = "all" }'
    assert bern in toml
    toml = toml.replace(bern, f"error = {error}")
    if cc_params:
        body = ", ".join(f'"{k}" = {v}' for k, v in cc_params.items())
        toml = toml.replace(
            'app = { kind = "bulk" }', f'app = {{ kind = "bulk" }}\ncc_params = {{ {body} }}'
        )
    return toml + "[trace]\ncwnd = true\n"


def airtcp_run(
    cc: str, error: str, duration: float, extra: list[str], params: dict | None = None
) -> tuple[dict, list]:
    """airtcp's side: its goodput (bit/s), recoveries and timeouts, and its window trace."""
    import airtcp

    toml = trace_toml(cc, error, duration, extra, params)
    r = airtcp.run(airtcp.Scenario.from_toml_str(toml))
    f = r.flows
    res = {
        "goodput_bps": float(f["delivered_bytes"][0]) * 8 / duration,
        "recoveries": int(f["fast_retransmits"][0]),
        "timeouts": int(f["timeouts"][0]),
    }
    s = r.series["cwnd"]["f0"]
    t, cw, st = s["t"], s["cwnd"], s["ssthresh"]
    return res, [(float(a), int(b), int(c)) for a, b, c in zip(t, cw, st, strict=True)]


def airtcp_trace(
    cc: str, error: str, duration: float, extra: list[str], params: dict | None = None
) -> list[tuple]:
    res, rows = airtcp_run(cc, error, duration, extra, params)
    print(
        f"airtcp: goodput {res['goodput_bps'] / 1e6:.4f} Mbit/s,"
        f" {res['recoveries']} recoveries, {res['timeouts']} timeouts"
    )
    return rows


def ns3_run(
    exe: Path, cc: str, loss_args: list[str], duration: float, extra: list[str]
) -> tuple[dict, list]:
    """ns-3's side: the program's result line (goodput_bps, recoveries, rtos, timeouts) and
    its window trace."""
    s = run.BY_NAME[cc]
    out = subprocess.run(
        [
            str(exe),
            f"--cc={s.ns3}",
            *s.ns3_args,
            "--flows=1",
            f"--duration={duration}",
            "--trace=1",
            *loss_args,
            *extra,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    res: dict = {}
    rows = []
    for line in out.splitlines():
        if line.startswith("{"):
            res = json.loads(line)
        if line.startswith("W "):
            _, t, cw, st = line.split()
            rows.append((float(t), int(cw), int(st)))
    return res, rows


def ns3_trace(
    exe: Path, cc: str, loss_args: list[str], duration: float, extra: list[str]
) -> list[tuple]:
    d, rows = ns3_run(exe, cc, loss_args, duration, extra)
    print(
        f"ns-3:   goodput {d['goodput_bps'] / 1e6:.4f} Mbit/s, {d['recoveries']}"
        f" recoveries, {d['rtos']} timeouts ({d['timeouts']} entries into CA_LOSS)"
    )
    return rows


def segments(rows: list[tuple], mss: int) -> list[tuple]:
    """Successive distinct (cwnd, ssthresh) in whole segments (``mss`` = 1: already in
    segments), with the time of each; an unset ssthresh shows as -1."""
    out: list[tuple] = []
    for t, cw, st in rows:
        st = st // mss
        key = (cw // mss, st if st < 100_000 else -1)
        if not out or out[-1][1:] != key:
            out.append((t, *key))
    return out


def pcap_events(path: Path) -> list[tuple]:
    """The sender's events in an airtcp pcap (raw IPv4, microseconds) of S: ("TX", t, seq)
    for each data segment it sends, ("RX", t, ack) for each ACK it receives."""
    data = path.read_bytes()
    off, out, src = 24, [], None
    while off + 16 <= len(data):
        sec, usec, incl, _ = struct.unpack("<IIII", data[off : off + 16])
        pkt = data[off + 16 : off + 16 + incl]
        off += 16 + incl
        ihl = (pkt[0] & 15) * 4
        total = struct.unpack(">H", pkt[2:4])[0]
        ip_src = pkt[12:16]
        tcp = pkt[ihl:]
        seq, ack = struct.unpack(">II", tcp[4:12])
        doff, flags = (tcp[12] >> 4) * 4, tcp[13]
        t = sec + usec / 1e6
        if flags & 0x02:  # SYN: the sender is who sends the first one
            src = src or ip_src
            continue
        if ip_src == src and total - ihl - doff > 0:
            out.append(("TX", t, seq))
        elif ip_src != src and flags & 0x10:
            out.append(("RX", t, ack))
    return out


def ns3_packet_events(text: str) -> list[tuple]:
    """dumbbell.cc's ``--packets`` lines as ("TX", t, seq) and ("RX", t, ack), the SYN-ACK
    left out."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if f and f[0] in ("TX", "RX"):
            out.append((f[0], float(f[1]), int(f[2])))
    if out and out[0][0] == "RX" and out[0][2] == 0:
        out = out[1:]
    return out


def first_parting(a: list[tuple], b: list[tuple], tol: float) -> tuple[str, int] | None:
    """Where the two event lists first part: an ACK's number or arrival time, a segment's
    sequence number or (past the initial window, which airtcp paces) its send time."""
    found = []
    for kind in ("RX", "TX"):
        xs = [e for e in a if e[0] == kind]
        ys = [e for e in b if e[0] == kind]
        for i, (x, y) in enumerate(zip(xs, ys, strict=False)):
            late = abs(x[1] - y[1]) > tol and (kind == "RX" or i >= 10)
            if x[2] != y[2] or late:
                found.append((min(x[1], y[1]), kind, i))
                break
    if not found:
        return None
    t, kind, _ = min(found)
    return kind, t


def packets_main(a: argparse.Namespace, exe: Path, error: str, loss_args: list[str]) -> int:
    import airtcp

    extra = [s.replace("=", " = ", 1) for s in a.set]
    with tempfile.TemporaryDirectory() as d:
        toml = trace_toml(a.cc, error, a.duration, extra, cc_params(a.cc_param))
        toml += f'pcap = ["S"]\npcap_dir = "{d}"\n'
        airtcp.run(airtcp.Scenario.from_toml_str(toml))
        mine = pcap_events(next(Path(d).glob("*.pcap")))
    s = run.BY_NAME[a.cc]
    out = subprocess.run(
        [
            str(exe),
            f"--cc={s.ns3}",
            *s.ns3_args,
            "--flows=1",
            f"--duration={a.duration}",
            "--packets=1",
            *loss_args,
            *a.ns3_arg,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    theirs = ns3_packet_events(out)
    part = first_parting(mine, theirs, a.tolerance)
    if part is None:
        print(f"the two agree over {a.duration:g} s ({len(mine)} and {len(theirs)} events)")
        return 0
    kind, t = part
    print(f"first parting: {kind} at {t:.6f} s (airtcp left, ns-3 right)")
    near = lambda ev: [e for e in ev if t - a.window <= e[1] <= t + a.window]  # noqa: E731
    left, right = near(mine), near(theirs)
    for i in range(max(len(left), len(right))):
        fmt = lambda e: f"{e[0]} {e[1]:10.6f} {e[2]:>9}" if e else ""  # noqa: E731
        x = left[i] if i < len(left) else None
        y = right[i] if i < len(right) else None
        print(f"{fmt(x):<32}{fmt(y)}")
    return 0


def cc_params(pairs: list[str]) -> dict:
    out = {}
    for p in pairs:
        k, eq, v = p.partition("=")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            raise SystemExit(f"trace.py: --cc-param {p!r}: expected KEY=NUMBER") from None
        if not eq or not k.strip():
            raise SystemExit(f"trace.py: --cc-param {p!r}: expected KEY=NUMBER")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cc", default="newreno", choices=run.CCS)
    ap.add_argument("--per", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--rows", type=int, default=60)
    ap.add_argument("--loss", choices=("hashed", "index"), default="hashed")
    ap.add_argument("--set", action="append", default=[], help="extra airtcp [tcp] key = value")
    ap.add_argument(
        "--ns3-arg",
        action="append",
        default=[],
        help="extra ns-3 argument, e.g. --ns3-arg=--ns3::TcpSocket::DelAckCount=1",
    )
    ap.add_argument("--ns3-venv", type=Path, default=run.ROOT / ".ns3venv")
    ap.add_argument(
        "--cc-param", action="append", default=[], help="airtcp flow cc_params KEY=VALUE"
    )
    ap.add_argument("--packets", action="store_true", help="compare the sender's packets")
    ap.add_argument("--tolerance", type=float, default=3e-4, help="--packets: seconds")
    ap.add_argument("--window", type=float, default=0.03, help="--packets: seconds shown")
    a = ap.parse_args(argv)
    exe = run.build(a.ns3_venv)
    error, loss_args = loss_setup(a.loss, a.per, a.seed)
    if a.packets:
        return packets_main(a, exe, error, loss_args)
    extra = [s.replace("=", " = ", 1) for s in a.set]
    # airtcp's series are in segments already, ns-3's in bytes.
    try:
        mine = segments(airtcp_trace(a.cc, error, a.duration, extra, cc_params(a.cc_param)), 1)
    except ValueError as e:  # airtcp's ScenarioError: a bad --set line
        raise SystemExit(f"trace.py: --set {' / '.join(a.set)}: {e}") from None
    theirs = segments(ns3_trace(exe, a.cc, loss_args, a.duration, a.ns3_arg), 536)
    print(f"{'airtcp t':>10} {'cwnd':>5} {'ssth':>5}   {'ns-3 t':>10} {'cwnd':>5} {'ssth':>5}")
    for i in range(min(a.rows, max(len(mine), len(theirs)))):
        left = mine[i] if i < len(mine) else None
        right = theirs[i] if i < len(theirs) else None
        fmt = lambda r: f"{r[0]:10.4f} {r[1]:5d} {r[2]:5d}" if r else " " * 22  # noqa: E731
        mark = "" if left and right and left[1:] == right[1:] else "  <-"
        print(f"{fmt(left)}   {fmt(right)}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
