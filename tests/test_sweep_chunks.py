"""Sweeps in chunks: several runs per worker task, one store transaction per finished chunk.
The results must not depend on the chunking, an interrupted sweep must keep every run it
reported done, and a failure stays with its own run."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import polars as pl
import pytest

import airtcp
from airtcp import Scenario, Store
from airtcp.store import StoreError, run_record
from airtcp.sweeps import backends, plan, progress, run_chunk, run_job, run_sweep
from airtcp.sweeps.backends import ChunkSizer

from .test_sweep import run_script, stable

GRID = {"links.R2-D1.error.per": [0.0, 0.02], "flows.*.cc": ["newreno", "veno"]}


@pytest.fixture
def quick(dumbbell_dict) -> Scenario:
    """A run of about a millisecond: many of them make chunks of several runs."""
    d = dict(dumbbell_dict)
    d["duration"] = "2s"
    return Scenario.from_dict(d)


@pytest.fixture
def chunk_sizes(monkeypatch):
    """The number of runs of every task the local pool is given."""
    sizes: list[int] = []
    submit = backends.LocalPool.submit

    def spy(self, chunk, keep_series):
        sizes.append(len(chunk))
        return submit(self, chunk, keep_series)

    monkeypatch.setattr(backends.LocalPool, "submit", spy)
    return sizes


def _count(db) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def test_plan_gives_each_run_the_canonical_json_of_its_scenario(short_dumbbell):
    short_dumbbell.set("meta", {"é": "ü", "z": [1, 2.5, None], "a": {"b": True}})
    for base in (short_dumbbell, short_dumbbell.copy().set("seed", 99)):
        _, _, jobs = plan(base, {"flows.*.cc": ["newreno", "veno"]}, [0, 7, 2**63 - 1])
        for j in jobs:
            d = base.to_dict()
            d["flows"][0]["cc"] = d["flows"][1]["cc"] = j.point["flows.*.cc"]
            d["seed"] = j.seed
            assert j.scenario_json == Scenario(d).canonical_json()


def test_chunk_sizes_grow_to_the_task_length_and_shrink_at_the_end():
    sizer = ChunkSizer(workers=2)
    assert sizer.size(1000) == 1  # nothing measured yet
    sizer.observe(
        [(run_record(scenario_hash="h", seed=1, scenario="{}", status="ok", wall_s=0.001), None)]
    )
    sizes = [sizer.size(1000) for _ in range(8)]
    assert sizes == [2, 4, 8, 16, 32, 50, 50, 50]  # doubling up to TASK_S of 1 ms runs
    assert sizer.size(100) == 12  # a quarter of each worker's share of what is left
    assert sizer.size(5) == 1
    assert ChunkSizer(2, single=True).size(1000) == 1


def test_chunked_sweep_stores_what_one_run_per_task_stores(
    tmp_path, quick, chunk_sizes, monkeypatch
):
    chunked = run_sweep(
        quick, GRID, seeds=12, store=tmp_path / "c.sqlite", workers=2, progress=False
    )
    assert chunked.ok == 48 and max(chunk_sizes) > 1
    chunk_sizes.clear()
    monkeypatch.setattr(backends, "TASK_S", 0.0)
    single = run_sweep(
        quick, GRID, seeds=12, store=tmp_path / "s.sqlite", workers=2, progress=False
    )
    assert single.ok == 48 and set(chunk_sizes) == {1}
    # The reference: every run alone, written with Store.record.
    _, _, jobs = plan(quick, GRID, 12)
    with Store(tmp_path / "r.sqlite", create=True) as ref:
        for j in jobs:
            res = run_job(j.scenario_json, False, j.files)
            ref.record(
                scenario_hash=j.scenario_hash,
                seed=j.seed,
                params=j.params,
                scenario=j.scenario_json,
                status=res["status"],
                raw=res["raw"],
                airtcp_version=res["version"],
                wall_s=res["wall_s"],
                sweep=quick.name,
            )
    with Store(tmp_path / "c.sqlite") as c, Store(tmp_path / "s.sqlite") as s:
        with Store(tmp_path / "r.sqlite") as r:
            assert c.tables() == s.tables() == r.tables()
            for t in ("runs", *c.tables()):
                want = stable(r.table(t) if t != "runs" else r.runs())
                for st in (c, s):
                    got = stable(st.table(t) if t != "runs" else st.runs())
                    assert got.equals(want), t
        # the API's order is the grid's and the seeds', however the runs were chunked
        assert (
            c.runs(quick.name)
            .select("scenario_hash", "seed")
            .equals(s.runs(quick.name).select("scenario_hash", "seed"))
        )


def test_an_interrupted_sweep_keeps_every_run_it_reported_done(
    tmp_path, quick, chunk_sizes, monkeypatch
):
    db = tmp_path / "s.sqlite"
    update = progress._Progress.update
    reported: list[int] = []

    def interrupt_midway(self, failed, n=1):
        update(self, failed, n)
        # Counted as done only once committed: the store holds every run reported (and
        # perhaps a chunk another worker committed that is not counted yet).
        assert _count(db) >= self.done
        reported.append(self.done)
        if self.done >= 20:
            raise KeyboardInterrupt

    monkeypatch.setattr(progress._Progress, "update", interrupt_midway)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(quick, GRID, seeds=15, store=db, workers=2, progress=False)
    monkeypatch.setattr(progress._Progress, "update", update)
    done = reported[-1]
    assert 20 <= done < 60 and max(chunk_sizes) > 1
    kept = _count(db)
    assert done <= kept < 60

    resumed = run_sweep(quick, GRID, seeds=15, store=db, workers=2, progress=False)
    assert (resumed.skipped, resumed.ran, resumed.ok) == (kept, 60 - kept, 60)
    clean = run_sweep(quick, GRID, seeds=15, store=tmp_path / "c.sqlite", workers=2, progress=False)
    assert clean.ok == 60
    with Store(db) as a, Store(tmp_path / "c.sqlite") as b:
        for t in ("runs", "flows", "links"):
            assert stable(getattr(a, t)()).equals(stable(getattr(b, t)())), t


def test_a_chunk_is_written_whole_or_not_at_all(tmp_path, quick):
    """A write that fails halfway (a bad record after a good one that brings a new table)
    leaves nothing of its chunk, not even the table, and the next write still works."""
    _, _, jobs = plan(quick, None, 3)
    recs = []
    for i, j in enumerate(jobs):
        raw = run_job(j.scenario_json, False, j.files)["raw"]
        if i:
            raw["extra"] = [{"k": i}]
        rec = run_record(
            scenario_hash=j.scenario_hash,
            seed=j.seed,
            scenario=j.scenario_json,
            status="ok",
            raw=raw,
        )
        recs.append((rec, j.params, j.scenario_json, "s", None))
    bad = (recs[1][0]._replace(status="bogus"), *recs[1][1:])
    with Store(tmp_path / "s.sqlite", create=True) as st:
        st.record_many(recs[:1])
        with pytest.raises(sqlite3.IntegrityError):
            st.record_many([recs[2], bad])
        assert st.runs().height == 1 and "extra" not in st.tables()
        st.record_many(recs[1:])
        assert st.runs().height == 3 and st.table("extra")["k"].to_list() == [1, 2]


def test_errors_stay_with_their_run_in_a_chunk(monkeypatch, short_dumbbell):
    _, _, jobs = plan(short_dumbbell, {"flows.*.cc": ["newreno", "veno", "westwood+"]}, 1)
    tasks = [backends.task(j) for j in jobs]
    tasks[2] = (*tasks[2][:2], '{"duration": "1s", "nodes": 3}', None, tasks[2][4])
    outs = run_chunk(tasks, False)
    assert [o[0].status for o in outs] == ["ok", "ok", "failed"]
    assert [(o[0].scenario_hash, o[0].seed) for o in outs] == [j.key for j in jobs]
    assert outs[2][0].error_kind == "ScenarioError" and outs[0][0].error is None

    # An exception that is not the run's result loses that run only.
    real = backends.run_job

    def flaky(scenario_json, *a):
        if '"veno"' in scenario_json:
            raise MemoryError("no room")
        return real(scenario_json, *a)

    monkeypatch.setattr(backends, "run_job", flaky)
    outs = run_chunk([backends.task(j) for j in jobs[:2]], False)
    assert outs[0][0].status == "ok" and isinstance(outs[1], MemoryError)


def test_runs_that_fail_in_the_simulator_are_recorded_each_with_its_own_error(
    tmp_path, chunk_sizes
):
    sc = airtcp.dumbbell(1, duration=20.0)
    grid = {"max_events": [4096, 10**9]}  # valid, but the first budget runs out mid-run
    out = run_sweep(sc, grid, seeds=12, store=tmp_path / "s.sqlite", workers=2, progress=False)
    assert (out.ok, out.failed) == (12, 12) and max(chunk_sizes) > 1
    _, _, jobs = plan(sc, grid, 12)
    with Store(tmp_path / "s.sqlite") as st:
        runs = {(r["scenario_hash"], r["seed"]): r for r in st.runs().iter_rows(named=True)}
        for j in jobs:
            alone = run_job(j.scenario_json, False, j.files)
            r = runs[j.key]
            assert (r["status"], r["error"]) == (alone["status"], alone.get("error"))
        assert st.flows().height == 12


def test_a_worker_killed_inside_a_chunk_blames_only_its_own_runs(tmp_path):
    script = tmp_path / "poison.py"
    script.write_text(
        "import airtcp\n"
        "from airtcp.sweeps import backends\n"
        "sizes = []\n"
        "submit = backends.LocalPool.submit\n"
        "def spy(self, chunk, keep):\n"
        "    sizes.append(len(chunk))\n"
        "    return submit(self, chunk, keep)\n"
        "backends.LocalPool.submit = spy\n"
        "if __name__ == '__main__':\n"
        "    sc = airtcp.dumbbell(1, duration=1.0)\n"
        "    df = airtcp.sweep(sc, {'name': ['a', 'b', 'c', 'd', 'e', 'poison']}, seeds=12,\n"
        "                      workers=2, store='s.sqlite', progress=False)\n"
        "    print(max(sizes))\n"
    )
    env = {**os.environ, "AIRTCP_FAULT_KILL_NAME": "poison"}
    p = run_script(script, tmp_path, env)
    assert p.returncode == 0, p.stderr
    assert int(p.stdout.split()[-1]) > 1  # the poisoned runs shared chunks with others
    with Store(tmp_path / "s.sqlite") as st:
        runs = st.runs()
        failed = runs.filter(pl.col("status") == "failed")
        assert set(failed["name"]) == {"poison"} and failed.height == 12
        assert set(failed["error_kind"]) == {"WorkerDied"}
        assert runs.filter(pl.col("status") == "ok").height == 60


def test_the_summary_gives_the_rate(tmp_path, quick):
    out = run_sweep(quick, None, seeds=3, store=tmp_path / "s.sqlite", workers=1, progress=False)
    head = out.summary().splitlines()[0]
    assert f"({out.ran / out.wall_s:.0f} runs/s)" in head


class _Count(int):
    """An int subclass: typed by the general path of the store's column typing."""


def test_column_typing_is_the_same_on_the_fast_and_the_general_path():
    from airtcp.store import _column

    cases = [
        [1, 2, None],
        [1, 2.5, None],
        [True, None, False],
        ["a", None, "b"],
        [None, None],
        [1, "a"],
        [1.0, True],
    ]
    for values in cases:
        # A value of a subclass sends the column down the general (isinstance) path.
        general = [_Count(v) if type(v) is int else v for v in values]
        fast_vals, fast_dtype = _column(list(values))
        slow_vals, slow_dtype = _column(general)
        assert fast_dtype == slow_dtype, values
        assert fast_vals == slow_vals, values
    assert _column([1, 2.5])[1] == pl.Float64 and _column([1, 2.5])[0] == [1.0, 2.5]
    assert _column([1, "a"]) == (["1", "a"], pl.Utf8)
    assert _column([{"k": 1}, None])[0] == ['{"k": 1}', None]


def test_tables_read_column_by_column_keep_each_run_with_its_grid_point(tmp_path, quick):
    db = tmp_path / "s.sqlite"
    airtcp.sweep(
        quick,
        {"flows.*.cc": ["newreno", "cubic"], "duration": ["1s", "2s"]},
        seeds=2,
        store=db,
        workers=1,
        progress=False,
    )
    with Store(db) as st:
        runs, flows = st.runs(), st.flows()
    assert runs.height == 8 and flows.height == 8 * 2
    # Each row's grid columns are its own run's: the core reports the cc and duration it ran.
    for r in flows.iter_rows(named=True):
        assert r["cc"] == r["flows.*.cc"]
    assert sorted(set(zip(runs["flows.*.cc"], runs["duration"], runs["seed"], strict=True))) == [
        (cc, d, s) for cc in ("cubic", "newreno") for d in ("1s", "2s") for s in (1, 2)
    ]
    assert runs["duration_s"].to_list() == [
        1.0 if d == "1s" else 2.0 for d in runs["duration"].to_list()
    ]


def test_a_worker_writes_its_chunk_to_the_store_or_loses_it_whole(tmp_path, short_dumbbell):
    """With a sink, run_chunk writes the chunk itself and returns only what the driver
    counts; a store it cannot write loses every run of the chunk and leaves nothing."""
    _, _, jobs = plan(short_dumbbell, {"flows.*.cc": ["newreno", "veno"]}, 1)
    tasks = [backends.task(j) for j in jobs]
    tasks[1] = (*tasks[1][:2], '{"duration": "1s", "nodes": 3}', None, tasks[1][4])
    db = tmp_path / "w.sqlite"
    Store(db, create=True).close()
    outs = run_chunk(tasks, False, (str(db), "w"))
    assert [type(o[0]) for o in outs] == [backends.Stored] * 2
    assert [o[0].status for o in outs] == ["ok", "failed"] and outs[0][1] is None
    with Store(db) as st:
        runs = st.runs()
        assert sorted(zip(runs["seed"], runs["status"], runs["sweep"], strict=True)) == [
            (1, "failed", "w"),
            (1, "ok", "w"),
        ]
        assert set(runs["params"]) == {j.params for j in jobs}
        assert st.flows().height > 0

    # A path that is no store: the whole chunk comes back lost.
    lost = run_chunk(tasks, False, (str(tmp_path / "missing.sqlite"), "w"))
    assert len(lost) == 2 and all(isinstance(o, StoreError) for o in lost)
    assert not (tmp_path / "missing.sqlite").exists()


def _record(seed: int, flows: list[dict], agents: list[dict]):
    raw = {
        "name": "t",
        "flows": flows,
        "links": [{"name": "L", "rate_bps": 1e6, "tx_packets": 5}],
        "agents": agents,
    }
    rec = run_record(scenario_hash="h", seed=seed, scenario="{}", status="ok", raw=raw)
    return (rec, "{}", "{}", "t", None)


def _layout(db) -> dict[str, list[tuple]]:
    con = sqlite3.connect(db)
    try:
        return {
            t: con.execute(f'PRAGMA table_info("{t}")').fetchall()
            for t in ("runs", "flows", "links", "agents")
        }
    finally:
        con.close()


def test_an_empty_table_gets_its_columns_in_one_schema_change(tmp_path, monkeypatch):
    """A fresh store's flows and links gain their dozens of columns by being created again,
    not by one ALTER TABLE each; the layout is the one the ALTERs give, and a table that
    holds rows gains a new column without losing them."""
    flows = [{"name": "f1", "src": "A", "goodput_bps": 1.5}, {"name": "f2", "src": "B"}]
    agents = [{"node": "R", "kind": "eln", "notes": 3}]
    fast, slow = tmp_path / "fast.sqlite", tmp_path / "slow.sqlite"
    with Store(fast, create=True) as st:
        st.record_many([_record(1, flows, agents)])
    with monkeypatch.context() as m:
        m.setattr(Store, "_rebuild_empty", lambda *a: False)
        with Store(slow, create=True) as st:
            st.record_many([_record(1, flows, agents)])
    assert _layout(fast) == _layout(slow)
    # The fast store's tables were created again (SQLite keeps the text that made each
    # table); the other's are the schema's, with the columns appended by ALTER TABLE.
    made = []
    for db in (fast, slow):
        con = sqlite3.connect(db)
        q = "SELECT sql FROM sqlite_master WHERE name IN ('flows', 'links') ORDER BY name"
        made.append([r[0] for r in con.execute(q)])
        con.close()
    assert all(m.startswith(('CREATE TABLE "flows" (', 'CREATE TABLE "links" (')) for m in made[0])
    assert all(m.startswith(("CREATE TABLE flows (", "CREATE TABLE links (")) for m in made[1])
    assert [c[1] for c in _layout(fast)["flows"]][:6] == [
        "scenario_hash",
        "seed",
        "name",
        "row",
        "src",
        "goodput_bps",
    ]
    with Store(fast) as a, Store(slow) as b:
        for t in ("flows", "links", "agents"):
            assert a.table(t).equals(b.table(t)), t
    # A second run brings a column more: the table keeps the first run's rows.
    with Store(fast) as st:
        st.record_many([_record(2, [{"name": "f1", "src": "A", "extra": 7}], agents)])
        got = st.flows().sort("seed")
        assert got["seed"].to_list() == [1, 1, 2]
        assert got["extra"].to_list() == [None, None, 7]
        assert got["goodput_bps"].to_list() == [1.5, None, None]


def _wal_frames(db) -> int:
    wal = db.with_name(db.name + "-wal")
    return (wal.stat().st_size - 32) // (4096 + 24) if wal.exists() else 0


@pytest.mark.parametrize("leave", [False, True])
def test_a_worker_connection_leaves_checkpoints_to_the_driver(tmp_path, leave):
    """Commits on a connection that leaves checkpoints never copy the write-ahead log into
    the database, however long it grows; the driver's checkpoint copies all of it. By
    default SQLite checkpoints at 1000 pages."""
    db = tmp_path / "c.sqlite"
    big = [{"name": f"f{i}", "blob": "x" * 8000} for i in range(50)]  # about 100 pages a run
    with Store(db, create=True) as driver, Store(db) as worker:
        if leave:
            worker.leave_checkpoints()
        for seed in range(15):
            worker.record_many([_record(seed, big, [])])
        frames = _wal_frames(db)
        if leave:
            assert frames > 1400
            driver.checkpoint()
            # log frames, frames copied into the database: all of them
            assert driver._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1:] == (
                frames,
                frames,
            )
        else:
            # restarted after the automatic checkpoint, and the file reused
            log = driver._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
            assert log < 1000 < frames < 1200
        assert driver.flows().height == 15 * 50


def test_a_sweep_that_fails_before_its_pool_is_used_stops_the_workers(tmp_path):
    # In a process of one thread, whose pool forks its workers as it starts.
    code = (
        "import multiprocessing as mp, sys\n"
        "import airtcp\n"
        "from airtcp.sweeps import progress, run_sweep\n"
        "def broken(*a, **k):\n"
        "    raise RuntimeError('no progress bar today')\n"
        "progress._Progress.__init__ = broken\n"
        "try:\n"
        "    run_sweep(airtcp.dumbbell(1, duration=1.0), seeds=4, store=sys.argv[1],\n"
        "              workers=2, progress=False)\n"
        "except RuntimeError as e:\n"
        "    kept = e  # its traceback keeps every frame's locals, the pool's too\n"
        "print(len(mp.active_children()), kept)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.sqlite")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "0 no progress bar today"
