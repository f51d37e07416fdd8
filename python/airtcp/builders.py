"""Scenario builders: a few lines of Python for the topologies the seed papers use."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from . import _core
from .scenario import Scenario

__all__ = ["chain", "cross", "dumbbell", "grid", "parse_seconds"]


def parse_seconds(v: float | int | str) -> float:
    """A duration as seconds: a number is seconds, a string is read by the core exactly as
    scenario files are (``"2ms"``, ``"1.5s"``). A bad one raises ScenarioError (a ValueError)."""
    if isinstance(v, bool):
        raise ValueError(f"not a duration: {v!r}")
    if isinstance(v, (int, float)):
        return float(v)
    return _core.parse_duration(str(v))


def _num(v: float) -> float | int:
    """Whole seconds as int so TOML output stays tidy."""
    return int(v) if float(v).is_integer() else float(v)


def dumbbell(
    n_flows: int = 1,
    *,
    cc: str | Iterable[str] = "newreno",
    duration: float | str = 100.0,
    seed: int = 1,
    src_rate: float | str = "10Mbps",
    src_delay: float | str = "2ms",
    bottleneck_rate: float | str = "1Mbps",
    bottleneck_delay: float | str = "30ms",
    dst_rate: float | str = "10Mbps",
    dst_delay: float | str = "4ms",
    queue_limit: int = 20,
    queue_unit: str = "packets",
    bottleneck_queue: Mapping[str, Any] | None = None,
    edge_queue_limit: int | None = None,
    per: float = 0.0,
    wireless: Iterable[int] | None = None,
    error_applies_to: str = "data",
    start_spacing: float | str = 0.0,
    tcp: Mapping[str, Any] | None = None,
    cc_params: Mapping[str, Any] | None = None,
    udp_background: int = 0,
    udp_rate: float | str = "500kbps",
    trace: Mapping[str, Any] | bool | None = None,
    name: str = "dumbbell",
) -> Scenario:
    """The dumbbell of seed paper 000 (Fig. 3), generalised to ``n_flows`` TCP flows.

    Topology: sources S1..Sn attach to router R1, R1-R2 is the bottleneck, destinations D1..Dn
    attach to R2. Flow ``ftp<i>`` is a bulk TCP transfer from S<i> to D<i>. Links are named
    ``S<i>-R1``, ``R1-R2`` and ``R2-D<i>``; their directions in results are ``"S1->R1"``,
    ``"R1->R2"``, ``"R2->D1"`` and so on. Segments are 1000 bytes with 40-byte headers unless
    ``tcp`` says otherwise.

    Parameters
    ----------
    n_flows:
        number of TCP flows (and of source/destination pairs), >= 0.
    cc:
        congestion-control scheme of every TCP flow (see ``airtcp schemes``), or one name per
        flow.
    duration:
        simulated time, seconds or a duration string.
    seed:
        random seed; same scenario + seed gives identical results.
    src_rate, src_delay:
        rate and propagation delay of each source's access link S<i>-R1 (10 Mbps, 2 ms).
    bottleneck_rate, bottleneck_delay:
        the R1-R2 link (1 Mbps, 30 ms).
    dst_rate, dst_delay:
        each destination's last hop R2-D<i> (10 Mbps, 4 ms).
    queue_limit, queue_unit:
        DropTail limit of the bottleneck queues (both directions of R1-R2): 20 packets.
    bottleneck_queue:
        the whole ``queue`` table of R1-R2 instead of DropTail(``queue_limit``), e.g.
        ``{"kind": "ecn_threshold", "limit": 20, "mark_threshold": 5}``.
    edge_queue_limit:
        DropTail limit (packets) on the access and last-hop links; None keeps the core's
        default (100 packets).
    per:
        packet error rate of the wireless last hops (Bernoulli model, both directions, subject
        to ``error_applies_to``).
    wireless:
        1-based indices ``i`` of the destinations D<i> whose last hop R2-D<i> is wireless.
        Default: every destination (UDP background ones included) when ``per > 0``, none
        otherwise. A wireless link always carries an ``error`` table (``per`` may be 0) so a
        sweep can set ``links.R2-D1.error.per``.
    error_applies_to:
        which packets the channel errors can hit: ``"data"`` (default), ``"ack"`` or ``"all"``.
    start_spacing:
        flow ``ftp<i>`` starts at ``(i-1) * start_spacing`` (seconds or a duration string).
    tcp:
        keys for the scenario's ``[tcp]`` table, overriding the defaults above, e.g.
        ``{"initial_cwnd": 10, "delayed_ack": True}``.
    cc_params:
        scheme parameters given to every TCP flow as its ``cc_params`` table (see
        docs/schemes/).
    udp_background:
        number of extra source/destination pairs S<n+k> -> D<n+k> (k = 1..udp_background),
        each carrying a UDP flow ``udp<k>`` with exponential on/off traffic (100 ms mean on,
        100 ms mean off) at ``udp_rate`` with 1000-byte packets, over the same access and last
        hop links as the TCP pairs.
    udp_rate:
        sending rate of a background source while on (500 kbps).
    trace:
        the ``[trace]`` table, e.g. ``{"cwnd": True, "queue": ["R1->R2"]}``; ``True`` records
        cwnd of every flow and the R1->R2 queue.
    name:
        the scenario's name.
    """
    if isinstance(n_flows, bool) or not isinstance(n_flows, int) or n_flows < 0:
        raise ValueError(f"n_flows must be an integer >= 0, got {n_flows!r}")
    if (
        isinstance(udp_background, bool)
        or not isinstance(udp_background, int)
        or udp_background < 0
    ):
        raise ValueError(f"udp_background must be an integer >= 0, got {udp_background!r}")
    n_pairs = n_flows + udp_background
    if n_pairs == 0:
        raise ValueError("a dumbbell needs at least one flow (n_flows or udp_background)")
    if not 0.0 <= float(per) <= 1.0:
        raise ValueError(f"per must be in [0, 1], got {per!r}")
    if isinstance(cc, str):
        ccs = [cc] * n_flows
    else:
        ccs = list(cc)
        if len(ccs) != n_flows:
            raise ValueError(f"cc: {len(ccs)} scheme(s) given for {n_flows} flow(s)")
    if wireless is None:
        wl = set(range(1, n_pairs + 1)) if per > 0 else set()
    else:
        wl = set()
        for i in wireless:
            if isinstance(i, bool) or not isinstance(i, int) or not 1 <= i <= n_pairs:
                raise ValueError(
                    f"wireless: destination index {i!r} is not in 1..{n_pairs} (D1..D{n_pairs})"
                )
            wl.add(i)
    spacing = parse_seconds(start_spacing)
    if spacing < 0:
        raise ValueError(f"start_spacing must be >= 0, got {start_spacing!r}")

    tcp_table: dict[str, Any] = {"segment_size": 1000, "header_size": 40}
    if tcp:
        tcp_table.update(dict(tcp))

    nodes: list[dict[str, Any]] = [{"name": f"S{i}"} for i in range(1, n_pairs + 1)]
    nodes += [{"name": "R1", "kind": "router"}, {"name": "R2", "kind": "router"}]
    nodes += [{"name": f"D{i}"} for i in range(1, n_pairs + 1)]

    def edge_queue() -> dict[str, Any]:
        return {"kind": "droptail", "limit": edge_queue_limit, "unit": "packets"}

    links: list[dict[str, Any]] = []
    for i in range(1, n_pairs + 1):
        link: dict[str, Any] = {
            "name": f"S{i}-R1",
            "a": f"S{i}",
            "b": "R1",
            "kind": "wired",
            "rate": src_rate,
            "delay": src_delay,
        }
        if edge_queue_limit is not None:
            link["queue"] = edge_queue()
        links.append(link)
    links.append(
        {
            "name": "R1-R2",
            "a": "R1",
            "b": "R2",
            "kind": "wired",
            "rate": bottleneck_rate,
            "delay": bottleneck_delay,
            "queue": dict(bottleneck_queue)
            if bottleneck_queue is not None
            else {"kind": "droptail", "limit": queue_limit, "unit": queue_unit},
        }
    )
    for i in range(1, n_pairs + 1):
        link = {
            "name": f"R2-D{i}",
            "a": "R2",
            "b": f"D{i}",
            "kind": "wireless" if i in wl else "wired",
            "rate": dst_rate,
            "delay": dst_delay,
        }
        if edge_queue_limit is not None:
            link["queue"] = edge_queue()
        if i in wl:
            link["error"] = {
                "model": "bernoulli",
                "per": float(per),
                "applies_to": error_applies_to,
            }
        links.append(link)

    flows: list[dict[str, Any]] = []
    for i in range(1, n_flows + 1):
        flows.append(
            {
                "name": f"ftp{i}",
                "src": f"S{i}",
                "dst": f"D{i}",
                "start": _num(round((i - 1) * spacing, 12)),
                "cc": ccs[i - 1],
                "app": {"kind": "bulk"},
            }
        )
        if cc_params is not None:
            flows[-1]["cc_params"] = dict(cc_params)
    for k in range(1, udp_background + 1):
        i = n_flows + k
        flows.append(
            {
                "name": f"udp{k}",
                "src": f"S{i}",
                "dst": f"D{i}",
                "app": {
                    "kind": "onoff",
                    "rate": udp_rate,
                    "on_mean": "100ms",
                    "off_mean": "100ms",
                    "packet_size": 1000,
                },
            }
        )

    data: dict[str, Any] = {
        "name": name,
        "duration": _num(duration) if isinstance(duration, (int, float)) else duration,
        "seed": seed,
        "tcp": tcp_table,
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }
    if trace is True:
        data["trace"] = {"cwnd": True, "queue": ["R1->R2"]}
    elif trace:
        data["trace"] = dict(trace)
    return Scenario(data)


# --------------------------------------------------------------------------------------------
# Multi-hop wireless topologies (docs/mac.md)

_C = 299_792_458.0


def _count(name: str, v: Any, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    return v


def _ccs(cc: str | Iterable[str], n: int) -> list[str]:
    if isinstance(cc, str):
        return [cc] * n
    ccs = list(cc)
    if len(ccs) != n:
        raise ValueError(f"cc: {len(ccs)} scheme(s) given for {n} flow(s)")
    return ccs


def _mesh(
    *,
    name: str,
    mac: str,
    positions: dict[str, tuple[float, float]],
    hosts: set[str],
    edges: list[tuple[str, str]],
    flows: list[tuple[str, str, str, str]],
    duration: float | str,
    seed: int,
    per: float,
    tcp: Mapping[str, Any] | None,
    medium: Mapping[str, Any] | None,
    link_rate: float | str,
    queue_limit: int,
    slot: float | str,
    guard: float | str,
    app: Mapping[str, Any] | None,
    trace: Mapping[str, Any] | None,
    mobility: Mapping[str, Any] | None = None,
    extra_nodes: list[dict[str, Any]] | None = None,
    extra_links: list[dict[str, Any]] | None = None,
    routing: str | Mapping[str, Any] | None = None,
) -> Scenario:
    """Assemble a wifi or TDMA scenario from node positions, (TDMA) neighbour pairs and flows."""
    if mac not in ("wifi", "tdma"):
        raise ValueError(f"mac must be 'wifi' or 'tdma', got {mac!r}")
    if not 0.0 <= float(per) <= 1.0:
        raise ValueError(f"per must be in [0, 1], got {per!r}")
    tcp_table: dict[str, Any] = {"profile": "ns2", "segment_size": 1460}
    if tcp:
        tcp_table.update(dict(tcp))
    nodes: list[dict[str, Any]] = []
    for n, (x, y) in positions.items():
        node: dict[str, Any] = {"name": n, "kind": "host" if n in hosts else "router"}
        if mac == "wifi":
            node["position"] = [_num(x), _num(y)]
        nodes.append(node)
    nodes += extra_nodes or []
    error = {"model": "bernoulli", "per": per, "applies_to": "data"}
    sc: dict[str, Any] = {
        "name": name,
        "duration": _num(parse_seconds(duration)),
        "seed": seed,
        "tcp": tcp_table,
        "nodes": nodes,
    }
    links: list[dict[str, Any]] = []
    if mac == "wifi":
        m: dict[str, Any] = {"name": "air", "kind": "wifi", "preset": "ns2"}
        m["queue"] = {"kind": "droptail", "limit": queue_limit}
        if per > 0:
            m["error"] = error
        m.update(dict(medium or {}))
    else:
        m = {"name": "mesh", "kind": "tdma", "slot": slot, "guard": guard}
        m.update(dict(medium or {}))
        for a, b in edges:
            (xa, ya), (xb, yb) = positions[a], positions[b]
            dist = ((xa - xb) ** 2 + (ya - yb) ** 2) ** 0.5
            link: dict[str, Any] = {
                "a": a,
                "b": b,
                "kind": "wireless",
                "rate": link_rate,
                "delay": f"{dist / _C * 1e9:.0f}ns",
                "medium": "mesh",
                "queue": {"kind": "droptail", "limit": queue_limit},
                "error": dict(error),
            }
            links.append(link)
    links += extra_links or []
    if links:
        sc["links"] = links
    sc["media"] = [m]
    sc["flows"] = [
        {"name": fname, "src": src, "dst": dst, "cc": cc, "app": dict(app or {"kind": "bulk"})}
        for fname, src, dst, cc in flows
    ]
    if trace:
        sc["trace"] = dict(trace)
    if routing is not None:
        spec = _routing(routing, mac)
        if extra_nodes:
            # Wired hosts route statically: the protocol runs on the radio nodes.
            for node in nodes:
                if node["name"] in positions:
                    node["routing"] = dict(spec)
        else:
            sc["routing"] = spec
    if mobility:
        if mac != "wifi":
            raise ValueError("mobility needs mac='wifi' (TDMA links are fixed)")
        sc["mobility"] = dict(mobility)
    return Scenario(sc)


def _routing(routing: str | Mapping[str, Any], mac: str) -> dict[str, Any]:
    """The ``routing`` table from a protocol name or a table of keys."""
    spec = {"protocol": routing} if isinstance(routing, str) else dict(routing)
    if spec.get("protocol", "static") != "static" and mac != "wifi":
        raise ValueError(f"routing {spec.get('protocol')!r} needs mac='wifi', got mac={mac!r}")
    return spec


_MESH_DOC = """
    mac:
        ``"wifi"``: one 802.11 DCF medium named ``air`` (ns-2 preset: 2 Mbit/s, 250 m
        range, 550 m carrier sense, RTS/CTS) over node positions; ``"tdma"``: a TDMA medium
        named ``mesh`` whose point-to-point links join geometric neighbours, with a
        propagation delay from the distance.
    spacing:
        distance between neighbouring nodes, metres.
    cc:
        congestion-control scheme of every flow, or one per flow.
    duration, seed:
        simulated time and random seed.
    per:
        packet error rate of data frames on every hop (Bernoulli), 0 for none. The
        medium's (wifi) or each link's (tdma) ``error`` table carries it.
    tcp:
        keys for ``[tcp]`` over the defaults ``profile = "ns2"``, ``segment_size = 1460``.
    medium:
        keys for the medium's table, overriding the preset (e.g. ``{"rts_threshold": 3000}``).
    link_rate:
        bit rate of TDMA links.
    queue_limit:
        interface queue of every station (wifi) or link direction (tdma), packets (50).
    slot, guard:
        TDMA slot length and guard time.
    app:
        the application of every flow (default ``{"kind": "bulk"}``).
    trace:
        the ``[trace]`` table.
    routing:
        the ``routing`` key: a protocol name (``"aodv"``, ``"olsr"``, ``"static"``) or a table
        (``{"protocol": "aodv", "hello": False, "on_break": "salvage"}``; docs/routing.md).
        Default: static shortest paths. Needs ``mac="wifi"``.
    mobility:
        (wifi) the scenario's ``mobility`` table, moving every node from its place
        (docs/mobility.md), e.g. ``{"model": "random_walk", "area": [800, 200],
        "speed": [1, 5]}``.
    name:
        the scenario's name."""


_F = TypeVar("_F", bound=Callable[..., Scenario])


def _with_mesh_doc(f: _F) -> _F:
    """Append the parameters the mesh builders share to ``f``'s docstring. (A docstring must be
    a plain string literal: one built with ``+`` is an expression Python does not keep.)"""
    f.__doc__ = (f.__doc__ or "") + _MESH_DOC
    return f


@_with_mesh_doc
def chain(
    hops: int,
    *,
    spacing: float = 200.0,
    mac: str = "wifi",
    cc: str | Iterable[str] = "newreno",
    duration: float | str = 50.0,
    seed: int = 1,
    per: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    medium: Mapping[str, Any] | None = None,
    link_rate: float | str = "2Mbps",
    queue_limit: int = 50,
    slot: float | str = "2ms",
    guard: float | str = "0s",
    app: Mapping[str, Any] | None = None,
    trace: Mapping[str, Any] | None = None,
    routing: str | Mapping[str, Any] | None = None,
    mobility: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Scenario:
    """A chain of ``hops`` hops: nodes ``n0`` .. ``n<hops>`` on a line ``spacing`` metres
    apart; ``n0`` and the last node are hosts, the others routers. One flow ``ftp`` from
    ``n0`` to the last node. With 200 m spacing and the ns-2 radio each node reaches only its
    neighbours, and routes follow the line.

    Parameters
    ----------
    hops:
        number of hops, >= 1."""
    hops = _count("hops", hops, 1)
    pos = {f"n{i}": (spacing * i, 0.0) for i in range(hops + 1)}
    return _mesh(
        name=name or f"chain{hops}",
        mac=mac,
        positions=pos,
        hosts={"n0", f"n{hops}"},
        edges=[(f"n{i}", f"n{i + 1}") for i in range(hops)],
        flows=[("ftp", "n0", f"n{hops}", _ccs(cc, 1)[0])],
        duration=duration,
        seed=seed,
        per=per,
        tcp=tcp,
        medium=medium,
        link_rate=link_rate,
        queue_limit=queue_limit,
        slot=slot,
        guard=guard,
        app=app,
        trace=trace,
        routing=routing,
        mobility=mobility,
    )


@_with_mesh_doc
def cross(
    hops: int,
    *,
    spacing: float = 200.0,
    mac: str = "wifi",
    cc: str | Iterable[str] = "newreno",
    duration: float | str = 50.0,
    seed: int = 1,
    per: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    medium: Mapping[str, Any] | None = None,
    link_rate: float | str = "2Mbps",
    queue_limit: int = 50,
    slot: float | str = "2ms",
    guard: float | str = "0s",
    app: Mapping[str, Any] | None = None,
    trace: Mapping[str, Any] | None = None,
    routing: str | Mapping[str, Any] | None = None,
    mobility: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Scenario:
    """Two chains of ``hops`` hops crossing at their middle node ``c``: a horizontal one
    ``h0`` .. ``h<hops>`` and a vertical one ``v0`` .. ``v<hops>`` (their middle nodes are
    ``c``). Flow ``ftp1`` runs from ``h0`` to ``h<hops>``, ``ftp2`` from ``v0`` to
    ``v<hops>``; ``cc`` may name one scheme per flow.

    Parameters
    ----------
    hops:
        hops of each chain, even, >= 2."""
    hops = _count("hops", hops, 2)
    if hops % 2:
        raise ValueError(f"hops must be even (the chains cross at their middle node), got {hops}")
    mid = hops // 2

    def nm(axis: str, i: int) -> str:
        return "c" if i == mid else f"{axis}{i}"

    pos: dict[str, tuple[float, float]] = {}
    for i in range(hops + 1):
        pos[nm("h", i)] = (spacing * (i - mid), 0.0)
        pos[nm("v", i)] = (0.0, spacing * (i - mid))
    edges = [(nm(a, i), nm(a, i + 1)) for a in ("h", "v") for i in range(hops)]
    ccs = _ccs(cc, 2)
    return _mesh(
        name=name or f"cross{hops}",
        mac=mac,
        positions=pos,
        hosts={"h0", f"h{hops}", "v0", f"v{hops}"},
        edges=edges,
        flows=[("ftp1", "h0", f"h{hops}", ccs[0]), ("ftp2", "v0", f"v{hops}", ccs[1])],
        duration=duration,
        seed=seed,
        per=per,
        tcp=tcp,
        medium=medium,
        link_rate=link_rate,
        queue_limit=queue_limit,
        slot=slot,
        guard=guard,
        app=app,
        trace=trace,
        routing=routing,
        mobility=mobility,
    )


@_with_mesh_doc
def grid(
    rows: int = 3,
    cols: int = 3,
    *,
    spacing: float = 200.0,
    mac: str = "tdma",
    cc: str | Iterable[str] = "newreno",
    duration: float | str = 50.0,
    seed: int = 1,
    per: float = 0.0,
    tcp: Mapping[str, Any] | None = None,
    medium: Mapping[str, Any] | None = None,
    link_rate: float | str = "2Mbps",
    queue_limit: int = 50,
    slot: float | str = "2ms",
    guard: float | str = "0s",
    access_rate: float | str = "100Mbps",
    access_delay: float | str = "1us",
    app: Mapping[str, Any] | None = None,
    trace: Mapping[str, Any] | None = None,
    routing: str | Mapping[str, Any] | None = None,
    mobility: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Scenario:
    """A ``rows`` x ``cols`` mesh of routers ``g<r>_<c>`` with client/server pairs at the
    edges: for each row a client ``cW<r>`` on the west node and a server ``sE<r>`` on the
    east node; for each column a client ``cN<c>`` on the north node and a server ``sS<c>`` on
    the south node (3 x 3 gives 6 pairs). Clients and servers attach by wired access links
    (``access_rate``, ``access_delay``), outside the medium. Flow ``pair<k>`` runs from each
    server to its client (rows first), so routes cross in the middle of the mesh.

    Parameters
    ----------
    rows, cols:
        size of the mesh, >= 2 each.
    access_rate, access_delay:
        the wired links of clients and servers."""
    rows = _count("rows", rows, 2)
    cols = _count("cols", cols, 2)

    def g(r: int, c: int) -> str:
        return f"g{r}_{c}"

    pos = {g(r, c): (spacing * c, spacing * r) for r in range(rows) for c in range(cols)}
    edges = [(g(r, c), g(r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    edges += [(g(r, c), g(r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    pairs = [(f"sE{r}", g(r, cols - 1), f"cW{r}", g(r, 0)) for r in range(rows)]
    pairs += [(f"sS{c}", g(rows - 1, c), f"cN{c}", g(0, c)) for c in range(cols)]
    ccs = _ccs(cc, len(pairs))
    extra_nodes = []
    extra_links = []
    for srv, at_s, cli, at_c in pairs:
        for host, at in ((srv, at_s), (cli, at_c)):
            extra_nodes.append({"name": host, "kind": "host"})
            extra_links.append(
                {"a": host, "b": at, "kind": "wired", "rate": access_rate, "delay": access_delay}
            )
    if mac == "wifi":
        # Hosts attach by wire; the medium holds the mesh routers only.
        medium = {"nodes": list(pos), **dict(medium or {})}
    return _mesh(
        name=name or f"grid{rows}x{cols}",
        mac=mac,
        positions=pos,
        hosts=set(),
        edges=edges,
        flows=[(f"pair{k}", srv, cli, ccs[k]) for k, (srv, _, cli, _) in enumerate(pairs)],
        duration=duration,
        seed=seed,
        per=per,
        tcp=tcp,
        medium=medium,
        link_rate=link_rate,
        queue_limit=queue_limit,
        slot=slot,
        guard=guard,
        app=app,
        trace=trace,
        routing=routing,
        mobility=mobility,
        extra_nodes=extra_nodes,
        extra_links=extra_links,
    )
