"""Scenario builders: a few lines of Python for the topologies the seed papers use."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from . import _core
from .scenario import Scenario

__all__ = ["dumbbell", "parse_seconds"]

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
