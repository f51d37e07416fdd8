"""``airtcp emulate``: run a scenario's flows as real Linux TCP over its emulated links."""

from __future__ import annotations

import argparse
import sys
import time
import warnings


def add_arguments(p: argparse.ArgumentParser, set_help: str) -> None:
    p.add_argument("file", metavar="FILE.toml", help="scenario file (TOML, or .json)")
    p.add_argument("--seed", type=int, help="override the scenario's seed (link models' streams)")
    p.add_argument(
        "--duration",
        metavar="SECONDS",
        help="run this long (wall time) instead of the scenario's duration, e.g. 5 or 5s",
    )
    p.add_argument("--set", metavar="PATH=VALUE", action="append", default=[], help=set_help)
    p.add_argument("--json", metavar="OUT", help="write the full result as JSON to OUT")
    p.add_argument("--parquet", metavar="OUTDIR", help="write the result tables into OUTDIR")
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail (status 3) when the emulator cannot keep up (p99 lateness > 1 ms, or "
        "packets dropped before it read them) "
        "instead of marking the result late",
    )
    p.add_argument(
        "--all-links", action="store_true", help="list every link direction, not only drops"
    )
    p.add_argument(
        "--allow-path",
        metavar="DIR",
        action="append",
        default=None,
        help="a directory outside the scenario's own from which it may read files",
    )
    p.set_defaults(func=cmd_emulate)


def cmd_emulate(args: argparse.Namespace) -> int:
    from .cli import flows_table, links_table, load_scenario, macs_table, summary_line
    from .emulate import EmulationError, EmulationLateWarning, emulate

    sc = load_scenario(args.file, args.set)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # Lateness is printed below with the rest.
            warnings.simplefilter("ignore", EmulationLateWarning)
            result = emulate(
                sc,
                seed=args.seed,
                duration=args.duration,
                allow_paths=args.allow_path,
                strict=args.strict,
            )
    except EmulationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    wall = time.perf_counter() - t0
    print(f"scenario {result.summary.get('name', '?')} ({args.file}), emulated: Linux TCP")
    print()
    print(flows_table(result) if result.raw.get("flows") else "no flows")
    print()
    lt = links_table(result, all_links=args.all_links)
    if lt is None:
        print("links: no drops")
    else:
        print("link directions" if args.all_links else "links with drops")
        print(lt)
    mt = macs_table(result)
    if mt is not None:
        print()
        print("wifi stations")
        print(mt)
    print()
    # The simulator's summary line, less the figures an emulation has none of (events).
    line = summary_line(result, wall).replace(
        " s simulated, 0 events, 0 packet-hops", " s emulated"
    )
    print(line)
    em = result.raw["emulation"]
    lat = em["lateness_us"]
    verdict = "LATE: the emulated path was slower than the scenario's" if em["late"] else "ok"
    print(
        f"emulator lateness over {lat['packets']:,} packets: p50 {lat['p50_us']:.0f} µs, "
        f"p99 {lat['p99_us']:.0f} µs, max {lat['max_us']:.0f} µs "
        f"(bound p99 {em['late_bound_p99_ms']:g} ms)"
        + (
            f", {em['tun_dropped']:,} dropped before the emulator read them"
            if em["tun_dropped"]
            else ""
        )
        + f": {verdict}"
    )
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    if args.parquet:
        paths = result.to_parquet(args.parquet)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    return 0
