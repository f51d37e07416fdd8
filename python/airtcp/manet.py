"""A mobile ad hoc network: ``n`` nodes moving by random waypoint over an 802.11 medium, with
flows between random pairs (see docs/mobility.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from . import _core
from .builders import _num, parse_seconds
from .scenario import Scenario


def scenario_has_key(key: str) -> bool:
    """Whether this core's scenario schema has the top-level ``key`` (a key it does not know
    is an error naming it)."""
    probe = json.dumps({"duration": 1, "nodes": [{"name": "a"}], key: None})
    try:
        _core.validate_json(probe)
    except _core.ScenarioError as e:
        return f"unknown field `{key}`" not in str(e)
    return True


def manet(
    n: int,
    w: float,
    h: float,
    *,
    speed: tuple[float, float] = (1.0, 20.0),
    pause: float | str = "2s",
    stationary: bool = True,
    flows: int = 1,
    transport: str = "tcp",
    cc: str = "newreno",
    rate: str = "100kbps",
    packet_size: int = 512,
    duration: float | str = 100.0,
    seed: int = 1,
    medium: Mapping[str, Any] | None = None,
    tcp: Mapping[str, Any] | None = None,
    trace: Mapping[str, Any] | None = None,
    routing: Mapping[str, Any] | str | None = None,
    name: str | None = None,
) -> Scenario:
    """``n`` hosts ``m0`` .. ``m<n-1>`` moving by random waypoint in a ``w`` × ``h`` metre
    area (speeds uniform in ``speed`` m/s, a ``pause`` at each waypoint; with ``stationary``
    the start is drawn from the model's steady state) on one 802.11 medium ``air`` (ns-2
    preset), and ``flows`` flows between distinct random pairs: ``transport="tcp"`` bulk TCP
    with scheme ``cc``, ``"udp"`` CBR at ``rate`` with ``packet_size``-byte datagrams. The
    pairs are drawn from ``seed`` (the same seed gives the same pairs; the paths are drawn by
    the core from the same seed). Positions are recorded every second (``trace`` adds to or
    overrides the ``[trace]`` table).

    ``routing`` is the scenario's ``routing`` table (or a protocol name, ``"aodv"`` for
    ``{"protocol": "aodv"}``), passed through where the core
    has routing protocols (the scenario key ``routing``); a core without them raises
    ValueError. Without it, each station sends to its destination directly (static routes
    from the start positions would go stale as nodes move).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if not (w > 0 and h > 0):
        raise ValueError(f"the area must be positive, got {w!r} x {h!r}")
    if isinstance(flows, bool) or not isinstance(flows, int) or flows < 0:
        raise ValueError(f"flows must be an integer >= 0, got {flows!r}")
    if routing is not None and not scenario_has_key("routing"):
        raise ValueError(
            "routing= needs a core with routing protocols (the scenario key `routing`); "
            "this build has none"
        )
    if transport not in ("tcp", "udp"):
        raise ValueError(f"transport must be 'tcp' or 'udp', got {transport!r}")
    lo, hi = speed
    rng = random.Random(f"manet/{seed}")
    names = [f"m{i}" for i in range(n)]
    pairs: list[tuple[str, str]] = []
    all_pairs = n * (n - 1)
    while len(pairs) < flows:
        a, b = rng.sample(names, 2)
        # Distinct pairs while there are any left.
        if (a, b) in pairs and len(pairs) < all_pairs:
            continue
        pairs.append((a, b))
    if transport == "tcp":
        app: dict[str, Any] = {"kind": "bulk"}
    else:
        app = {"kind": "cbr", "rate": rate, "packet_size": packet_size}
    m: dict[str, Any] = {"name": "air", "kind": "wifi", "preset": "ns2"}
    m.update(dict(medium or {}))
    tcp_table: dict[str, Any] = {"profile": "ns2", "segment_size": 1460}
    tcp_table.update(dict(tcp or {}))
    sc: dict[str, Any] = {
        "name": name or f"manet{n}",
        "duration": _num(parse_seconds(duration)),
        "seed": seed,
        "tcp": tcp_table,
        "nodes": [{"name": x} for x in names],
        "mobility": {
            "model": "random_waypoint",
            "area": [_num(w), _num(h)],
            "speed": [_num(lo), _num(hi)],
            "pause": pause,
            "stationary": stationary,
        },
        "media": [m],
        "flows": [
            {
                "name": f"f{i}",
                "src": a,
                "dst": b,
                **({"cc": cc} if transport == "tcp" else {}),
                "app": dict(app),
            }
            for i, (a, b) in enumerate(pairs)
        ],
        "trace": {"positions": "1s", **dict(trace or {})},
    }
    if routing is not None:
        # A protocol name is short for its table, as the chain and grid builders take it.
        sc["routing"] = {"protocol": routing} if isinstance(routing, str) else dict(routing)
    return Scenario(sc)
