"""airtcp's AODV, OLSR and mobility against ns-3.44 (``make validate-ns3-manet``).

Three scenarios, each run by ns-3 (``manet.cc``, RngRun = seed) and by airtcp (the ``ns3``
802.11b preset with the chain's radio, scenario seed = seed), with the radio of
``validate_wifi.py`` (2 Mbit/s DSSS, RTS/CTS for every frame, decoded up to 250 m):

- ``chain``: 4 and 8 hops 200 m apart, routing static, AODV or OLSR; one TCP NewReno bulk
  flow from 30 s (OLSR's routes are flooded by then) to 90 s: goodput, TCP retransmissions,
  routing control packets and bytes (every hop's transmission, IP and UDP headers included).
- ``walk``: the 4-hop chain whose middle node moves 400 m off the line at 50 s (at 100 m/s:
  out of decoding range of both neighbours from 51.5 s) and back at 70 s; one bulk flow from
  30 s to 90 s (20 s of flow, 20 s cut, 20 s restored): goodput and delivery ratio per 5 s.
- ``cbr``: 50 nodes, random waypoint in 1500 m x 300 m, speed uniform in [1, 20] m/s, pause
  ``--pause`` s (Broch et al. 1998), 10 UDP CBR flows of 4 packets/s of 512 bytes between
  random pairs starting in [10, 20) s, 200 s: packet delivery ratio and routing packets.

Both simulators read the same ns-2 movement file, written here from the seed (ns-3 through
Ns2MobilityHelper, airtcp through ``mobility = { model = "ns2", file, node }``), and the
flows are drawn here too. Every run's result is kept in ``benches/ns3/manet_results.json``
(ns-3's by point and seed, airtcp's by core build too), merged under a lock so that parts can run
side by side; ``--table-only`` prints the tables from it. The ratio airtcp / ns-3 of the means
gets a 95% interval from the delta method on the two independent means; a point is within
target when the ratio is within 10% (chain goodput, cbr PDR) or 15% (routing overhead).
Not in CI: each ns-3 run takes seconds to a minute of a core.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import chain  # noqa: E402  (benches/ns3/chain.py: the ns-3 wheel and g++ build)
import validate_wifi  # noqa: E402  (the chain's radio for airtcp, the ratio interval)

RESULTS = HERE / "manet_results.json"
MOVES = chain.OUT / "manet-movements"

CHAIN_START, CHAIN_END = 30.0, 90.0
WALK_LEAVE, WALK_BACK, WALK_OFFSET, WALK_SPEED = 50.0, 70.0, 400.0, 100.0
BIN = 5.0
AREA = (1500.0, 300.0)
SPEED = (1.0, 20.0)
CBR_NODES, CBR_FLOWS, CBR_RATE, CBR_SIZE, CBR_DURATION = 50, 10, 4.0, 512, 200.0
CBR_START = (10.0, 20.0)
TARGET_GOODPUT, TARGET_PDR, TARGET_OVERHEAD, TARGET_BIN = 0.10, 0.10, 0.15, 0.15
# airtcp's AODV keys over its defaults (`--aodv`, e.g. link_feedback=false): runs stored under
# the build key with a suffix.
AODV_KEYS: dict = {}
# ns-3's choices where RFC 3561 leaves them open or ns-3 departs from it (aodv-routing-
# protocol.cc): HELLOs from every node, the G flag on, the MAC queue of a broken link left
# alone, neighbours kept alive by the data they forward (its m_nb.Update on forwarding),
# RreqRetries (2) counted as RREQs at NET_DIAMETER, the first one included
# (RouteRequestTimerExpire gives up once GetRreqCnt() reaches it), where 6.3 allows
# RREQ_RETRIES more after the first: one retry in airtcp's terms; a broken route's sequence
# number kept (InvalidateRoutesWithDst), every RREP relayed (RecvReply), a HELLO moved to an
# interval after the last RREQ sent or relayed, other broadcasts not counting
# (HelloTimerExpire), a RERR back toward the source of every packet a relay cannot forward
# (SendRerrWhenNoRouteToForward), RERRs for every route through a broken neighbour or a
# RERR's sender, valid or not, at every MAC give-up (SendRerrWhenBreaksLinkToNextHop,
# RecvError), unicast control messages routed as data (RouteOutput's loopback), RREP-ACKs
# (SendReplyByIntermediateNode), neighbour routes revived by RREQs and HELLOs only
# (UpdateRouteToNeighbor updating a copy, RecvRequest), a RREQ leaving the route back to its
# originator invalid or in search as it was, and a RREQ dropped when the entry for its
# destination points back at its sender (both RecvRequest).
AODV_NS3 = (
    "hello_from=all,gratuitous_rrep=true,on_break=keep,data_liveness=true,rreq_retries=1,"
    "seq_on_break=false,relay_every_rrep=true,hello_suppress=rreq_defer,"
    "rerr_no_route=toward_source,rerr_routes=all,control_routed=true,rrep_ack=true,"
    "hear_revives=false,rreq_revives=false,rreq_loop_drop=true,jitter_ns3=true"
)
# ns-3's AODV with link-layer feedback (ARP entries it accepts, the default) or without, as
# the first runs had it: stored under their own side key.
NS3_L2_FEEDBACK = [True]


def aodv_keys(text: str) -> dict:
    """``k=v,...`` as routing keys with TOML-like values; an item ``ns3`` stands for ns-3's
    choices, which later items may change (``ns3,jitter=9.9ms``)."""
    return _keys(text, "ns3", AODV_NS3)


def _keys(text: str, name: str, named: str) -> dict:
    """``text``'s items as keys, the item ``name`` expanded to the set ``named``."""
    out: dict = {}
    items = filter(None, text.split(","))
    for item in (x for i in items for x in (named.split(",") if i.strip() == name else [i])):
        k, _, v = item.partition("=")
        val: object = v
        if v in ("true", "false"):
            val = v == "true"
        elif v.isdigit():
            val = int(v)
        out[k.strip()] = val
    return out


# airtcp's [tcp] keys over the `ns2` profile (`--airtcp-tcp`); `ns3rules` are ns-3.44's
# TcpSocketBase rules where they depart from RFC 6298 and RFC 6582 (docs/validation.md,
# crossing chains): a new recovery once the ACK reaches `recover` after a timeout, no timer
# restart at a fast retransmit, the RTO recomputed from the estimator at every new ACK, no
# RTT sample from an ACK that covers a resent segment, and without SACK one segment marked
# SACKed per duplicate ACK (`TcpTxBuffer::AddRenoSack`).
TCP_KEYS: dict = {}
TCP_NS3RULES = (
    "recover_guard=less_careful,fast_retransmit_restarts_rto=false,"
    "rto_on_new_ack=estimate,rtt_sampling=ns3,reno_sack=true"
)


def keys_digest(keys: dict) -> str:
    """A short digest of a key set, so that runs stored under a named set's key are not
    taken for those of the set after it changes."""
    text = ",".join(f"{k}={v}".lower() for k, v in sorted(keys.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def variant_suffix(aodv_ns3: bool, aodv: dict, tcp_arg: str, tcp: dict) -> str:
    """What airtcp's runs of a variant are stored under, after the build: the named sets
    (`--aodv ns3`, `--airtcp-tcp ns3rules`) by name and digest, others key by key."""
    if aodv == {"link_feedback": False}:
        suffix = "/aodv-link-feedback-off"
    elif aodv_ns3:
        suffix = f"/aodv-ns3-{keys_digest(aodv)}"
    else:
        suffix = "".join(f"/aodv:{k}={v}".lower() for k, v in sorted(aodv.items()))
    if tcp_arg == "ns3rules":
        suffix += f"/tcp-ns3rules-{keys_digest(tcp)}"
    else:
        suffix += "".join(f"/tcp:{k}={v}".lower() for k, v in sorted(tcp.items()))
    return suffix


def tcp_keys(text: str) -> dict:
    """``k=v,...`` as [tcp] keys; an item ``ns3rules`` stands for ns-3's TCP rules."""
    return _keys(text, "ns3rules", TCP_NS3RULES)


def ns3_side() -> str:
    return "ns3" if NS3_L2_FEEDBACK[0] else "ns3/l2-feedback-off"


# --- scenarios shared by both sides -------------------------------------------------------


def walk_movement(hops: int) -> str:
    """ns-2 movement file of the walk: the chain, and its middle node's trip off and back."""
    mid = hops // 2
    lines = [f"$node_({i}) set X_ {200.0 * i:.1f}\n$node_({i}) set Y_ 0.0" for i in range(hops + 1)]
    x, v = 200.0 * mid, WALK_SPEED
    lines.append(
        f'$ns_ at {WALK_LEAVE:.1f} "$node_({mid}) setdest {x:.1f} {WALK_OFFSET:.1f} {v:.1f}"'
    )
    lines.append(f'$ns_ at {WALK_BACK:.1f} "$node_({mid}) setdest {x:.1f} 0.0 {v:.1f}"')
    return "\n".join(lines) + "\n"


def rwp_movement(seed: int, pause: float, nodes: int, duration: float) -> str:
    """ns-2 movement file of random waypoint (setdest's model: uniform start and destinations
    in the area, speed uniform in SPEED, ``pause`` s at each destination) for ``seed``."""
    rng = random.Random(f"rwp/{seed}/{pause}")
    out = []
    for i in range(nodes):
        x, y = rng.uniform(0, AREA[0]), rng.uniform(0, AREA[1])
        out.append(f"$node_({i}) set X_ {x:.4f}\n$node_({i}) set Y_ {y:.4f}")
        t = 0.0
        while t < duration:
            dx, dy = rng.uniform(0, AREA[0]), rng.uniform(0, AREA[1])
            v = rng.uniform(*SPEED)
            out.append(f'$ns_ at {t:.4f} "$node_({i}) setdest {dx:.4f} {dy:.4f} {v:.4f}"')
            t += math.hypot(dx - x, dy - y) / v + pause
            x, y = dx, dy
    return "\n".join(out) + "\n"


def cbr_flows(seed: int, nodes: int) -> list[tuple[int, int, float]]:
    rng = random.Random(f"flows/{seed}")
    flows = []
    for _ in range(CBR_FLOWS):
        s, d = rng.sample(range(nodes), 2)
        flows.append((s, d, round(rng.uniform(*CBR_START), 4)))
    return flows


def movement_file(kind: str, seed: int, pause: float, hops: int) -> Path:
    MOVES.mkdir(parents=True, exist_ok=True)
    if kind == "walk":
        path, text = MOVES / f"walk{hops}.ns_movements", walk_movement(hops)
    else:
        path = MOVES / f"rwp_s{seed}_p{pause:g}.ns_movements"
        text = rwp_movement(seed, pause, CBR_NODES, CBR_DURATION)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def point_key(kind: str, size: int, routing: str, pause: float = 0.0) -> str:
    return f"{kind}|{size}|{routing}" + (f"|pause{pause:g}" if kind == "cbr" else "")


# --- ns-3 ---------------------------------------------------------------------------------


def build_ns3() -> Path:
    venv = ROOT / ".ns3venv"
    if not (venv / "bin" / "python").exists():
        raise SystemExit("error: no .ns3venv; create it with `make .ns3venv/.stamp`")
    defines = ["-DNS3_BUILD_PROFILE_RELEASE", "-DNS3_LOG_ENABLE", "-DNS3_ASSERT_ENABLE"]
    return chain._validation_ns3().compile_program(
        venv, HERE / "manet.cc", chain.OUT / "manet", defines
    )


def ns3_command(exe: Path, kind: str, size: int, routing: str, seed: int, pause: float) -> list:
    cmd = ["nice", str(exe), f"--run={seed}", f"--scenario={kind}", f"--routing={routing}"]
    if routing == "aodv" and not NS3_L2_FEEDBACK[0]:
        cmd.append("--l2Feedback=0")
    if kind == "chain":
        cmd += [f"--hops={size}", f"--start={CHAIN_START:g}", f"--duration={CHAIN_END:g}"]
    elif kind == "walk":
        mv = movement_file("walk", seed, pause, size)
        cmd += [f"--hops={size}", f"--movement={mv}", f"--start={CHAIN_START:g}"]
        cmd += [f"--duration={CHAIN_END:g}", f"--bin={BIN:g}"]
    else:
        mv = movement_file("cbr", seed, pause, size)
        flows = ",".join(f"{s}:{d}:{t}" for s, d, t in cbr_flows(seed, size))
        cmd += [f"--nodes={size}", f"--movement={mv}", f"--flows={flows}"]
        cmd += [f"--duration={CBR_DURATION:g}", f"--pktSize={CBR_SIZE}", f"--pktRate={CBR_RATE:g}"]
    return cmd


def run_ns3(exe: Path, kind: str, size: int, routing: str, seed: int, pause: float) -> dict:
    """One run's JSON line, with the CPU time of the whole process (setup included) as
    ``cpu_s``: on a shared machine CPU time is steadier than the program's ``wall_s``."""
    cmd = ns3_command(exe, kind, size, routing, seed, pause)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["cpu_s"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3)
    return r


# --- airtcp -------------------------------------------------------------------------------


def airtcp_scenario(kind: str, size: int, routing: str, seed: int, pause: float, dur: float):
    """The point as an airtcp scenario dict; movement files are named relative to MOVES,
    the working directory of the run."""
    medium = validate_wifi.scenario(1, seed, 1.0)["media"][0]
    sc: dict = {
        "name": f"manet-{kind}{size}-{routing}",
        "duration": dur,
        "seed": seed,
        # ns-3 opens every connection with a handshake.
        "tcp": {"profile": "ns2", "segment_size": 1460, "handshake": True} | TCP_KEYS,
        "media": [medium],
    }
    if routing != "static":
        sc["routing"] = {"protocol": routing}
        if routing == "aodv":
            sc["routing"].update(AODV_KEYS)
    if kind in ("chain", "walk"):
        n = size + 1
        mv = movement_file("walk", seed, pause, size).name if kind == "walk" else None
        sc["nodes"] = [
            {
                "name": f"n{i}",
                "kind": "host" if i in (0, size) else "router",
                "position": [200.0 * i, 0.0],
            }
            | ({"mobility": {"model": "ns2", "file": mv, "node": i}} if mv else {})
            for i in range(n)
        ]
        sc["flows"] = [
            {
                "name": "ftp",
                "src": "n0",
                "dst": f"n{size}",
                "cc": "newreno",
                "start": f"{CHAIN_START:g}s",
                "app": {"kind": "bulk"},
            }
        ]
    else:
        mv = movement_file("cbr", seed, pause, size).name
        sc["nodes"] = [
            {"name": f"n{i}", "kind": "host", "mobility": {"model": "ns2", "file": mv, "node": i}}
            for i in range(size)
        ]
        sc["flows"] = [
            {
                "name": f"cbr{k}",
                "src": f"n{s}",
                "dst": f"n{d}",
                "start": f"{t}s",
                "app": {
                    "kind": "cbr",
                    "rate": f"{CBR_RATE * CBR_SIZE * 8:g}bps",
                    "packet_size": CBR_SIZE,
                },
            }
            for k, (s, d, t) in enumerate(cbr_flows(seed, size))
        ]
    return sc


def airtcp_run(sc: dict) -> dict:
    from airtcp import _core

    with contextlib.chdir(MOVES):
        return json.loads(_core.run_json(json.dumps(sc), series=False))


def check_airtcp() -> None:
    """Fails with a clear message when this airtcp has no AODV/OLSR or ns-2 mobility."""
    try:
        from airtcp import _core  # noqa: F401
    except ImportError as e:
        raise SystemExit(f"error: airtcp is not built ({e}); run `make setup-dev`") from e
    # Long enough for the flow, which starts at CHAIN_START.
    sc = airtcp_scenario("walk", 2, "aodv", 1, 0.0, CHAIN_START + 1.0)
    try:
        r = airtcp_run(sc)
    except Exception as e:  # noqa: BLE001  (the binding raises ValueError on a bad key)
        said = str(e).splitlines()[0]
        # A key the user passed is named as theirs, not as a missing feature of the build.
        for prefix, option in (("tcp.", "--airtcp-tcp"), ("routing.", "--aodv")):
            if said.startswith(prefix) and (TCP_KEYS if prefix == "tcp." else AODV_KEYS):
                raise SystemExit(f"error: {option}: {said}") from e
        raise SystemExit(
            "error: this airtcp lacks the keys the MANET comparison needs: top-level "
            '`routing = { protocol = "aodv" | "olsr" }` and per node '
            '`mobility = { model = "ns2", file, node }` (it said: ' + said + ")"
        ) from e
    if "routing" not in r:
        raise SystemExit("error: this airtcp's result has no `routing` rows (control packets)")


def control(r: dict) -> tuple[float, float]:
    rows = r.get("routing", [])
    return (
        float(sum(x["control_packets"] for x in rows)),
        float(sum(x["control_bytes"] for x in rows)),
    )


def kinds(r: dict) -> dict:
    """AODV control packets sent, by type (as manet.cc counts ns-3's)."""
    rows = r.get("routing", [])
    names = ("rreq", "rrep", "rerr", "hello")
    return {k: sum(x.get(f"{k}_packets", 0) for x in rows) for k in names}


def run_airtcp(kind: str, size: int, routing: str, seed: int, pause: float) -> dict:
    if kind == "cbr":
        r = airtcp_run(airtcp_scenario(kind, size, routing, seed, pause, CBR_DURATION))
        # ns-3's PDR is over all packets: weigh each flow's by the packets it sent, which at a
        # constant rate is proportional to the time from its start to the end.
        weights = [CBR_DURATION - t for _, _, t in cbr_flows(seed, size)]
        pdr = sum(w * f["pdr"] for w, f in zip(weights, r["flows"], strict=True)) / sum(weights)
        p, b = control(r)
        return {"pdr": pdr, "ctrl_packets": p, "ctrl_bytes": b, "ctrl_kinds": kinds(r)}
    r = airtcp_run(airtcp_scenario(kind, size, routing, seed, pause, CHAIN_END))
    f = r["flows"][0]
    p, b = control(r)
    out = {
        "goodput_kbps": f["delivered_bytes"] * 8 / (CHAIN_END - CHAIN_START) / 1e3,
        "tcp_retransmissions": f["retransmissions"],
        "delivery_ratio": f.get("pdr"),
        "ctrl_packets": p,
        "ctrl_bytes": b,
        "ctrl_kinds": kinds(r),
    }
    if kind == "walk":
        # Goodput per bin from the delivered bytes of the same run cut at each bin's end (a
        # run is deterministic for its seed, so a shorter one is the longer one's prefix).
        # The delivery ratio per bin likewise: data packets received by the sink over those
        # its TCP sent, retransmissions included (as manet.cc counts ns-3's).
        cum, sent, got = [0.0], [0], [0]
        for k in range(1, int(CHAIN_END / BIN) + 1):
            if k * BIN <= CHAIN_START:
                # Nothing is sent before the flow starts (and a run must outlast it).
                cum.append(0.0)
                sent.append(0)
                got.append(0)
                continue
            sc = airtcp_scenario(kind, size, routing, seed, pause, k * BIN)
            f = airtcp_run(sc)["flows"][0]
            cum.append(float(f["delivered_bytes"]))
            sent.append(int(f.get("sent_packets", 0)))
            got.append(int(f.get("received_packets", 0)))
        out["bin_goodput_kbps"] = [
            (b - a) * 8 / BIN / 1e3 for a, b in zip(cum, cum[1:], strict=False)
        ]
        out["bin_delivery_ratio"] = [
            (g1 - g0) / (s1 - s0) if s1 > s0 else -1.0
            for s0, s1, g0, g1 in zip(sent, sent[1:], got, got[1:], strict=False)
        ]
    return out


def airtcp_build() -> str:
    """The airtcp core build the runs are stored under (as validate_wifi.py keys them)."""
    try:
        from airtcp import _core
    except ImportError:
        return "unbuilt"
    return str(_core.__build__)


def breakdown(kind: str, size: int, routing: str, seed: int, pause: float) -> str:
    """One airtcp run's routing counters, drops and MAC give-ups (the figures the causes in
    docs/validation.md cite)."""
    dur = CBR_DURATION if kind == "cbr" else CHAIN_END
    lines = []
    # AODV also with link-layer feedback alone, with HELLOs alone, and with ns-3's choices.
    variants = [{}, {"hello": False}, {"link_feedback": False}, aodv_keys("ns3")]
    if routing != "aodv":
        variants = [{}]
    for extra in variants:
        sc = airtcp_scenario(kind, size, routing, seed, pause, dur)
        sc.get("routing", {}).update(extra)  # over --aodv's keys
        r = airtcp_run(sc)
        rows = r.get("routing", [])
        fields = ["hello_packets", "rreq_packets", "rrep_packets", "rerr_packets", "tc_packets"]
        fields += ["breaks_hello", "breaks_link_feedback", "discoveries", "discoveries_failed"]
        sums = {k: sum(x.get(k, 0) for x in rows) for k in fields}
        retry = sum(m.get("drops_retry_limit", 0) for m in r.get("macs", []))
        drops = {k: v for k, v in r["drops"].items() if v}
        f = r["flows"]
        tcp = ""
        if kind != "cbr":
            good = f[0]["delivered_bytes"] * 8 / (CHAIN_END - CHAIN_START) / 1e3
            tcp = f" goodput {good:.1f} kbit/s, TCP retx {f[0]['retransmissions']};"
        label = point_key(kind, size, routing, pause) + "".join(
            f" {k}={str(v).lower()}" for k, v in extra.items()
        )
        lines.append(
            f"{label} seed {seed}:{tcp} packets {r['packets']['sent']} sent "
            f"{r['packets']['delivered']} delivered; drops {drops}; MAC retry-limit drops "
            f"{retry}; routing {sums}"
        )
    return "\n".join(lines)


# --- results store ------------------------------------------------------------------------


@contextlib.contextmanager
def locked(path: Path):
    chain.OUT.mkdir(parents=True, exist_ok=True)
    with open(chain.OUT / f"{path.stem}.lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lk, fcntl.LOCK_UN)


def load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {"ns3": {}, "airtcp": {}}


def store(path: Path, side: str, key: str, seed: int, result: dict, build: str = "") -> None:
    """Adds one run to the store, re-reading it under the lock (other runs may have added)."""
    with locked(path):
        res = load(path)
        node = res[side].setdefault(build, {}) if side == "airtcp" else res.setdefault(side, {})
        node.setdefault(key, {})[str(seed)] = result
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(res, indent=0, sort_keys=True) + "\n")
        tmp.replace(path)


# --- tables -------------------------------------------------------------------------------


def rrep_origins(ns: dict, keys: list[str]) -> list[str]:
    """ns-3's RREP transmissions by who made them (manet.cc's ``rrep.*`` kinds), and its
    control packets routed to the loopback to wait for a route (``lo_*``: not sent, not
    counted), for the points whose runs have them."""
    have = [
        k
        for k in keys
        if ns.get(k) and all("rrep.relayed" in v.get("ctrl_kinds", {}) for v in ns[k].values())
    ]
    if not have:
        return []
    out = [
        "ns-3's RREPs by who sent them (the destination, another node answering for it or "
        "telling it of the originator, a relay passing one on), those asking for a RREP-ACK, "
        "and its control packets held for a route to a neighbour; mean over seeds.",
        "",
        "| point | by destination | by other node | relayed | ack asked | held |",
        "|---|---|---|---|---|---|",
    ]
    for k in have:
        runs = [v["ctrl_kinds"] for v in ns[k].values()]

        def m(t: str, runs: list = runs) -> float:
            return mean([float(r.get(t, 0)) for r in runs])

        held = mean([float(sum(v for t, v in r.items() if t.startswith("lo_"))) for r in runs])
        out.append(
            f"| {k} | {m('rrep.by_destination'):.0f} | {m('rrep.by_other'):.0f} "
            f"| {m('rrep.relayed'):.0f} | {m('rrep.ack_required'):.0f} | {held:.0f} |"
        )
    out.append("")
    return out


def mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def ci95(xs: list[float]) -> float:
    return 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")


def compare(a: list[float], n: list[float], target: float) -> str:
    if len(a) < 2 or len(n) < 2 or mean(n) <= 0 or mean(a) <= 0:
        return "pending"
    r, lo, hi = validate_wifi.ratio_ci(a, n)
    ok = "yes" if abs(r - 1.0) <= target else "no"
    return f"{r:.3f} [{lo:.3f}, {hi:.3f}] {ok}"


def first_seeds(points: dict, seeds: int, cbr_seeds: int) -> dict:
    """Each point's runs of seeds 1..N (N = `cbr_seeds` for the random waypoint, `seeds` for
    the rest), so that a table states the seeds it was asked for whatever else is stored."""
    return {
        k: {
            s: v
            for s, v in runs.items()
            if int(s) <= (cbr_seeds if k.startswith("cbr|") else seeds)
        }
        for k, runs in points.items()
    }


def tables(res: dict, build: str, seeds: int = 10**9, cbr_seeds: int = 10**9) -> str:
    # Rows ns-3's AODV setting does not touch (static, OLSR) come from the main side.
    ns = first_seeds({**res["ns3"], **res.get(ns3_side(), {})}, seeds, cbr_seeds)
    ai = first_seeds(res["airtcp"].get(build, {}), seeds, cbr_seeds)
    out = []

    def col(side: dict, key: str, field: str) -> list[float]:
        return [float(v[field]) for v in side.get(key, {}).values() if v.get(field) is not None]

    chain_keys = sorted(k for k in ns if k.startswith("chain|"))
    if chain_keys:
        out += [
            f"Chain (TCP bulk {CHAIN_START:g}-{CHAIN_END:g} s): mean ± 95% half-width over "
            "seeds; ratio airtcp / ns-3 [95% CI], within 10% (goodput) / 15% (control).",
            "",
            "| hops | routing | seeds | ns-3 goodput kbit/s | ns-3 retx | ns-3 ctrl pkts "
            "| ns-3 ctrl bytes | airtcp goodput | goodput ratio | ctrl pkts ratio |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for k in sorted(chain_keys, key=lambda k: (int(k.split("|")[1]), k)):
            _, hops, routing = k.split("|")
            g = col(ns, k, "goodput_kbps")
            c = col(ns, k, "ctrl_packets")
            cr = compare(col(ai, k, "ctrl_packets"), c, TARGET_OVERHEAD) if c and c[0] else "-"
            out.append(
                f"| {hops} | {routing} | {len(g)} | {mean(g):.1f} ± {ci95(g):.1f} "
                f"| {mean(col(ns, k, 'tcp_retransmissions')):.1f} "
                f"| {mean(c):.0f} | {mean(col(ns, k, 'ctrl_bytes')):.0f} "
                f"| {mean(col(ai, k, 'goodput_kbps')):.1f} "
                f"| {compare(col(ai, k, 'goodput_kbps'), g, TARGET_GOODPUT)} "
                f"| {cr} |"
            )
        out.append("")
    cbr_keys = sorted(k for k in ns if k.startswith("cbr|"))
    if cbr_keys:
        out += [
            f"Random waypoint ({CBR_NODES} nodes, {AREA[0]:g} x {AREA[1]:g} m, "
            f"{SPEED[0]:g}-{SPEED[1]:g} m/s, {CBR_FLOWS} CBR flows of {CBR_RATE:g} x "
            f"{CBR_SIZE} B/s, {CBR_DURATION:g} s): PDR and routing packets sent.",
            "",
            "| pause s | routing | seeds | ns-3 PDR | ns-3 ctrl pkts | airtcp PDR "
            "| airtcp ctrl pkts | PDR ratio | ctrl ratio |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for k in cbr_keys:
            _, _, routing, pause = k.split("|")
            p = col(ns, k, "pdr")
            c = col(ns, k, "ctrl_packets")
            out.append(
                f"| {pause[5:]} | {routing} | {len(p)} | {mean(p):.3f} ± {ci95(p):.3f} "
                f"| {mean(c):.0f} ± {ci95(c):.0f} | {mean(col(ai, k, 'pdr')):.3f} "
                f"| {mean(col(ai, k, 'ctrl_packets')):.0f} "
                f"| {compare(col(ai, k, 'pdr'), p, TARGET_PDR)} "
                f"| {compare(col(ai, k, 'ctrl_packets'), c, TARGET_OVERHEAD)} |"
            )
        out.append("")
        for k in (k for k in cbr_keys if "|aodv|" in k and ai.get(k)):
            out += [
                f"Random waypoint with AODV, pause {k.split('|')[3][5:]} s, seed by seed "
                "(the same movements and flows in both): PDR and routing packets sent.",
                "",
                "| seed | ns-3 PDR | ns-3 ctrl pkts | airtcp PDR | airtcp ctrl pkts |",
                "|---|---|---|---|---|",
            ]
            for seed in sorted(set(ns[k]) & set(ai[k]), key=int):
                n, a = ns[k][seed], ai[k][seed]
                out.append(
                    f"| {seed} | {n['pdr']:.3f} | {n['ctrl_packets']:.0f} | {a['pdr']:.3f} "
                    f"| {a['ctrl_packets']:.0f} |"
                )
            out.append("")
    aodv_keys_ = [k for k in chain_keys + cbr_keys if "|aodv" in k]
    aodv_keys_ += sorted(k for k in ns if k.startswith("walk|") and "|aodv" in k)
    if any("ctrl_kinds" in v for k in aodv_keys_ for v in ns[k].values()):
        out += [
            "AODV control packets sent by type, mean over seeds (ns-3 / airtcp; ns-3 counts "
            "RREP-ACKs as well).",
            "",
            "| point | RREQ | RREP | RERR | HELLO | RREP-ACK (ns-3) |",
            "|---|---|---|---|---|---|",
        ]
        for k in aodv_keys_:

            def kind(side: dict, t: str, k: str = k) -> float:
                xs = [float(v.get("ctrl_kinds", {}).get(t, 0)) for v in side.get(k, {}).values()]
                return mean(xs) if xs and any("ctrl_kinds" in v for v in side[k].values()) else -1

            cells = []
            for t in ("rreq", "rrep", "rerr", "hello"):
                a = kind(ai, t)
                cells.append(f"{kind(ns, t):.0f} / " + (f"{a:.0f}" if a >= 0 else "-"))
            out.append(f"| {k} | " + " | ".join(cells) + f" | {kind(ns, 'rrep_ack'):.0f} |")
        out.append("")
        out += rrep_origins(ns, aodv_keys_)
    for k in sorted(k for k in ns if k.startswith("walk|")):
        runs = list(ns[k].values())
        bins = len(runs[0]["bin_goodput_kbps"])
        out += [
            f"Walk ({k}, {len(runs)} seeds; middle node off at {WALK_LEAVE:g} s, back at "
            f"{WALK_BACK:g} s): per {BIN:g} s bin from {CHAIN_START:g} s, mean goodput "
            "kbit/s and delivery ratio of TCP data segments (received by the sink / sent by "
            "the source, retransmissions included), ratios airtcp / ns-3 [95% CI] within 15%.",
            "",
            "| bin start s | ns-3 goodput | ns-3 delivery | airtcp goodput | airtcp delivery "
            "| goodput ratio | delivery ratio |",
            "|---|---|---|---|---|---|---|",
        ]
        arun = list(ai.get(k, {}).values())
        for b in range(int(CHAIN_START / BIN), bins):
            dr = [x["bin_delivery_ratio"][b] for x in runs if x["bin_delivery_ratio"][b] >= 0]
            ng = [float(x["bin_goodput_kbps"][b]) for x in runs]
            ag = [float(x["bin_goodput_kbps"][b]) for x in arun]
            # A bin with nothing delivered in both has no ratio; it agrees when both are empty.
            both_empty = ng and ag and max(ng) == 0 and max(ag) == 0
            if both_empty:
                ratio = "both 0"
            elif ng and ag and (mean(ng) == 0) != (mean(ag) == 0):
                ratio = "no (" + ("ns-3" if mean(ng) == 0 else "airtcp") + " 0)"
            else:
                ratio = compare(ag, ng, TARGET_BIN)
            adr = [x["bin_delivery_ratio"][b] for x in arun if "bin_delivery_ratio" in x]
            adr = [x for x in adr if x >= 0]
            dratio = compare(adr, dr, TARGET_BIN) if dr and adr else "-"
            if dr and adr and max(dr) == 0 and max(adr) == 0:
                dratio = "both 0"
            ad = f"{mean(adr):.3f}" if adr else "-"
            out.append(
                f"| {b * BIN:g} | {mean(ng):.1f} | {mean(dr):.3f} | {mean(ag):.1f} | {ad} "
                f"| {ratio} | {dratio} |"
            )
        out.append("")
    return "\n".join(out)


# --- main ---------------------------------------------------------------------------------


def points(parts: list[str], pauses: list[float]) -> list[tuple[str, int, str, float]]:
    pts = []
    for part in parts:
        if part == "chain":
            pts += [("chain", h, r, 0.0) for h in (4, 8) for r in ("static", "aodv", "olsr")]
        elif part == "cbr":
            pts += [("cbr", CBR_NODES, r, p) for p in pauses for r in ("aodv", "olsr")]
        elif part == "walk":
            pts += [("walk", 4, r, 0.0) for r in ("aodv", "olsr")]
        else:
            raise SystemExit(f"error: unknown part {part!r} (chain, cbr, walk)")
    return pts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="chain,cbr,walk")
    ap.add_argument(
        "--seeds", type=int, default=10, help="chain and walk: seeds 1..N run and tabled"
    )
    ap.add_argument(
        "--cbr-seeds", type=int, default=5, help="random waypoint: seeds 1..N run and tabled"
    )
    ap.add_argument(
        "--pauses", default="0", help="cbr pause times, s (Broch: 0,30,60,120,300,600,900)"
    )
    ap.add_argument("--side", choices=("both", "ns3", "airtcp"), default="both")
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--table-only", action="store_true", help="no runs: the tables from results")
    ap.add_argument(
        "--print-command",
        action="store_true",
        help="print the ns-3 command of each point's first seed, run nothing",
    )
    ap.add_argument(
        "--breakdown",
        type=int,
        metavar="SEED",
        help="no runs stored: print airtcp's routing counters and drops of each point at SEED",
    )
    ap.add_argument(
        "--aodv-link-feedback",
        choices=("on", "off"),
        default="on",
        help="airtcp's AODV with link-layer feedback (default) or HELLOs alone "
        "(= --aodv link_feedback=false); off: runs and tables under their own key",
    )
    ap.add_argument(
        "--aodv",
        default="",
        metavar="KEY=VALUE,...",
        help="airtcp's AODV routing keys over its defaults, or `ns3` for ns-3's choices "
        f"({AODV_NS3}); runs and tables under their own key",
    )
    ap.add_argument(
        "--airtcp-tcp",
        default="",
        metavar="KEY=VALUE,...",
        help="airtcp's [tcp] keys over the ns2 profile, or `ns3rules` for ns-3's TcpSocketBase "
        f"rules ({TCP_NS3RULES}); runs and tables under their own key",
    )
    ap.add_argument(
        "--ns3-l2-feedback",
        choices=("on", "off"),
        default="on",
        help="ns-3's AODV with MAC give-ups reaching it (ARP entries it accepts; default) or "
        "HELLO loss alone, as the pre-filled ARP cache left it (manet.cc --l2Feedback=0)",
    )
    a = ap.parse_args(argv)
    if a.seeds < 1 or a.cbr_seeds < 1:
        ap.error("--seeds and --cbr-seeds must be at least 1")
    NS3_L2_FEEDBACK[0] = a.ns3_l2_feedback == "on"
    AODV_KEYS.update(aodv_keys(a.aodv))
    TCP_KEYS.update(tcp_keys(a.airtcp_tcp))
    if a.aodv_link_feedback == "off":
        AODV_KEYS["link_feedback"] = False
    pts = points(a.parts.split(","), [float(p) for p in a.pauses.split(",")])
    if a.breakdown is not None:
        check_airtcp()
        for kind, size, routing, pause in pts:
            print(breakdown(kind, size, routing, a.breakdown, pause), flush=True)
        return 0
    build = airtcp_build() + variant_suffix(a.aodv == "ns3", AODV_KEYS, a.airtcp_tcp, TCP_KEYS)
    if a.table_only and (AODV_KEYS or TCP_KEYS):
        check_airtcp()  # a mistyped key is named, not tabled as a variant never run
    if not a.table_only:
        exe = build_ns3() if a.side != "airtcp" else None
        if a.print_command:
            for kind, size, routing, pause in pts:
                print(" ".join(map(str, ns3_command(exe, kind, size, routing, 1, pause))))
            return 0
        if a.side != "ns3":
            check_airtcp()
        done = load(a.results)
        # Seed by seed across the points, so that a run cut short leaves every point with
        # about as many seeds.
        for seed in range(1, max(a.seeds, a.cbr_seeds) + 1):
            for kind, size, routing, pause in pts:
                if seed > (a.cbr_seeds if kind == "cbr" else a.seeds):
                    continue
                key = point_key(kind, size, routing, pause)
                side = ns3_side() if routing == "aodv" else "ns3"
                if a.side != "airtcp" and str(seed) not in done.get(side, {}).get(key, {}):
                    r = run_ns3(exe, kind, size, routing, seed, pause)
                    store(a.results, side, key, seed, r)
                if a.side != "ns3" and str(seed) not in done["airtcp"].get(build, {}).get(key, {}):
                    r = run_airtcp(kind, size, routing, seed, pause)
                    store(a.results, "airtcp", key, seed, r, build)
            print(f"seed {seed}: done", file=sys.stderr, flush=True)
    print(tables(load(a.results), build, a.seeds, a.cbr_seeds))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
