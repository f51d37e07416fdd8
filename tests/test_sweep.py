"""Sweeps: grid values, planning, the store, failures, resuming after SIGKILL, dask, export."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import polars as pl
import pytest

import airtcp
from airtcp import Scenario, Store
from airtcp.cli import main
from airtcp.store import MixedSweepsWarning
from airtcp.sweeps import parse_axis, plan, run_job, run_sweep, scenario_key, split_values

from .conftest import DUMBBELL, ROOT

# Columns that differ between two executions of the same run.
VOLATILE = {"wall_s", "finished_at", "sweep"}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def stable(df: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in ("scenario_hash", "seed", "name") if c in df.columns]
    return df.drop([c for c in df.columns if c in VOLATILE]).sort(keys)


def run_script(script, cwd, env) -> subprocess.CompletedProcess:
    """Run a sweep script in a fresh interpreter (its workers may be killed on purpose)."""
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# --------------------------------------------------------------------------------------------
# grid values


def test_split_values_keeps_brackets_and_quotes():
    assert split_values("0,0.01, 0.05") == ["0", "0.01", "0.05"]
    assert split_values("newreno,westwood+") == ["newreno", "westwood+"]
    assert split_values('[1, 2],{ a = 1, b = "x,y" },"p,q"') == [
        "[1, 2]",
        '{ a = 1, b = "x,y" }',
        '"p,q"',
    ]
    for bad in ("1,,2", "[1,2", "1]", '"abc', ",1"):
        with pytest.raises(ValueError):
            split_values(bad)


def test_parse_axis_reads_values_like_set():
    assert parse_axis("links.R2-D1.error.per=0,0.01") == ("links.R2-D1.error.per", [0, 0.01])
    assert parse_axis("flows.*.cc=newreno,westwood+") == ("flows.*.cc", ["newreno", "westwood+"])
    assert parse_axis("duration=10s,20s") == ("duration", ["10s", "20s"])
    assert parse_axis("tcp.sack=true,false") == ("tcp.sack", [True, False])
    with pytest.raises(ValueError):
        parse_axis("duration")
    with pytest.raises(ValueError):
        parse_axis("duration=")


def test_plan_is_a_cross_product_keyed_by_hash_without_seed(short_dumbbell):
    grid = {"links.R2-D1.error.per": [0, 0.01, 0.05], "flows.*.cc": ["newreno", "westwood+"]}
    points, seeds, jobs = plan(short_dumbbell, grid, 4, seed_start=3)
    assert len(points) == 6 and seeds == [3, 4, 5, 6] and len(jobs) == 24
    assert points[1] == {"links.R2-D1.error.per": 0, "flows.*.cc": "westwood+"}
    # one hash per point, shared by its seeds; seed-major order
    assert len({j.scenario_hash for j in jobs}) == 6
    assert [j.seed for j in jobs[:6]] == [3] * 6
    assert len({j.key for j in jobs}) == 24
    j = jobs[7]
    sc = short_dumbbell.with_values(j.point)
    assert j.scenario_hash == scenario_key(sc)
    # The simulator build is part of the key.
    assert j.scenario_hash != sc.hash(include_seed=False)
    assert len(airtcp._core.__build__) == 16
    assert json.loads(j.scenario_json)["seed"] == j.seed
    assert Scenario(json.loads(j.scenario_json)).get("flows.1.cc") == j.point["flows.*.cc"]


def test_plan_rejects_bad_grids(short_dumbbell):
    with pytest.raises(airtcp.PathError):
        plan(short_dumbbell, {"links.R9-R2.rate": ["1Mbps"]}, 1)
    with pytest.raises(ValueError, match="twice"):
        plan(short_dumbbell, {"duration": ["1s", "1s"]}, 1)
    with pytest.raises(ValueError, match="seed"):
        plan(short_dumbbell, {"seed": [1, 2]}, 1)
    with pytest.raises(ValueError):
        plan(short_dumbbell, {}, 0)


# --------------------------------------------------------------------------------------------
# the Python API and the store


def test_sweep_returns_runs_and_skips_finished(tmp_path, short_dumbbell):
    store = tmp_path / "s.sqlite"
    grid = {"links.R2-D1.error.per": [0.0, 0.02], "flows.*.cc": ["newreno", "westwood+"]}
    df = airtcp.sweep(short_dumbbell, grid, seeds=3, store=store, workers=2, progress=False)
    assert df.height == 12 and set(df["status"]) == {"ok"}
    assert {"links.R2-D1.error.per", "flows.*.cc", "events", "fairness"} <= set(df.columns)
    flows = airtcp.sweep(short_dumbbell, grid, seeds=3, store=store, table="flows", progress=False)
    assert flows.height == 24  # two flows per run
    # the second call ran nothing: finish times are unchanged
    with Store(store) as st:
        again = st.runs()
        assert again.height == 12
        assert sorted(again["finished_at"]) == sorted(df["finished_at"])
        row = st.flows().filter(
            (pl.col("flows.*.cc") == "westwood+")
            & (pl.col("links.R2-D1.error.per") == 0.02)
            & (pl.col("seed") == 2)
            & (pl.col("name") == "ftp1")
        )
        direct = airtcp.run(
            short_dumbbell.with_values({"links.R2-D1.error.per": 0.02, "flows.*.cc": "westwood+"}),
            seed=2,
        ).flow("ftp1")
        assert row.height == 1
        for k, v in direct.items():
            assert row[k][0] == v, k
        links = st.links()
        assert links.height == 12 * 10 and "drops_channel_error" in links.columns
        assert st.sweeps()["runs"].to_list() == [12]
        summary = json.loads(st.runs()["summary"][0])
        assert {"events", "packet_hops", "drops", "fairness"} <= set(summary)


def test_failing_runs_are_recorded_and_counted(tmp_path, short_dumbbell, capsys):
    """Points that are invalid in combination (each value runs elsewhere in the grid) are
    recorded as failed runs, counted, skipped on a rerun and retried on request."""
    store = tmp_path / "s.sqlite"
    path = tmp_path / "d.toml"
    short_dumbbell.set("links.R1-R2.queue", {"kind": "red", "limit": 50})
    short_dumbbell.to_toml(path)
    mins = "links.R1-R2.queue.min_threshold="
    maxs = "links.R1-R2.queue.max_threshold="
    args = ["sweep", str(path), "--seeds", "2", "--store", str(store)]
    code, out, err = run_cli(
        capsys, *args, "--set", mins + "5,12,14", "--set", maxs + "10,15", "--workers", "2"
    )
    assert code == 0, err
    assert "12 runs (6 points x 2 seeds): 12 ran, 0 skipped" in err
    assert ", 4 failed" in err
    assert "  2 x links[2].queue.max_threshold: must be above min_threshold (12), got 10" in err
    assert "  2 x links[2].queue.max_threshold: must be above min_threshold (14), got 10" in err
    with Store(store) as st:
        runs = st.runs()
        assert runs.height == 12
        failed = runs.filter(pl.col("status") == "failed")
        assert failed.height == 4 and failed["error_kind"].to_list() == ["ScenarioError"] * 4
        assert st.flows().height == 8 * 2  # only ok runs have flows
    # a rerun skips the failed runs, --retry-failed runs them again
    # (a sub-grid is another sweep; its runs are found in the store all the same)
    sub = [*args, "--set", mins + "5,12", "--set", maxs + "10,15", "--name", "subset"]
    code, _, err = run_cli(capsys, *sub)
    assert code == 0 and "0 ran, 8 skipped" in err and ", 2 failed" in err
    code, _, err = run_cli(capsys, *sub, "--retry-failed")
    assert code == 0 and "2 ran, 6 skipped" in err and ", 2 failed" in err


def test_run_job_reports_errors_as_data():
    out = run_job('{"duration": "1s", "nodes": 3}')
    assert out["status"] == "failed" and out["error_kind"] == "ScenarioError"
    assert out["error"] and out["version"] == airtcp.__version__
    assert isinstance(out["wall_s"], float)


def test_trace_writes_series_beside_the_store(tmp_path, dumbbell_dict):
    d = dict(dumbbell_dict, duration="3s")
    d.pop("trace", None)
    store = tmp_path / "t.sqlite"
    df = airtcp.sweep(
        d,
        {"links.R2-D1.error.per": [0.01]},
        seeds=1,
        store=store,
        trace=True,
        workers=1,
        progress=False,
    )
    h, s = df["scenario_hash"][0], df["seed"][0]
    assert df["series"][0] == f"{h}-{s}.parquet"
    assert (tmp_path / "t-series" / f"{h}-{s}.parquet").is_file()
    with Store(store) as st:
        ser = st.series(h, s)
    assert set(ser["kind"]) == {"cwnd", "queue"}
    assert set(ser.filter(pl.col("kind") == "queue")["name"]) >= {"R1->R2", "R2->R1"}
    assert set(ser.filter(pl.col("kind") == "cwnd")["name"]) == {"ftp1", "ftp2"}


# --------------------------------------------------------------------------------------------
# command-line errors


@pytest.mark.parametrize(
    "args, fragment",
    [
        (
            ["--set", "links.R9-R2.rate=1Mbps,2Mbps"],
            "error: --set 'links.R9-R2.rate=1Mbps,2Mbps': no link named 'R9-R2'",
        ),
        (["--set", "tcp.bogus=1,2"], "unknown field `bogus`"),
        (["--set", "flows.*.cc=newreno,,reno"], "empty value"),
        (["--set", "duration=[1,2"], "unbalanced brackets"),
        (["--set", "duration"], "expected PATH=VALUE"),
        (["--set", "duration=1s,1s"], "a value is given twice"),
        (["--set", "seed=1,2"], "the seed is not a grid axis"),
        (["--set", "links.R1-R2.rate=-1Mbps"], "error: links[2].rate: '-1Mbps': rate must be > 0"),
        (["--seeds", "0"], "error: --seeds must be >= 1"),
        (["--workers", "0"], "error: --workers must be >= 1"),
    ],
)
def test_sweep_cli_user_errors_exit_2(capsys, tmp_path, args, fragment):
    store = tmp_path / "s.sqlite"
    code, out, err = run_cli(capsys, "sweep", str(DUMBBELL), "--store", str(store), *args)
    assert code == 2, err
    assert err.startswith("error: ") and fragment in err, err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "axes",
    [
        ["--set", "tcp.initial_cwnd=2,abc"],
        ["--set", "tcp.initial_cwnd=abc,4", "--set", "duration=1s,2s"],
    ],
)
def test_sweep_value_of_the_wrong_type_is_an_error_before_anything_runs(capsys, tmp_path, axes):
    store = tmp_path / "s.sqlite"
    code, out, err = run_cli(capsys, "sweep", str(DUMBBELL), "--store", str(store), *axes)
    assert code == 2, err
    assert err == (
        'error: tcp.initial_cwnd: invalid type: string "abc", expected u32 '
        '(sweep value tcp.initial_cwnd = "abc")\n'
    )
    assert out == "" and not store.exists(), "no store, no runs"


def test_sweep_value_invalid_only_with_another_axis_is_recorded_failed(tmp_path, dumbbell_dict):
    """A point that is invalid in combination is a result of the sweep, not a mistake."""
    sc = airtcp.Scenario(dict(dumbbell_dict, duration="1s"))
    sc.set("links.R1-R2.queue", {"kind": "red", "limit": 50})
    # min 12 with max 10 is invalid; each value runs at some point.
    grid = {
        "links.R1-R2.queue.min_threshold": [5, 12],
        "links.R1-R2.queue.max_threshold": [10, 15],
    }
    df = airtcp.sweep(sc, grid, seeds=1, store=tmp_path / "s.sqlite", workers=1, progress=False)
    failed = df.filter(pl.col("status") == "failed")
    assert df.height == 4 and failed.height == 1
    assert failed["error"][0].startswith("links[2].queue.max_threshold: must be above")


def test_sweep_cli_missing_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "sweep", str(tmp_path / "nope.toml"))
    assert code == 2 and err == f"error: {tmp_path / 'nope.toml'}: no such file\n"


def test_export_missing_store(capsys, tmp_path):
    code, _, err = run_cli(capsys, "export", str(tmp_path / "x.sqlite"), "--out", str(tmp_path))
    assert code == 2 and err.startswith("error: ") and "no such store" in err
    # Advice for the command line, not the Python API.
    assert "airtcp sweep" in err and "create=True" not in err
    assert not (tmp_path / "x.sqlite").exists()


# --------------------------------------------------------------------------------------------
# export


def test_export_round_trips(capsys, tmp_path, short_dumbbell):
    store = tmp_path / "s.sqlite"
    airtcp.sweep(
        short_dumbbell,
        {"links.R2-D1.error.per": [0, 0.05], "flows.1.cc": ["vegas"]},
        seeds=2,
        store=store,
        name="exp",
        workers=2,
        progress=False,
    )
    airtcp.sweep(
        short_dumbbell,
        {"duration": ["2s"]},
        seeds=1,
        store=store,
        name="other",
        workers=1,
        progress=False,
    )
    with Store(store) as st:
        want = {"runs": st.runs("exp"), "flows": st.flows("exp"), "links": st.links("exp")}
        assert want["runs"].height == 4
        with pytest.warns(MixedSweepsWarning):
            assert st.runs().height == 5
    for fmt in ("parquet", "csv"):
        out = tmp_path / fmt
        code, stdout, err = run_cli(
            capsys, "export", str(store), "--format", fmt, "--out", str(out), "--sweep", "exp"
        )
        assert code == 0, err
        for t, df in want.items():
            p = out / f"{t}.{fmt}"
            assert str(p) in stdout
            if fmt == "parquet":
                back = pl.read_parquet(p)
            else:
                back = pl.read_csv(p, infer_schema_length=None).cast(df.schema)
            assert back.columns == df.columns
            assert back.equals(df), t
    code, _, err = run_cli(capsys, "export", str(store), "--out", str(tmp_path), "--sweep", "zz")
    assert code == 2 and "no sweep named 'zz'" in err
    # No run recorded series: no series file.
    assert not (tmp_path / "parquet" / "series.parquet").exists()


def test_export_includes_time_series(capsys, tmp_path, short_dumbbell):
    store = tmp_path / "s.sqlite"
    short_dumbbell.set("duration", "3s")
    airtcp.sweep(
        short_dumbbell,
        {"links.R2-D1.error.per": [0, 0.05]},
        seeds=2,
        store=store,
        name="traced",
        trace=True,
        workers=2,
        progress=False,
    )
    airtcp.sweep(short_dumbbell, {}, seeds=1, store=store, name="plain", workers=1, progress=False)
    with Store(store) as st:
        runs = st.runs("traced")
        want = {(r["scenario_hash"], r["seed"]): st.series(r["scenario_hash"], r["seed"])
                for r in runs.iter_rows(named=True)}  # fmt: skip
    for fmt in ("parquet", "csv"):
        out = tmp_path / f"x-{fmt}"
        code, stdout, err = run_cli(
            capsys, "export", str(store), "--format", fmt, "--out", str(out), "--sweep", "traced"
        )
        assert code == 0, err
        p = out / f"series.{fmt}"
        assert str(p) in stdout
        ser = pl.read_parquet(p) if fmt == "parquet" else pl.read_csv(p)
        assert ser.columns[:3] == ["scenario_hash", "seed", "links.R2-D1.error.per"]
        assert ser.columns[3:] == ["kind", "name", "t", "value", "ssthresh"]
        assert ser.height == sum(df.height for df in want.values())
        for (h, seed), df in want.items():
            mine = ser.filter((pl.col("scenario_hash") == h) & (pl.col("seed") == seed))
            assert mine["t"].to_list() == pytest.approx(df["t"].to_list())
            assert mine["value"].to_list() == pytest.approx(df["value"].to_list())
        per = {r["scenario_hash"]: r["links.R2-D1.error.per"] for r in runs.iter_rows(named=True)}
        for r in ser.unique(["scenario_hash", "links.R2-D1.error.per"]).iter_rows(named=True):
            assert r["links.R2-D1.error.per"] == per[r["scenario_hash"]]
    # The whole store: the untraced sweep adds no series rows.
    code, _, err = run_cli(capsys, "export", str(store), "--out", str(tmp_path / "all"))
    assert code == 0, err
    assert pl.read_parquet(tmp_path / "all" / "series.parquet").height == sum(
        df.height for df in want.values()
    )


# --------------------------------------------------------------------------------------------
# SIGKILL and resume

HEAVY = {"n_flows": 5, "duration": "100s", "bottleneck_rate": "10Mbps", "queue_limit": 100}
HEAVY_GRID = ["--set", "links.R2-D1.error.per=0,0.002,0.005,0.01,0.02,0.05", "--seeds", "10"]


def _count(db) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def _cli(*args):
    return [sys.executable, "-m", "airtcp", *args]


#: The command line run by a process that has a second thread (as a notebook with polars
#: loaded has): its pool cannot fork its workers and starts them from a fork server.
THREADED_CLI = (
    "import sys, threading, time\n"
    "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
    "from airtcp.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _threaded_cli(*args):
    return [sys.executable, "-c", THREADED_CLI, *args]


def test_a_pool_forks_its_workers_only_from_a_process_of_one_thread():
    code = (
        "from airtcp.sweeps.backends import LocalPool, start_method\n"
        "print(start_method())\n"
        "p = LocalPool(2)\n"
        "print(p.method, sorted(q.pid for q in p.pool._processes.values()) != [])\n"
        "p.close(clean=True)\n"
        "import polars\n"  # starts threads of its own
        "print(start_method())\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    # The forked pool's workers exist as soon as the pool does.
    assert p.stdout.split("\n")[:3] == ["fork", "fork True", "forkserver"], p.stdout


@pytest.mark.long
@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_sigkill_midway_then_resume_equals_uninterrupted(tmp_path, method):
    scen = tmp_path / "heavy.toml"
    airtcp.dumbbell(per=0.01, wireless=[1], **HEAVY).to_toml(scen)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    killed = tmp_path / "killed.sqlite"
    cli = _cli if method == "fork" else _threaded_cli
    proc = subprocess.Popen(
        cli("sweep", str(scen), *HEAVY_GRID, "--store", str(killed), "--workers", "2"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while _count(killed) < 8:
            assert proc.poll() is None, "the sweep finished before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        # the pool's workers die with the driver
        t_end = time.monotonic() + 10
        while True:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            if time.monotonic() > t_end:
                pytest.fail("worker processes outlived the killed sweep")
            time.sleep(0.05)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    done = _count(killed)
    assert 8 <= done < 60, done
    con = sqlite3.connect(killed)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()

    resumed = subprocess.run(
        _cli("sweep", str(scen), *HEAVY_GRID, "--store", str(killed), "--workers", "2"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"60 runs (6 points x 10 seeds): {60 - done} ran, {done} skipped" in resumed.stderr

    clean = tmp_path / "clean.sqlite"
    res = run_sweep(
        scen,
        {"links.R2-D1.error.per": [0, 0.002, 0.005, 0.01, 0.02, 0.05]},
        seeds=10,
        store=clean,
        workers=2,
        name="heavy",
        progress=False,
    )
    assert res.ran == 60 and res.failed == 0
    with Store(killed) as a, Store(clean) as b:
        for t in ("runs", "flows", "links"):
            x, y = stable(getattr(a, t)()), stable(getattr(b, t)())
            assert x.height == y.height
            assert x.equals(y), t
        assert a.runs().height == 60
        assert a.runs().select("scenario_hash", "seed").is_duplicated().sum() == 0


# --------------------------------------------------------------------------------------------
# dask


@pytest.mark.long
def test_dask_local_cluster_matches_the_process_pool(capsys, tmp_path, short_dumbbell):
    pytest.importorskip("distributed")
    path = tmp_path / "d.toml"
    short_dumbbell.to_toml(path)
    axes = [
        "--set",
        "links.R2-D1.error.per=0,0.01,0.05",
        "--set",
        "flows.*.cc=newreno,veno",
        "--seeds",
        "3",
        "--workers",
        "2",
    ]
    code, out_local, err = run_cli(
        capsys, "sweep", str(path), *axes, "--store", str(tmp_path / "local.sqlite")
    )
    assert code == 0, err
    code, out_dask, err = run_cli(
        capsys,
        "sweep",
        str(path),
        *axes,
        "--dask",
        "local",
        "--store",
        str(tmp_path / "dask.sqlite"),
    )
    assert code == 0, err
    assert "18 ran" in err and "on a local dask cluster" in err
    assert out_dask == out_local  # the same per-point table
    with Store(tmp_path / "local.sqlite") as a, Store(tmp_path / "dask.sqlite") as b:
        for t in ("runs", "flows", "links"):
            assert stable(getattr(a, t)()).equals(stable(getattr(b, t)())), t


def test_progress_lines_when_stderr_is_not_a_terminal(capsys, monkeypatch, short_dumbbell):
    from airtcp.sweeps import progress

    # Normally a line every 30 s; with no interval every run but the last prints one.
    monkeypatch.setattr(progress, "PROGRESS_INTERVAL", 0.0)
    airtcp.sweep(short_dumbbell, {"duration": ["1s", "2s"]}, seeds=2, workers=2, progress=True)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "runs, 0 failed" in ln]
    assert 1 <= len(lines) <= 3 and "ETA" in lines[0]
    assert "sweep dumbbell: 4 runs (2 points x 2 seeds): 4 ran" in err
    # quiet by default in tests: nothing but what was asked for
    airtcp.sweep(short_dumbbell, {"duration": ["1s"]}, seeds=1, workers=1, progress=False)
    assert capsys.readouterr().err == ""


def test_a_sweep_name_reused_with_another_grid_is_refused(tmp_path, capsys):
    store = tmp_path / "s.sqlite"
    common = ["sweep", str(DUMBBELL), "--name", "x", "--seeds", "1", "--store", str(store)]
    code, _, err = run_cli(capsys, *common, "--set", "duration=1s,2s", "--quiet")
    assert code == 0, err
    # The same definition again resumes (nothing new to run); more seeds extend it.
    code, _, err = run_cli(capsys, *common, "--set", "duration=1s,2s", "--quiet")
    assert code == 0 and "0 ran, 2 skipped" in err
    # Another grid under the same name would mix the two sweeps' runs: refused, nothing run.
    code, _, err = run_cli(capsys, *common, "--set", "duration=3s", "--quiet")
    assert code == 2
    assert "already exists with another grid" in err
    with Store(store) as st:
        assert st.runs("x").height == 2


def test_a_script_without_the_main_guard_is_told_what_to_do(tmp_path):
    # A process of one thread forks its workers, which do not import the script; with a
    # second thread (polars or numpy loaded, say) they start from a fresh interpreter that
    # does, and a script without the guard would sweep again in every worker.
    script = tmp_path / "noguard.py"
    script.write_text(
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
        "import airtcp\n"
        "airtcp.sweep(airtcp.dumbbell(1, duration=1.0), {'duration': [1.0, 2.0]}, seeds=2,"
        " workers=2)\n"
    )
    p = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert p.returncode != 0
    assert 'call sweep() under `if __name__ == "__main__":`' in p.stderr
    # One short report from the driver, not a traceback per worker process.
    assert p.stderr.count("Traceback") <= 1, p.stderr


def test_a_run_that_kills_its_worker_is_recorded_failed_and_the_sweep_completes(tmp_path):
    script = tmp_path / "poison.py"
    script.write_text(
        "import airtcp\n"
        "if __name__ == '__main__':\n"
        "    sc = airtcp.dumbbell(1, duration=1.0)\n"
        "    df = airtcp.sweep(sc, {'name': ['fine', 'poison'], 'duration': [1.0, 2.0]},\n"
        "                      seeds=2, workers=2, store='s.sqlite', progress=False)\n"
        "    print(sorted(df['status'].to_list()))\n"
    )
    env = {**os.environ, "AIRTCP_FAULT_KILL_NAME": "poison"}
    for _attempt in range(2):  # the rerun finds every run recorded and runs nothing
        p = run_script(script, tmp_path, env)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == str(["failed"] * 4 + ["ok"] * 4)
    with Store(tmp_path / "s.sqlite") as st:
        failed = st.runs(status="failed")
        assert failed.height == 4
        assert set(failed["error_kind"]) == {"WorkerDied"}
        assert "worker process died" in failed["error"][0]


def test_a_sweep_over_a_wifi_medium_stores_the_mac_table(tmp_path):
    sc = airtcp.chain(3, duration=3)
    db = tmp_path / "s.sqlite"
    airtcp.sweep(
        sc,
        {"media.air.rts_threshold": [0, 3000]},
        seeds=[1, 2],
        store=db,
        name="wifi",
        workers=1,
        progress=False,
    )
    st = Store(db)
    assert "macs" in st.tables()
    macs = st.table("macs")
    assert macs.height == 4 * 4  # 2 values x 2 seeds x 4 stations
    assert set(macs["node"].to_list()) == {"n0@air", "n1@air", "n2@air", "n3@air"}
    # Without RTS/CTS no station sends an RTS; with threshold 0 every data frame has one.
    rts = macs.group_by("media.air.rts_threshold").agg(pl.col("rts_frames").sum())
    by = dict(
        zip(rts["media.air.rts_threshold"].to_list(), rts["rts_frames"].to_list(), strict=True)
    )
    assert by[3000] == 0 and by[0] > 0
