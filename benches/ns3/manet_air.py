"""Channel access and broadcast reception on an AODV chain, in ns-3.44 and in airtcp.

Two counts over many seeds of a chain point, from the frames each simulator puts on the air
(ns-3: ``manet.cc --phyTx=FILE``, every frame a PHY starts and every broadcast it receives or
drops; airtcp: its medium pcap and the node pcaps):

* same-slot starts: pairs of contention frames (RTS, data, broadcasts) from two stations that
  start within ``WINDOW`` of each other, too close for either to have sensed the other (the
  propagation delay between chain neighbours is 0.67 us, a slot 20 us), per 1000 starts, and
  the share of RREQ broadcasts and other broadcasts in such a pair;
* RREQ reception: of each RREQ broadcast and each chain neighbour of its sender, how often
  the neighbour did not receive it (ns-3 also says why: its PHY's drop reason).

    python benches/ns3/manet_air.py --hops 4 --seeds 1-40 --aodv ns3 --tcp ns3rules

Not in CI (ns-3 must be built; see benches/ns3/README.md).
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import struct
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import manet_timeline as mt  # noqa: E402
import validate_manet as vm  # noqa: E402

WINDOW = 2e-6
CONTENTION = ("rts", "data", "bcast", "rreq")
# A broadcast's time on the air at 1 Mbit/s with the long preamble is under 0.9 ms here;
# its reception is looked for up to this long after it starts.
RX_WITHIN = 905e-6
# ns-3.44's WifiPhyRxfailureReason values seen here.
NS3_REASONS = {
    3: "rxing",
    4: "txing",
    8: "busy_decoding_preamble",
    9: "preamble_detect_failure",
    24: "signal_detection_aborted_by_tx",
}
# A RREQ's PSDU in ns-3 (MAC header, LLC/SNAP, IP, UDP, RREQ, FCS) and its IP length.
NS3_RREQ_PSDU = 88
RREQ_IP = 52


def same_slot(frames: list, lo: float, hi: float) -> dict:
    """``frames``: (t, node, kind) with kind rts, cts, ack, data, bcast or rreq. Pairs of
    contention frames from different nodes starting within ``WINDOW`` of each other, and how
    many RREQs and other broadcasts are in such a pair."""
    fr = sorted(f for f in frames if f[2] in CONTENTION and lo <= f[0] < hi)
    pairs = 0
    hit: set = set()
    for i, (t, node, _) in enumerate(fr):
        j = i + 1
        while j < len(fr) and fr[j][0] - t <= WINDOW:
            if fr[j][1] != node:
                pairs += 1
                hit.update((i, j))
            j += 1
    kinds = Counter(f[2] for f in fr)
    in_pair = Counter(fr[k][2] for k in hit)
    return {
        "starts": len(fr),
        "pairs": pairs,
        "rreq": kinds["rreq"],
        "rreq_in_pair": in_pair["rreq"],
        "bcast": kinds["bcast"],
        "bcast_in_pair": in_pair["bcast"],
    }


def sink_rreq_ties(frames: list, sent: list, sink: int, lo: float, hi: float) -> tuple[int, int]:
    """The sink's RREQs (every one, not only the first after a break) and how many of them
    its neighbour toward the source met with a contention frame of its own within
    ``WINDOW``."""
    near = sorted(t for t, n, k in frames if n == sink - 1 and k in CONTENTION)
    mine = [t for t, x in sent if x == sink and lo <= t < hi]
    ties = 0
    for t0 in mine:
        i = bisect.bisect_left(near, t0 - WINDOW)
        ties += i < len(near) and near[i] <= t0 + WINDOW
    return len(mine), ties


def rreq_reception(sent: list, got: dict, nodes: int, lo: float, hi: float) -> Counter:
    """``sent``: (t, sender) of RREQ broadcasts; ``got``: node -> [(t, sender, outcome)],
    outcome "rx" or a drop reason, at the receiving node (sender None when the trace does not
    say: any event in the time window then counts). Each (RREQ, chain neighbour of its
    sender) pair counts once; a pair without an "rx" within ``RX_WITHIN`` of the start is
    lost, under the first drop reason seen for it (or "no_event")."""
    out: Counter = Counter()
    for t, x in sent:
        if not lo <= t < hi:
            continue
        for y in (x - 1, x + 1):
            if not 0 <= y < nodes:
                continue
            out["pairs"] += 1
            ev = [e for e in got.get(y, []) if e[1] in (x, None) and t <= e[0] <= t + RX_WITHIN]
            if any(e[2] == "rx" for e in ev):
                continue
            out["lost"] += 1
            out["lost:" + (ev[0][2] if ev else "no_event")] += 1
    return out


# The sink's RREQ leaves its IP layer (the timeline's time) and starts on the air after the
# jitter and the frames queued before it.
FIRST_RREQ_ON_AIR = 0.1


def first_rreq_outcomes(
    side: mt.Side, frames: list, sent: list, got: dict, sink: int, lo: float, hi: float
) -> Counter:
    """The sink's first RREQ in each long gap of the calm stretch (``calm_stretch``), by
    whether it was answered (else how far it got, ``rreq_fate``) and by what the sink's
    neighbour toward the source made of its frame: "rx", a drop reason, "lost" (airtcp:
    not delivered) or "not_on_air" (no start found within ``FIRST_RREQ_ON_AIR``); a frame
    not received is marked "same slot" when that neighbour started a contention frame
    within ``WINDOW`` of it."""
    out: Counter = Counter()
    calm = mt.calm_stretch(side, 0, sink, lo, hi)
    for at, answered in calm["first_rreqs"]:
        fate = "answered" if answered else mt.rreq_fate(side, sink, at)
        starts = [t for t, x in sent if x == sink and at - 1e-3 <= t <= at + FIRST_RREQ_ON_AIR]
        if not starts:
            out[(fate, "not_on_air")] += 1
            continue
        t0 = starts[0]
        ev = [e for e in got.get(sink - 1, []) if e[1] in (sink, None)]
        ev = [e for e in ev if t0 <= e[0] <= t0 + RX_WITHIN]
        outcome = "rx" if any(e[2] == "rx" for e in ev) else (ev[0][2] if ev else "lost")
        if outcome != "rx" and any(
            n == sink - 1 and k in CONTENTION and abs(t - t0) <= WINDOW for t, n, k in frames
        ):
            outcome += ", same slot"
        out[(fate, outcome)] += 1
    return out


def ns3_air(hops: int, seed: int, until: float) -> tuple[list, list, dict]:
    exe = vm.build_ns3()
    cmd = vm.ns3_command(exe, "chain", hops, "aodv", seed, 0.0)
    cmd = [c for c in cmd if not c.startswith("--duration=")] + [f"--duration={until:g}"]
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as f:
        subprocess.run([*cmd, f"--phyTx={f.name}"], capture_output=True, check=True)
        lines = [x.split() for x in Path(f.name).read_text().splitlines()]
    frames, sent, got = [], [], {}
    for t_ns, node, kind, size, *rest in lines:
        t, n = int(t_ns) * 1e-9, int(node)
        if kind in ("rx", "rxdrop"):
            if int(size) == NS3_RREQ_PSDU:
                # ns-3's trace does not name the sender (None: matched by time alone).
                reason = int(rest[0])
                outcome = "rx" if kind == "rx" else NS3_REASONS.get(reason, f"reason_{reason}")
                got.setdefault(n, []).append((t, None, outcome))
            continue
        if kind == "bcast" and int(size) == NS3_RREQ_PSDU:
            kind = "rreq"
            sent.append((t, n))
        frames.append((t, n, kind))
    return frames, sent, got


def airtcp_air(hops: int, seed: int, until: float, tcp: dict) -> tuple[list, list, dict]:
    from airtcp import _core

    sc = vm.airtcp_scenario("chain", hops, "aodv", seed, 0.0, until)
    sc["tcp"].update(tcp)
    with tempfile.TemporaryDirectory() as d:
        sc["trace"] = {"pcap": ["*"], "pcap_dir": d}
        with contextlib.chdir(vm.MOVES):
            _core.run_json(json.dumps(sc))
        _, air = mt.read_pcap(Path(d) / "air.pcap")
        per_node = {i: mt.read_pcap(Path(d) / f"n{i}.pcap")[1] for i in range(hops + 1)}
    kinds = {0xB4: "rts", 0xC4: "cts", 0xD4: "ack", 0x08: "data"}
    frames, sent = [], []
    for t, fr in air:
        rl = struct.unpack("<H", fr[2:4])[0]
        mac = fr[rl:]
        kind = kinds.get(mac[0])
        if kind is None:
            continue
        # CTS and ACK name no transmitter; they are responses, not contention starts.
        ta = (int.from_bytes(mac[10:16], "big") & 0xFFFFFF) - 1 if kind in ("rts", "data") else -1
        if kind == "data" and mac[4] & 1:
            ip = mac[32:]
            kind = "rreq" if struct.unpack(">H", ip[2:4])[0] == RREQ_IP else "bcast"
            if kind == "rreq":
                sent.append((t, ta))
        frames.append((t, ta, kind))
    got: dict = {}
    for n, recs in per_node.items():
        for t, ip in recs:
            f = mt.ip_fields(ip)
            if f and f[0] == 17 and f[3] == RREQ_IP and f[1] != n:
                got.setdefault(n, []).append((t, f[1], "rx"))
    return frames, sent, got


def summary(name: str, slot: dict, rx: Counter) -> str:
    lost = ", ".join(f"{k[5:]} {v}" for k, v in sorted(rx.items()) if k.startswith("lost:"))
    share = lambda a, b: f"{100 * a / b:.1f} %" if b else "-"  # noqa: E731
    return (
        f"{name:6} {slot['starts']} contention starts, {slot['pairs']} same-slot pairs "
        f"({1000 * slot['pairs'] / max(slot['starts'], 1):.2f} per 1000 starts); RREQs "
        f"{slot['rreq']}, {share(slot['rreq_in_pair'], slot['rreq'])} in such a pair; other "
        f"broadcasts {slot['bcast']}, {share(slot['bcast_in_pair'], slot['bcast'])}; RREQ to "
        f"a neighbour not received {rx['lost']} of {rx['pairs']} "
        f"({share(rx['lost'], rx['pairs'])}{'; ' + lost if lost else ''}); the sink's RREQs "
        f"{slot['sink_rreq']}, met by its neighbour in the same slot "
        f"{share(slot['sink_rreq_tied'], slot['sink_rreq'])}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hops", type=int, default=4)
    ap.add_argument("--seeds", default="1-10", help="e.g. 1-40")
    ap.add_argument("--from", dest="lo", type=float, default=vm.CHAIN_START)
    ap.add_argument("--until", type=float, default=vm.CHAIN_END)
    ap.add_argument("--aodv", default="", help="airtcp's AODV keys, as validate_manet.py")
    ap.add_argument("--tcp", default="", help="airtcp's [tcp] keys k=v,... or ns3rules")
    ap.add_argument(
        "--first-rreqs",
        action="store_true",
        help="also the sink's first RREQ per long gap of the calm stretch: answered or how far "
        "it got, and what its neighbour's PHY made of it (runs the timelines as well)",
    )
    a = ap.parse_args(argv)
    try:
        seeds = mt.parse_seeds(a.seeds)
    except ValueError:
        ap.error(f"--seeds: expected e.g. 1 or 1-10 or 1,3-5, got {a.seeds!r}")
    vm.AODV_KEYS.update(vm.aodv_keys(a.aodv))
    tcp = vm.tcp_keys(a.tcp)
    vm.TCP_KEYS.update(tcp)
    vm.check_airtcp()  # a mistyped key is named before any run
    vm.TCP_KEYS.clear()
    tot = {"ns-3": [Counter(), Counter(), Counter()], "airtcp": [Counter(), Counter(), Counter()]}
    for seed in seeds:
        for name, run, timeline in (
            (
                "ns-3",
                lambda s: ns3_air(a.hops, s, a.until),
                lambda s: mt.ns3_side("chain", a.hops, s, a.until),
            ),
            (
                "airtcp",
                lambda s: airtcp_air(a.hops, s, a.until, tcp),
                lambda s: mt.airtcp_side("chain", a.hops, s, a.until, tcp),
            ),
        ):
            frames, sent, got = run(seed)
            tot[name][0].update(same_slot(frames, a.lo, a.until))
            tot[name][1].update(rreq_reception(sent, got, a.hops + 1, a.lo, a.until))
            n, ties = sink_rreq_ties(frames, sent, a.hops, a.lo, a.until)
            tot[name][0].update({"sink_rreq": n, "sink_rreq_tied": ties})
            if a.first_rreqs:
                side = timeline(seed)
                firsts = first_rreq_outcomes(side, frames, sent, got, a.hops, a.lo, a.until)
                tot[name][2].update(firsts)
        print(f"seed {seed} done", file=sys.stderr)
    for name, (slot, rx, firsts) in tot.items():
        print(summary(name, slot, rx))
        if a.first_rreqs:
            items = "; ".join(f"{f} / {o}: {n}" for (f, o), n in sorted(firsts.items()))
            print(f"{'':6} the sink's first RREQs in long gaps (fate / its neighbour): {items}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
