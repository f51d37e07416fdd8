"""The readings of the EWR reproduction (:mod:`airtcp.papers.ewr`): the setup choices the paper
leaves open, each a variant of the scenarios under which the claims are decided again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..scenario import Scenario
from . import (
    Reading,
    Variant,
)
from ._ewr_claims import (
    MIXES,
)

FRIEND_SWEEPS = tuple(f"friend{n}{m}" for n, m in MIXES)


def _tcp_flows(sc: Scenario) -> list[dict[str, Any]]:
    return [f for f in sc.data["flows"] if "cc" in f]


def with_ewr_params(**params: float) -> Callable[[Scenario, str], Scenario]:
    """Give every TCP flow EWR parameters scoped to EWR (``ewr.<key>``): the grid changes the
    scheme, and every other scheme ignores them."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for f in _tcp_flows(sc):
            f.setdefault("cc_params", {}).update({f"ewr.{k}": v for k, v in params.items()})
        return sc

    return transform


def scale_queues(factor: float) -> Callable[[Scenario, str], Scenario]:
    """Every queue limit the paper leaves open (all but the mixed topology's, which it gives)
    times ``factor``."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            q = link.get("queue")
            if q is not None and "limit" in q:
                q["limit"] = max(1, round(q["limit"] * factor))
        return sc

    return transform


def rtt_spread(step_ms: float) -> Callable[[Scenario, str], Scenario]:
    """Source i's access link 2 + (i - 1) * ``step_ms`` ms long (one way), so the flows'
    round trips differ; the bottleneck and the sinks' links unchanged."""

    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            a = link["a"]
            if a.startswith("S") and a[1:].isdigit() and link["b"] in ("R1", "N1"):
                link["delay"] = f"{2 + (int(a[1:]) - 1) * step_ms:g}ms"
        return sc

    return transform


def set_jitter(value: str) -> Callable[[Scenario, str], Scenario]:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for f in sc.data["flows"]:
            if "start_jitter" in f:
                f["start_jitter"] = value
        return sc

    return transform


def errors_on(applies_to: str) -> Callable[[Scenario, str], Scenario]:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        for link in sc.data["links"]:
            if "error" in link:
                link["error"]["applies_to"] = applies_to
        return sc

    return transform


DEFAULT = Variant("as run", "the setup declared before the first run (docs/schemes/ewr.md)")

READINGS = [
    Reading(
        "sampling",
        "Eq. 1: a sample per packet or per interval",
        default=Variant(
            "per packet",
            "Eq. 1 is indexed by packet: the n-th packet arriving at t_n, over the gap since "
            "the (n-1)-th; d_n as one packet's data",
        ),
        alternatives=(
            Variant(
                "per interval",
                "d_n as 'the amount of data currently received' over an interval of one "
                "RTT_min: the flow's own arrival rate, without the per-packet overshoot; but "
                "then oCwnd = RTT_min * cwnd / RTT <= cwnd, so (b) can never raise the window "
                "and the +2 of (c) is capped by the advertised window: EWR has no way to grow",
                transform=with_ewr_params(interval=1.0),
            ),
        ),
        passage=(
            "§2: 'The first step of bandwidth estimation is to calculate a sample bandwidth "
            "(Bw_sample(n)) when the n-th packet arrives at the receiver at time t_n: "
            "Bw_sample(n) = d_n / (t_n - t_(n-1)) (1) where d_n is the amount of data "
            "currently received by the receiver and t_(n-1) is the previous (n-1)-th packet "
            "arrival time.'"
        ),
    ),
    Reading(
        "loss_term",
        "The loss-probability term of [6]",
        default=Variant(
            "left out",
            "Eqs. 1-3 as printed have no loss term and the paper gives no formula for it",
        ),
        alternatives=(
            Variant(
                "Padhye cap",
                "the estimate in Eq. 3 capped at Padhye et al.'s throughput [6] for the loss "
                "rate the receiver sees (holes over segments; it cannot tell congestion "
                "losses from others), R = RTT_min, T0 = 4 R",
                transform=with_ewr_params(loss_term=1.0),
            ),
        ),
        passage=(
            "§2: 'By incorporating the actual arrival rate information in bandwidth estimation "
            "and, at the same time, by including congestion-related packet loss probability "
            "into the packet arrival rate calculation [6], the proposed scheme can probe the "
            "available bandwidth more accurately.'"
        ),
    ),
    Reading(
        "rcv_window",
        "Receive buffer",
        kind="axis",
        default=Variant("256 KiB", "above every path's bandwidth-delay product plus queue"),
        alternatives=(
            Variant(
                "64 KiB",
                "about the single bottleneck's bandwidth-delay product (61 kB): NewReno's "
                "slow start can no longer overshoot the 50-packet queue by a whole window",
                set={"tcp.rcv_window": 65536},
            ),
            Variant(
                "ns-2 window_ 20",
                "ns-2's default TCP window (20 packets of 1000 bytes), which a study that "
                "does not mention it runs with",
                set={"tcp.rcv_window": 20000},
            ),
        ),
        passage="The paper does not consider the receiver's buffer (§2) and gives no window.",
    ),
    Reading(
        "queues",
        "Queue sizes the paper leaves open",
        kind="axis",
        default=Variant("50 packets", "ns-2's default limit_"),
        alternatives=(
            Variant(
                "25 packets",
                "half a bandwidth-delay product at the single bottleneck",
                transform=scale_queues(0.5),
                sweeps=("single", "fairness", *FRIEND_SWEEPS),
            ),
            Variant(
                "100 packets",
                "two bandwidth-delay products at the single bottleneck",
                transform=scale_queues(2.0),
                sweeps=("single", "fairness", *FRIEND_SWEEPS),
            ),
        ),
        passage=(
            "Only Fig. 3's queues are given ('The queue sizes of wired links and the wireless "
            "link are set to 100 and 10'); the single bottleneck's and Fig. 5's are not."
        ),
    ),
    Reading(
        "rtt_spread",
        "Round-trip times of Table 1's ten flows",
        kind="axis",
        default=Variant("equal", "every source on the same 100 Mbit/s, 2 ms access link"),
        alternatives=(
            Variant(
                "unequal",
                "source i's access link 2 + 8 (i - 1) ms: round trips from about 49 to 193 "
                "ms; NewReno's and Westwood+'s shares then depend on the round trip, which "
                "could explain Table 1's low indices",
                transform=rtt_spread(8.0),
                sweeps=("fairness",),
            ),
        ),
        passage=(
            "§3: 'fairness index has been compared by considering 10 same TCP flows that share "
            "a 10 Mbps bottleneck link'; no delays are given."
        ),
        claims=("fair_single", "fair_single_zero", "table1_levels"),
    ),
    Reading(
        "start_jitter",
        "Flows' start times",
        kind="axis",
        default=Variant("uniform in 1 s", "random phases, so seeds differ without errors"),
        alternatives=(
            Variant(
                "uniform in 100 ms",
                "nearly simultaneous starts (slow starts overlap)",
                transform=set_jitter("100ms"),
            ),
        ),
        passage="The paper gives no start times.",
    ),
    Reading(
        "background",
        "Fig. 2's background load",
        kind="axis",
        default=Variant(
            "2 Mbps", "two on/off UDP sources of 2 Mbps while on: about a fifth of the link"
        ),
        alternatives=(
            Variant(
                "1 Mbps",
                "the same sources at 1 Mbps while on: about a tenth of the link",
                set={"flows.udp*.app.rate": "1Mbps"},
                sweeps=("single",),
            ),
            Variant(
                "4 Mbps",
                "the same sources at 4 Mbps while on: about two fifths of the link",
                set={"flows.udp*.app.rate": "4Mbps"},
                sweeps=("single",),
            ),
        ),
        passage=(
            "§3: the single bottleneck compares the schemes 'under the condition that there "
            "exist various link error rates, and background traffics'; neither kind nor load is "
            "given."
        ),
    ),
    Reading(
        "ack_errors",
        "Whether ACKs see channel errors",
        kind="axis",
        default=Variant("data only", "the error rate read as a packet error rate of data"),
        alternatives=(
            Variant(
                "data and ACKs",
                "the link error hits every packet crossing the error-prone link, ACKs too",
                transform=errors_on("all"),
                # Without errors it does not matter which packets they would hit (a test).
                unchanged={"links.R1-R2.error.per": [0.0], "links.N4-M.error.per": [0.0]},
            ),
        ),
        passage=(
            "§3: 'under the condition that there exist various link error rates'; what the "
            "errors hit is not said."
        ),
    ),
]
