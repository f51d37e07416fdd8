"""Real-time emulation: real Linux TCP over a scenario's links (docs/emulation.md).

Each flow endpoint becomes a network namespace with one TUN device; the core's emulator
(``_core.emulate_json``, Rust, GIL released) reads every packet those namespaces send, runs it
through the scenario's link models (queues, AQMs, error models, rates, delays), or on 802.11
and TDMA media and ARQ links through the simulator itself run in real time, and writes it
into its destination's TUN device when it is due. Kernel TCP sockets send and receive; their
TCP_INFO is sampled into the same Result layout as a simulated run, with ``backend =
"linux"``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _core
from .result import Result, jain
from .scenario import AllowPaths, Scenario, as_scenario

__all__ = [
    "EmulationError",
    "EmulationLateWarning",
    "NamespaceSet",
    "emulate",
    "requirements_problem",
]

#: every namespace an emulation creates starts with this, then the run's id
NS_PREFIX = "airtcp-"
#: p99 lateness (ms) above which a run is marked late
LATE_P99_MS = 1.0
#: scenario scheme name -> kernel congestion control
KERNEL_CC = {
    "newreno": "reno",
    "reno": "reno",
    "cubic": "cubic",
    "bbr": "bbr",
    # airtcp's own schemes as BPF struct_ops (bpf/): registered for the run when missing.
    "westwood": "airtcp_westwood",
    "ewr": "airtcp_ewr",
}
#: kernel name -> airtcp.bpf program name, for the schemes above that are BPF programs
BPF_CC = {"airtcp_westwood": "westwood", "airtcp_ewr": "ewr"}
_ENDPOINT = str(Path(__file__).with_name("_emu_endpoint.py"))
_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_SUBNET = "10.77.0"
_PORT = 5001
#: a CBR app's packet_size when the scenario gives none (the simulator's default)
_UDP_SIZE = 1000


class EmulationError(RuntimeError):
    """An emulation could not run (missing privilege or tool, a failed setup step)."""


class EmulationLateWarning(UserWarning):
    """The emulator released packets later than its bound (p99 > 1 ms): the path it
    emulated was slower than the scenario says."""


def requirements_problem() -> str | None:
    """What this machine lacks for emulation, in plain words (None when nothing)."""
    missing = []
    if not sys.platform.startswith("linux"):
        return "emulation needs Linux (network namespaces and TUN devices)"
    if os.geteuid() != 0:
        missing.append("root privileges (run as root: namespaces and TUN devices need them)")
    if not os.path.exists("/dev/net/tun"):
        missing.append("/dev/net/tun (a kernel with CONFIG_TUN; `modprobe tun`)")
    if shutil.which("ip") is None:
        missing.append("the `ip` command (Debian: apt-get install iproute2)")
    if not missing:
        return None
    return "emulation needs " + "; ".join(missing)


def _ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise EmulationError(f"`ip {' '.join(args)}` failed: {r.stderr.strip()}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stale_namespaces() -> list[str]:
    """Namespaces of emulations whose process is gone (killed before it could clean up)."""
    out = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/run/netns"):
            if not name.startswith(NS_PREFIX):
                continue
            pid = name[len(NS_PREFIX) :].split("x", 1)[0]
            if pid.isdigit() and not _alive(int(pid)):
                out.append(name)
    return out


class NamespaceSet:
    """Namespaces with one TUN device each, for ``hosts`` (in order); host i has address
    10.77.0.(i+1)/24 on its device and runs nothing until asked. ``close()`` (also on
    leaving a ``with`` block) removes every namespace and device; it is safe to call twice.
    """

    def __init__(self, hosts: list[str]) -> None:
        problem = requirements_problem()
        if problem:
            raise EmulationError(problem)
        for stale in stale_namespaces():
            subprocess.run(["ip", "netns", "del", stale], capture_output=True)
        if len(hosts) > 250:
            raise EmulationError(f"{len(hosts)} hosts: an emulation holds at most 250")
        self.hosts = list(hosts)
        #: this run's id: the process id (so a later run can tell a stale namespace) and
        #: random digits (so runs of one process differ)
        self.run_id = f"{os.getpid()}x{secrets.token_hex(2)}"
        self.prefix = f"{NS_PREFIX}{self.run_id}-"
        self.fds: list[int] = []
        self.devs: list[str] = []
        self._made: list[str] = []
        self._procs: list[subprocess.Popen[str]] = []
        try:
            for i in range(len(self.hosts)):
                self._make(i)
        except BaseException:
            self.close()
            raise

    def netns(self, i: int) -> str:
        return f"{self.prefix}h{i}"

    def addr(self, i: int) -> str:
        return f"{_SUBNET}.{i + 1}"

    def addr_int(self, i: int) -> int:
        a, b, c = (int(x) for x in _SUBNET.split("."))
        return (a << 24) | (b << 16) | (c << 8) | (i + 1)

    def _make(self, i: int) -> None:
        ns = self.netns(i)
        # The device name is at most 15 characters and unique on the machine.
        dev = f"at{self.run_id[-9:]}h{i}"[:15]
        _ip("netns", "add", ns)
        self._made.append(ns)
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_CLOEXEC)
        self.fds.append(fd)
        self.devs.append(dev)
        fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", dev.encode(), _IFF_TUN | _IFF_NO_PI))
        # The descriptor opened here keeps serving the device after it moves.
        _ip("link", "set", dev, "netns", ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        _ip("-n", ns, "addr", "add", f"{self.addr(i)}/24", "dev", dev)
        _ip("-n", ns, "link", "set", dev, "mtu", "1500", "up")

    def tun_dropped(self, i: int) -> int:
        """Packets host i's kernel could not hand to the emulator (its TUN queue was full):
        losses outside the link models, a sign that the emulator fell behind."""
        r = subprocess.run(
            ["ip", "-n", self.netns(i), "-s", "-j", "link", "show", "dev", self.devs[i]],
            capture_output=True,
            text=True,
        )
        try:
            st = json.loads(r.stdout)[0]["stats64"]
            return int(st["tx"]["dropped"])
        except (ValueError, KeyError, IndexError):
            return 0

    def exec(self, i: int, argv: list[str]) -> list[str]:
        """The command line running ``argv`` in host i's namespace."""
        return ["ip", "netns", "exec", self.netns(i), *argv]

    def sysctl(self, i: int, key: str, value: str) -> None:
        r = subprocess.run(
            self.exec(i, ["sysctl", "-q", "-w", f"{key}={value}"]), capture_output=True, text=True
        )
        if r.returncode != 0:
            raise EmulationError(f"sysctl {key}={value} in {self.netns(i)}: {r.stderr.strip()}")

    def spawn(self, i: int, args: list[str]) -> subprocess.Popen[str]:
        """Start the endpoint program in host i's namespace."""
        p = subprocess.Popen(
            self.exec(i, [sys.executable, _ENDPOINT, *args]),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._procs.append(p)
        return p

    def close(self) -> None:
        for p in self._procs:
            if p.poll() is None:
                p.terminate()
        for p in self._procs:
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self._procs = []
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds = []
        for ns in self._made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self._made = []

    def __enter__(self) -> NamespaceSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Terminated(KeyboardInterrupt):
    """SIGTERM arrived: unwind (and clean up) like Ctrl-C."""


@contextlib.contextmanager
def _sigterm_unwinds() -> Any:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Terminated()

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class Emulator:
    """The emulator thread over a testbed: ``start()``, then ``stop()`` returns its report."""

    def __init__(
        self, sc: Scenario, bed: NamespaceSet, t0: float, seconds: float, allow_paths: AllowPaths
    ) -> None:
        self._r, self._w = os.pipe()
        self._out: dict[str, Any] = {}
        hosts = [(fd, bed.addr_int(i)) for i, fd in enumerate(bed.fds)]
        text = sc.to_json()
        files = sc.file_access(allow_paths)

        def body() -> None:
            # Link time 0 is the run's t0, when the first flow may start: time-varying
            # channels (Gilbert-Elliott, SNR series) line up with the scenario's clock.
            time.sleep(max(0.0, t0 - time.time()))
            try:
                self._out["json"] = _core.emulate_json(
                    text, hosts, self._r, seconds, start_offset=time.time() - t0, **files
                )
            except BaseException as e:  # handed to the caller in stop()
                self._out["error"] = e

        self._thread = threading.Thread(target=body, name="airtcp-emulator", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def stop(self) -> dict[str, Any]:
        if self._thread.is_alive():
            os.write(self._w, b"x")
        self._thread.join()
        for fd in (self._r, self._w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if "error" in self._out:
            raise self._out["error"]
        return json.loads(self._out["json"])


def _available_cc() -> list[str]:
    try:
        return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    except OSError:
        return []


def _bpf_needed(sc: Scenario) -> list[str]:
    """airtcp.bpf programs the flows ask for that the kernel does not offer yet."""
    avail = _available_cc()
    need = []
    for f in sc.data.get("flows", []):
        k = KERNEL_CC.get(str(f.get("cc") or "newreno"))
        if k in BPF_CC and k not in avail and BPF_CC[k] not in need:
            need.append(BPF_CC[k])
    return need


@contextlib.contextmanager
def _bpf_registered(names: list[str]) -> Any:
    """Build and register airtcp's BPF congestion controls `names` for the block, and
    unregister them after (also on error, Ctrl-C and SIGTERM, which unwinds)."""
    if not names:
        yield
        return
    from . import bpf

    missing = [t for t in ("clang", "bpftool", "make") if shutil.which(t) is None]
    if missing:
        raise EmulationError(
            f"flows use airtcp's BPF congestion control ({', '.join(names)}), which is built "
            f"and registered for the run: {', '.join(missing)} not found (apt-get install "
            "clang bpftool libbpf-dev make)"
        )
    if not bpf.BPF_DIR.is_dir():
        raise EmulationError(f"no BPF sources at {bpf.BPF_DIR} (needs a source checkout)")
    try:
        build_dir = bpf.build()
    except subprocess.CalledProcessError as e:
        raise EmulationError(f"building the BPF congestion controls failed: {e}") from e
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(bpf.loaded(names, build_dir))
    except (RuntimeError, subprocess.CalledProcessError) as e:
        raise EmulationError(f"registering the BPF congestion controls failed: {e}") from e
    with stack:
        yield


def _is_udp(f: Mapping[str, Any]) -> bool:
    return (f.get("app") or {}).get("kind") == "cbr"


def _kernel_cc(sc: Scenario) -> list[str]:
    avail = _available_cc()
    out = []
    for i, f in enumerate(sc.data.get("flows", [])):
        if _is_udp(f):
            out.append("")  # a UDP flow has no congestion control
            continue
        cc = str(f.get("cc") or "newreno")
        k = KERNEL_CC.get(cc)
        if k is not None and k not in avail and k not in BPF_CC:
            subprocess.run(["modprobe", f"tcp_{k}"], capture_output=True)
            avail = _available_cc()
        if k is None or (k not in avail and k not in BPF_CC):
            have = ", ".join(sorted(n for n, kk in KERNEL_CC.items() if kk in avail)) or "none"
            raise _core.scenario_error(
                f"flows[{i}].cc",
                f"'{cc}' has no kernel congestion control on this machine; emulation runs "
                f"the kernel's TCP: available here: {have}",
            )
        out.append(k)
    return out


def _flow_apps(sc: Scenario) -> list[dict[str, Any]]:
    apps = []
    for i, f in enumerate(sc.data.get("flows", [])):
        app = f.get("app") or {}
        kind = app.get("kind")
        if kind not in ("bulk", "file", "cbr"):
            raise _core.scenario_error(
                f"flows[{i}].app.kind",
                f"'{kind}' is not emulated: emulated flows are kernel TCP (bulk or file) "
                "or UDP at a constant rate (cbr)",
            )
        for key in ("after", "start_jitter"):
            if f.get(key) is not None:
                raise _core.scenario_error(f"flows[{i}].{key}", "is not emulated")
        apps.append(app)
    return apps


def _seconds(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, int | float):
        return float(v)
    return float(_core.parse_duration(str(v)))


def _bytes(v: Any) -> int:
    if isinstance(v, int | float):
        return int(v)
    return int(_core.parse_size(str(v)))


def emulate(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    *,
    seed: int | None = None,
    duration: float | str | None = None,
    sample_interval: float = 0.01,
    allow_paths: AllowPaths = None,
    strict: bool = False,
) -> Result:
    """Run the scenario's flows as real Linux TCP connections (and ``cbr`` flows as UDP)
    over its links and media, emulated in real time, and return a :class:`Result` laid out
    like a simulated one (``backend = "linux"``). ``duration`` (seconds or ``"5s"``)
    overrides the scenario's; the run takes that long in wall time. ``seed`` seeds the link
    models' random streams.

    The result's ``emulation`` block reports the emulator's lateness (p50/p99/max of each
    packet's release after its due time); a run whose p99 exceeds 1 ms is marked ``late``
    and warns (:class:`EmulationLateWarning`), or raises :class:`EmulationError` when
    ``strict``. Needs root, /dev/net/tun and ``ip``; namespaces and devices are removed at
    the end, on error, on Ctrl-C and on SIGTERM.
    """
    sc = as_scenario(scenario)
    data = dict(sc.data)
    if seed is not None:
        data["seed"] = int(seed)
    if duration is not None:
        data["duration"] = duration if isinstance(duration, str) else f"{float(duration)}s"
    sc = Scenario(data, source=sc.source)
    problem = requirements_problem()
    if problem:
        raise EmulationError(problem)
    hosts = list(_core.emu_hosts(sc.to_json(), **sc.file_access(allow_paths)))
    ccs = _kernel_cc(sc)
    apps = _flow_apps(sc)
    dur = _seconds(data["duration"])
    flows = data.get("flows", [])
    tcp_all = data.get("tcp") or {}
    with _sigterm_unwinds(), _bpf_registered(_bpf_needed(sc)), NamespaceSet(hosts) as bed:
        # Kernel TCP options the scenario sets for every flow.
        for i in range(len(hosts)):
            if tcp_all.get("ecn") is not None:
                bed.sysctl(i, "net.ipv4.tcp_ecn", "1" if tcp_all["ecn"] else "2")
            if tcp_all.get("sack") is not None:
                bed.sysctl(i, "net.ipv4.tcp_sack", "1" if tcp_all["sack"] else "0")
        # Time to start the endpoints in their namespaces before the first flow begins.
        margin = 1.5
        t0 = time.time() + margin
        recvs, sends = [], []
        emu = Emulator(sc, bed, t0, dur + 5.0, allow_paths)
        emu.start()
        try:
            for k, f in enumerate(flows):
                d = hosts.index(f["dst"])
                mode = "udp-recv" if _is_udp(f) else "recv"
                recvs.append(
                    bed.spawn(
                        d,
                        [mode, "--t0", repr(t0), "--port", str(_PORT + k), "--addr", bed.addr(d)]
                        + ["--end", repr(dur)],
                    )
                )
            for p in recvs:
                line = p.stdout.readline() if p.stdout else ""
                if line.strip() != "ready":
                    err = p.stderr.read() if p.stderr else ""
                    raise EmulationError(f"a receiver did not start: {err.strip() or line}")
            for k, f in enumerate(flows):
                s, d = hosts.index(f["src"]), hosts.index(f["dst"])
                seg = (f.get("tcp") or {}).get("segment_size") or tcp_all.get("segment_size")
                stop = min(_seconds(f.get("stop")) if f.get("stop") else dur, dur)
                if _is_udp(f):
                    # Datagrams of packet_size IP bytes at the app's rate (as the simulator's
                    # CBR source sends them).
                    rate = float(_core.parse_rate(str(apps[k]["rate"])))
                    args = ["udp-send", "--t0", repr(t0), "--port", str(_PORT + k)]
                    args += ["--dst", bed.addr(d), "--start", repr(_seconds(f.get("start")))]
                    args += ["--stop", repr(stop), "--rate", repr(rate)]
                    args += ["--size", str(int(apps[k].get("packet_size", _UDP_SIZE)))]
                    sends.append(bed.spawn(s, args))
                    continue
                size = _bytes(apps[k]["size"]) if apps[k].get("kind") == "file" else 0
                args = ["send", "--t0", repr(t0), "--port", str(_PORT + k)]
                args += ["--dst", bed.addr(d), "--start", repr(_seconds(f.get("start")))]
                args += ["--stop", repr(stop), "--size", str(size), "--cc", ccs[k]]
                args += ["--interval", repr(sample_interval)]
                if seg:
                    # Linux takes the 12 bytes of the timestamp option out of the MSS given.
                    args += ["--mss", str(int(seg) + 12)]
                sends.append(bed.spawn(s, args))
            outs_s = [_collect(p, "sender") for p in sends]
            outs_r = [_collect(p, "receiver") for p in recvs]
        finally:
            # The emulator stops before the devices it serves go away.
            report = emu.stop()
        report["tun_dropped"] = sum(bed.tun_dropped(i) for i in range(len(hosts)))
        prefix = bed.prefix
    r = _result(sc, hosts, ccs, apps, outs_s, outs_r, report, t0, dur, strict)
    r.raw["emulation"]["namespace_prefix"] = prefix
    return r


def _collect(p: subprocess.Popen[str], what: str) -> dict[str, Any]:
    out, err = p.communicate()
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise EmulationError(f"the {what} failed (status {p.returncode}): {err.strip()[-500:]}")
    return json.loads(lines[-1])


def _udp_row(
    f: Mapping[str, Any], name: str, snd: dict[str, Any], rcv: dict[str, Any], dur: float
) -> dict[str, Any]:
    """A UDP flow's row, as the simulator's: what was sent, what arrived (IP bytes) over the
    flow's active time, what was lost."""
    start = _seconds(f.get("start"))
    stop = min(_seconds(f.get("stop")) if f.get("stop") else dur, dur)
    active = max(stop - start, 1e-9)
    got = len(rcv["seqs"])
    size = int((f.get("app") or {}).get("packet_size", _UDP_SIZE))
    return {
        "name": name,
        "src": f["src"],
        "dst": f["dst"],
        "transport": "udp",
        "cc": f.get("cc") or "newreno",
        "kernel_cc": None,
        "kernel_cc_used": None,
        "app": "cbr",
        "start_s": start,
        "goodput_bps": rcv["ip_bytes"] * 8.0 / active,
        "delivered_bytes": rcv["ip_bytes"],
        "sent_bytes": snd["sent"] * size,
        "sent_packets": snd["sent"],
        "received_packets": got,
        "lost_packets": snd["sent"] - len(set(rcv["seqs"])),
        "backend": "linux",
    }


def _result(
    sc: Scenario,
    hosts: list[str],
    ccs: list[str],
    apps: list[dict[str, Any]],
    outs_s: list[dict[str, Any]],
    outs_r: list[dict[str, Any]],
    report: dict[str, Any],
    t0: float,
    dur: float,
    strict: bool,
) -> Result:
    data = sc.data
    flows = []
    series: dict[str, dict[str, Any]] = {"cwnd": {}}
    per_host: dict[str, int] = {}
    for f in data.get("flows", []):
        if not _is_udp(f):
            per_host[f["src"]] = per_host.get(f["src"], 0) + 1
    for k, f in enumerate(data.get("flows", [])):
        name = f.get("name") or f"flow{k}"
        snd, rcv = outs_s[k], outs_r[k]
        if _is_udp(f):
            flows.append(_udp_row(f, name, snd, rcv, dur))
            continue
        fin = snd["final"]
        start = _seconds(f.get("start"))
        size = _bytes(apps[k]["size"]) if apps[k].get("kind") == "file" else None
        done = rcv["last_s"] if size is not None and rcv["bytes"] >= size else None
        until = done if done is not None else dur
        active = max(until - start, 1e-9)
        rtts = [r / 1e6 for r in snd["rtt_us"] if r > 0]
        cw = snd["cwnd"]
        flows.append(
            {
                "name": name,
                "src": f["src"],
                "dst": f["dst"],
                "transport": "tcp",
                "cc": f.get("cc") or "newreno",
                "kernel_cc": ccs[k],
                # What the socket ran, read back with getsockopt(TCP_CONGESTION).
                "kernel_cc_used": snd.get("cc"),
                "app": apps[k].get("kind"),
                "start_s": start,
                "goodput_bps": rcv["bytes"] * 8.0 / active,
                "delivered_bytes": rcv["bytes"],
                "sent_bytes": fin.get("bytes_sent"),
                "sent_packets": fin.get("data_segs_out"),
                "retransmissions": fin.get("total_retrans"),
                # Per-namespace counter: exact when the flow's host sends no other flow.
                "timeouts": snd["timeouts"] if per_host[f["src"]] == 1 else None,
                "avg_cwnd_segments": sum(cw) / len(cw) if cw else None,
                "rtt_min_s": fin["min_rtt"] / 1e6 if fin.get("min_rtt") else None,
                "rtt_mean_s": sum(rtts) / len(rtts) if rtts else None,
                "srtt_s": fin["rtt"] / 1e6 if fin.get("rtt") else None,
                "rto_s": fin["rto"] / 1e6 if fin.get("rto") else None,
                "completion_time_s": None if done is None else done - start,
                "backend": "linux",
            }
        )
        series["cwnd"][name] = {"t": snd["t"], "cwnd": cw, "ssthresh": snd["ssthresh"]}
    lat = report["lateness"]
    late = lat["p99_us"] > LATE_P99_MS * 1000.0 or report["tun_dropped"] > 0
    drops = report["drops"]
    raw: dict[str, Any] = {
        "name": data.get("name", "scenario"),
        "seed": data.get("seed", 1),
        "duration_s": dur,
        "backend": "linux",
        "packets": {
            "sent": report["read_packets"],
            "delivered": report["delivered_packets"],
            "dropped": sum(drops.values()),
            "in_flight": report["in_flight_packets"],
        },
        "drops": drops,
        # Over the TCP flows, as in simulation.
        "fairness": jain([fl["goodput_bps"] for fl in flows if fl["transport"] == "tcp"]),
        "emulation": {
            "late": late,
            "late_bound_p99_ms": LATE_P99_MS,
            "lateness_us": lat,
            "hosts": hosts,
            "elapsed_s": report["elapsed_s"],
            "ignored_not_ipv4": report["ignored_not_ipv4"],
            "ignored_unknown_destination": report["ignored_unknown_destination"],
            "write_errors": report["write_errors"],
            "tun_dropped": report["tun_dropped"],
            "realtime": report["realtime"],
            "kernel": os.uname().release,
        },
        "flows": flows,
        "links": report["links"],
        "agents": report["agents"],
        "series": series,
    }
    for table in ("macs", "routing"):
        # 802.11 stations and routing protocols, from the simulator that carried the packets
        # (the media path).
        if report.get(table):
            raw[table] = report[table]
    if report.get("engine"):
        raw["emulation"]["engine"] = report["engine"]
        raw["emulation"]["events"] = report["events"]
        raw["emulation"]["unmatched_packets"] = report["unmatched_packets"]
    if late:
        msg = (
            f"{raw['name']}: the emulator could not keep up (release lateness p99 "
            f"{lat['p99_us']:.0f} µs, max {lat['max_us']:.0f} µs, bound {LATE_P99_MS:g} ms; "
            f"{report['tun_dropped']} packets dropped before it read them): the emulated "
            "path was slower than the scenario's"
        )
        if strict:
            raise EmulationError(msg)
        warnings.warn(msg, EmulationLateWarning, stacklevel=3)
    return Result(raw, scenario=sc)
