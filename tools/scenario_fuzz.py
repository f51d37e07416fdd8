"""Hostile scenarios: valid ones from scenarios/*.toml (and a few that use every table kind),
mutated with wrong types, extreme numbers, NaN/inf, huge and tiny durations and rates, deep
nesting, unknown keys, missing tables and paths to files that must not be read; and the
verdict on one run of such a scenario.

A run passes when it ends normally with packets conserved, or with a ScenarioError (from the
CLI: exit 2 and ``error: <path>: ...``) that names a field, or is stopped by one of its
budgets (events, memory, wall time: a BudgetError naming a field, its partial result
conserving packets), counted apart as ``budget``. Anything else is a finding:
another exception (a traceback), a panic in the core (SimulationError), and, in the campaign
(tools/fuzz_campaign.py), a process that aborts or hangs.

The suite (tests/test_hostile.py) draws cases through Hypothesis; the campaign draws them
from seeded random generators. Both use :func:`mutate` and :func:`run_case`.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import decimal
import io
import json
import math
import os
import random
import re
import tempfile
from pathlib import Path
from typing import Any

import airtcp
from airtcp.scenario import tomllib

ROOT = Path(__file__).resolve().parent.parent

#: Events a case may process: with short durations, a run stays well under a second.
EVENT_CAP = 300_000
#: Simulated time of the base scenarios.
DURATION = "1s"
#: Budgets every case runs with (``airtcp.run`` keywords: ``memory_budget``, ``timeout``);
#: the campaign sets them, the suite leaves the defaults.
LIMITS: dict[str, Any] = {}

#: How the command line says a budget stopped the run, by budget.
_BUDGET_TEXT = {
    "memory_budget": "the run's memory budget of ",
    "timeout": "the run's time budget of ",
    "max_events": "the run reached its budget of ",
}


# --------------------------------------------------------------------------------------------
# Base scenarios


def _kitchen_sink(d: dict[str, Any]) -> dict[str, Any]:
    """The dumbbell with every kind of table the schema has: queue kinds, error models,
    apps, agents, ARQ, traces."""
    d = copy.deepcopy(d)
    links = d["links"]
    links[0]["queue"] = {"kind": "red", "limit": 30, "gentle": True, "ecn": True}
    links[1]["queue"] = {"kind": "mecn", "limit": 30, "unit": "packets"}
    links[2]["queue"] = {"kind": "wmecn", "limit": 20, "min_threshold": 5, "max_threshold": 15}
    links[3]["error"] = {
        "model": "gilbert_elliott",
        "mean_good": "200ms",
        "mean_bad": "20ms",
        "per_bad": 0.5,
    }
    links[3]["arq"] = {"retry_limit": 3, "ack_bytes": 14}
    links[4]["error_ab"] = {"model": "snr", "modulation": "cck11", "trace": "walk.csv"}
    links[4]["error_ba"] = {"model": "list", "packets": [3, 4, 9]}
    links[4]["queue"] = {"kind": "ecn_threshold", "limit": 50, "mark_threshold": 10}
    d["flows"][0]["app"] = {"kind": "file", "size": "200KB"}
    d["flows"][0]["tcp"] = {"sack": True, "delayed_ack": True, "profile": "linux"}
    d["flows"][0]["cc"] = "veno"
    d["flows"][0]["cc_params"] = {"beta": 3}
    d["flows"][1] = {
        "src": "S2",
        "dst": "D2",
        "app": {"kind": "onoff", "rate": "300kbps", "on_mean": "50ms", "off_mean": "50ms"},
        "stop": "0.8s",
    }
    d["flows"].append(
        {"src": "S1", "dst": "D2", "cc": "westwood+", "app": {"kind": "bulk"}, "start": 0.1}
    )
    d["flows"].append({"src": "S2", "dst": "D1", "app": {"kind": "cbr", "rate": "100kbps"}})
    d["agents"] = [
        {"kind": "snoop", "node": "R2"},
        {"kind": "explicit_rate", "node": "R1", "share": 0.9},
    ]
    d["trace"] = {"cwnd": True, "verdicts": True, "queue": ["R1->R2"], "queue_interval": "5ms"}
    d["warmup"] = "0.2s"
    d["meta"] = {"figure": "none", "list": [1, 2, {"x": None}]}
    return d


def _snr_gate_eln(d: dict[str, Any]) -> dict[str, Any]:
    """The SNR-gate scenario with its gate and ELN, over samples instead of a synthesized
    walk."""
    d = copy.deepcopy(d)
    d["agents"] = [
        {"kind": "snr_gate", "node": "MH", "link": "MH-BS", "threshold_db": 8.0},
        {"kind": "eln", "node": "BS"},
    ]
    d["links"][0]["error"]["synth"]["coherence_time"] = "1s"
    return d


def base_scenarios() -> dict[str, dict[str, Any]]:
    """Name -> valid scenario (short, with an event budget)."""
    out: dict[str, dict[str, Any]] = {}
    for f in sorted((ROOT / "scenarios").glob("*.toml")):
        with open(f, "rb") as fh:
            out[f.stem] = tomllib.load(fh)
    out["kitchen_sink"] = _kitchen_sink(out["dumbbell"])
    out["snr_gate_eln"] = _snr_gate_eln(out["snr_gate"])
    for d in out.values():
        d["duration"] = DURATION
        d["max_events"] = EVENT_CAP
    return out


BASES = base_scenarios()


# --------------------------------------------------------------------------------------------
# Files a hostile scenario may name


@contextlib.contextmanager
def hostile_dir() -> Any:
    """A working directory holding a good trace (walk.csv) and files a scenario must not get
    stuck on or read: a FIFO, a sparse 300 MiB file, a link to /etc/passwd, a binary file."""
    with tempfile.TemporaryDirectory(prefix="airtcp-hostile-") as tmp:
        t = Path(tmp)
        (t / "walk.csv").write_text("# dB\n" + "\n".join(str(25 - i % 20) for i in range(50)))
        (t / "bad.csv").write_text("10\nsecret-line-do-not-echo\n")
        (t / "bin.csv").write_bytes(bytes(range(256)) * 4)
        with open(t / "big.csv", "wb") as f:
            f.truncate(300 * 1024 * 1024)
        with contextlib.suppress(OSError, AttributeError):
            os.mkfifo(t / "fifo.csv")
        with contextlib.suppress(OSError):
            (t / "link.csv").symlink_to("/etc/passwd")
        old = os.getcwd()
        os.chdir(t)
        try:
            yield t
        finally:
            os.chdir(old)


# --------------------------------------------------------------------------------------------
# Hostile values


def _deep_dict(n: int) -> dict[str, Any]:
    d: dict[str, Any] = {}
    cur = d
    for _ in range(n):
        cur["a"] = {}
        cur = cur["a"]
    return d


def _deep_list(n: int) -> list[Any]:
    d: list[Any] = []
    cur = d
    for _ in range(n):
        cur.append([])
        cur = cur[0]
    return d


NUMBERS: list[Any] = [
    0, -1, 1, 2, 0.5, -0.0, 1e-9, 0.3, 2**31 - 1, 2**32 - 1, 2**32, 2**53 + 1, 2**63 - 1,
    2**63, 2**64 - 1, 2**64, -(2**63), 10**30, 1e8, 1e8 + 1, 1.8e10, 1e15, 1.9e19, 1e300,
    -1e300, 1e-300, 5e-324, math.nan, math.inf, -math.inf, True, False,
]  # fmt: skip

STRINGS: list[str] = [
    "", " ", "abc", "nan", "inf", "-inf", "NaN", "Infinity", "1e999", "1e309s", "1ns",
    "0.1ns", "1us", "0s", "0", "-1s", "1e8s", "1.0000001e8s", "1e9s", "1e300s", "1e-30s",
    "nan s", "infms", "1e30Gbps", "0.3bps", "0.5bps", "1bps", "1.8e19bps", "1e15bps",
    "1e16bps", "-10Mbps", "10 parsecs", "1e-9", "9223372036854775807",
    "18446744073709551616", "1e30MB", "1e300GiB", "-1KB", "4294967295", "\x00", "\u00b5s",
    "\U0001f600", "a" * 5000, "../../../../etc/passwd", "/etc/passwd", "/dev/zero",
    "/dev/stdin", "fifo.csv", "big.csv", "link.csv", "bad.csv", "bin.csv", "walk.csv", ".",
    "..", "R1->R2", "R1", "S1", "D1", "MH-BS", "cck11", "snr", "red", "file", "bulk",
    "newreno", "ns3",
]  # fmt: skip


def _others() -> list[Any]:
    return [
        None, [], {}, [1, 2, 3], [math.nan], {"kind": "x"}, {"model": "snr"},
        list(range(20_000)), _deep_dict(70), _deep_dict(3000), _deep_list(3000),
        [[0, 1e300], [1e-300, -5]], [[0, 30], [1, "x"]], [[0, 30]] * 3000,
    ]  # fmt: skip


def _not_json() -> list[Any]:
    """Values a Python dict can hold and JSON cannot."""
    return [
        {1, 2}, {1, "a"}, frozenset(), b"10Mbps", bytearray(b"x"), object(), 1 + 2j,
        datetime.date(2024, 1, 2), datetime.timedelta(seconds=1), decimal.Decimal("1.5"),
        {1: 2}, {(1, 2): 3}, Path("walk.csv"), range(3), ...,
    ]  # fmt: skip


def hostile_value(rng: random.Random, *, json_only: bool) -> Any:
    pools: list[list[Any]] = [NUMBERS, STRINGS, _others()]
    if not json_only:
        pools.append(_not_json())
    return copy.copy(rng.choice(rng.choice(pools)))


# --------------------------------------------------------------------------------------------
# Tagged tables with extreme parameters

TABLES: dict[str, list[dict[str, Any]]] = {
    "error": [
        {"model": "snr", "modulation": "cck11", "synth": {"waypoints": [[0, 30], [1, 100]]},
         "interval": "1ns"},
        {"model": "snr", "modulation": "cck11", "synth": {"waypoints": [[0, 30], [1e8, 100]]},
         "interval": "1us"},
        {"model": "snr", "modulation": "dsss1", "synth": {"waypoints": [[0, 1e300]]}},
        {"model": "snr", "modulation": "dsss2", "synth": {"waypoints": []}},
        {"model": "snr", "modulation": "cck5.5", "synth": {"waypoints": [[5, 10], [1, 20]],
         "doppler_hz": 1e300, "fading": "rician", "rician_k": -1}},
        {"model": "snr", "modulation": "cck5.5", "samples": []},
        {"model": "snr", "modulation": "cck5.5", "samples": [1e308, -1e308]},
        {"model": "snr", "modulation": "cck5.5", "samples": [30.0], "interval": "1e8s"},
        {"model": "snr", "modulation": "cck11", "trace": "/dev/zero"},
        {"model": "snr", "modulation": "cck11", "trace": "fifo.csv"},
        {"model": "snr", "modulation": "cck11", "trace": "big.csv"},
        {"model": "snr", "modulation": "cck11", "trace": "link.csv"},
        {"model": "snr", "modulation": "cck11", "trace": "bad.csv"},
        {"model": "snr", "modulation": "cck11", "trace": "bin.csv"},
        {"model": "snr", "modulation": "cck11", "trace": "../../../../etc/passwd"},
        {"model": "snr", "modulation": "cck11", "trace": "/etc/passwd"},
        {"model": "snr", "modulation": "cck11", "trace": "walk.csv", "interval": "1ns"},
        {"model": "gilbert_elliott", "mean_good": "1ns", "mean_bad": "1ns"},
        {"model": "gilbert_elliott", "mean_good": 1e8, "mean_bad": 1e-300, "per_bad": 1},
        {"model": "bernoulli", "per": 1.0},
        {"model": "ber", "ber": 1.0},
        {"model": "ber", "ber": 5e-324},
        {"model": "list", "packets": [2**64 - 1, 0, 0]},
        {"model": "list", "packets": list(range(100_000))},
    ],
    "queue": [
        {"kind": "droptail", "limit": 0},
        {"kind": "droptail", "limit": 2**63 - 1},
        {"kind": "droptail", "limit": 10**11, "unit": "bytes"},
        {"kind": "red", "min_threshold": 50, "max_threshold": 5, "weight": 0, "max_p": 2},
        {"kind": "red", "limit": 1, "mean_packet_size": 0, "unit": "bytes"},
        {"kind": "mecn", "min_threshold": 1e300, "mid_threshold": -1, "max_p2": math.nan},
        {"kind": "wmecn", "limit": 3, "min_threshold": 1, "mid_threshold": 2,
         "max_threshold": 3},
        {"kind": "ecn_threshold", "limit": 5, "mark_threshold": 2**63},
    ],
    "app": [
        {"kind": "cbr", "rate": "1e15bps", "packet_size": 1},
        {"kind": "cbr", "rate": "1e30Gbps"},
        {"kind": "cbr", "rate": "1bps", "packet_size": 2**32 - 1},
        {"kind": "cbr", "rate": "10Mbps", "packet_size": 0},
        {"kind": "onoff", "rate": "1e15bps", "on_mean": "1ns", "off_mean": "1ns"},
        {"kind": "onoff", "rate": "1Mbps", "on_mean": 0, "off_mean": 0},
        {"kind": "file", "size": 0},
        {"kind": "file", "size": "1e300GiB"},
        {"kind": "file", "size": 2**53},
        {"kind": "bulk", "size": 1},
    ],
    "tcp": [
        {"initial_cwnd": 4294967295},
        {"initial_cwnd": 0, "segment_size": 0},
        {"segment_size": 4294967295, "header_size": 4294967295},
        {"rcv_window": "1e300GiB", "initial_ssthresh": 0},
        {"min_rto": "1ns", "max_rto": "1ns", "initial_rto": "1e8s"},
        {"min_rto": "10s", "max_rto": "1s"},
        {"delack_count": 0, "delack_timeout": "0s", "delayed_ack": True},
        {"dupack_threshold": 0},
        {"dupack_threshold": 4294967295, "sack": True, "prr": True},
        {"dda_delay": "1e8s"},
        {"profile": "bsd"},
        {"handshake": True, "ecn": True, "timestamps": True, "limited_transmit": True},
    ],
    "agent": [
        {"kind": "snr_gate", "node": "R2", "link": "R2-D1", "threshold_db": math.inf},
        {"kind": "snr_gate", "node": "MH", "link": "MH-BS", "threshold_db": 5,
         "interval": "1ns", "measurement_delay": "1e8s", "ewma_weight": 0},
        {"kind": "snoop", "node": "R2", "min_rto": "1ns"},
        {"kind": "snoop", "node": "S1"},
        {"kind": "eln", "node": "nowhere"},
        {"kind": "explicit_rate", "node": "R1", "share": 0},
        {"kind": "explicit_rate", "node": "R1", "share": 1e300},
    ],
    "trace": [
        {"queue": ["R1->R2"], "queue_interval": "1ns"},
        {"queue": ["R1->R2"] * 1000, "queue_interval": "1us"},
        {"queue": ["nowhere"], "cwnd": "yes"},
        {"cwnd": True, "verdicts": True, "queue_interval": -1},
    ],
}  # fmt: skip

TOP: dict[str, list[Any]] = {
    "duration": ["1ns", "0s", "1e8s", "1e8s", "1e9s", 1e300, -1, "1min", 1e-9, "2s"],
    "seed": [0, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -1, 1.5, "7"],
    "warmup": ["1s", "0s", "1e8s", -1, "0.5s"],
    "max_events": [0, 1, 10, 1000, -1, 2**64, 1e30, "many"],
    "name": ["", "a" * 5000, "\U0001f600", None, 5, "<script>alert(1)</script>"],
}


#: Values at the edges of (or just past) the documented ranges, by where they go: a scenario
#: that takes them should still run, and conserve packets.
EDGES: dict[tuple[str, ...], list[Any]] = {
    ("links", "rate"): ["1bps", 1, "1e15bps", 1e15, "1.000001e15bps", "56kbps", "100Gbps"],
    ("links", "delay"): [0, "0s", "1ns", "1e8s", 1e8, "1.0000001e8s", "0.999s", "10s"],
    ("links", "queue"): [{"limit": 0}, {"limit": 1}, {"limit": 10**7}, {"limit": 10**7 + 1},
                         {"limit": 1, "unit": "bytes"}, {"limit": 10**11, "unit": "bytes"},
                         {"kind": "red", "limit": 2, "min_threshold": 0, "max_threshold": 1,
                          "weight": 1, "max_p": 1},
                         {"kind": "red", "limit": 100, "weight": 1e-12, "max_p": 1e-12}],
    ("links", "error"): [{"model": "bernoulli", "per": 1.0},
                         {"model": "bernoulli", "per": 0.999, "applies_to": "ack"},
                         {"model": "ber", "ber": 1e-3},
                         {"model": "gilbert_elliott", "mean_good": "1us", "mean_bad": "1s"},
                         {"model": "list", "packets": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}],
    ("links", "arq"): [{"retry_limit": 255, "ack_bytes": 4294967295},
                       {"retry_limit": 0, "ack_bytes": 0}, {"retry_limit": 255}],
    ("links", "kind"): ["wireless", "wired", "radio"],
    ("flows", "start"): [0, "1ns", "0.999999s", "1s", "1e8s", -1],
    ("flows", "stop"): [0, "1ns", "0.5s", "1e8s"],
    ("flows", "cc"): ["reno", "newreno", "sack", "westwood", "westwood+", "vegas", "veno",
                      "cubic", "mecn", "wmecn", "oracle", None],
    ("flows", "cc_params"): [{"alpha": 0}, {"alpha": 1e300}, {"beta": -1}, {"beta": 0},
                             {"beta": 1}, {"beta": 1e308}, {"c": 0}, {"c": 1e300},
                             {"gamma": -1e300}, {"tau": 0}, {"tau": 1e-300}, {"beta1": 1},
                             {"beta2": 0}, {"fast_convergence": 0}, {"react_to_marks": 0}],
    ("flows", "app"): [{"kind": "file", "size": 1}, {"kind": "file", "size": 2**53},
                       {"kind": "file", "size": 0},
                       {"kind": "cbr", "rate": "1bps", "packet_size": 1},
                       {"kind": "cbr", "rate": "1e15bps", "packet_size": 65535},
                       {"kind": "onoff", "rate": "1e9bps", "on_mean": "1ns",
                        "off_mean": "1e8s"}],
    ("tcp", "segment_size"): [1, 2, 40, 65000, 65001],
    ("tcp", "header_size"): [0, 1000, 1001],
    ("tcp", "initial_cwnd"): [1, 10**6, 10**6 + 1],
    ("tcp", "initial_ssthresh"): [0, 1, "1TiB", "1.1TiB"],
    ("tcp", "rcv_window"): [0, 1, 1000, "1TiB", "2TiB"],
    ("tcp", "min_rto"): ["1ns", "0s", "1e8s"],
    ("tcp", "initial_rto"): ["1ns", "0s", "1e8s"],
    ("tcp", "max_rto"): ["1ns", "0s", "1e8s"],
    ("tcp", "delack_timeout"): ["0s", "1ns", "1e8s"],
    ("tcp", "delack_count"): [1, 4294967295],
    ("tcp", "dupack_threshold"): [1, 2, 4294967295],
    ("tcp", "dda_delay"): ["0s", "1ns", "1e8s"],
    ("tcp", "profile"): ["ns2", "ns3", "linux"],
    ("tcp", "sack"): [True], ("tcp", "timestamps"): [True], ("tcp", "ecn"): [True],
    ("tcp", "handshake"): [True], ("tcp", "prr"): [True], ("tcp", "limited_transmit"): [True],
    ("tcp", "delayed_ack"): [True],
    ("warmup",): ["0s", "0.999999s", "1s"],
    ("seed",): [0, 2**63 - 1, 2**64 - 1],
    ("max_events",): [0, 1, 2, 4096, 4097],
    ("duration",): ["1ns", "1us", "3s"],
}  # fmt: skip


def _items(d: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The tables of list ``key`` (none when a mutation made it something else)."""
    v = d.get(key)
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _edge(d: dict[str, Any], rng: random.Random) -> None:
    """Set one field of a random link, flow or table to an edge value."""
    where = rng.choice(list(EDGES))
    value = copy.deepcopy(rng.choice(EDGES[where]))
    if len(where) == 1:
        d[where[0]] = value
        return
    table, key = where
    if table == "tcp":
        flows = _items(d, "flows")
        target = rng.choice(flows) if flows and rng.random() < 0.4 else d
        tcp = target.setdefault("tcp", {})
        if isinstance(tcp, dict):
            tcp[key] = value
        return
    items = _items(d, table)
    if items:
        rng.choice(items)[key] = value


# --------------------------------------------------------------------------------------------
# Mutations


def _paths(d: Any, here: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every key path in ``d`` (shallow enough to be worth mutating)."""
    out = [here]
    if depth > 8:
        return out
    if isinstance(d, dict):
        for k, v in d.items():
            out += _paths(v, here + (k,), depth + 1)
    elif isinstance(d, list) and len(d) <= 400:
        for i, v in enumerate(d):
            out += _paths(v, here + (i,), depth + 1)
    return out


def _get(d: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        d = d[k]
    return d


_NUM_UNIT = re.compile(r"^\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*([A-Za-z/\u00b5]*)\s*$")
_UNITS = ["", "s", "ms", "us", "ns", "min", "bps", "kbps", "Mbps", "Gbps", "B", "KB", "MiB",
          "GiB", "parsec"]  # fmt: skip


def _scale(v: Any, rng: random.Random) -> Any:
    """A number or a number with a unit, pushed to an extreme."""
    k = rng.choice([-320, -40, -20, -9, -3, 3, 9, 15, 19, 20, 40, 308, 400])
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float)):
        choice = rng.randrange(4)
        if choice == 0:
            return -v
        if choice == 1 and isinstance(v, int):
            return v * 10 ** abs(k) if k > 0 else 0
        try:
            return float(v) * 10.0**k
        except OverflowError:
            return math.inf
    if isinstance(v, str):
        m = _NUM_UNIT.match(v)
        if m:
            num, unit = m.groups()
            if rng.random() < 0.3:
                unit = rng.choice(_UNITS)
            return f"{num}e{k}{unit}" if "e" not in num else f"{num}{unit}"
    return v


def mutate(base: dict[str, Any], rng: random.Random, ops: int, *, json_only: bool) -> dict:
    """``base`` (not changed) with ``ops`` random mutations. ``json_only`` keeps to values a
    JSON or TOML file can hold."""
    d = copy.deepcopy(base)
    for _ in range(ops):
        op = rng.randrange(15)
        if op >= 11:  # edge values are a third of the mutations
            _edge(d, rng)
            continue
        paths = _paths(d)
        path = rng.choice(paths)
        parent_path, key = (path[:-1], path[-1]) if path else ((), None)
        parent = _get(d, parent_path) if path else None
        if op == 0 and key is not None:  # a hostile value anywhere
            parent[key] = hostile_value(rng, json_only=json_only)
        elif op == 1 and key is not None:  # an extreme number
            parent[key] = _scale(parent[key], rng)
        elif op == 2 and isinstance(parent, dict):  # a missing key or table
            del parent[key]
        elif op == 3:  # an unknown key, or a near miss of a known one
            tables = [p for p in paths if isinstance(_get(d, p), dict)]
            t = _get(d, rng.choice(tables))
            name = rng.choice(["bogus", "zz", ""] + [k[:-1] or "x" for k in t])
            t[name] = hostile_value(rng, json_only=json_only)
        elif op == 4:  # a tagged table with extreme parameters
            kind = rng.choice(list(TABLES))
            table = copy.deepcopy(rng.choice(TABLES[kind]))
            _place(d, kind, table, rng)
        elif op == 5 and isinstance(parent, list):  # a duplicate list item
            parent.append(copy.copy(parent[key]))  # shallow: it may be nested very deep
        elif op == 6 and key is not None:  # the value wrapped
            parent[key] = rng.choice([[parent[key]], {"value": parent[key]}])
        elif op == 7:  # an extreme top-level value
            k = rng.choice(list(TOP))
            d[k] = copy.copy(rng.choice(TOP[k]))
        elif op == 8 and key is not None:  # the right value in the wrong type
            v = parent[key]
            parent[key] = str(v) if isinstance(v, (int, float)) else _retype(v, rng)
        elif op == 9 and key is not None and isinstance(parent[key], (list, dict)):
            parent[key] = type(parent[key])()  # emptied
        elif op == 10:  # a whole table of the wrong kind
            k = rng.choice(["nodes", "links", "flows", "agents", "tcp", "trace", "meta"])
            d[k] = hostile_value(rng, json_only=json_only)
    _budget(d)
    return d


def _retype(v: Any, rng: random.Random) -> Any:
    if isinstance(v, str):
        m = _NUM_UNIT.match(v)
        if m:
            try:
                return float(m.group(1))
            except ValueError:
                return 0
        return [v]
    return v


def _place(d: dict[str, Any], kind: str, table: dict[str, Any], rng: random.Random) -> None:
    """Put a table where its kind belongs (a random link, flow, ...)."""
    links, flows = _items(d, "links"), _items(d, "flows")
    if kind in ("error", "queue") and links:
        link = rng.choice(links)
        key = kind if kind == "queue" else rng.choice(["error", "error_ab", "error_ba"])
        link[key] = table
    elif kind == "app" and flows:
        rng.choice(flows)["app"] = table
    elif kind == "tcp":
        target = rng.choice(flows) if flows and rng.random() < 0.5 else d
        target["tcp"] = table
    elif kind == "agent":
        agents = d.get("agents")
        d["agents"] = (agents if isinstance(agents, list) else []) + [table]
    elif kind == "trace":
        d["trace"] = table


def _budget(d: dict[str, Any]) -> None:
    """Keep the event budget (when it is a valid one) at most EVENT_CAP, so no case runs
    long; a budget of the wrong type or range is left to be refused."""
    m = d.get("max_events")
    if m is None or (isinstance(m, int) and not isinstance(m, bool) and m > EVENT_CAP):
        d["max_events"] = EVENT_CAP


MODES = ["api", "api", "api", "cli-json", "cli-toml", "cli-toml", "bytes-json", "bytes-toml"]


def case(seed: int) -> tuple[str, str, dict[str, Any] | bytes]:
    """Case ``seed`` of the campaign: (base name, mode, scenario). The ``bytes-*`` modes give
    the bytes of a scenario file, damaged."""
    rng = random.Random(seed)
    name = rng.choice(sorted(BASES))
    mode = rng.choice(MODES)
    return name, mode, build_case(name, mode, rng, rng.randint(1, 4))


def build_case(name: str, mode: str, rng: random.Random, ops: int) -> dict[str, Any] | bytes:
    """Base scenario ``name`` with ``ops`` mutations, as a dict or (``bytes-*`` modes) as the
    damaged bytes of a file."""
    d = mutate(BASES[name], rng, ops, json_only=mode != "api")
    if mode.startswith("bytes-"):
        try:
            text = json.dumps(d) if mode == "bytes-json" else airtcp.Scenario(d).to_toml()
        except (TypeError, ValueError, RecursionError, airtcp.ScenarioError):
            text = json.dumps(BASES[name]) if mode == "bytes-json" else ""
        return damage(text.encode("utf-8"), rng)
    return d


def damage(raw: bytes, rng: random.Random) -> bytes:
    """A file's bytes with a few random edits: bytes flipped, inserted or cut, lines doubled
    or dropped, the end cut off."""
    b = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        at = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[min(at, len(b) - 1)] = rng.randrange(256)
        elif op == 1:
            junk = rng.choice(
                [
                    b"\x00",
                    b"\xff\xfe",
                    b'"',
                    b"[",
                    b"]]",
                    b"{",
                    b"=",
                    b"\n[[",
                    b"#",
                    b"\\u0000",
                    b"1e999",
                    b"nan",
                    b"\n" * 3,
                    b"[" * 200,
                ]
            )
            b[at:at] = junk
        elif op == 2:
            del b[at : at + rng.randint(1, 40)]
        elif op == 3:
            del b[at:]
        elif op in (4, 5):
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            if op == 4:
                lines.insert(i, lines[i])
            else:
                del lines[i]
            b = bytearray(b"\n".join(lines))
    return bytes(b)


# --------------------------------------------------------------------------------------------
# Verdicts


def conservation_problem(raw: dict[str, Any]) -> str | None:
    """What breaks packet conservation in a result, or None."""
    k = raw["packets"]
    if k["sent"] != k["delivered"] + k["dropped"] + k["in_flight"]:
        return f"sent != delivered + dropped + in flight: {k}"
    # With a routing protocol the arena also holds its control packets in flight
    # (docs/routing.md), which the data totals leave out.
    if k["in_flight"] != k["live_in_arena"] and not (
        raw.get("routing") and k["in_flight"] < k["live_in_arena"]
    ):
        return f"in flight != live packets: {k}"
    if sum(raw["drops"].values()) != k["dropped"]:
        return f"drops by cause {raw['drops']} do not add up to {k['dropped']}"
    link = sum(
        x["drops_queue_overflow"] + x["drops_aqm"] + x["drops_channel_error"] for x in raw["links"]
    )
    # 802.11 stations count their drops in the macs table (a channel error ends a frame
    # only when its retries run out).
    link += sum(
        x.get("drops_queue_overflow", 0) + x.get("drops_aqm", 0) + x.get("drops_retry_channel", 0)
        for x in raw.get("macs", [])
    )
    net = sum(raw["drops"].get(c, 0) for c in ("queue_overflow", "aqm", "channel_error"))
    if link != net:
        return f"link drop counters {link} != drops at links {net}"
    for f in raw["flows"]:
        g = f.get("goodput_bps")
        if g is not None and not (math.isfinite(g) and g >= 0):
            return f"flow {f.get('name')}: goodput {g}"
    return None


def _path_of(message: str) -> str:
    """The field path an ``error:`` line or a ScenarioError text starts with."""
    head, sep, _ = message.partition(": ")
    return head if sep and " " not in head.strip() else ""


def run_case(d: dict[str, Any] | bytes, mode: str = "api", workdir: Path | None = None) -> dict:
    """Run one scenario (or scenario file's bytes) and judge it: ``{"outcome": ok | error |
    violation | panic | traceback | unnamed, "detail": ...}``. ``error`` is a clean refusal
    naming a field (or, for a file that is no scenario, the file)."""
    if mode == "api":
        assert isinstance(d, dict)
        return _run_api(d)
    return _run_cli(d, mode, workdir or Path.cwd())


def _run_api(d: dict[str, Any]) -> dict:
    try:
        r = airtcp.run(d, **LIMITS)
    except airtcp.BudgetError as e:
        if not e.path:
            return {"outcome": "unnamed", "detail": str(e)[:300]}
        problem = conservation_problem(e.result.raw) if e.result is not None else "no result"
        if problem:
            return {"outcome": "violation", "detail": f"partial result: {problem}"}
        return {"outcome": "budget", "detail": f"{e.kind} {e.path}"}
    except airtcp.ScenarioError as e:
        if not e.path:
            return {"outcome": "unnamed", "detail": str(e)[:300]}
        return {"outcome": "error", "detail": e.path}
    except airtcp.SimulationError as e:
        return {"outcome": "panic", "detail": str(e)[:300]}
    except BaseException as e:  # noqa: BLE001 - every other exception is a finding
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"outcome": "traceback", "detail": f"{type(e).__name__}: {str(e)[:300]}"}
    problem = conservation_problem(r.raw)
    if problem:
        return {"outcome": "violation", "detail": problem}
    return {"outcome": "ok", "detail": ""}


def _run_cli(d: dict[str, Any] | bytes, mode: str, workdir: Path) -> dict:
    from airtcp.cli import main

    f = workdir / ("case.json" if mode.endswith("json") else "case.toml")
    try:
        if isinstance(d, bytes):
            f.write_bytes(d)
        elif mode == "cli-json":
            f.write_text(json.dumps(d))
        else:
            f.write_text(airtcp.Scenario(d).to_toml())
    except (TypeError, ValueError, RecursionError, airtcp.ScenarioError):
        assert isinstance(d, dict)
        return _run_api(d)  # not writable as a file: judged through the API instead
    out, err = io.StringIO(), io.StringIO()
    budgets = []
    if LIMITS.get("memory_budget") is not None:
        budgets += ["--memory-budget", str(LIMITS["memory_budget"])]
    if LIMITS.get("timeout") is not None:
        budgets += ["--timeout", str(LIMITS["timeout"])]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["run", str(f), "--no-progress", *budgets])
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"outcome": "traceback", "detail": f"{type(e).__name__}: {str(e)[:300]}"}
    text = err.getvalue()
    if code == 0:
        return {"outcome": "ok", "detail": ""}
    if code == 2 and text.startswith("error: ") and "Traceback" not in text:
        first = text.splitlines()[0][len("error: ") :]
        # A file that is not TOML/JSON at all is named by its path; otherwise a field.
        path = _path_of(first)
        kind = next((k for k, t in _BUDGET_TEXT.items() if f"{path}: {t}" in first), None)
        if path and kind:
            return {"outcome": "budget", "detail": f"{kind} {path}"}
        if path and path != str(f):
            return {"outcome": "error", "detail": path}
        if first.startswith(f"{f}: "):
            return {"outcome": "error", "detail": "<file>"}
        return {"outcome": "unnamed", "detail": first[:300]}
    if "simulator bug" in text:
        return {"outcome": "panic", "detail": text[:300]}
    return {"outcome": "traceback", "detail": f"exit {code}: {text[:300]}"}
