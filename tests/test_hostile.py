"""Hostile and extreme scenarios: mutated from the valid ones (tools/scenario_fuzz.py), each
must run with packets conserved or be refused with a ScenarioError naming a field (a damaged
file: naming the file); never another exception, never a hang. tools/fuzz_campaign.py runs
the long version of this in worker processes, where aborts and hangs can be counted too."""

from __future__ import annotations

import copy
import datetime
import math
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import airtcp

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import scenario_fuzz as sf  # noqa: E402


@pytest.fixture(scope="module")
def hostile_dir():
    """Cases run in a directory holding a good trace and files not to be read (a FIFO, a
    300 MiB sparse file, a link to /etc/passwd)."""
    with sf.hostile_dir() as d:
        yield d


def _with(base: str, change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    d = copy.deepcopy(sf.BASES[base])
    change(d)
    return d


def _deep(n: int) -> dict[str, Any]:
    d: dict[str, Any] = {}
    cur = d
    for _ in range(n):
        cur["a"] = {}
        cur = cur["a"]
    return d


def _wireless(**error: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda d: d["links"][3].update(error=error)


SNR_WALK = {"waypoints": [[0, 30], [1, 100]]}

#: Scenarios that once gave a wrong answer, aborted, hung or raised a traceback, with the
#: field their error must name (None: they run).
REPRODUCERS: dict[str, tuple[dict[str, Any], str | None]] = {
    # time overflow: a delay beyond the clock's range behaved as no delay
    "delay_1.8e10_s": (_with("dumbbell", lambda d: d["links"][2].update(delay=1.8e10)),
                       "links[2].delay"),
    "duration_1e300_s": (_with("dumbbell", lambda d: d.update(duration=1e300)), "duration"),
    # synthesized SNR series allocated up front: 1 ns samples or a huge duration aborted
    "snr_interval_1ns": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                     synth=SNR_WALK, interval="1ns")),
                         "links[3].error.interval"),
    "snr_huge_duration": (_with("dumbbell", lambda d: (
        _wireless(model="snr", modulation="cck11", synth=SNR_WALK, interval="1ms")(d),
        d.update(duration="1e7s"))), "links[3].error.interval"),
    # unbounded reads, memory and CPU from tiny inputs
    "trace_dev_zero": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                   trace="/dev/zero")),
                       "links[3].error.trace"),
    "trace_fifo": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                               trace="fifo.csv")), "links[3].error.trace"),
    "trace_300MiB": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                 trace="big.csv")), "links[3].error.trace"),
    "cbr_1e30_Gbps": (_with("dumbbell", lambda d: (
        d["flows"][1].update(app={"kind": "cbr", "rate": "1e30Gbps"}, cc=None),
        d["links"][2].update(queue={"limit": 2**63 - 1}))), "flows[1].app.rate"),
    "queue_limit_2^63": (_with("dumbbell", lambda d: d["links"][2].update(
        queue={"limit": 2**63 - 1})), "links[2].queue.limit"),
    "initial_cwnd_2^32-1": (_with("dumbbell", lambda d: d["tcp"].update(
        initial_cwnd=4294967295)), "tcp.initial_cwnd"),
    "queue_interval_1us": (_with("dumbbell", lambda d: d.update(
        trace={"queue": ["R1->R2"], "queue_interval": "1us"}, duration="5s")), "max_events"),
    "queue_traced_1000_times": (_with("dumbbell", lambda d: d.update(
        trace={"queue": ["R1->R2"] * 1000, "queue_interval": "1us"})), "trace.queue[1]"),
    "gilbert_1ns_sojourns": (_with("snr_gate", lambda d: d["links"][0].update(
        error_ba={"model": "gilbert_elliott", "mean_good": "1ns", "mean_bad": "1ns"})), None),
    # tracebacks where a named error is due
    "seed_2^64": (_with("dumbbell", lambda d: d.update(seed=2**64)), "seed"),
    "rate_1e19": (_with("dumbbell", lambda d: d["links"][2].update(rate=1e19)),
                  "links[2].rate"),
    "deep_meta": (_with("dumbbell", lambda d: d.update(meta=_deep(5000))), "meta.a.a.a"),
    "set_value": (_with("dumbbell", lambda d: d["flows"][0].update(cc={"newreno", 1})),
                  "flows[0].cc"),
    "object_value": (_with("dumbbell", lambda d: d["links"][0].update(rate=object())),
                     "links[0].rate"),
    "bytes_value": (_with("dumbbell", lambda d: d["links"][0].update(rate=b"10Mbps")),
                    "links[0].rate"),
    "datetime_value": (_with("dumbbell", lambda d: d.update(
        meta={"when": datetime.datetime(2024, 5, 6)})), "meta.when"),
    "huge_int": (_with("dumbbell", lambda d: d["links"][2]["queue"].update(limit=10**400)),
                 "links[2].queue.limit"),
    # errors that named no field, or only the table
    "nan_per": (_with("dumbbell", _wireless(model="bernoulli", per=math.nan)),
                "links[3].error.per"),
    "nan_in_a_tuple": (_with("dumbbell", lambda d: d.update(meta={"t": (1, [math.inf])})),
                       "meta.t[1][0]"),
    "nan_in_a_set": (_with("dumbbell", lambda d: d.update(meta={"s": {2.0, math.nan}})),
                     "meta.s["),
    "inf_file_size": (_with("dumbbell", lambda d: d["flows"][0].update(
        app={"kind": "file", "size": math.inf})), "flows[0].app.size"),
    "bad_duration_in_error_model": (_with("dumbbell", _wireless(
        model="gilbert_elliott", mean_good="abc", mean_bad=1)), "links[3].error.mean_good"),
    "bad_rate_in_app": (_with("dumbbell", lambda d: d["flows"][1].update(
        app={"kind": "cbr", "rate": "fast"}, cc=None)), "flows[1].app.rate"),
    "bad_duration_in_agent": (_with("dumbbell", lambda d: d.update(
        agents=[{"kind": "snoop", "node": "R2", "min_rto": "soon"}])), "agents[0].min_rto"),
    "empty_key": (_with("dumbbell", lambda d: d.update({"": 1})), '[""]'),
    "empty_key_not_json": (_with("dumbbell", lambda d: d["flows"][0].update({"": 1j})),
                           'flows[0][""]'),
    # file access: absolute and ../ paths were read and a line of them echoed
    "trace_etc_passwd": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                     trace="/etc/passwd")),
                         "links[3].error.trace"),
    "trace_dotdot": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                 trace="../../../../etc/passwd")),
                     "links[3].error.trace"),
    "trace_symlink_out": (_with("dumbbell", _wireless(model="snr", modulation="cck11",
                                                      trace="link.csv")),
                          "links[3].error.trace"),
    # semantics: rates below 1 bps ran as 1 bps, rates past 1.8e19 saturated
    "rate_0.3_bps": (_with("dumbbell", lambda d: d["links"][2].update(rate="0.3bps")),
                     "links[2].rate"),
    "rate_1.9e19_bps": (_with("dumbbell", lambda d: d["links"][2].update(rate=1.9e19)),
                        "links[2].rate"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_reproducers_run_or_name_their_field(hostile_dir, name):
    d, path = REPRODUCERS[name]
    if path is None:
        r = airtcp.run(d)
        assert sf.conservation_problem(r.raw) is None
        return
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(d)
    assert ei.value.path.startswith(path), str(ei.value)[:300]
    # Errors never quote a file the scenario named.
    assert "root:" not in ei.value.message


def test_a_file_transfer_stopped_before_it_ends_has_no_completion_time():
    d = _with("dumbbell", lambda d: d["flows"][0].update(
        app={"kind": "file", "size": "10MB"}, stop="0.5s"))  # fmt: skip
    flow = airtcp.run(d).raw["flows"][0]
    assert flow["completion_time_s"] is None
    done = airtcp.run(_with("dumbbell", lambda d: d["flows"][0].update(
        app={"kind": "file", "size": "20KB"})))  # fmt: skip
    assert done.raw["flows"][0]["completion_time_s"] > 0


class Case:
    """A scenario and how it is run; shown by its label (a scenario nested thousands of levels
    deep has no printable repr)."""

    def __init__(self, label: str, mode: str, scenario: dict[str, Any] | bytes) -> None:
        self.label, self.mode, self.scenario = label, mode, scenario

    def __repr__(self) -> str:
        return f"Case({self.label!r}, {self.mode!r})"


@st.composite
def hostile_cases(draw: st.DrawFn) -> Case:
    name = draw(st.sampled_from(sorted(sf.BASES)))
    mode = draw(st.sampled_from(sf.MODES))
    rng = draw(st.randoms(use_true_random=False))
    ops = draw(st.integers(min_value=1, max_value=4))
    return Case(f"{name} with {ops} mutation(s)", mode, sf.build_case(name, mode, rng, ops))


def _examples(f: Any) -> Any:
    for name in sorted(REPRODUCERS):
        f = example(case=Case(name, "api", REPRODUCERS[name][0]))(f)
    for name in ("trace_dev_zero", "nan_per", "seed_2^64", "bad_duration_in_agent"):
        for mode in ("cli-json", "cli-toml"):
            f = example(case=Case(name, mode, REPRODUCERS[name][0]))(f)
    return f


@pytest.mark.long
@settings(
    max_examples=500,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=hostile_cases())
@_examples
def test_hostile_scenarios_run_conserving_packets_or_name_a_field(hostile_dir, case):
    verdict = sf.run_case(case.scenario, case.mode, hostile_dir)
    assert verdict["outcome"] in ("ok", "error", "budget"), verdict
    if verdict["outcome"] in ("error", "budget"):
        assert verdict["detail"], verdict


def test_conservation_counts_the_drops_of_80211_stations():
    """A station's queue drops are in the macs table, not the links table (campaign case
    10235 was a false violation before the check read it)."""
    sc = airtcp.Scenario.load(ROOT / "scenarios" / "chain4_wifi.toml")
    sc.set("duration", "3s")
    sc.set("media.0.queue.limit", 2)
    r = airtcp.run(sc)
    assert r.summary["drops"]["queue_overflow"] > 0 and not r.raw["links"]
    assert sf.conservation_problem(r.raw) is None
    r.raw["macs"][0]["drops_queue_overflow"] += 1
    assert "link drop counters" in sf.conservation_problem(r.raw)
