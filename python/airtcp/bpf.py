"""airtcp's BPF congestion controls (bpf/*.bpf.c): build, register with the running kernel,
read back what each connection's program recorded, unregister.

Registering needs root, bpftool, and a kernel with BPF struct_ops and BTF
(/sys/kernel/btf/vmlinux); building needs clang and libbpf's headers (bpf/Makefile).
Each program registers as a `tcp_congestion_ops` and is then listed in
/proc/sys/net/ipv4/tcp_available_congestion_control under its name, for
setsockopt(TCP_CONGESTION) or the `net.ipv4.tcp_congestion_control` sysctl.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BPF_DIR = Path(__file__).resolve().parents[2] / "bpf"
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


@dataclass(frozen=True)
class Program:
    """One congestion control: its object file, kernel name and per-connection map."""

    source: str
    name: str
    records: str


PROGRAMS = {
    "westwood": Program("westwood", "airtcp_westwood", "ww_records"),
    "ewr": Program("ewr", "airtcp_ewr", "ewr_records"),
}


def build(bpf_dir: Path = BPF_DIR) -> Path:
    """Compile every program (make -C bpf); returns the directory of the objects."""
    subprocess.run(["make", "-s", "-C", str(bpf_dir)], check=True)
    return bpf_dir / "build"


def available() -> list[str]:
    """The congestion controls the kernel offers now."""
    return AVAILABLE.read_text().split()


def _bpftool(*args: str) -> str:
    """bpftool's output; its notices (such as "Registered ...") go to stderr, kept after."""
    out = subprocess.run(["bpftool", *args], check=True, capture_output=True, text=True)
    return out.stdout + out.stderr


def register(program: Program, build_dir: Path) -> int:
    """Register one program's struct_ops; returns its struct_ops map id."""
    out = _bpftool("struct_ops", "register", str(build_dir / f"{program.source}.bpf.o"))
    m = re.search(rf"{program.name} id (\d+)", out)
    if not m:
        raise RuntimeError(f"bpftool did not register {program.name}: {out.strip()}")
    return int(m.group(1))


def unregister(map_id: int) -> None:
    _bpftool("struct_ops", "unregister", "id", str(map_id))


@contextlib.contextmanager
def loaded(names: list[str] | None = None, build_dir: Path | None = None) -> Iterator[dict]:
    """Build and register the named programs (all by default) for the duration of the block;
    yields {short name: Program}. Each is unregistered on the way out, also on error."""
    build_dir = build_dir or build()
    chosen = {n: PROGRAMS[n] for n in (names or list(PROGRAMS))}
    ids: list[int] = []
    try:
        for p in chosen.values():
            if p.name in available():
                raise RuntimeError(f"{p.name} is already registered")
            ids.append(register(p, build_dir))
        yield chosen
    finally:
        for i in ids:
            unregister(i)


def _records_map_id(program: Program) -> int:
    maps = json.loads(_bpftool("-j", "map", "show"))
    ids = [m["id"] for m in maps if m.get("name") == program.records]
    if not ids:
        raise RuntimeError(f"no map {program.records}: is {program.name} registered?")
    return max(ids)


def record(program: Program, local_port: int) -> dict:
    """What the program recorded for the connection with this local port (the fields of its
    record struct in bpf/*.bpf.c)."""
    key = [str(b) for b in local_port.to_bytes(4, "little")]
    out = _bpftool("-j", "map", "lookup", "id", str(_records_map_id(program)), "key", *key)
    return json.loads(out.splitlines()[0])["formatted"]["value"]


def main(argv: list[str] | None = None) -> int:
    """`python -m airtcp.bpf [NAME...]`: register and wait until interrupted."""
    import sys
    import time

    names = (argv if argv is not None else sys.argv[1:]) or None
    with loaded(names) as progs:
        print("registered:", " ".join(p.name for p in progs.values()), flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
