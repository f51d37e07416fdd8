"""One contract between the core and the Python front: errors defined in the bindings, unit
parsing, schemes and defaults asked of the core, result tables handled generically, and a
library that does not import the command line."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import pytest

import airtcp
from airtcp import _core
from airtcp.result import Result


def test_scenario_error_carries_path_and_message_and_survives_pickling():
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(airtcp.dumbbell(1, cc="nwereno"))
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.path == "flows[0].cc"
    assert e.message == "unknown scheme 'nwereno' (did you mean 'newreno'?)"
    assert str(e) == f"{e.path}: {e.message}"
    # A process pool sends it back whole.
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is airtcp.ScenarioError
    assert (e2.path, e2.message, str(e2)) == (e.path, e.message, str(e))


def test_errors_raised_by_the_front_have_the_same_shape():
    e = _core.scenario_error("seed", "must be an integer >= 0, got -1")
    assert str(e) == "seed: must be an integer >= 0, got -1"
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(airtcp.dumbbell(1), seed=-1)
    assert ei.value.path == "seed"
    # Made directly from Python, it still answers path and message.
    bare = airtcp.ScenarioError("text")
    assert (bare.path, str(bare)) == ("", "text")


@pytest.mark.parametrize("text", ["2ms", "1.5s", "10sec", "100 us", "3"])
def test_durations_are_read_by_the_core_as_in_scenario_files(text):
    seconds = airtcp.parse_seconds(text)
    assert _core.parse_duration(text) == seconds
    # A scenario whose duration is that text runs for that many seconds.
    sc = airtcp.dumbbell(1).set("duration", text).set("flows.*.start", 0)
    assert airtcp.run(sc).summary["duration_s"] == pytest.approx(seconds)


def test_a_bad_duration_is_refused_by_both():
    with pytest.raises(airtcp.ScenarioError):
        airtcp.parse_seconds("10 parsecs")
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.dumbbell(1).set("duration", "10 parsecs").validate()
    assert ei.value.path == "duration"


def test_schemes_and_defaults_come_from_the_core():
    info = airtcp.scheme_info()
    assert [s["name"] for s in info] == [n for n, _ in airtcp.schemes()]
    assert {s["name"]: s["recovery"] for s in info}["sack"] == "sack"
    by_name = {s["name"]: s for s in info}
    hs = {p["name"]: p for p in by_name["highspeed"]["params"]}
    assert hs["low_window"]["default"] == 38 and hs["low_window"]["ns3_default"] is None
    assert hs["table"]["ns3_default"] == 1
    assert by_name["ledbat"]["timestamps"] is True
    assert by_name["newreno"]["params"] == []
    assert all(p["description"] for s in info for p in s["params"])
    d = airtcp.defaults()
    assert d["tcp"]["initial_cwnd"] == 2
    assert d["profiles"]["ns3"]["initial_cwnd"] == 10
    assert d["queue"] == {"kind": "droptail", "limit": 100, "unit": "packets"}


def _with_extra_table(raw: dict) -> dict:
    raw = dict(raw)
    raw["mac"] = [
        {"node": "R1", "frames": 10, "collisions": 1},
        {"node": "R2", "frames": 7, "collisions": 0, "busy_fraction": 0.25},
    ]
    return raw


def test_a_new_result_table_reaches_result_store_and_export(tmp_path):
    sc = airtcp.dumbbell(1, duration=2.0)
    raw = _with_extra_table(json.loads(_core.run_json(sc.to_json())))
    r = Result(raw)
    assert set(r.tables) >= {"flows", "links", "agents", "mac"}
    assert r.table("mac")["frames"].to_list() == [10, 7]
    assert "mac" not in r.summary
    st = airtcp.Store(tmp_path / "s.sqlite", create=True)
    st.record(
        scenario_hash="h" * 64,
        seed=1,
        params="{}",
        scenario=sc.to_json(),
        status="ok",
        raw=raw,
    )
    assert "mac" in st.tables()
    mac = st.table("mac")
    assert mac["frames"].to_list() == [10, 7]
    assert mac["busy_fraction"].to_list() == [None, 0.25]
    paths = st.export(tmp_path / "out", fmt="csv")
    assert "mac" in paths and paths["mac"].exists()
    with pytest.raises(airtcp.StoreError, match="no table 'nope'"):
        st.table("nope")
    st.close()


def _loaded_after(imports: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has loaded after ``import <imports>``."""
    code = f"import sys, {imports}; print(*[m for m in {modules!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_library_does_not_import_the_command_line():
    imports = "airtcp, airtcp.sweeps, airtcp.bench, airtcp.demo, airtcp.report, airtcp.papers"
    assert _loaded_after(imports, ("airtcp.cli",)) == []


def test_importing_airtcp_loads_neither_numpy_nor_polars():
    # Sweep workers (through the fork server's preload) and every CLI command pay for what
    # `import airtcp` loads; the array and table libraries load when first used.
    assert _loaded_after("airtcp, airtcp.sweeps, airtcp.cli", ("numpy", "polars")) == []


def test_a_mistyped_store_path_is_an_error_not_an_empty_store(tmp_path):
    with pytest.raises(airtcp.StoreError, match="no such store"):
        airtcp.Store(tmp_path / "typo.sqlite")
    assert not (tmp_path / "typo.sqlite").exists()


def test_plots_leave_the_callers_matplotlib_backend_alone():
    code = (
        "import matplotlib; matplotlib.use('svg'); import airtcp; from airtcp import plots; "
        "r = airtcp.run(airtcp.dumbbell(1, duration=2.0, trace=True)); "
        "fig = plots.cwnd(r, 'ftp1'); import matplotlib.pyplot as plt; "
        "print(matplotlib.get_backend(), len(plt.get_fignums()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["svg", "0"]


def test_result_and_store_tables_convert_to_pandas():
    r = airtcp.run(airtcp.dumbbell(1, duration=2.0))
    df = r.flows.to_pandas()
    assert list(df["name"]) == ["ftp1"]


def test_a_foreign_sqlite_database_is_refused_and_left_unchanged(tmp_path):
    import sqlite3

    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (t TEXT)")
    db.commit()
    db.close()
    before = path.read_bytes()
    for create in (False, True):
        with pytest.raises(airtcp.StoreError, match="not an airtcp store"):
            airtcp.Store(path, create=create)
    assert path.read_bytes() == before


def test_a_damaged_store_gives_a_store_error(tmp_path):
    path = tmp_path / "junk.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(airtcp.StoreError, match="not an airtcp store, or damaged"):
        airtcp.Store(path)


def test_non_finite_numbers_and_huge_seeds_name_their_field():
    sc = airtcp.dumbbell(1).set("links.R2-D1.error.per", float("nan"))
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(sc)
    assert (ei.value.path, ei.value.message) == ("links[2].error.per", "must be finite")
    with pytest.raises(ValueError, match=r"2\^63"):
        airtcp.sweep(airtcp.dumbbell(1, duration=1.0), seeds=[2**64], progress=False)


def test_a_crafted_series_path_cannot_leave_the_store(tmp_path):
    import sqlite3

    sc = airtcp.dumbbell(1, duration=1.0)
    st = airtcp.Store(tmp_path / "s.sqlite", create=True)
    st.record(
        scenario_hash="h" * 64,
        seed=1,
        params="{}",
        scenario=sc.to_json(),
        status="ok",
        raw=json.loads(_core.run_json(sc.to_json())),
    )
    st.close()
    db = sqlite3.connect(tmp_path / "s.sqlite")
    db.execute("UPDATE runs SET series = '../../../etc/passwd'")
    db.commit()
    db.close()
    with airtcp.Store(tmp_path / "s.sqlite") as st2:
        with pytest.raises(airtcp.StoreError, match="outside"):
            st2.series("h" * 64, 1)


def test_a_result_shows_as_a_table_in_a_notebook():
    r = airtcp.run(airtcp.dumbbell(1, duration=2.0))
    h = r._repr_html_()
    assert "<table" in h and "goodput_bps" in h and "ftp1" in h


def test_deeply_nested_input_is_a_scenario_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(airtcp.ScenarioError, match="nested too deeply|invalid JSON"):
        airtcp.Scenario.load(deep)
    with pytest.raises(airtcp.ScenarioError, match="nested too deeply|invalid TOML"):
        airtcp.Scenario.from_toml_str("a = " + "[" * 100_000 + "]" * 100_000)
