"""A sweep on a real multi-process dask cluster (a scheduler and two `dask worker` processes on
the loopback interface) survives one worker killed mid-sweep: no run lost or recorded twice,
the killed worker's runs retried elsewhere or recorded failed with the cause."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import airtcp
from airtcp.store import Store

from .conftest import DUMBBELL

DASK = str(Path(sys.executable).with_name("dask"))
SEEDS = 12
POINTS = 2  # grid points: runs = POINTS * SEEDS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    out = open(log, "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env)


def _wait_for_workers(address: str, n: int, deadline: float) -> None:
    from distributed import Client

    with Client(address, timeout="20s") as c:
        c.wait_for_workers(n, timeout=max(1.0, deadline - time.monotonic()))


def _stored(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT count(*) FROM runs").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.long
@pytest.mark.parametrize("allowed_failures", [3, 0])
def test_sweep_survives_a_dask_worker_killed_mid_run(tmp_path, allowed_failures):
    """With the scheduler's default (3 failures a task may see), the killed worker's runs are
    rerun on the other worker and every run is ok; with none allowed, they are recorded
    failed with the cause. Either way each run is in the store once and the sweep ends."""
    env = dict(os.environ)
    env["DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES"] = str(allowed_failures)
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs: list[subprocess.Popen] = []
    try:
        procs.append(
            _start(
                [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port)]
                + ["--dashboard-address", ":0", "--no-show"],
                tmp_path / "scheduler.log",
                env,
            )
        )
        for i in range(2):
            procs.append(
                _start(
                    [DASK, "worker", address, "--host", "127.0.0.1", "--nthreads", "1"]
                    + ["--no-nanny", "--no-dashboard", "--name", f"w{i}"],
                    tmp_path / f"worker{i}.log",
                    env,
                )
            )
        _wait_for_workers(address, 2, time.monotonic() + 40)

        sc = airtcp.Scenario.load(DUMBBELL)
        sc.set("duration", "40s")
        sc.set("trace", {})
        db = tmp_path / "store.sqlite"
        killed_at: list[int] = []
        victims: list[subprocess.Popen] = []

        def kill_when_started() -> None:
            from distributed import Client

            # Mid-sweep: once some runs are in the store, the worker the scheduler has runs on
            # at that moment (so that, with no failures allowed, one is recorded failed: a
            # worker killed between two of its runs would fail none).
            with Client(address, timeout="20s") as c:
                while _stored(db) < 4:
                    time.sleep(0.02)
                while True:
                    busy = [a for a, keys in c.processing().items() if keys]
                    if busy:
                        break
                    time.sleep(0.005)
                name = c.scheduler_info()["workers"][busy[0]]["name"]  # "w0" or "w1"
                killed_at.append(_stored(db))
                victims.append(procs[1 + int(str(name)[1:])])
                victims[0].send_signal(signal.SIGKILL)

        killer = threading.Thread(target=kill_when_started, daemon=True)
        killer.start()
        out = airtcp.sweeps.run_sweep(
            sc,
            {"links.R2-D1.error.per": [0.0, 0.02]},
            seeds=SEEDS,
            store=db,
            dask=address,
            progress=False,
        )
        killer.join(timeout=5)
        assert victims, "no worker had a run in flight after the fourth stored run"
        victim = victims[0]
        assert victim.wait(timeout=5) == -signal.SIGKILL
        total = POINTS * SEEDS
        assert killed_at and killed_at[0] < total, "the worker was killed before the end"
        assert not out.aborted
        assert out.ran == total and out.lost == 0
        with Store(db) as st:
            runs = st.runs(keys=out.keys)
        keys = list(zip(runs["scenario_hash"].to_list(), runs["seed"].to_list(), strict=True))
        assert len(keys) == total == len(set(keys))  # each run once
        assert set(keys) == set(out.keys)  # none lost
        failed = runs.filter(runs["status"] == "failed")
        if allowed_failures:
            assert failed.height == 0
        else:
            # The runs in flight on the killed worker, recorded with the cause.
            assert failed.height >= 1
            for msg in failed["error"].to_list():
                assert msg.startswith("dask workers died running this run")
            assert set(failed["error_kind"].to_list()) == {"WorkerDied"}
        assert out.ok + out.failed == total
    finally:
        # Ours, and of no further use: a clean shutdown would only wait out its timeouts.
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=10)
