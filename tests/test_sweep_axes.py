"""Sweeps over builder arguments (hop counts, flow counts) beside scenario paths; a store of
several sweeps read at once; what a failed or finished sweep leaves and says."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import airtcp
from airtcp import Store
from airtcp.cli import main
from airtcp.store import MixedSweepsWarning
from airtcp.sweeps import plan


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


BASE = {"duration": 2.0}


def test_plan_builds_each_point_with_the_builder_and_sets_the_paths():
    points, _, jobs = plan(
        airtcp.chain,
        {"hops": [1, 3], "flows.*.cc": ["newreno", "vegas"]},
        seeds=1,
        base=BASE,
    )
    assert points == [
        {"hops": 1, "flows.*.cc": "newreno"},
        {"hops": 1, "flows.*.cc": "vegas"},
        {"hops": 3, "flows.*.cc": "newreno"},
        {"hops": 3, "flows.*.cc": "vegas"},
    ]
    for j in jobs:
        want = airtcp.chain(j.point["hops"], **BASE).set("flows.*.cc", j.point["flows.*.cc"])
        assert j.invalid is None
        assert airtcp.Scenario.from_dict(__import__("json").loads(j.scenario_json)) == want


def test_a_point_the_builder_refuses_is_invalid_and_a_missing_argument_is_an_error():
    _, _, jobs = plan(airtcp.cross, {"hops": [2, 3]}, seeds=1, base=BASE)
    assert jobs[0].invalid is None
    assert jobs[1].invalid is not None and jobs[1].invalid.startswith("hops=3: hops must be even")
    with pytest.raises(ValueError, match="chain: .*hops"):
        plan(airtcp.chain, {"spacing": [100.0]}, seeds=1)
    with pytest.raises(ValueError, match="not a builder"):
        plan(airtcp.chain(1), {}, seeds=1, base=BASE)


def test_builder_axes_are_columns_of_the_store(tmp_path):
    db = tmp_path / "s.sqlite"
    df = airtcp.sweep(
        airtcp.chain,
        grid={"hops": [1, 2], "flows.*.cc": ["newreno", "vegas"]},
        base=BASE,
        seeds=2,
        store=db,
        table="flows",
        progress=False,
        workers=1,
    )
    assert df.height == 8
    assert sorted(set(df["hops"].to_list())) == [1, 2]
    assert df["sweep"].unique().to_list() == ["chain"]
    with Store(db) as st:
        runs = st.runs("chain")
        assert (runs["status"] == "ok").all()
        # Each hop count ran its own chain: the scenario names say so.
        assert sorted(set(runs["name"].to_list())) == ["chain1", "chain2"]
        info = st.sweep_info("chain")
        assert info is not None
    # Another fixed argument is another base: refused under the same name.
    with pytest.raises(Exception, match="already exists"):
        airtcp.sweep(
            airtcp.chain, grid={"hops": [1]}, base={"duration": 3.0}, seeds=1, store=db,
            progress=False, workers=1,
        )  # fmt: skip


def test_cli_builder_sweep(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    code, out, err = run_cli(
        capsys,
        "sweep",
        "--builder",
        "chain",
        "--set",
        "hops=1,2",
        "--set",
        "duration=1s",
        "--set",
        "flows.*.cc=newreno,vegas",
        "--seeds",
        "1",
        "--workers",
        "1",
        "--store",
        str(db),
        "--quiet",
    )
    assert code == 0, err
    assert "hops" in out.splitlines()[0]
    assert "sweep chain: 4 runs" in err
    with Store(db) as st:
        flows = st.flows("chain")
    assert sorted(flows["hops"].to_list()) == [1, 1, 2, 2]
    code, _, err = run_cli(capsys, "sweep", "--builder", "chain", "--set", "spacing=100")
    assert code == 2 and "hops" in err
    code, _, err = run_cli(capsys, "sweep", "--set", "hops=1")
    assert code == 2 and "--builder" in err


def test_an_error_table_made_by_the_sweep_path_gets_a_hint_and_leaves_no_store(tmp_path):
    db = tmp_path / "none.sqlite"
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.sweep(
            airtcp.chain(2, duration=1.0),
            grid={"media.air.error.per": [0.01, 0.02]},
            seeds=1,
            store=db,
            progress=False,
        )
    msg = str(e.value)
    assert "media[0].error.model: missing required field" in msg
    assert 'media.air.error={ model = "bernoulli", per = 0.01 }' in msg
    assert not db.exists()
    # The hinted forms work: the whole table, or a scenario that has one.
    df = airtcp.sweep(
        airtcp.chain(2, duration=1.0),
        grid={"media.air.error": [{"model": "bernoulli", "per": 0.01}]},
        seeds=1,
        store=db,
        progress=False,
        workers=1,
    )
    assert (df["status"] == "ok").all()
    df = airtcp.sweep(
        airtcp.chain(2, duration=1.0, per=0.01),
        grid={"media.air.error.per": [0.0, 0.02]},
        seeds=1,
        progress=False,
        workers=1,
    )
    assert (df["status"] == "ok").all()


def test_the_closing_summary_is_printed_when_stderr_is_not_a_terminal(capsys):
    airtcp.sweep(airtcp.chain(1, duration=1.0), seeds=1, workers=1)
    err = capsys.readouterr().err
    assert "sweep chain1: 1 runs (1 point x 1 seed): 1 ran" in err
    airtcp.sweep(airtcp.chain(1, duration=1.0), seeds=1, workers=1, progress=False)
    assert "sweep chain1" not in capsys.readouterr().err


def test_a_store_of_two_sweeps_says_so_and_carries_the_sweep_column(tmp_path, capsys):
    db = tmp_path / "two.sqlite"
    for name, dur in (("short", 1.0), ("long", 2.0)):
        airtcp.sweep(
            airtcp.chain(1, duration=dur), seeds=1, store=db, name=name, progress=False, workers=1
        )
    with Store(db) as st:
        with pytest.warns(MixedSweepsWarning, match="2 sweeps \\(long, short\\)"):
            flows = st.flows()
        assert sorted(flows["sweep"].to_list()) == ["long", "short"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            one = st.flows("short")
            assert one["sweep"].to_list() == ["short"]
            st.links("long")
    code, _, err = run_cli(
        capsys, "export", str(db), "--format", "csv", "--out", str(tmp_path / "x")
    )
    assert code == 0
    assert "warning: " in err and "2 sweeps" in err
    exported = pl.read_csv(tmp_path / "x" / "flows.csv")
    assert sorted(exported["sweep"].to_list()) == ["long", "short"]
    code, _, err = run_cli(
        capsys,
        "export",
        str(db),
        "--sweep",
        "long",
        "--format",
        "csv",
        "--out",
        str(tmp_path / "y"),
    )
    assert code == 0 and "warning" not in err
    assert pl.read_csv(tmp_path / "y" / "flows.csv")["sweep"].to_list() == ["long"]


def test_export_help_describes_format(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    out = capsys.readouterr().out
    assert "--format {parquet,csv}" in out
    assert "file format of the tables" in out
