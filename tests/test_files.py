"""Files a scenario reads (SNR traces): relative to the scenario file, never outside its
directory unless allowed, never echoed in an error."""

from __future__ import annotations

from pathlib import Path

import pytest

import airtcp
from airtcp import Scenario, Store
from airtcp.cli import main

SECRET = "root:x:0:0:do-not-echo"


def snr_scenario(trace: str, duration: str = "3s") -> dict:
    """A mobile host sending over one wireless hop whose SNR comes from ``trace``."""
    return {
        "name": "trace",
        "duration": duration,
        "nodes": [{"name": "MH"}, {"name": "BS", "kind": "router"}, {"name": "FH"}],
        "links": [
            {
                "name": "MH-BS",
                "a": "MH",
                "b": "BS",
                "kind": "wireless",
                "rate": "5.5Mbps",
                "delay": "2ms",
                "error": {"model": "snr", "modulation": "cck5.5", "trace": trace},
            },
            {"a": "BS", "b": "FH", "rate": "2Mbps", "delay": "20ms"},
        ],
        "flows": [{"src": "MH", "dst": "FH", "cc": "newreno", "app": {"kind": "bulk"}}],
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/scen/ holds scenarios and walk.csv; tmp/data/walk.csv and tmp/secret.txt lie
    outside the scenarios' directory."""
    (tmp_path / "scen").mkdir()
    (tmp_path / "data").mkdir()
    walk = "# snr dB\n30\n28\n12\n30\n30\n"
    (tmp_path / "scen" / "walk.csv").write_text(walk)
    (tmp_path / "data" / "walk.csv").write_text(walk)
    (tmp_path / "secret.txt").write_text(SECRET + "\n" + SECRET + "\n")
    return tmp_path


def write(tree: Path, name: str, trace: str) -> Path:
    p = tree / "scen" / f"{name}.toml"
    Scenario(snr_scenario(trace)).to_toml(p)
    return p


def test_a_relative_trace_is_read_from_the_scenario_files_directory(tree, monkeypatch):
    p = write(tree, "ok", "walk.csv")
    monkeypatch.chdir("/")
    r = airtcp.run(p)
    assert r.raw["flows"][0]["goodput_bps"] > 0
    # The same scenario loaded and edited keeps its directory.
    sc = airtcp.load(p).with_values(seed=3)
    assert sc.base_dir == str(tree / "scen")
    airtcp.run(sc, seed=4)


@pytest.mark.parametrize("trace", ["../secret.txt", "../data/walk.csv", "SECRET_ABS"])
def test_a_trace_outside_the_scenarios_directory_is_refused(tree, trace):
    trace = str(tree / "secret.txt") if trace == "SECRET_ABS" else trace
    p = write(tree, "out", trace)
    for attempt in (airtcp.run, airtcp.validate):
        with pytest.raises(airtcp.ScenarioError) as ei:
            attempt(p)
        assert ei.value.path == "links[0].error.trace"
        assert "lies outside the scenario's directory" in ei.value.message
        assert str(tree / "scen") in ei.value.message
        assert "do-not-echo" not in str(ei.value)


def test_allow_paths_opens_a_directory(tree):
    p = write(tree, "up", "../data/walk.csv")
    assert airtcp.run(p, allow_paths=tree / "data").raw["flows"][0]["goodput_bps"] > 0
    airtcp.validate(p, allow_paths=[str(tree / "data")])
    # Allowing data/ does not allow its parent.
    q = write(tree, "secret", "../secret.txt")
    with pytest.raises(airtcp.ScenarioError, match="lies outside"):
        airtcp.run(q, allow_paths=[tree / "data"])
    # An allowed file that is not a trace is reported by line number, never quoted.
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(q, allow_paths=[tree])
    assert ei.value.path == "links[0].error.trace"
    assert "line 2" in ei.value.message and "do-not-echo" not in str(ei.value)


def test_a_scenario_built_in_code_reads_relative_to_the_working_directory(tree, monkeypatch):
    d = snr_scenario("walk.csv")
    monkeypatch.chdir(tree / "scen")
    assert airtcp.run(d).raw["flows"][0]["goodput_bps"] > 0
    monkeypatch.chdir(tree / "data")
    assert airtcp.run(d).raw["flows"][0]["goodput_bps"] > 0
    with pytest.raises(airtcp.ScenarioError, match="lies outside"):
        airtcp.run(snr_scenario("../secret.txt"))
    monkeypatch.chdir(tree)
    with pytest.raises(airtcp.ScenarioError, match="cannot read 'walk.csv': no such file"):
        airtcp.run(d)


def test_a_symbolic_link_leading_outside_is_refused(tree):
    (tree / "scen" / "link.csv").symlink_to(tree / "data" / "walk.csv")
    p = write(tree, "link", "link.csv")
    with pytest.raises(airtcp.ScenarioError, match="lies outside"):
        airtcp.run(p)
    airtcp.run(p, allow_paths=tree / "data")


def test_devices_are_refused_even_when_allowed(tree):
    p = write(tree, "dev", "/dev/zero")
    with pytest.raises(airtcp.ScenarioError, match="lies outside"):
        airtcp.validate(p)
    with pytest.raises(airtcp.ScenarioError, match="is not a regular file"):
        airtcp.validate(p, allow_paths="/dev")


def test_cli_refuses_with_exit_2_and_allow_path_opens(tree, capsys, monkeypatch):
    monkeypatch.chdir("/")
    p = write(tree, "up", "../data/walk.csv")
    for cmd in ("run", "validate"):
        code = main([cmd, str(p)])
        err = capsys.readouterr().err
        assert code == 2
        assert err.startswith("error: links[0].error.trace: '../data/walk.csv' lies outside")
        assert "Traceback" not in err
        assert main([cmd, str(p), "--allow-path", str(tree / "data")]) == 0, capsys.readouterr()
    capsys.readouterr()


def test_sweep_workers_read_relative_to_the_scenario_file(tree, monkeypatch):
    """Workers may start anywhere; the directory travels with each run."""
    monkeypatch.chdir("/")
    ok = write(tree, "ok", "walk.csv")
    store = tree / "s.sqlite"
    df = airtcp.sweep(ok, {"duration": [1.0, 2.0]}, seeds=2, workers=2, store=store, progress=False)
    assert sorted(df["status"].to_list()) == ["ok"] * 4
    # A grid value whose trace lies outside is refused before anything runs, naming it.
    grid = {"links.MH-BS.error.trace": ["walk.csv", "../secret.txt"]}
    with pytest.raises(airtcp.ScenarioError, match="lies outside") as e:
        airtcp.sweep(ok, grid, seeds=2, workers=2, store=store, progress=False, name="g")
    assert "../secret.txt" in str(e.value)
    with Store(store) as st:
        assert "g" not in st.sweeps()["sweep"].to_list()
    # Allowed, the file is read, and its error names a line without quoting it.
    with pytest.raises(airtcp.ScenarioError, match="line 2") as e:
        airtcp.sweep(
            ok,
            grid,
            seeds=2,
            workers=2,
            store=store,
            progress=False,
            name="g",
            allow_paths=[tree],
        )
    assert "do-not-echo" not in str(e.value)
