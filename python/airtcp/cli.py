"""The ``airtcp`` command line: run, validate, schemes, bench, demo.

User errors (a missing file, a bad scenario, a bad ``--set``) print ``error: <message>`` on
stderr and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import __version__, _core
from .result import Result
from .scenario import PathError, Scenario

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

EXIT_USER = 2
EXIT_INTERNAL = 1


class UserError(Exception):
    """An error caused by the command's input; reported as ``error: ...`` with status 2."""


# --------------------------------------------------------------------------------------------
# formatting


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], align: str | None = None) -> str:
    """A plain-text table. ``align`` has one letter per column: ``l`` or ``r`` (default: first
    column left, the rest right)."""
    cells = [[str(h) for h in header]] + [[str(c) for c in r] for r in rows]
    ncol = len(header)
    if align is None:
        align = "l" + "r" * (ncol - 1)
    widths = [max(len(r[i]) for r in cells) for i in range(ncol)]

    def line(r: list[str]) -> str:
        out = []
        for i, c in enumerate(r):
            out.append(c.ljust(widths[i]) if align[i] == "l" else c.rjust(widths[i]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])


def fmt_rate(bps: float) -> str:
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= scale:
            v = bps / scale
            return f"{v:g} {unit}" if v == round(v, 3) else f"{v:.3g} {unit}"
    return f"{bps:g} bps"


def _f(v: Any, fmt: str, scale: float = 1.0) -> str:
    if v is None:
        return "-"
    return format(float(v) * scale, fmt)


def flows_table(result: Result) -> str:
    rows = []
    for f in result.raw.get("flows", []):
        tcp = f.get("transport") == "tcp"
        rows.append(
            [
                f.get("name"),
                f.get("cc") or f"udp/{f.get('app', '?')}",
                _f(f.get("goodput_bps"), ".1f", 1e-3),
                f.get("retransmissions", 0) if tcp else "-",
                f.get("timeouts", 0) if tcp else "-",
                _f(f.get("avg_cwnd_segments"), ".2f") if tcp else "-",
                _f(f.get("rtt_mean_s"), ".1f", 1e3) if tcp else "-",
            ]
        )
    return table(
        rows,
        ["flow", "cc", "goodput kbps", "retx", "timeouts", "avg cwnd", "rtt mean ms"],
        "llrrrrr",
    )


_DROP_COLS = [
    ("drops_queue_overflow", "queue drops"),
    ("drops_aqm", "aqm drops"),
    ("drops_channel_error", "channel drops"),
]


def links_table(result: Result, *, all_links: bool = False) -> str | None:
    rows = []
    for row in result.raw.get("links", []):
        drops = [int(row.get(k, 0) or 0) for k, _ in _DROP_COLS]
        if not all_links and sum(drops) == 0:
            continue
        rows.append(
            [
                row.get("name"),
                row.get("kind", ""),
                fmt_rate(float(row.get("rate_bps", 0))),
                _f(row.get("utilization"), ".1f", 100.0),
                _f(row.get("mean_queue_packets"), ".2f"),
                row.get("max_queue_packets", "-"),
                *drops,
            ]
        )
    if not rows:
        return None
    return table(
        rows,
        ["direction", "kind", "rate", "util %", "mean queue", "max queue"]
        + [h for _, h in _DROP_COLS],
        "llrrrrrrr",
    )


def summary_line(result: Result, wall_s: float | None = None) -> str:
    s = result.summary
    pk = s.get("packets", {}) or {}
    drops = {k: v for k, v in (s.get("drops", {}) or {}).items() if v}
    dtxt = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(drops.items()))
    parts = [
        f"{s.get('name', '?')}: seed {s.get('seed')}",
        f"{s.get('duration_s', 0):g} s simulated",
        f"{s.get('events', 0):,} events",
        f"{s.get('packet_hops', 0):,} packet-hops",
        f"{pk.get('delivered', 0):,} packets delivered",
        f"{pk.get('dropped', 0):,} dropped" + (f" ({dtxt})" if dtxt else ""),
        f"fairness {float(s.get('fairness', float('nan'))):.3f}",
    ]
    if wall_s is not None:
        parts.append(f"{wall_s:.2f} s wall")
    return ", ".join(parts)


# --------------------------------------------------------------------------------------------
# --set


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one (``0.01``, ``true``, ``"x"``,
    ``[1, 2]``, ``{ kind = "bulk" }``), otherwise the text itself (``10s``, ``newreno``)."""
    try:
        v = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(v, (_dt.date, _dt.time, _dt.datetime)):
        return text
    return v


def apply_sets(sc: Scenario, sets: Sequence[str] | None) -> None:
    for item in sets or []:
        if "=" not in item:
            raise UserError(f"--set {item!r}: expected PATH=VALUE")
        path, _, value = item.partition("=")
        path = path.strip()
        try:
            sc.set(path, parse_value(value.strip()))
        except PathError as e:
            raise UserError(f"--set {item!r}: {e}") from None
        except ValueError as e:
            raise UserError(f"--set {item!r}: {e}") from None


def load_scenario(path: str, sets: Sequence[str] | None = None) -> Scenario:
    try:
        sc = Scenario.load(path)
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, not a scenario file") from None
    except PermissionError:
        raise UserError(f"{path}: permission denied") from None
    except OSError as e:
        raise UserError(f"{path}: {e.strerror or e}") from None
    apply_sets(sc, sets)
    return sc


# --------------------------------------------------------------------------------------------
# commands


def cmd_run(args: argparse.Namespace) -> int:
    import airtcp

    sc = load_scenario(args.file, args.set)
    t0 = time.perf_counter()
    result = airtcp.run(sc, seed=args.seed)
    wall = time.perf_counter() - t0
    src = f" ({args.file})" if args.file else ""
    print(f"scenario {result.summary.get('name', '?')}{src}")
    print()
    if result.raw.get("flows"):
        print(flows_table(result))
    else:
        print("no flows")
    print()
    lt = links_table(result, all_links=args.all_links)
    if lt is None:
        print("links: no drops")
    else:
        print("link directions" if args.all_links else "links with drops")
        print(lt)
    print()
    print(summary_line(result, wall))
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    if args.parquet:
        paths = result.to_parquet(args.parquet)
        print(f"wrote {paths['flows']} and {paths['links']}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    sc = load_scenario(args.file, args.set)
    sc.validate()
    d = sc.data
    print(
        f"ok: {args.file} is valid ({len(d.get('nodes', []))} nodes, "
        f"{len(d.get('links', []))} links, {len(d.get('flows', []))} flows, "
        f"duration {d.get('duration')}, seed {d.get('seed', 1)})"
    )
    return 0


def cmd_schemes(args: argparse.Namespace) -> int:
    rows = [[n, d] for n, d in _core.schemes()]
    print(table(rows, ["scheme", "description"], "ll"))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    return bench.run_cli(args)


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return demo.run_cli(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="airtcp",
        description="Packet-level simulator for TCP over error-prone wireless networks.",
    )
    p.add_argument("--version", action="version", version=f"airtcp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    set_help = (
        "change a scenario value before running: PATH=VALUE, e.g. links.R2-D1.error.per=0.02, "
        "flows.*.cc=newreno, duration=10s (repeatable)"
    )

    r = sub.add_parser("run", help="run a scenario file and print flow and link tables")
    r.add_argument("file", metavar="FILE.toml", help="scenario file (TOML, or .json)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--json", metavar="OUT", help="write the full result as JSON to OUT")
    r.add_argument(
        "--parquet", metavar="OUTDIR", help="write flows.parquet and links.parquet into OUTDIR"
    )
    r.add_argument(
        "--set", metavar="PATH=VALUE", action="extend", nargs="+", default=[], help=set_help
    )
    r.add_argument(
        "--all-links",
        action="store_true",
        help="list every link direction, not only those with drops",
    )
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("file", metavar="FILE.toml")
    v.add_argument(
        "--set", metavar="PATH=VALUE", action="extend", nargs="+", default=[], help=set_help
    )
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser("schemes", help="list congestion-control schemes")
    s.set_defaults(func=cmd_schemes)

    from . import bench, demo

    b = sub.add_parser("bench", help="measure simulator speed and memory on fixed scenarios")
    bench.add_arguments(b)
    b.set_defaults(func=cmd_bench)

    d = sub.add_parser("demo", help="a small packet-error-rate sweep with a plot")
    demo.add_arguments(d)
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USER
    except _core.ScenarioError as e:
        msg = e.args[0] if e.args else str(e)
        print(f"error: {msg}", file=sys.stderr)
        return EXIT_USER
    except _core.SimulationError as e:
        msg = e.args[0] if e.args else str(e)
        print(f"error: {msg}", file=sys.stderr)
        print("this is a simulator bug; please report it with the scenario", file=sys.stderr)
        return EXIT_INTERNAL
    except OSError as e:  # writing outputs: a directory in the way, no permission, disk full
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `airtcp run x.toml | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
