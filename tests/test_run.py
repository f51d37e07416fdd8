"""airtcp.run and Result."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import airtcp
from airtcp import Result, Scenario

from .conftest import DUMBBELL

FLOW_COLUMNS = [
    "name", "src", "dst", "transport", "cc", "app", "start_s", "goodput_bps", "throughput_bps",
    "delivered_bytes", "sent_bytes", "sent_packets", "received_packets", "retransmissions",
    "timeouts", "fast_retransmits", "avg_cwnd_segments", "rtt_min_s", "rtt_mean_s", "srtt_s",
    "rto_s", "completion_time_s", "lost_packets", "order_violations",
]  # fmt: skip
LINK_COLUMNS = [
    "name", "link", "from", "to", "kind", "rate_bps", "utilization", "tx_packets", "tx_bytes",
    "mean_queue_packets", "max_queue_packets", "drops_queue_overflow", "drops_aqm",
    "drops_channel_error",
]  # fmt: skip
SUMMARY_KEYS = ["name", "seed", "duration_s", "events", "packet_hops", "packets", "drops",
                "fairness"]  # fmt: skip


@pytest.fixture(scope="module")
def result() -> Result:
    s = Scenario.from_toml(DUMBBELL).set("duration", "10s")
    return airtcp.run(s)


def test_tables_have_documented_columns(result):
    assert isinstance(result.flows, pl.DataFrame)
    assert isinstance(result.links, pl.DataFrame)
    assert set(FLOW_COLUMNS) <= set(result.flows.columns)
    assert set(LINK_COLUMNS) <= set(result.links.columns)
    assert result.flows["name"].to_list() == ["ftp1", "ftp2"]
    # one row per link direction: 5 links, 2 directions each
    assert result.links.height == 10
    assert "R1->R2" in result.links["name"].to_list()
    assert result.flows["goodput_bps"].dtype == pl.Float64
    assert (result.flows["goodput_bps"] > 0).all()


def test_summary(result):
    s = result.summary
    for k in SUMMARY_KEYS:
        assert k in s
    assert not {"flows", "links", "series"} & set(s)
    assert s["duration_s"] == 10.0
    assert s["packets"]["delivered"] > 0
    assert s["events"] > 0 and s["packet_hops"] > 0


def test_series(result):
    t, cwnd, ssthresh = result.cwnd("ftp1")
    assert isinstance(t, np.ndarray) and t.dtype == np.float64
    assert len(t) == len(cwnd) == len(ssthresh) > 0
    assert np.all(np.diff(t) >= 0)
    tq, q = result.queue("R1->R2")
    assert len(tq) == len(q) > 0 and q.max() <= 20
    with pytest.raises(KeyError, match="recorded: ftp1, ftp2"):
        result.cwnd("nope")
    with pytest.raises(KeyError, match=r"recorded: R1->R2"):
        result.queue("R2->R1")


def test_series_missing_when_not_traced():
    r = airtcp.run(airtcp.dumbbell(1, duration=1))
    with pytest.raises(KeyError, match=r"none was recorded.*trace"):
        r.cwnd("ftp1")
    with pytest.raises(KeyError, match="none was recorded"):
        r.queue("R1->R2")


def test_run_accepts_path_dict_and_scenario(dumbbell_dict, tmp_path):
    a = airtcp.run(dumbbell_dict)
    b = airtcp.run(Scenario.from_dict(dumbbell_dict))
    p = tmp_path / "s.toml"
    p.write_text(Scenario.from_dict(dumbbell_dict).to_toml())
    c = airtcp.run(str(p))
    d = airtcp.run(p)
    assert a.raw == b.raw == c.raw == d.raw


def test_same_seed_identical_different_seed_differs(dumbbell_dict):
    r1 = airtcp.run(dumbbell_dict)
    r2 = airtcp.run(dumbbell_dict)
    assert json.dumps(r1.raw, sort_keys=True) == json.dumps(r2.raw, sort_keys=True)
    r3 = airtcp.run(dumbbell_dict, seed=2)
    assert r3.summary["seed"] == 2
    assert dumbbell_dict.get("seed", 1) == 1  # the seed override does not touch the input
    strip = {k: v for k, v in r1.raw.items() if k != "seed"}
    strip3 = {k: v for k, v in r3.raw.items() if k != "seed"}
    assert json.dumps(strip, sort_keys=True) != json.dumps(strip3, sort_keys=True)
    # the seed argument is the same as setting it in the scenario
    r4 = airtcp.run(Scenario.from_dict(dumbbell_dict).set("seed", 2))
    assert r4.raw == r3.raw


def test_to_json_and_parquet(result, tmp_path):
    p = tmp_path / "out" / "r.json"
    result.to_json(p)
    assert json.loads(p.read_text()) == result.raw
    assert Result.from_json(p).raw == result.raw
    paths = result.to_parquet(tmp_path / "pq")
    assert paths["flows"] == tmp_path / "pq" / "flows.parquet"
    assert pl.read_parquet(paths["flows"]).equals(result.flows)
    assert pl.read_parquet(paths["links"]).equals(result.links)
    paths = result.to_parquet(tmp_path / "one.parquet")
    assert paths["flows"].name == "one.flows.parquet" and paths["flows"].exists()
    assert paths["links"].name == "one.links.parquet" and paths["links"].exists()


def test_udp_only_run_has_stable_dtypes():
    s = airtcp.dumbbell(0, udp_background=1, duration=2)
    r = airtcp.run(s)
    assert r.flows["transport"].to_list() == ["udp"]
    assert r.flows["rtt_mean_s"].dtype == pl.Float64


def test_jain():
    assert airtcp.jain([1, 1, 1]) == pytest.approx(1.0)
    assert airtcp.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert airtcp.jain([1, 2, 3]) == pytest.approx(36 / 42)
    assert airtcp.jain(np.array([5.0, 5.0])) == pytest.approx(1.0)
    assert airtcp.jain(pl.Series([2.0, 2.0])) == pytest.approx(1.0)
    assert airtcp.jain(x for x in [1.0, 3.0]) == pytest.approx(16 / 20)
    assert airtcp.jain([]) == 1.0 and airtcp.jain([0, 0]) == 1.0


def test_jain_matches_core_fairness(result):
    assert airtcp.jain(result.flows["goodput_bps"]) == pytest.approx(result.fairness)


def test_schemes_and_version():
    names = [n for n, _ in airtcp.schemes()]
    assert "newreno" in names
    assert airtcp.__version__


# -- errors ---------------------------------------------------------------------------------


def _err(d) -> airtcp.ScenarioError:
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(d)
    return ei.value


def test_error_message_starts_with_field_path(dumbbell_dict):
    dumbbell_dict["flows"][1]["cc"] = "nwereno"
    e = _err(dumbbell_dict)
    assert str(e) == "flows[1].cc: unknown scheme 'nwereno' (did you mean 'newreno'?)"
    assert e.path == "flows[1].cc"
    assert e.detail.startswith("unknown scheme")
    assert isinstance(e, ValueError)


def test_validate_reports_the_same(dumbbell_dict):
    dumbbell_dict["links"][0]["bogus"] = 1
    with pytest.raises(airtcp.ScenarioError, match=r"^links\[0\]\.bogus: unknown field"):
        airtcp.validate(dumbbell_dict)
    with pytest.raises(airtcp.ScenarioError, match=r"^links\[0\]\.bogus"):
        Scenario.from_dict(dumbbell_dict).validate()
    assert not Scenario.from_dict(dumbbell_dict).is_valid()


def test_bad_seed_argument(dumbbell_dict):
    with pytest.raises(airtcp.ScenarioError, match="^seed:"):
        airtcp.run(dumbbell_dict, seed=-1)


def test_scenario_error_from_core_is_reexported():
    assert airtcp.ScenarioError is airtcp._core.ScenarioError
    assert airtcp.SimulationError is airtcp._core.SimulationError
    assert issubclass(airtcp.SimulationError, RuntimeError)


def test_run_json_without_series_is_the_same_result_less_its_series(short_dumbbell):
    """Sweeps that keep no series ask the core not to write them: everything else of the
    result is the same text."""
    from airtcp import _core

    text = short_dumbbell.canonical_json()
    full = json.loads(_core.run_json(text))
    lean = json.loads(_core.run_json(text, series=False))
    assert full["series"]["cwnd"] and full["series"]["queue"]
    assert not any(lean["series"].values())
    full.pop("series")
    lean.pop("series")
    assert lean == full
