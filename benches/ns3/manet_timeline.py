"""Break-by-break timeline of one chain or walk run, in ns-3.44 and in airtcp.

For one seed of a chain or walk point with AODV, both simulators are run and their events
laid side by side: AODV's control packets (RREQ, RREP, RERR by sender), the TCP data and ACKs
the source and sink send and receive, ACKs dropped on the way, and the source's timeouts
with its RTO. ns-3's side comes from ``manet.cc --timeline=FILE``; airtcp's from its packet
traces (pcap of every node and of the medium) and its cwnd series (a timeout sets cwnd to one
segment). Then, per stretch without an ACK at the source (a gap longer than ``--gap``):
when it began and ended, the route events in it, whether the sender timed out, and how many
segments it sent again afterwards that the sink already had (go-back-N).

    python benches/ns3/manet_timeline.py --kind chain --hops 4 --seed 1 --until 45
    python benches/ns3/manet_timeline.py --kind walk --seed 1 --from 65 --until 90 --events
    python benches/ns3/manet_timeline.py ... --aodv ns3 --tcp ns3rules
    python benches/ns3/manet_timeline.py --hops 4 --seeds 1-40 --until 90 --states

``--states`` pools the seeds instead: a chain run is calm (no timeout) until its first
timeout, after which timeouts mostly follow one another to the run's end; it compares how
often each simulator leaves the calm state, and the ACK gaps and route repairs of the calm
stretches that lead there.

Not in CI (ns-3 must be built; see benches/ns3/README.md).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import struct
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import validate_manet as vm  # noqa: E402

# AODV message sizes on the air (IP and UDP headers included), airtcp's layout (RFC 3561 5).
AODV_SIZES = {52: "rreq", 48: "rrep", 40: "rerr"}


@dataclass
class Side:
    """One simulator's events: (t, node, kind, a, b, c) tuples, times in seconds."""

    name: str
    events: list = field(default_factory=list)
    rto: list = field(default_factory=list)  # (t, rto s) when known
    timeouts: list = field(default_factory=list)  # times the source timed out
    summary: str = ""
    flow_timeouts: int = -1  # airtcp's own count (held resends included)


# --- ns-3 ---------------------------------------------------------------------------------


def ns3_side(kind: str, hops: int, seed: int, until: float) -> Side:
    exe = vm.build_ns3()
    cmd = vm.ns3_command(exe, kind, hops, "aodv", seed, 0.0)
    cmd = [c for c in cmd if not c.startswith("--duration=")] + [f"--duration={until:g}"]
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as tl:
        subprocess.run([*cmd, f"--timeline={tl.name}"], capture_output=True, check=True)
        lines = Path(tl.name).read_text().splitlines()
    side = Side("ns-3")
    for line in lines:
        f = line.split()
        t, node, ev = float(f[0]), int(f[1]), f[2]
        if ev == "rto":
            side.rto.append((t, float(f[3])))
        elif ev == "state":
            side.events.append((t, node, "state", f[3]))
            if f[3] == "CA_LOSS":
                side.timeouts.append(t)
        elif ev == "ctrl":
            side.events.append((t, node, f[3], f[4]))
        elif ev.startswith("drop_") and ev.endswith("_ctrl"):
            side.events.append((t, node, ev, ""))
        else:
            # ns-3 numbers the stream from 1 (the SYN takes 0); airtcp from 0.
            side.events.append((t, node, ev, int(f[3]) - 1, int(f[4]) - 1, int(f[5])))
    return side


# --- airtcp -------------------------------------------------------------------------------


def read_pcap(path: Path) -> tuple[int, list[tuple[float, bytes]]]:
    data = path.read_bytes()
    magic, _, _, _, _, _, link = struct.unpack("<IHHiIII", data[:24])
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    out, off = [], 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[off : off + 16])
        out.append((sec + frac * scale, data[off + 16 : off + 16 + incl]))
        off += 16 + incl
    return link, out


def ip_fields(ip: bytes) -> tuple | None:
    """(proto, src node, dst node or -1 for broadcast, total length, seq, ack, payload)."""
    hl = (ip[0] & 0x0F) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    proto = ip[9]
    src = int.from_bytes(ip[12:16], "big") - 0x0A000001
    dst_raw = int.from_bytes(ip[16:20], "big")
    dst = -1 if dst_raw & 0xFF == 0xFF or dst_raw == 0xFFFFFFFF else dst_raw - 0x0A000001
    if proto == 6:
        seq, ack = struct.unpack(">II", ip[hl + 4 : hl + 12])
        thl = (ip[hl + 12] >> 4) * 4
        return proto, src, dst, total, seq, ack, total - hl - thl
    return proto, src, dst, total, 0, 0, 0


def airtcp_side(kind: str, hops: int, seed: int, until: float, tcp: dict) -> Side:
    from airtcp import _core

    sc = vm.airtcp_scenario(kind, hops, "aodv", seed, 0.0, until)
    sc["tcp"].update(tcp)
    side = Side("airtcp")
    with tempfile.TemporaryDirectory() as d:
        sc["trace"] = {"pcap": ["*"], "pcap_dir": d, "cwnd": True}
        with contextlib.chdir(vm.MOVES):
            r = json.loads(_core.run_json(json.dumps(sc), series=True))
        # Node pcaps: a packet a node hands to its device, and one its device delivers to it.
        # A relay forwards at once, so a packet it received and did not hand on at the same
        # instant was dropped or held there.
        for i in range(hops + 1):
            _, recs = read_pcap(Path(d) / f"n{i}.pcap")
            pending: dict = {}
            for t, ip in recs:
                f = ip_fields(ip)
                if f is None or f[0] != 6:
                    continue
                _, src, dst, _, seq, ack, plen = f
                if i == src:
                    side.events.append((t, i, "tx", seq, ack, plen))
                elif i == dst:
                    side.events.append((t, i, "rx", seq, ack, plen))
                else:
                    key = (seq, ack, plen, src)
                    if key in pending and abs(pending[key] - t) < 1e-9:
                        del pending[key]
                        side.events.append((t, i, "tx", seq, ack, plen))
                    else:
                        for k, t0 in list(pending.items()):
                            side.events.append((t0, i, "held_or_dropped", *k[:3]))
                            del pending[k]
                        pending[key] = t
            for k, t0 in pending.items():
                side.events.append((t0, i, "held_or_dropped", *k[:3]))
        # The medium: routing packets by transmitter (airtcp's AODV types by size; a RREP
        # broadcast to all is a HELLO).
        _, frames = read_pcap(Path(d) / "air.pcap")
        for t, fr in frames:
            rt_len = struct.unpack("<H", fr[2:4])[0]
            mac = fr[rt_len:]
            if len(mac) < 24 or (mac[0] & 0x0C) != 0x08:
                continue
            retry = bool(mac[1] & 0x08)
            ip = mac[24 + 8 :]
            f = ip_fields(ip)
            if f is None or f[0] != 17 or retry:
                continue
            _, src, dst, total, *_ = f
            tx = int.from_bytes(mac[10:16], "big") & 0xFFFFFF
            kind_ = AODV_SIZES.get(total, "rerr" if (total - 32) % 8 == 0 else "?")
            if kind_ == "rrep" and dst == -1:
                kind_ = "hello"
            to = (int.from_bytes(mac[4:10], "big") & 0xFFFFFF) - 1
            dest = "bcast" if mac[4] & 1 else f"n{to}"
            side.events.append((t, tx - 1 if tx else src, kind_, dest))
    side.events.sort(key=lambda e: e[0])
    # A timeout sets cwnd to one segment and resends the first unacknowledged one: the source's
    # resends of that segment while cwnd is one (the cwnd series holds its changes). A resend
    # AODV holds for a discovery reaches the device only when released, and not at all when
    # the discovery fails: those timeouts count in the flow's total only.
    cw = r["series"]["cwnd"]["ftp"]
    una, high, k = 0, -1, 0
    for e in side.events:
        if e[1] == 0 and e[2] == "rx":
            una = max(una, e[4])
        elif e[1] == 0 and e[2] == "tx" and e[5]:
            while k + 1 < len(cw["t"]) and cw["t"][k + 1] <= e[0] + 2e-6:
                k += 1
            if e[3] == una and e[3] <= high and cw["cwnd"][k] <= 1.0:
                side.timeouts.append(e[0])
            high = max(high, e[3])
    f = r["flows"][0]
    side.summary = (
        f"timeouts {f['timeouts']}, fast retransmits {f['fast_retransmits']}, "
        f"retransmissions {f['retransmissions']}, "
        f"RTO at end {f['rto_s']:.3f} s (mean {f['rto_mean_s']:.3f}), SRTT {f['srtt_s']:.3f}"
    )
    side.flow_timeouts = f["timeouts"]
    return side


# --- analysis -----------------------------------------------------------------------------


def ctrl_line(side: Side, t0: float, t1: float) -> str:
    ev = [
        f"{e[0]:.3f} n{e[1]} {e[2]}" + (f"->{e[3]}" if e[3] not in ("", "bcast") else "")
        for e in side.events
        if t0 <= e[0] <= t1 and e[2] in ("rreq", "rrep", "rerr")
    ]
    return "; ".join(ev) if ev else "-"


def analyse(side: Side, src: int, sink: int, lo: float, hi: float) -> dict:
    """Per timeout: the last new ACK before it (the timer ran from there: the RTO in force),
    the routing events since half a second before that ACK, the ACKs the sink sent meanwhile
    and where they went; and the segments sent again that the sink already had."""
    got: dict = {}  # segment -> first time the sink had it
    for e in side.events:
        if e[1] == sink and e[2] == "rx" and len(e) > 5 and e[5]:
            got.setdefault(e[3], e[0])
    high = -1
    out = {"retx": 0, "spurious": 0, "timeouts": [], "gaps": []}
    prev_ack_t = None
    for e in side.events:
        if e[1] != src or e[2] not in ("rx", "tx") or len(e) < 6:
            continue
        if e[2] == "rx":
            if prev_ack_t is not None and lo <= e[0] <= hi:
                out["gaps"].append((prev_ack_t, e[0]))
            prev_ack_t = e[0]
        elif e[5]:
            if e[3] <= high and lo <= e[0] <= hi:
                out["retx"] += 1
                if got.get(e[3], hi + 1) < e[0]:
                    out["spurious"] += 1
            high = max(high, e[3])
    # Breaks of the ACKs' route: a relay drops an ACK for want of a route (ns-3's IP drop,
    # airtcp's ACK received and not passed on) after half a second without such a drop; how
    # long until an ACK at least as new as the dropped one reaches the source.
    out["breaks"] = []
    last_drop = -1.0
    src_acks = [(e[0], e[4]) for e in side.events if e[1] == src and e[2] == "rx"]
    for e in side.events:
        routing_drop = e[2].startswith("drop_ip") or e[2] == "held_or_dropped"
        if not (routing_drop and e[1] not in (src, sink) and len(e) > 5 and not e[5]):
            continue
        if lo <= e[0] <= hi and e[0] - last_drop > 0.5:
            nxt = next((t for t, ack in src_acks if t > e[0] and ack >= e[4]), hi)
            out["breaks"].append((e[0], nxt - e[0]))
        last_drop = e[0]
    # ns-3's congestion states: fast recoveries, those entered before the third duplicate
    # ACK (its Reno scoreboard marks), and timeouts that end a recovery.
    rec, early, in_rec, state, dups, una = 0, 0, 0, "CA_OPEN", 0, -1
    for e in side.events:
        if e[1] != src:
            continue
        if e[2] == "rx" and len(e) > 5:
            dups = dups + 1 if e[4] == una else 0
            una = max(una, e[4])
        elif e[2] == "state" and lo <= e[0] <= hi:
            if e[3] == "CA_RECOVERY":
                rec += 1
                early += dups < 3
            elif e[3] == "CA_LOSS" and state == "CA_RECOVERY":
                in_rec += 1
            state = e[3]
    out["states"] = (rec, early, in_rec) if side.name == "ns-3" else None
    for t in side.timeouts:
        if not lo <= t <= hi:
            continue
        acks = [e for e in side.events if e[1] == src and e[2] == "rx" and e[0] < t]
        news, best = [], -1
        for e in acks:
            if e[4] > best:
                news.append(e)
                best = e[4]
        last = news[-1] if news else None
        t_new = last[0] if last else lo
        sink_acks = [e for e in side.events if e[1] == sink and e[2] == "tx" and t_new < e[0] < t]
        lost = sorted(
            {
                f"n{e[1]} {e[2]}"
                for e in side.events
                if t_new - 0.3 < e[0] < t and (e[2].startswith("drop") or e[2] == "held_or_dropped")
            }
        )
        rto = [v for tt, v in side.rto if tt <= t - 1e-9]
        back = next((e[0] for e in side.events if e[1] == src and e[2] == "rx" and e[0] > t), hi)
        again = {
            e[3]
            for e in side.events
            if e[1] == src
            and e[2] == "tx"
            and len(e) > 5
            and e[5]
            and t <= e[0] < t + 2.0
            and got.get(e[3], hi + 1) < e[0]
        }
        out["timeouts"].append(
            f"  timeout {t:.3f}: {t - t_new:.3f} s after the last new ACK ({t_new:.3f}"
            + (f", ack {last[4]}" if last else "")
            + ")"
            + (f", traced RTO {rto[-1]:.3f} s" if rto else "")
            + f"; sink sent {len(sink_acks)} ACKs since, lost or held at "
            + (", ".join(lost) if lost else "-")
            + f"; next ACK at {back:.3f}; {len(again)} segments the sink had sent again in 2 s\n"
            + f"    routing {t_new - 0.5:.3f}-{back:.3f}: {ctrl_line(side, t_new - 0.5, back)}"
        )
    return out


def walk_line(side: Side, src: int, lo: float) -> str:
    """The source's route discoveries after the cut and when its flow resumes: RREQs it
    originated, its resends that reached its device (a resend AODV holds shows only if the
    discovery succeeds), held packets dropped when a discovery failed (ns-3's IP drop 5)."""
    t0 = max(lo, vm.WALK_LEAVE)
    rreqs = [e[0] for e in side.events if e[1] == src and e[2] == "rreq" and e[0] >= t0]
    una, high, resends, failed = 0, -1, [], []
    for e in side.events:
        if e[1] != src:
            continue
        if e[2] == "rx":
            una = max(una, e[4])
        elif e[2] == "tx" and len(e) > 5 and e[5]:
            # From the moment the middle node is out of range (1.5 s after it leaves).
            if e[3] <= high and e[0] >= vm.WALK_LEAVE + 1.5:
                resends.append(e[0])
            high = max(high, e[3])
        elif e[2] == "drop_ip_5" and e[0] >= t0:
            failed.append(e[0])
    new = [e[0] for e in side.events if e[1] == src and e[2] == "rx" and e[0] > vm.WALK_BACK]
    fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs) or "-"  # noqa: E731
    return (
        f"after {t0:g} s: RREQs from the source at {fmt(rreqs)}; resends at {fmt(resends[:12])}; "
        f"held packets dropped (discovery failed) at {fmt(sorted(set(failed)))}; "
        f"first ACK after {vm.WALK_BACK:g} s at {fmt(new[:1])}"
    )


def breaks_line(breaks: list) -> str:
    if not breaks:
        return "no ACK route breaks"
    d = sorted(x[1] for x in breaks)
    return (
        f"{len(d)} ACK route breaks, a newer ACK at the source after median "
        f"{d[len(d) // 2] * 1e3:.0f} ms, {sum(x > 0.5 for x in d)} after more than 0.5 s"
    )


# --- calm and cascade ---------------------------------------------------------------------

GAP_MARKS = (0.3, 0.4, 0.5)


def calm_stretch(side: Side, src: int, sink: int, lo: float, hi: float) -> dict:
    """One run's calm stretch, from ``lo`` to its first timeout (``hi`` without one): its
    length, whether it ended in a timeout and the time from the last new ACK to it (the RTO
    in force), the gaps between new ACKs at the source in it (the last one cut at the
    timeout), and its ACK route breaks (``analyse``) with how long each took to mend."""
    first = min([t for t in side.timeouts if lo <= t <= hi] + [hi])
    best, new = -1, []
    for e in side.events:
        if e[1] == src and e[2] == "rx" and len(e) > 5 and e[4] > best and e[0] <= first:
            best = e[4]
            new.append(e[0])
    new = [t for t in new if t >= lo]
    ends = [*new, first] if first < hi else new
    mended = [d for t, d in analyse(side, src, sink, lo, first)["breaks"] if t + d < first - 1e-9]
    # Gaps of 0.4 s or more with a RREQ from the sink in them: was its first one answered
    # (a RREP to the sink from its neighbour on the chain within 0.5 s)? Neighbours are named
    # n<i> in airtcp's events and by address (10.0.0.<i+1>) in ns-3's.
    to_sink = (f"n{sink}", f"10.0.0.{sink + 1}")
    asked = unanswered = 0
    how: Counter = Counter()
    firsts = []
    for a, b in zip(ends, ends[1:], strict=False):
        if b - a < 0.4:
            continue
        rreq = next(
            (e[0] for e in side.events if a < e[0] < b and e[1] == sink and e[2] == "rreq"), None
        )
        if rreq is None:
            continue
        asked += 1
        answered = any(
            rreq < e[0] < rreq + 0.5 and e[1] == sink - 1 and e[2] == "rrep" and e[3] in to_sink
            for e in side.events
        )
        firsts.append((rreq, answered))
        if not answered:
            unanswered += 1
            how[rreq_fate(side, sink, rreq)] += 1
    return {
        "calm_s": first - lo,
        "entered": first < hi,
        "rto_at_entry": first - new[-1] if first < hi and new else None,
        "gaps": [b - a for a, b in zip(ends, ends[1:], strict=False)],
        "repairs": mended,
        "long_gaps_asked": asked,
        "long_gaps_unanswered": unanswered,
        "unanswered_how": how,
        "first_rreqs": firsts,  # (time, answered) of the sink's first RREQ per long gap
    }


FATE_WINDOW = 0.2


def rreq_fate(side: Side, sink: int, at: float) -> str:
    """How far the sink's RREQ sent at ``at`` got on the chain within ``FATE_WINDOW``: the
    node nearest the source that relayed a RREQ (nodes are numbered from the source), and
    whether any node sent a RREP (a RREQ from another originator in that window would count
    too; on the chain the sink's discovery is most often alone)."""
    near = [e for e in side.events if at < e[0] < at + FATE_WINDOW and e[1] != sink]
    relays = [e[1] for e in near if e[2] == "rreq"]
    reach = f"relayed as far as n{min(relays)}" if relays else "not relayed"
    return reach + (", a RREP sent" if any(e[2] == "rrep" for e in near) else ", no RREP")


def pooled_states(runs: list[dict]) -> dict:
    """The calm stretches of several runs pooled: time, entries into the cascade per minute
    of calm, gaps of at least each of ``GAP_MARKS`` per minute, the repairs' median and 90th
    percentile, and the median RTO at entry."""
    calm = sum(r["calm_s"] for r in runs)
    minutes = calm / 60.0 if calm > 0 else float("nan")
    entries = sum(r["entered"] for r in runs)
    gaps = [g for r in runs for g in r["gaps"]]
    rep = sorted(d for r in runs for d in r["repairs"])
    rto = sorted(r["rto_at_entry"] for r in runs if r["rto_at_entry"] is not None)

    def q(v: list, p: float) -> float | None:
        return v[round(p * (len(v) - 1))] if v else None

    return {
        "runs": len(runs),
        "calm_s": calm,
        "entries": entries,
        "entries_per_min": entries / minutes,
        "gaps_per_min": {m: sum(g >= m for g in gaps) / minutes for m in GAP_MARKS},
        "repairs": len(rep),
        "repairs_per_min": len(rep) / minutes,
        "repair_median": q(rep, 0.5),
        "repair_p90": q(rep, 0.9),
        "rto_at_entry_median": q(rto, 0.5),
        "long_gaps_asked": sum(r["long_gaps_asked"] for r in runs),
        "long_gaps_unanswered": sum(r["long_gaps_unanswered"] for r in runs),
        "unanswered_how": sum((r.get("unanswered_how", Counter()) for r in runs), Counter()),
    }


def rate_ratio(a: int, ta: float, b: int, tb: float) -> tuple[float, float, float]:
    """Ratio of two Poisson rates (a events in ta, b in tb) with its 95% interval from the
    normal approximation of the log ratio (standard error sqrt(1/a + 1/b))."""
    import math

    r = (a / ta) / (b / tb)
    se = math.sqrt(1 / a + 1 / b)
    return r, r * math.exp(-1.96 * se), r * math.exp(1.96 * se)


def states_line(name: str, p: dict) -> str:
    ms = lambda v: "-" if v is None else f"{v * 1e3:.0f} ms"  # noqa: E731
    gaps = ", ".join(f">= {m:g} s {v:.2f}" for m, v in p["gaps_per_min"].items())
    return (
        f"{name:6} {p['runs']} runs, calm {p['calm_s']:.0f} s; {p['entries']} left it "
        f"({p['entries_per_min']:.2f} a minute of calm), RTO then median "
        f"{ms(p['rto_at_entry_median'])}; gaps between new ACKs a minute: {gaps}; "
        f"{p['repairs']} ACK route breaks ({p['repairs_per_min']:.1f} a minute), mended in "
        f"median {ms(p['repair_median'])}, 90th percentile {ms(p['repair_p90'])}; "
        f"of the gaps >= 0.4 s with a RREQ from the sink, {p['long_gaps_unanswered']} of "
        f"{p['long_gaps_asked']} saw its first one unanswered"
        + (
            " (" + "; ".join(f"{k}: {v}" for k, v in sorted(p["unanswered_how"].items())) + ")"
            if p.get("unanswered_how")
            else ""
        )
    )


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("chain", "walk"), default="chain")
    ap.add_argument("--hops", type=int, default=4)
    ap.add_argument("--seeds", default="1", help="e.g. 1 or 1-10")
    ap.add_argument("--from", dest="lo", type=float, default=vm.CHAIN_START)
    ap.add_argument("--until", type=float, default=45.0)
    ap.add_argument("--gap", type=float, default=0.2, help="s without an ACK at the source")
    ap.add_argument("--aodv", default="", help="airtcp's AODV keys, as validate_manet.py")
    ap.add_argument("--tcp", default="", help="airtcp's [tcp] keys k=v,... or ns3rules")
    ap.add_argument("--side", choices=("both", "ns3", "airtcp"), default="both")
    ap.add_argument("--summary", action="store_true", help="one line per seed and side")
    ap.add_argument("--events", action="store_true", help="print every event as well")
    ap.add_argument(
        "--states", action="store_true", help="calm stretches pooled over the seeds, per side"
    )
    a = ap.parse_args(argv)
    try:
        seeds = parse_seeds(a.seeds)
    except ValueError:
        ap.error(f"--seeds: expected e.g. 1 or 1-10 or 1,3-5, got {a.seeds!r}")
    vm.AODV_KEYS.update(vm.aodv_keys(a.aodv))
    tcp = vm.tcp_keys(a.tcp)
    if a.side != "ns3":
        vm.TCP_KEYS.update(tcp)
        vm.check_airtcp()  # a mistyped key is named before any run
        vm.TCP_KEYS.clear()
    src, sink = 0, a.hops
    calm: dict[str, list] = {}
    for seed in seeds:
        sides = []
        if a.side != "airtcp":
            sides.append(ns3_side(a.kind, a.hops, seed, a.until))
        if a.side != "ns3":
            sides.append(airtcp_side(a.kind, a.hops, seed, a.until, tcp))
        if a.states:
            for s in sides:
                calm.setdefault(s.name, []).append(calm_stretch(s, src, sink, a.lo, a.until))
            print(f"seed {seed} done", file=sys.stderr, flush=True)
            continue
        for s in sides:
            r = analyse(s, src, sink, a.lo, a.until)
            gaps = [g for g in r["gaps"] if g[1] - g[0] > a.gap]
            print(
                f"{s.name:6} {a.kind} {a.hops} hops seed {seed} {a.lo:g}-{a.until:g} s: "
                f"{len(r['timeouts'])} timeouts"
                + (f" ({s.flow_timeouts} in all)" if s.flow_timeouts >= 0 else "")
                + f", {r['retx']} segments sent again, {r['spurious']} of them already at "
                f"the sink; {len(gaps)} ACK gaps > {a.gap:g} s; "
                + breaks_line(r["breaks"])
                + (
                    f"; {r['states'][0]} fast recoveries ({r['states'][1]} before the third "
                    f"duplicate ACK), {r['states'][2]} timeouts ending one"
                    if r["states"]
                    else ""
                )
                + (f" [{s.summary}]" if s.summary else "")
            )
            if a.kind == "walk":
                print("  " + walk_line(s, src, a.lo))
            if a.summary:
                continue
            print("\n".join(r["timeouts"]))
            if a.events:
                for e in s.events:
                    if e[0] >= a.lo and e[2] != "hello":
                        print(f"    {e[0]:.4f} n{e[1]} " + " ".join(map(str, e[2:])))
    pooled = {name: pooled_states(runs) for name, runs in calm.items()}
    for name, p in pooled.items():
        print(states_line(name, p))
    if len(pooled) == 2:
        x, y = pooled["ns-3"], pooled["airtcp"]
        if x["entries"] and y["entries"]:
            r, lo_, hi_ = rate_ratio(x["entries"], x["calm_s"], y["entries"], y["calm_s"])
            print(f"entries a minute of calm, ns-3 / airtcp: {r:.2f} [{lo_:.2f}, {hi_:.2f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
