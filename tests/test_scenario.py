"""Scenario loading, dotted-path editing, output and identity."""

from __future__ import annotations

import json

import pytest

import airtcp
from airtcp import PathError, Scenario
from airtcp.bench import scenario as bench_scenario
from airtcp.scenario import tomllib  # tomllib, or tomli on Python 3.10

from .conftest import DUMBBELL, SCENARIOS


def test_from_toml_reads_the_example():
    s = Scenario.from_toml(DUMBBELL)
    assert s.name == "dumbbell"
    assert s.seed == 1
    assert [n["name"] for n in s["nodes"]] == ["S1", "S2", "R1", "R2", "D1", "D2"]
    assert s.source == str(DUMBBELL)
    s.validate()


def test_from_dict_copies_and_to_dict_copies(dumbbell_dict):
    s = Scenario.from_dict(dumbbell_dict)
    dumbbell_dict["flows"][0]["cc"] = "changed"
    assert s.get("flows.0.cc") == "newreno"
    out = s.to_dict()
    out["flows"][0]["cc"] = "changed"
    assert s.get("flows.0.cc") == "newreno"


def test_set_top_level_and_tables(short_dumbbell):
    s = short_dumbbell
    s.set("duration", "5s").set("seed", 7).set("tcp.delayed_ack", True)
    assert s["duration"] == "5s" and s.seed == 7 and s["tcp"]["delayed_ack"] is True


def test_set_creates_missing_table():
    s = airtcp.dumbbell(1)
    del s.data["tcp"]
    s.set("tcp.sack", True)
    assert s["tcp"] == {"sack": True}
    s.validate()


def test_set_by_index_name_default_name_and_wildcard(short_dumbbell):
    s = short_dumbbell
    s.set("flows.0.cc", "reno-ish")
    assert s["flows"][0]["cc"] == "reno-ish"
    s.set("flows.-1.start", "1s")
    assert s["flows"][1]["start"] == "1s"
    s.set("flows.ftp2.start", 2)
    assert s["flows"][1]["start"] == 2
    # links in dumbbell.toml have no explicit names: the default "<a>-<b>" addresses them
    s.set("links.R2-D1.error.per", 0.05)
    assert s["links"][3]["error"]["per"] == 0.05
    s.set("links[R1-R2].queue.limit", 50)
    assert s["links"][2]["queue"]["limit"] == 50
    s.set("flows.*.cc", "newreno")
    assert s.get("flows.*.cc") == ["newreno", "newreno"]
    s.set('nodes["D2"].kind', "host")
    assert s.paths("flows.*.cc") == ["flows[0].cc", "flows[1].cc"]
    s.validate()


def test_default_flow_names():
    s = Scenario(
        {
            "duration": 1,
            "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "1ms"}],
            "flows": [{"src": "a", "dst": "b", "app": {"kind": "bulk"}}],
        }
    )
    s.set("flows.flow0.start", 0.5)
    assert s["flows"][0]["start"] == 0.5
    assert s.get("links.a-b.rate") == "1Mbps"


def test_names_with_dots_in_brackets():
    s = Scenario({"duration": 1, "nodes": [{"name": "r1.core"}]})
    s.set("nodes[r1.core].kind", "router")
    assert s["nodes"][0]["kind"] == "router"


@pytest.mark.parametrize(
    "path, fragment",
    [
        ("links.R9-R8.rate", "no link named 'R9-R8'"),
        ("flows.5.cc", "index 5 is out of range"),
        ("flows.nope.cc", "no flow named 'nope'"),
        ("duration.x", "duration is a str value"),
        ("links.R2-D1.eror.per", "unknown field `eror`"),
        ("tcp.bogus", "unknown field `bogus`"),
        ("flows.*.tcp.delayd_ack", "unknown field `delayd_ack`"),
        ("tcp.*", "'*' selects list items"),
        ("meta_data.0", "has no item '0'"),
    ],
)
def test_set_bad_paths_raise_keyerror_naming_the_path(short_dumbbell, path, fragment):
    before = short_dumbbell.canonical_json()
    with pytest.raises(KeyError) as ei:
        short_dumbbell.set(path, 1)
    assert isinstance(ei.value, PathError)
    msg = str(ei.value)
    assert msg.startswith(path + ":"), msg
    assert fragment in msg
    assert short_dumbbell.canonical_json() == before  # unchanged on error


def test_bad_link_name_lists_known_names(short_dumbbell):
    with pytest.raises(KeyError, match="known: S1-R1, S2-R1, R1-R2, R2-D1, R2-D2"):
        short_dumbbell.set("links.R2-D9.rate", "1Mbps")


@pytest.mark.parametrize("path", ["", "flows..cc", ".duration", "duration.", "links[R1-R2", "a[]"])
def test_malformed_paths_raise_valueerror(short_dumbbell, path):
    with pytest.raises(ValueError):
        short_dumbbell.set(path, 1)


def test_get_missing_key_raises(short_dumbbell):
    with pytest.raises(KeyError, match="stop"):
        short_dumbbell.get("flows.0.stop")


def test_update_is_atomic(short_dumbbell):
    before = short_dumbbell.canonical_json()
    with pytest.raises(KeyError):
        short_dumbbell.update({"duration": "1s", "flows.9.cc": "x"})
    assert short_dumbbell.canonical_json() == before
    s2 = short_dumbbell.with_values({"flows.*.start": 0}, seed=4)
    assert s2.seed == 4 and short_dumbbell.seed == 1


def test_canonical_json_and_hash(short_dumbbell):
    a = short_dumbbell
    b = Scenario.from_dict(json.loads(json.dumps(a.to_dict())[::1]))
    # key order does not matter
    b2 = Scenario.from_dict(dict(reversed(list(a.to_dict().items()))))
    assert a.canonical_json() == b.canonical_json() == b2.canonical_json()
    assert a.hash() == b2.hash() and len(a.hash()) == 64
    c = a.copy().set("seed", 2)
    assert c.hash() != a.hash()
    assert c.hash(include_seed=False) == a.hash(include_seed=False)
    assert a == b2


def test_numpy_values_serialize():
    import numpy as np

    s = airtcp.dumbbell(1, duration=1)
    s.set("links.R1-R2.queue.limit", np.int64(30)).set("seed", np.uint64(3))
    assert '"limit":30' in s.canonical_json() and '"seed":3' in s.canonical_json()
    r = airtcp.run(s)
    assert r.summary["seed"] == 3


def test_toml_roundtrip(dumbbell_dict):
    s = Scenario.from_dict(dumbbell_dict)
    assert tomllib.loads(s.to_toml()) == s.to_dict()
    d = airtcp.dumbbell(3, per=0.01, udp_background=1, trace=True)
    assert tomllib.loads(d.to_toml()) == d.to_dict()


def test_bench_files_match_builders():
    for key in "abc":
        on_disk = Scenario.from_toml(SCENARIOS / f"bench_{key}.toml")
        assert on_disk == bench_scenario(key), f"scenarios/bench_{key}.toml is stale"


def test_invalid_toml_raises_scenarioerror_naming_file(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text('name = "x"\nduration = \n')
    with pytest.raises(airtcp.ScenarioError) as ei:
        Scenario.from_toml(p)
    assert str(ei.value).startswith(str(p))
    assert "invalid TOML" in str(ei.value)
    with pytest.raises(airtcp.ScenarioError):
        airtcp.run(p)


def test_missing_file_raises_filenotfound(tmp_path):
    with pytest.raises(FileNotFoundError):
        Scenario.from_toml(tmp_path / "nope.toml")


def test_unknown_key_in_tagged_table_is_rejected():
    s = airtcp.dumbbell(1, duration=1).set("flows.0.app", {"kind": "file", "size": "1MB"})
    with pytest.raises(KeyError, match=r"^flows\.0\.app\.bogus: flows\[0\]\.app\.bogus: unknown"):
        s.set("flows.0.app.bogus", 1)
    s.set("flows.0.app.size", "2MB").validate()


@pytest.mark.parametrize(
    "where, value, fragment",
    [
        (("links", 0, "rate"), object(), "of type object is not a scenario value"),
        (("links", 0, "rate"), b"10Mbps", "of type bytes"),
        (("meta", "when"), __import__("datetime").date(2024, 1, 2), "of type date"),
        (("flows", 1, "cc"), {1, "a"}, "set of values that have no order"),
        (("meta",), {("a", 1): 2}, "key ('a', 1) of type tuple: table keys are strings"),
        (("meta",), {1: 2}, "key 1 of type int"),
        (("links", 2, "queue", "limit"), 2 * 10**320, "integer of 321 digits"),
    ],
)
def test_values_json_cannot_hold_are_scenario_errors_naming_the_field(
    dumbbell_dict, where, value, fragment
):
    d = dumbbell_dict
    node = d
    for k in where[:-1]:
        node = node.setdefault(k, {}) if isinstance(k, str) else node[k]
    node[where[-1]] = value
    path = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in where).lstrip(".")
    for attempt in (airtcp.run, airtcp.validate, Scenario):
        with pytest.raises(airtcp.ScenarioError) as ei:
            attempt(d)
        assert ei.value.path == path
        assert fragment in ei.value.message
    # Through set() and through the live dict alike.
    s = airtcp.dumbbell(1, duration=1)
    with pytest.raises(airtcp.ScenarioError) as ei:
        s.set("meta.x", [1, object()])
    assert ei.value.path == "meta.x[1]"
    s.data["meta"] = {"y": object()}
    with pytest.raises(airtcp.ScenarioError, match=r"^meta\.y: "):
        s.to_json()
    with pytest.raises(airtcp.ScenarioError, match=r"^meta\.y: "):
        s.hash()


def test_deep_nesting_in_a_dict_is_a_scenario_error_not_a_recursion_error(dumbbell_dict):
    deep: dict = {}
    cur = deep
    for _ in range(10_000):
        cur["a"] = {}
        cur = cur["a"]
    dumbbell_dict["meta"] = {"deep": deep}
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(dumbbell_dict)
    assert ei.value.path.startswith("meta.deep.a.a")
    assert "nested more than" in ei.value.message
    # A list nested as deep fares the same.
    lst: list = []
    cur_l = lst
    for _ in range(10_000):
        cur_l.append([])
        cur_l = cur_l[0]
    dumbbell_dict["meta"] = {"deep": lst}
    with pytest.raises(airtcp.ScenarioError, match=r"^meta\.deep\[0\]\[0\]"):
        airtcp.validate(dumbbell_dict)
