"""A real Linux TCP connection between two network namespaces over a path with a rate,
a drop-tail queue, a one-way delay and data-packet loss, for checking kernel behaviour
(airtcp's BPF congestion controls, the `linux` TCP profile). Needs root.

    sender ns: tx0 10.77.0.1 --veth-- mtx [middle ns: relay] mrx (TBF rate, queue)
               --veth-- rx0 10.77.0.2 :receiver ns

The relay (this file, `relay` subcommand, run inside the middle namespace) moves Ethernet
frames between the two middle interfaces with AF_PACKET sockets, holds each for the one-way
delay, and drops data segments (TCP with payload) of the sender's direction, either every
n-th or at random with probability p. The middle namespace has no addresses, so its own
stack ignores the frames. The sender's interface has gso_max_segs 1, so every skb the
sender's TCP builds is one segment on the path, as on a NIC without offloads. The kernel has
no netem here (nor fq); the delay is the relay's.

    python tools/netns_path.py run --cc cubic --seconds 20 --rate 10mbit --delay-ms 20 \
        --queue-bytes 100000 --loss 0.01 --seed 1
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import os
import random
import select
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET, PACKET_VNET_HDR, VNET_HDR_LEN = 263, 15, 10
SND_IP, RCV_IP, PORT = "10.77.0.1", "10.77.0.2", 5201
HERE = Path(__file__).resolve()

# struct tcp_info (include/uapi/linux/tcp.h): 8 one-byte fields, then these.
_INFO_U32 = (
    "rto ato snd_mss rcv_mss unacked sacked lost retrans fackets last_data_sent "
    "last_ack_sent last_data_recv last_ack_recv pmtu rcv_ssthresh rtt rttvar snd_ssthresh "
    "snd_cwnd advmss reordering rcv_rtt rcv_space total_retrans"
).split()
_INFO_U64A = "pacing_rate max_pacing_rate bytes_acked bytes_received".split()
_INFO_U32B = "segs_out segs_in notsent_bytes min_rtt data_segs_in data_segs_out".split()
_INFO_U64B = "delivery_rate busy_time rwnd_limited sndbuf_limited".split()
_INFO_U32C = "delivered delivered_ce".split()
_INFO_U64C = "bytes_sent bytes_retrans".split()
_INFO_FMT = "=8B24I4Q6I4Q2I2Q"


def tcp_info(sock: socket.socket) -> dict:
    """The kernel's TCP_INFO for a socket, by field name (units as the kernel gives them:
    microseconds, segments, bytes)."""
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    size = struct.calcsize(_INFO_FMT)
    vals = struct.unpack(_INFO_FMT, raw[:size])
    names = _INFO_U32 + _INFO_U64A + _INFO_U32B + _INFO_U64B + _INFO_U32C + _INFO_U64C
    info = dict(zip(names, vals[8:], strict=True))
    info["state"], info["ca_state"] = vals[0], vals[1]
    return info


def _sh(*args: str) -> None:
    subprocess.run(args, check=True)


def _is_data(frame: bytes) -> bool:
    """An IPv4 TCP segment with payload (after the virtio-net header)."""
    frame = frame[VNET_HDR_LEN:]
    if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
        return False
    ihl = (frame[14] & 0x0F) * 4
    total = struct.unpack("!H", frame[16:18])[0]
    doff = (frame[14 + ihl + 12] >> 4) * 4
    return total - ihl - doff > 0


def relay(a: str, b: str, delay: float, every: int, loss: float, seed: int) -> None:
    """Move frames a <-> b, delayed; drop data frames from a (every n-th, or with p)."""
    socks = {}
    for name in (a, b):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        # With a virtio-net header the frame keeps its checksum-offload state (veth hands
        # the sender's segments on with the TCP checksum not yet filled in).
        s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
        s.bind((name, ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        socks[name] = s
    out = {a: socks[b], b: socks[a]}
    rng = random.Random(seed)
    queue: list[tuple[float, int, socket.socket, bytes]] = []
    n = seq = 0
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, dst, frame = heapq.heappop(queue)
            with contextlib.suppress(OSError):
                dst.send(frame)
        timeout = max(0.0, queue[0][0] - now) if queue else 1.0
        ready, _, _ = select.select(list(socks.values()), [], [], timeout)
        for s in ready:
            frame, addr = s.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            src = addr[0]
            if src == a and _is_data(frame):
                n += 1
                if (every and n % every == 0) or (loss and rng.random() < loss):
                    continue
            seq += 1
            heapq.heappush(queue, (time.monotonic() + delay, seq, out[src], frame))


class Path_:
    """The three namespaces and the relay; a context manager (everything is removed on
    exit)."""

    def __init__(
        self,
        rate: str = "10mbit",
        delay_ms: float = 20.0,
        queue_bytes: int = 100_000,
        every: int = 0,
        loss: float = 0.0,
        seed: int = 1,
        quickack: bool = False,
    ) -> None:
        tag = f"at{os.getpid() % 100000}"
        self.snd, self.mid, self.rcv = f"{tag}snd", f"{tag}mid", f"{tag}rcv"
        self.args = (rate, delay_ms, queue_bytes, every, loss, seed)
        self.quickack = quickack
        self.relay: subprocess.Popen | None = None

    def __enter__(self) -> Path_:
        rate, delay_ms, queue_bytes, every, loss, seed = self.args
        for ns in (self.snd, self.mid, self.rcv):
            _sh("ip", "netns", "add", ns)
        try:
            _sh("ip", "link", "add", "tx0", "netns", self.snd, "type", "veth",
                "peer", "name", "mtx", "netns", self.mid)  # fmt: skip
            _sh("ip", "link", "add", "rx0", "netns", self.rcv, "type", "veth",
                "peer", "name", "mrx", "netns", self.mid)  # fmt: skip
            for ns, dev, ip in ((self.snd, "tx0", SND_IP), (self.rcv, "rx0", RCV_IP)):
                _sh("ip", "-n", ns, "link", "set", dev, "gso_max_segs", "1")
                _sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
                _sh("ip", "-n", ns, "link", "set", dev, "up")
                _sh("ip", "-n", ns, "link", "set", "lo", "up")
            if self.quickack:
                # The route's quickack attribute: the receiver acknowledges every segment.
                _sh("ip", "-n", self.rcv, "route", "change", "10.77.0.0/24", "dev", "rx0",
                    "proto", "kernel", "scope", "link", "src", RCV_IP, "quickack", "1")  # fmt: skip
            for dev in ("mtx", "mrx"):
                _sh("ip", "-n", self.mid, "link", "set", dev, "up")
            _sh("ip", "netns", "exec", self.mid, "tc", "qdisc", "add", "dev", "mrx", "root",
                "tbf", "rate", rate, "burst", "1600", "limit", str(queue_bytes))  # fmt: skip
            self.relay = subprocess.Popen(
                [
                    "ip",
                    "netns",
                    "exec",
                    self.mid,
                    sys.executable,
                    str(HERE),
                    "relay",
                    "--delay-ms",
                    str(delay_ms),
                    "--every",
                    str(every),
                    "--loss",
                    str(loss),
                    "--seed",
                    str(seed),
                ],  # fmt: skip
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self.relay.stdout is not None
            if self.relay.stdout.readline().strip() != "ready":
                raise RuntimeError("the relay did not start")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.relay is not None:
            self.relay.terminate()
            self.relay.wait(timeout=10)
        for ns in (self.snd, self.mid, self.rcv):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)

    def transfer(
        self,
        cc: str,
        seconds: float,
        sysctls: dict[str, str] | None = None,
        min_segments: int = 0,
    ) -> dict:
        """Run one bulk transfer of `seconds` with congestion control `cc` (longer, up to 10
        times, until `min_segments` data segments were sent); returns the sender's report (see
        `send`), with the receiver's byte count."""
        for k, v in (sysctls or {}).items():
            _sh("ip", "netns", "exec", self.snd, "sysctl", "-q", "-w", f"{k}={v}")
        rcv = subprocess.Popen(
            ["ip", "netns", "exec", self.rcv, sys.executable, str(HERE), "recv"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert rcv.stdout is not None
            if rcv.stdout.readline().strip() != "ready":
                raise RuntimeError("the receiver did not start")
            out = subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    self.snd,
                    sys.executable,
                    str(HERE),
                    "send",
                    "--cc",
                    cc,
                    "--seconds",
                    str(seconds),
                    "--min-segments",
                    str(min_segments),
                ],  # fmt: skip
                check=True,
                capture_output=True,
                text=True,
                timeout=10 * seconds + 60,
            )
            report = json.loads(out.stdout)
            report["received"] = json.loads(rcv.communicate(timeout=60)[0])["bytes"]
        finally:
            if rcv.poll() is None:
                rcv.kill()
        return report


def recv() -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((RCV_IP, PORT))
    srv.listen(1)
    print("ready", flush=True)
    conn, _ = srv.accept()
    total = 0
    while chunk := conn.recv(1 << 16):
        total += len(chunk)
    print(json.dumps({"bytes": total}), flush=True)


def send(cc: str, seconds: float, min_segments: int = 0) -> None:
    """Send for `seconds`, and on (up to ten times as long) until `min_segments` data segments
    went out, so that a test's count of losses does not hang on how fast a loaded machine
    relays; sample TCP_INFO every 10 ms; print a JSON report."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.connect((RCV_IP, PORT))
    s.setblocking(False)
    buf = b"\0" * (1 << 16)
    start = time.monotonic()
    samples = []
    next_sample = start
    segs = 0
    while (now := time.monotonic()) - start < seconds or (
        segs < min_segments and now - start < 10 * seconds
    ):
        if now >= next_sample:
            i = tcp_info(s)
            segs = i["data_segs_out"]
            samples.append((now - start, i["snd_cwnd"], i["snd_ssthresh"], i["ca_state"]))
            next_sample += 0.01
        _, w, _ = select.select([], [s], [], 0.005)
        if w:
            with contextlib.suppress(BlockingIOError):
                s.send(buf)
    info = tcp_info(s)
    used = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    port = s.getsockname()[1]
    s.close()
    report = {"cc": used, "local_port": port, "seconds": time.monotonic() - start, "info": info}
    report["samples"] = samples
    print(json.dumps(report))


def growth_per_rtt(samples: list, rtt_us: int) -> float | None:
    """The median slope of cwnd (segments per RTT) over stretches of congestion avoidance
    (open state, cwnd >= ssthresh) longer than 300 ms, from the 10 ms TCP_INFO samples."""
    runs, cur = [], []
    for s in samples:
        if s[3] == 0 and s[1] >= s[2]:
            cur.append(s)
            continue
        if len(cur) > 30:
            runs.append(cur)
        cur = []
    slopes = [(r[-1][1] - r[0][1]) / (r[-1][0] - r[0][0]) * rtt_us / 1e6 for r in runs]
    return sorted(slopes)[len(slopes) // 2] if slopes else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("relay")
    r.add_argument("--delay-ms", type=float, default=20.0)
    r.add_argument("--every", type=int, default=0)
    r.add_argument("--loss", type=float, default=0.0)
    r.add_argument("--seed", type=int, default=1)
    sub.add_parser("recv")
    s = sub.add_parser("send")
    s.add_argument("--cc", required=True)
    s.add_argument("--seconds", type=float, required=True)
    s.add_argument("--min-segments", type=int, default=0)
    run = sub.add_parser("run", help="build the path, run transfers, print one JSON line each")
    run.add_argument("--cc", action="append", required=True)
    run.add_argument("--seconds", type=float, default=20.0)
    run.add_argument("--rate", default="10mbit")
    run.add_argument("--delay-ms", type=float, default=20.0)
    run.add_argument("--queue-bytes", type=int, default=100_000)
    run.add_argument("--every", type=int, default=0)
    run.add_argument("--loss", type=float, default=0.0)
    run.add_argument("--seed", type=int, action="append")
    run.add_argument("--sysctl", action="append", default=[], help="KEY=VALUE, sender side")
    a = ap.parse_args()
    if a.cmd == "relay":
        relay("mtx", "mrx", a.delay_ms / 1000, a.every, a.loss, a.seed)
    elif a.cmd == "recv":
        recv()
    elif a.cmd == "send":
        send(a.cc, a.seconds, a.min_segments)
    else:
        sysctls = dict(kv.split("=", 1) for kv in a.sysctl)
        for seed in a.seed or [1]:
            for cc in a.cc:
                with Path_(a.rate, a.delay_ms, a.queue_bytes, a.every, a.loss, seed) as p:
                    rep = p.transfer(cc, a.seconds, sysctls)
                samples = rep.pop("samples")
                rep["ca_growth_per_rtt"] = growth_per_rtt(samples, rep["info"]["rtt"])
                # From the 10 ms samples: mean cwnd (segments) and entries into Recovery (3).
                rep["avg_cwnd"] = sum(s[1] for s in samples) / max(len(samples), 1)
                rep["recoveries"] = sum(
                    1 for a, b in zip(samples, samples[1:], strict=False) if b[3] == 3 != a[3]
                )
                rep["goodput_mbps"] = rep["received"] * 8 / rep["seconds"] / 1e6
                rep["seed"] = seed
                print(json.dumps(rep), flush=True)


if __name__ == "__main__":
    main()
