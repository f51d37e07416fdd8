"""The ``airtcp`` command line: run, validate, schemes, params, sweep, export, reproduce, report,
docs-tables, bench, demo.

User errors (a missing file, a bad scenario, a bad ``--set``) print ``error: <message>`` on
stderr and exit with status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__, _core
from ._common import UserError, parse_value, table
from .budgets import partial_banner
from .result import Result
from .scenario import PathError, Scenario

EXIT_USER = 2
EXIT_INTERNAL = 1


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
    flows = result.raw.get("flows", [])
    # A finite transfer's completion time is its headline figure; show it when there is one.
    files = any(f.get("app") == "file" for f in flows)
    for f in flows:
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
            + ([_f(f.get("completion_time_s"), ".3f")] if files else [])
        )
    header = ["flow", "cc", "goodput kbps", "retx", "timeouts", "avg cwnd", "rtt mean ms"]
    if files:
        header.append("completed s")
    return table(rows, header, "ll" + "r" * (len(header) - 2))


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


def routing_table(result: Result) -> str | None:
    """One row per node with a routing protocol: its control traffic, discoveries, breaks."""
    rows = [
        [
            m.get("node"),
            m.get("kind"),
            m.get("control_packets", 0),
            m.get("control_bytes", 0),
            m.get("rreq_packets", 0),
            m.get("rrep_packets", 0),
            m.get("rerr_packets", 0),
            m.get("hello_packets", 0),
            m.get("tc_packets", 0),
            m.get("discoveries", 0),
            m.get("route_breaks", 0),
        ]
        for m in result.raw.get("routing", [])
    ]
    if not rows:
        return None
    header = ["node", "protocol", "control pkts", "control bytes", "rreq", "rrep", "rerr"]
    header += ["hello", "tc", "discoveries", "route breaks"]
    return table(rows, header, "ll" + "r" * (len(header) - 2))


def macs_table(result: Result) -> str | None:
    """One row per station of a shared medium: what its MAC sent, lost and sensed."""
    rows = []
    for m in result.raw.get("macs", []):
        rows.append(
            [
                m.get("node"),
                m.get("data_frames", 0),
                m.get("retries", 0),
                m.get("failed_collision", 0),
                m.get("failed_channel", 0),
                m.get("drops_retry_limit", 0),
                m.get("drops_queue_overflow", 0),
                _f(m.get("busy_fraction"), ".1f", 100.0),
                _f(m.get("mean_queue_packets"), ".2f"),
            ]
        )
    if not rows:
        return None
    return table(
        rows,
        [
            "station",
            "data frames",
            "retries",
            "failed: collision",
            "failed: channel",
            "drops: retry limit",
            "drops: queue",
            "busy %",
            "mean queue",
        ],
        "lrrrrrrrr",
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


def apply_sets(sc: Scenario, sets: Sequence[str] | None) -> None:
    for item in sets or []:
        if "=" not in item:
            raise UserError(f"--set {item!r}: expected PATH=VALUE")
        path, _, value = item.partition("=")
        path = path.strip()
        try:
            sc.set(path, parse_value(value.strip()))
        except (PathError, ValueError) as e:
            msg = str(e)
            # The path errors already start with the path: say it once.
            for prefix in (f"{path}: ", f"{path!r}: "):
                if msg.startswith(prefix):
                    msg = msg[len(prefix) :]
            raise UserError(f"--set {path}={value.strip()}: {msg}") from None


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
    if args.pcap:
        # What the scenario's trace.pcap names (every node and 802.11 medium if nothing).
        sc.set("trace.pcap_dir", args.pcap)
        if not sc.data["trace"].get("pcap"):
            sc.set("trace.pcap", ["*"])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        # The partial result is announced below, in its place.
        warnings.simplefilter("ignore", airtcp.PartialResultWarning)
        result = airtcp.run(
            sc,
            seed=args.seed,
            allow_paths=args.allow_path,
            memory_budget=args.memory_budget,
            timeout=args.timeout,
            progress=not args.no_progress,
        )
    wall = time.perf_counter() - t0
    src = f" ({args.file})" if args.file else ""
    partial = result.partial
    if partial:
        print(partial_banner(partial))
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
    mt = macs_table(result)
    if mt is not None:
        print()
        print("wifi stations")
        print(mt)
    rt = routing_table(result)
    if rt is not None:
        print()
        print("routing")
        print(rt)
    print()
    print(summary_line(result, wall))
    if args.pcap:
        print(f"wrote packet traces into {args.pcap}")
    if args.json:
        result.to_json(args.json)
        print(f"wrote {args.json}")
    if args.parquet:
        paths = result.to_parquet(args.parquet)
        print("wrote " + ", ".join(str(p) for p in paths.values()))
    if partial:
        print(partial_banner(partial), file=sys.stderr)
        return 130
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    sc = load_scenario(args.file, args.set)
    sc.validate(allow_paths=args.allow_path)
    d = sc.data
    print(
        f"ok: {args.file} is valid ({len(d.get('nodes', []))} nodes, "
        f"{len(d.get('links', []))} links, {len(d.get('flows', []))} flows, "
        f"duration {d.get('duration')}, seed {d.get('seed', 1)})"
    )
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from .view import view

    src = args.file
    if not str(src).endswith(".json") or args.set:
        src = load_scenario(args.file, args.set)
    view(
        src,
        args.output,
        scenario=args.scenario,
        interval=args.interval,
        allow_paths=args.allow_path,
    )
    print(f"wrote {args.output}")
    return 0


def _num(v: float) -> str:
    return f"{v:g}"


def cmd_schemes(args: argparse.Namespace) -> int:
    import textwrap

    from . import scheme_info

    width = 100
    for s in scheme_info():
        print(f"{s['name']}  (recovery: {s['recovery']})")
        print(
            textwrap.fill(s["description"], width, initial_indent="    ", subsequent_indent="    ")
        )
        params = s["params"]
        if not args.params:
            if params:
                text = ", ".join(f"{p['name']} = {_num(p['default'])}" for p in params)
                print(
                    textwrap.fill(
                        "cc_params: " + text,
                        width,
                        initial_indent="    ",
                        subsequent_indent="      ",
                    )
                )
            continue
        if not params:
            print("    cc_params: none")
        for p in params:
            head = f"    {p['name']} = {_num(p['default'])}"
            if p["ns3_default"] is not None:
                head += f" (ns3 profile: {_num(p['ns3_default'])})"
            print(head)
            print(
                textwrap.fill(
                    p["description"], width, initial_indent="        ", subsequent_indent="        "
                )
            )
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    from . import scenario_keys

    rows = scenario_keys.params(args.section, args.search)
    if not rows:
        what = f" matching {args.search!r}" if args.search else ""
        raise UserError(f"no scenario key{what}" + (f" in {args.section}" if args.section else ""))
    if args.json:
        print(json.dumps(rows, indent=1))
    elif args.markdown:
        print(scenario_keys.markdown(rows), end="")
    else:
        print(scenario_keys.text(rows, empty=not args.search))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    return bench.run_cli(args)


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return demo.run_cli(args)


def _positive(name: str, v: int | None, minimum: int = 1) -> None:
    if v is not None and v < minimum:
        raise UserError(f"{name} must be >= {minimum}, got {v}")


def _sweep_grid(sc: Scenario, items: Sequence[str]) -> dict[str, list[Any]]:
    """``--set PATH=V1,V2`` items as a grid; every path is checked against the scenario (with
    the first value of each axis applied in turn) before anything runs."""
    from .sweeps import parse_axis

    grid: dict[str, list[Any]] = {}
    probe = sc.copy()
    for item in items:
        try:
            path, values = parse_axis(item)
        except ValueError as e:
            raise UserError(f"--set {item!r}: {e}") from None
        if path == "seed":
            raise UserError(
                f"--set {item!r}: the seed is not a grid axis; use --seeds and --seed-start"
            )
        if path in grid:
            raise UserError(f"--set {item!r}: {path} is set twice")
        canon = [json.dumps(v, sort_keys=True) for v in values]
        if len(set(canon)) != len(canon):
            raise UserError(f"--set {item!r}: a value is given twice")
        try:
            probe.set(path, values[0])
        except (PathError, ValueError) as e:
            msg = str(e)
            # The path errors already start with the path: say it once.
            if msg.startswith(f"{path}: "):
                msg = msg[len(path) + 2 :]
            raise UserError(f"--set {item!r}: {msg}") from None
        grid[path] = values
    return grid


def _points_table(df: Any, axes: Sequence[str], limit: int = 40) -> str:
    rows = []
    for r in df.head(limit).iter_rows(named=True):
        g, ci = r["goodput_bps"], r["goodput_ci_bps"]
        rows.append(
            [
                *(_cellv(r[a]) for a in axes),
                r["ok"],
                r["failed"],
                "-" if g is None or g != g else f"{g / 1e3:.1f}",
                "-" if ci is None or ci != ci else f"±{ci / 1e3:.1f}",
                "-"
                if r["fairness"] is None or r["fairness"] != r["fairness"]
                else f"{r['fairness']:.3f}",
            ]
        )
    text = table(
        rows,
        [*axes, "ok", "failed", "goodput kbps (all flows)", "95% CI", "fairness"],
        "l" * len(axes) + "rrrrr",
    )
    if df.height > limit:
        text += f"\n... {df.height - limit} more points (airtcp export STORE for everything)"
    return text


def _cellv(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


BUILDERS = ("dumbbell", "chain", "cross", "grid")


def _builder_grid(builder: Any, items: Sequence[str]) -> dict[str, list[Any]]:
    """``--set`` axes of a builder sweep: the builder's arguments and scenario paths; the
    paths are checked against the scenario the first value of each argument builds."""
    from .sweeps import parse_axis
    from .sweeps.plan import builder_axes

    args: dict[str, list[Any]] = {}
    paths: list[str] = []
    for item in items:
        try:
            path, values = parse_axis(item)
        except ValueError as e:
            raise UserError(f"--set {item!r}: {e}") from None
        if path in args or path in paths:
            raise UserError(f"--set {item!r}: {path} is set twice")
        if builder_axes(builder, [path]):
            args[path] = values
        else:
            paths.append(item)
    try:
        sc = builder(**{k: v[0] for k, v in args.items()})
    except (TypeError, ValueError) as e:
        raise UserError(f"--builder {builder.__name__}: {e}") from None
    return {**args, **_sweep_grid(sc, paths)}


def cmd_sweep(args: argparse.Namespace) -> int:
    from . import builders
    from .store import Store, StoreError
    from .sweeps import DaskError, point_table, run_sweep

    source: Any
    if (args.file is None) == (args.builder is None):
        raise UserError("give a scenario FILE or --builder NAME (one of them)")
    if args.builder is not None:
        source = getattr(builders, args.builder)
        grid = _builder_grid(source, args.set)
        name = args.name or args.builder
    else:
        source = load_scenario(args.file)
        grid = _sweep_grid(source, args.set)
        name = args.name or (
            str(source.data["name"]) if "name" in source.data else Path(args.file).stem
        )
    _positive("--seeds", args.seeds)
    _positive("--seed-start", args.seed_start, 0)
    _positive("--workers", args.workers)
    try:
        # run_sweep checks every grid value against the scenario before it opens the store,
        # so a mistyped value leaves no store behind.
        outcome = run_sweep(
            source,
            grid,
            seeds=args.seeds,
            seed_start=args.seed_start,
            store=args.store,
            workers=args.workers,
            dask=args.dask,
            name=name,
            trace=args.trace,
            retry_failed=args.retry_failed,
            progress=not args.quiet,
            allow_paths=args.allow_path,
            memory_budget=args.memory_budget,
            timeout=args.run_timeout,
        )
    except (DaskError, StoreError) as e:
        raise UserError(str(e)) from None
    except KeyboardInterrupt:
        print(
            f"interrupted: finished runs are in {args.store}; run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    except (PathError, ValueError) as e:
        if isinstance(e, _core.ScenarioError):
            raise
        raise UserError(str(e)) from None
    with Store(outcome.store) as st:
        print(_points_table(point_table(st, outcome), list(grid)))
    print(outcome.summary(), file=sys.stderr)
    if outcome.aborted:
        print(
            f"error: {outcome.aborted}; finished runs are in {outcome.store}, rerun to resume",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .store import MixedSweepsWarning, Store, StoreError

    if not Path(args.store).is_file():
        raise UserError(
            f"{args.store}: no such store (`airtcp sweep ... --store {args.store}` makes one)"
        )
    try:
        with Store(args.store, create=False) as st, warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", MixedSweepsWarning)
            paths = st.export(args.out, fmt=args.format, sweep=args.sweep)
    except StoreError as e:
        raise UserError(str(e)) from None
    for w in seen:
        print(f"warning: {w.message}", file=sys.stderr)
    for p in paths.values():
        print(f"wrote {p}")
    return 0


def _paper(key: str) -> Any:
    from . import papers

    try:
        return papers.get(key)
    except KeyError as e:
        raise UserError(str(e.args[0])) from None


def _print_claims(report: Any) -> None:
    # One claim a line: the outcome in a fixed-width first field (capitals for the outcome
    # that contradicts the paper), the statement, the id in brackets.
    labels = {"supported": "supported", "not supported": "NOT supported"}
    for cid, statement, outcome in report.claims:
        print(f"{labels.get(outcome, str(outcome)):<13}  {statement} [{cid}]")
        rob = getattr(report, "robustness", None)
        if rob is not None and rob.deciders.get(cid):
            # The verdict changes under another reading: say which.
            print(f"{'':<13}  turns on: {', '.join(rob.deciders[cid])}")
    print(f"report: {report.path}")


def _readings_arg(paper: Any, args: argparse.Namespace) -> bool | list[str]:
    """--no-readings / --reading NAME... as papers.reproduce takes them."""
    if args.no_readings and args.reading:
        raise UserError("--no-readings and --reading exclude each other")
    if args.no_readings:
        return False
    if not args.reading:
        return True
    known = [r.name for r in paper.readings]
    bad = [n for n in args.reading if n not in known]
    if bad:
        raise UserError(
            f"paper {paper.key} has no reading {', '.join(map(repr, bad))}; "
            f"its readings: {', '.join(known) or 'none'}"
        )
    return list(args.reading)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from . import papers
    from .store import StoreError
    from .sweeps import DaskError

    if args.list:
        rows = [[k, p.title] for k, p in papers.papers().items()]
        print(table(rows, ["paper", "title"], "ll"))
        return 0
    if not args.paper:
        raise UserError("which paper? `airtcp reproduce --list` lists them")
    paper = _paper(args.paper)
    _positive("--seeds", args.seeds)
    _positive("--workers", args.workers)
    try:
        report = papers.reproduce(
            paper,
            quick=args.quick,
            seeds=args.seeds,
            store=args.store,
            out=args.out,
            workers=args.workers,
            dask=args.dask,
            retry_failed=args.retry_failed,
            progress=not args.quiet,
            log=lambda s: print(s, file=sys.stderr),
            readings=_readings_arg(paper, args),
        )
    except (DaskError, StoreError, papers.MissingRuns) as e:
        raise UserError(str(e)) from None
    _print_claims(report)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from . import papers
    from .report import write_report
    from .store import StoreError

    paper = _paper(args.paper)
    _positive("--seeds", args.seeds)
    store = Path(args.store) if args.store else papers.default_store(paper.key, args.out)
    quick = " --quick" if args.quick else ""
    if not store.is_file():
        raise UserError(
            f"{store}: no such store; run `airtcp reproduce {paper.key}{quick}` first "
            "(or give --store)"
        )
    try:
        report = write_report(
            paper,
            store,
            out=args.out,
            quick=args.quick,
            seeds=args.seeds,
            readings=_readings_arg(paper, args),
        )
    except (StoreError, papers.MissingRuns) as e:
        raise UserError(str(e)) from None
    _print_claims(report)
    return 0


def cmd_docs_tables(args: argparse.Namespace) -> int:
    from . import docgen, papers
    from .store import StoreError
    from .sweeps import DaskError

    _positive("--workers", args.workers)
    docs = Path(args.docs)
    if not docs.exists():
        raise UserError(f"{docs}: no such file or directory")
    if args.list:
        rows = [[n, src] for n, src in sorted(docgen.known_names().items())]
        print(table(rows, ["region", "numbers from"], "ll"))
        return 0
    if args.check:
        # Nothing runs: the committed pages' prose against their generated regions.
        try:
            found = docgen.check_prose(docs)
        except docgen.DocGenError as e:
            raise UserError(str(e)) from None
        for f in found:
            print(f)
        pages = docgen.prose_pages(docs)
        if found:
            print(
                f"error: {len(found)} typed figure(s) disagree with the generated regions",
                file=sys.stderr,
            )
            return EXIT_INTERNAL
        print(f"{len(pages)} page(s): no typed figure disagrees with the generated regions")
        if not args.stale:
            return 0
    try:
        changed = docgen.generate(
            docs,
            quick=args.quick,
            out=args.out,
            workers=args.workers,
            only=args.only or None,
            write=not args.stale,
            log=None if args.quiet else (lambda s: print(s, file=sys.stderr)),
        )
    except (docgen.DocGenError, DaskError, StoreError, papers.MissingRuns) as e:
        raise UserError(str(e)) from None
    stale = [f for f, c in changed.items() if c]
    for f, c in changed.items():
        state = ("out of date" if args.stale else "rewritten") if c else "up to date"
        print(f"{state:<11}  {f}")
    if args.stale and stale:
        print(f"error: {len(stale)} file(s) out of date; run airtcp docs-tables", file=sys.stderr)
        return EXIT_INTERNAL
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="airtcp",
        description="Packet-level simulator for TCP over error-prone wireless networks.",
    )
    p.add_argument("--version", action="version", version=f"airtcp {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    allow_help = (
        "let the scenario read files (SNR traces) below DIR too; by default a path is read "
        "relative to the scenario file and may not lead outside its directory (repeatable)"
    )

    def allow_path(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--allow-path", metavar="DIR", action="append", default=[], help=allow_help
        )

    set_help = (
        "change a scenario value before running: PATH=VALUE, e.g. links.R2-D1.error.per=0.02, "
        "flows.*.cc=newreno, duration=10s (repeatable)"
    )

    def budgets(parser: argparse.ArgumentParser, timeout: str) -> None:
        parser.add_argument(
            "--memory-budget",
            metavar="SIZE",
            help="memory a run may hold for what grows with its input (e.g. 2GiB; default: "
            "the scenario's memory_budget, else a quarter of the memory available, shared "
            "by a sweep's local workers)",
        )
        parser.add_argument(
            timeout,
            metavar="SECONDS",
            help="wall-time budget of a run (e.g. 600 or 10min); a run past it stops with "
            "an error" + (" and is recorded failed" if timeout == "--run-timeout" else ""),
        )

    r = sub.add_parser("run", help="run a scenario file and print flow and link tables")
    r.add_argument("file", metavar="FILE.toml", help="scenario file (TOML, or .json)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--json", metavar="OUT", help="write the full result as JSON to OUT")
    r.add_argument(
        "--parquet",
        metavar="OUTDIR",
        help="write flows.parquet and links.parquet into OUTDIR, and series.parquet "
        "(cwnd, queue) and verdicts.parquet when the scenario records them",
    )
    r.add_argument("--set", metavar="PATH=VALUE", action="append", default=[], help=set_help)
    r.add_argument(
        "--pcap",
        metavar="DIR",
        help="write packet traces (pcap) into DIR: of the nodes and 802.11 media the "
        "scenario's trace.pcap names, or of all of them",
    )
    r.add_argument(
        "--all-links",
        action="store_true",
        help="list every link direction, not only those with drops",
    )
    budgets(r, "--timeout")
    r.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (by default shown once a run has taken 2 s)",
    )
    allow_path(r)
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("file", metavar="FILE.toml")
    v.add_argument("--set", metavar="PATH=VALUE", action="append", default=[], help=set_help)
    allow_path(v)
    v.set_defaults(func=cmd_validate)

    vw = sub.add_parser(
        "view",
        help="draw a scenario or a run's result as a self-contained HTML page (positions, "
        "who hears whom, routes; animated when nodes move)",
    )
    vw.add_argument("file", metavar="SCENARIO_OR_RESULT")
    vw.add_argument("-o", "--output", default="view.html", help="the HTML file (view.html)")
    vw.add_argument(
        "--scenario", default=None, help="the scenario of a result file (ranges and routes)"
    )
    vw.add_argument("--interval", type=float, default=None, help="seconds between animation frames")
    vw.add_argument("--set", metavar="PATH=VALUE", action="append", default=[], help=set_help)
    allow_path(vw)
    vw.set_defaults(func=cmd_view)

    s = sub.add_parser(
        "schemes",
        help="list congestion-control schemes",
        description=(
            'List the congestion-control schemes a flow can use (cc = "NAME" in a scenario, '
            "--set 'flows.*.cc=NAME', or the builders' cc=): each with its default loss "
            "recovery, what it is and its cc_params with their defaults (the same declarations "
            "the core checks a flow's cc_params table against). The ns3 profile's defaults are "
            "shown where ns-3.44 departs from the scheme's source (docs/tcp_profiles.md); each "
            "scheme's page in docs/schemes/ gives the sources."
        ),
    )
    s.add_argument(
        "--params",
        action="store_true",
        help="list each parameter on its own line with its description and ns3 profile default",
    )
    s.set_defaults(func=cmd_schemes)

    pa = sub.add_parser(
        "params",
        help="list every scenario key: type, unit, default, range, description",
        description=(
            "List the keys a scenario file takes, by section (globals, budgets, nodes, links, "
            "media, flows, apps, tcp, queues, errors, agents, trace), tagged tables by kind or "
            "model: each key's type, unit, default, range and description. The list comes from "
            "the core's key table, the one the validator's range checks and errors use; "
            "docs/scenario.md's key reference is generated from it. A flow's cc_params are "
            "listed by `airtcp schemes --params`."
        ),
    )
    pa.add_argument(
        "section",
        nargs="?",
        help="only this section (a name, a unique prefix or an alias such as hooks, wifi)",
    )
    pa.add_argument("--search", metavar="WORD", help="only keys whose path or text has WORD")
    fmt = pa.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the rows as JSON")
    fmt.add_argument("--markdown", action="store_true", help="Markdown tables (as in the docs)")
    pa.set_defaults(func=cmd_params)

    sw = sub.add_parser(
        "sweep",
        help="run a scenario over a grid of values and seeds into a results store",
        description=(
            "Run FILE (or the scenarios --builder builds) at every point of the grid given by "
            "--set PATH=V1,V2,... (cross product of all --set axes) with seeds --seed-start .. "
            "--seed-start+N-1, on a local process pool or a dask cluster. Every finished run "
            "is written to the store; runs already there are skipped, so an interrupted sweep "
            "resumes where it stopped."
        ),
    )
    sw.add_argument("file", metavar="FILE.toml", nargs="?", help="scenario file (TOML, or .json)")
    sw.add_argument(
        "--builder",
        choices=BUILDERS,
        help="build each point's scenario with this builder (airtcp.chain, ...) instead of "
        "reading FILE; --set axes named after its arguments (hops=1,2,4, n_flows, spacing, "
        "per, duration, ...) go to it, the others are scenario paths",
    )
    sw.add_argument(
        "--set",
        metavar="PATH=V1,V2",
        action="append",
        default=[],
        help="a grid axis: a scenario path (or, with --builder, a builder argument) and "
        "comma-separated values, each read like a --set value of `airtcp run` (e.g. "
        "links.R2-D1.error.per=0,0.01,0.05 or 'flows.*.cc=newreno,westwood+'); repeatable, "
        "one axis each",
    )
    sw.add_argument("--seeds", type=int, default=10, metavar="N", help="seeds per point (10)")
    sw.add_argument(
        "--seed-start", type=int, default=1, metavar="S", help="first seed (1): seeds S..S+N-1"
    )
    sw.add_argument(
        "--store",
        default="out/store.sqlite",
        metavar="PATH",
        help="results database (SQLite; default out/store.sqlite)",
    )
    sw.add_argument("--workers", type=int, metavar="N", help="local worker processes (cores)")
    sw.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a dask.distributed scheduler (tcp://host:8786), or 'local' for a local "
        "cluster of worker processes",
    )
    sw.add_argument("--name", help="sweep name in the store (default: the scenario's name)")
    sw.add_argument(
        "--trace",
        action="store_true",
        help="record cwnd and queue time series (Parquet files beside the store)",
    )
    sw.add_argument(
        "--retry-failed",
        action="store_true",
        help="run again the runs that failed before (by default they are skipped)",
    )
    sw.add_argument("--quiet", action="store_true", help="no progress output")
    budgets(sw, "--run-timeout")
    allow_path(sw)
    sw.set_defaults(func=cmd_sweep)

    ex = sub.add_parser(
        "export",
        help="write a store's runs, flows, links and other tables, and the runs' time series",
    )
    ex.add_argument("store", metavar="STORE", help="results database")
    ex.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default="parquet",
        help="file format of the tables: parquet (default; typed columns, compact) or csv",
    )
    ex.add_argument("--out", required=True, metavar="DIR", help="output directory")
    ex.add_argument(
        "--sweep",
        metavar="NAME",
        help="only the runs of this sweep (every table has a sweep column; without --sweep a "
        "store of several sweeps is written whole, with a warning)",
    )
    ex.set_defaults(func=cmd_export)

    def add_readings(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--no-readings",
            action="store_true",
            help="leave out the robustness table (the paper's readings and setup axes)",
        )
        parser.add_argument(
            "--reading",
            action="append",
            metavar="NAME",
            help="decide the claims under this reading or axis only (repeatable; default: "
            "all the paper declares; --quick runs the default and one alternative of each)",
        )

    rp = sub.add_parser(
        "reproduce",
        help="run a paper's sweeps (what the store lacks) and write its HTML report",
    )
    rp.add_argument("paper", nargs="?", help="paper key (see --list)")
    rp.add_argument("--list", action="store_true", help="list the papers")
    rp.add_argument("--quick", action="store_true", help="CI-sized: short runs, fewer points")
    rp.add_argument("--seeds", type=int, metavar="N", help="seeds per point (paper's default)")
    rp.add_argument("--dask", metavar="ADDRESS", help="dask scheduler address, or 'local'")
    rp.add_argument("--workers", type=int, metavar="N", help="local worker processes (cores)")
    rp.add_argument(
        "--store", metavar="PATH", help="results database (default OUT/<paper>/runs.sqlite)"
    )
    rp.add_argument("--out", default="reports", metavar="DIR", help="reports directory")
    rp.add_argument("--retry-failed", action="store_true", help="rerun failed runs")
    rp.add_argument("--quiet", action="store_true", help="no progress output")
    add_readings(rp)
    rp.set_defaults(func=cmd_reproduce)

    rr = sub.add_parser("report", help="rebuild a paper's HTML report from the store only")
    rr.add_argument("paper", help="paper key (see airtcp reproduce --list)")
    rr.add_argument("--quick", action="store_true", help="the quick-sized runs")
    rr.add_argument("--seeds", type=int, metavar="N", help="seeds per point (paper's default)")
    rr.add_argument(
        "--store", metavar="PATH", help="results database (default OUT/<paper>/runs.sqlite)"
    )
    rr.add_argument("--out", default="reports", metavar="DIR", help="reports directory")
    add_readings(rr)
    rr.set_defaults(func=cmd_report)

    dt = sub.add_parser(
        "docs-tables",
        help="regenerate the tables in the docs that come from runs",
        description=(
            "Rewrite every region of the Markdown files under DOCS marked "
            "<!-- BEGIN generated:NAME --> ... <!-- END generated:NAME --> from runs: a "
            "paper's tables from its reproduction (runs the store lacks are run first, into "
            "OUT/<paper>/runs.sqlite), the other tables from the fixed experiments they name. "
            "Text outside the markers is left as it is."
        ),
    )
    dt.add_argument("--docs", default="docs", metavar="DIR", help="docs directory or file")
    dt.add_argument(
        "--quick",
        action="store_true",
        help="from the quick reproductions (fast; the tables say they are quick-sized)",
    )
    dt.add_argument("--out", default="reports", metavar="DIR", help="reports directory (stores)")
    dt.add_argument("--workers", type=int, metavar="N", help="local worker processes")
    dt.add_argument("--only", action="append", metavar="NAME", help="only this region (repeatable)")
    dt.add_argument(
        "--check",
        action="store_true",
        help="run nothing: exit 1 if a figure typed in a scheme page's prose disagrees with "
        "the page's generated tables and sentences",
    )
    dt.add_argument(
        "--stale",
        action="store_true",
        help="regenerate in memory, write nothing; exit 1 if a file would change",
    )
    dt.add_argument("--list", action="store_true", help="list the region names and sources")
    dt.add_argument("--quiet", action="store_true", help="no progress output")
    dt.set_defaults(func=cmd_docs_tables)

    from . import bench, demo, emulate_cli

    em = sub.add_parser(
        "emulate",
        help="run a scenario's flows as real Linux TCP over its links, emulated in real time "
        "(root)",
    )
    emulate_cli.add_arguments(em, set_help)

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
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USER
    except _core.SimulationError as e:
        print(f"error: {e}", file=sys.stderr)
        print("this is a simulator bug; please report it with the scenario", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:  # e.g. `airtcp run x.toml | head`: the reader has gone
        # Python would report the pipe again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as e:  # writing outputs: a directory in the way, no permission, disk full
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_USER
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
