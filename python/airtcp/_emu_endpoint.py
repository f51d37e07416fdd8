"""The programs an emulation runs inside the hosts' network namespaces (``python -m
airtcp._emu_endpoint MODE ...`` under ``ip netns exec``): a TCP sender that samples TCP_INFO,
a TCP receiver that counts what the application reads, and a UDP source and sink that time
each datagram. Each prints one JSON object on stdout when it ends. Times are wall-clock
(``time.time()``), which every namespace shares, counted from the run's start ``--t0``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any

TCP_INFO_LEN = 232
# Offsets of struct tcp_info fields (include/uapi/linux/tcp.h).
_U32 = {
    "rto": 8,
    "rtt": 68,
    "snd_ssthresh": 76,
    "snd_cwnd": 80,
    "total_retrans": 100,
    "min_rtt": 148,
    "data_segs_out": 156,
}
_U64 = {"bytes_acked": 120, "bytes_sent": 200, "bytes_retrans": 208}


def tcp_info(sock: socket.socket) -> dict[str, int]:
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_LEN)
    out = {k: struct.unpack_from("<I", raw, o)[0] for k, o in _U32.items() if o + 4 <= len(raw)}
    out.update(
        {k: struct.unpack_from("<Q", raw, o)[0] for k, o in _U64.items() if o + 8 <= len(raw)}
    )
    out["ca_state"] = raw[1]
    return out


def tcp_timeouts() -> int | None:
    """This namespace's count of retransmission timeouts (TcpExt TCPTimeouts)."""
    try:
        with open("/proc/net/netstat", encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for names, values in zip(lines[::2], lines[1::2], strict=False):
        if names.startswith("TcpExt:"):
            table = dict(zip(names.split()[1:], values.split()[1:], strict=False))
            v = table.get("TCPTimeouts")
            return int(v) if v is not None else None
    return None


#: SCHED_FIFO priority of the TCP endpoints: below the emulator's thread (10), above ordinary
#: processes. On a loaded machine an endpoint preempted inside send() or recv() holds its
#: socket's lock, and the kernel then queues the ACKs or segments that arrive meanwhile and
#: handles them in one batch when it is released: stretch ACKs and bursts no real host has.
RT_PRIORITY = 5


def _realtime() -> None:
    # Without the privilege (or on a kernel without SCHED_FIFO) the endpoint runs as it is.
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))


def _sleep_until(t: float) -> None:
    d = t - time.time()
    if d > 0:
        time.sleep(d)


def _ready() -> None:
    print("ready", flush=True)


def _done(out: dict[str, Any]) -> None:
    print(json.dumps(out), flush=True)


def send(a: argparse.Namespace) -> None:
    _realtime()
    start, stop = a.t0 + a.start, a.t0 + a.stop
    _sleep_until(start)
    timeouts0 = tcp_timeouts()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())
    if a.mss:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, a.mss)
    s.connect((a.dst, a.port))
    # Short send timeouts so the loop sees the end of the run (set after connect, which
    # the same timeout would cut short on a long path).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 50_000))
    samples: list[tuple[float, dict[str, int]]] = []
    halt = threading.Event()

    def sample() -> None:
        nxt = time.time()
        while not halt.is_set():
            try:
                samples.append((time.time() - a.t0, tcp_info(s)))
            except OSError:
                return
            nxt += a.interval
            halt.wait(max(0.0, nxt - time.time()))

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    buf = b"\0" * 65536
    left = a.size if a.size > 0 else None
    while time.time() < stop and (left is None or left > 0):
        try:
            n = s.send(buf if left is None else buf[: min(left, len(buf))])
        except (BlockingIOError, TimeoutError):
            continue
        except OSError:
            break
        if left is not None:
            left -= n
    # A finite transfer waits for its last byte's ACK (or the end of the run).
    while left is not None and time.time() < stop:
        info = tcp_info(s)
        if info.get("bytes_acked", 0) >= a.size + 1:
            break
        time.sleep(0.005)
    halt.set()
    th.join()
    final = tcp_info(s)
    cc_used = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\0").decode()
    timeouts1 = tcp_timeouts()
    # Reset rather than linger: the run is over, unsent data is not wanted.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    _done(
        {
            "final": final,
            "cc": cc_used,
            "timeouts": None if timeouts0 is None or timeouts1 is None else timeouts1 - timeouts0,
            "t": [t for t, _ in samples],
            "cwnd": [i["snd_cwnd"] for _, i in samples],
            "ssthresh": [i["snd_ssthresh"] for _, i in samples],
            "rtt_us": [i["rtt"] for _, i in samples],
        }
    )


def recv(a: argparse.Namespace) -> None:
    _realtime()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    ls.listen(1)
    _ready()
    end = a.t0 + a.end
    ls.settimeout(max(0.1, end - time.time()))
    got = 0
    last = None
    try:
        c, _ = ls.accept()
    except TimeoutError:
        _done({"bytes": 0, "last_s": None})
        return
    while True:
        left = end - time.time()
        if left <= 0:
            break
        c.settimeout(left)
        try:
            d = c.recv(1 << 20)
        except (TimeoutError, OSError):
            break
        if not d:
            break
        now = time.time()
        if now <= end:
            got += len(d)
            last = now - a.t0
    _done({"bytes": got, "last_s": last})


def udp_send(a: argparse.Namespace) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    gap = a.size * 8 / a.rate
    _sleep_until(a.t0 + a.start)
    first = time.time()
    n = 0
    pad = b"\0" * max(0, a.size - 28 - 12)
    while True:
        due = first + n * gap
        if due >= a.t0 + a.stop:
            break
        while time.time() < due:
            pass  # a busy wait: sleep() would bunch the datagrams
        s.sendto(struct.pack("!Id", n, time.time()) + pad, (a.dst, a.port))
        n += 1
    _done({"sent": n})


def udp_recv(a: argparse.Namespace) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.bind((a.addr, a.port))
    _ready()
    end = a.t0 + a.end
    seqs: list[int] = []
    delays: list[float] = []
    arrivals: list[float] = []
    sizes = 0
    while True:
        left = end - time.time()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            d = s.recv(65536)
        except TimeoutError:
            break
        now = time.time()
        seq, sent = struct.unpack_from("!Id", d)
        seqs.append(seq)
        delays.append(now - sent)
        arrivals.append(now - a.t0)
        sizes += len(d) + 28
    _done({"seqs": seqs, "delays": delays, "arrivals": arrivals, "ip_bytes": sizes})


def main(argv: list[str] | None = None) -> None:
    # The parent ends a run with SIGTERM; end quietly.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    p = argparse.ArgumentParser(prog="python -m airtcp._emu_endpoint")
    sub = p.add_subparsers(dest="mode", required=True)
    for mode in ("send", "recv", "udp-send", "udp-recv"):
        m = sub.add_parser(mode)
        m.add_argument("--t0", type=float, required=True)
        m.add_argument("--port", type=int, required=True)
        if mode.endswith("send"):
            m.add_argument("--dst", required=True)
            m.add_argument("--start", type=float, default=0.0)
            m.add_argument("--stop", type=float, required=True)
            m.add_argument("--size", type=int, default=0)
        else:
            m.add_argument("--addr", required=True)
            m.add_argument("--end", type=float, required=True)
        if mode == "send":
            m.add_argument("--cc", required=True)
            m.add_argument("--mss", type=int, default=0)
            m.add_argument("--interval", type=float, default=0.01)
        if mode == "udp-send":
            m.add_argument("--rate", type=float, required=True)
    a = p.parse_args(argv)
    {"send": send, "recv": recv, "udp-send": udp_send, "udp-recv": udp_recv}[a.mode](a)


if __name__ == "__main__":
    main()
