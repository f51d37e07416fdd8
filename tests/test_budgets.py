"""Budgets of a run (memory, wall time), progress, interruption and partial results, from
Python, the command line and sweeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

import airtcp
from airtcp import budgets
from airtcp.cli import main
from airtcp.store import Store, run_record

from .conftest import DUMBBELL


def cbr(rate: str = "1000000Gbps", limit: int = 10_000_000) -> dict:
    """The hostile case: a CBR source into a queue of ``limit`` packets (10 s)."""
    return {
        "name": "heavy",
        "duration": "10s",
        "nodes": [{"name": "S"}, {"name": "R", "kind": "router"}, {"name": "D"}],
        "links": [
            {"a": "S", "b": "R", "rate": "1000000Gbps", "delay": "0s"},
            {
                "a": "R",
                "b": "D",
                "rate": "1Mbps",
                "delay": "10ms",
                "queue": {"kind": "droptail", "limit": limit},
            },
        ],
        "flows": [{"name": "u", "src": "S", "dst": "D", "app": {"kind": "cbr", "rate": rate}}],
    }


def long_dumbbell(duration: str = "1000000s") -> airtcp.Scenario:
    sc = airtcp.Scenario.load(DUMBBELL)
    sc.set("duration", duration)
    sc.set("trace", {})  # the series of a long run would be most of its result
    return sc


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- memory -------------------------------------------------------------------------------------


def test_memory_budget_error_names_the_field_and_keeps_the_partial_result():
    with pytest.raises(airtcp.BudgetError) as ei:
        airtcp.run(cbr(), memory_budget="32MiB")
    e = ei.value
    assert isinstance(e, airtcp.ScenarioError)
    assert e.path == "links[1].queue.limit"
    assert e.kind == "memory_budget"
    assert "memory budget of 32.00 MiB" in e.message and "packets held in queues" in e.message
    assert str(e).startswith("links[1].queue.limit: ")
    r = e.result
    assert r is not None and not r.complete
    assert r.partial["reason"] == "memory_budget" and 0 < r.partial["reached_s"] < 10
    assert r.summary["duration_s"] == r.partial["reached_s"]
    assert "PARTIAL" in repr(r)


def test_memory_budget_from_the_scenario_and_bad_values():
    d = cbr()
    d["memory_budget"] = "16MiB"
    with pytest.raises(airtcp.BudgetError, match="16.00 MiB .the scenario's memory_budget."):
        airtcp.run(d)
    with pytest.raises(airtcp.ScenarioError) as ei:
        airtcp.run(cbr(), memory_budget="lots")
    assert ei.value.path == "memory_budget"
    with pytest.raises(airtcp.ScenarioError, match="> 0 bytes"):
        airtcp.run(cbr(), memory_budget=0)
    assert airtcp._core.default_memory_budget() > 0


def test_cli_run_memory_budget_names_the_field(capsys):
    path = "heavy.json"
    with open(path, "w") as f:
        json.dump(cbr(limit=10), f)
    code, out, err = run_cli(capsys, "run", path, "--memory-budget", "16MiB")
    assert code == 2
    assert err.startswith("error: flows[0].app.rate: the run's memory budget of 16.00 MiB")
    assert "drop records take" in err


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


# -- progress and interruption -------------------------------------------------------------------


def test_progress_callback_sees_the_run_and_stops_it_with_a_partial_result():
    seen: list[airtcp.RunProgress] = []

    def cb(p: airtcp.RunProgress) -> bool:
        seen.append(p)
        return len(seen) < 3

    with pytest.warns(airtcp.PartialResultWarning, match="partial"):
        r = airtcp.run(long_dumbbell(), progress=cb)
    assert len(seen) == 3
    assert [p.now_s for p in seen] == sorted(p.now_s for p in seen)
    assert all(p.end_s == 1e6 and p.events > 0 and p.events_per_s > 0 for p in seen)
    assert r.partial["reason"] == "interrupted" and not r.complete
    assert r.partial["reached_s"] >= seen[-1].now_s
    assert r.summary["duration_s"] == r.partial["reached_s"]
    pk = r.summary["packets"]
    assert pk["sent"] == pk["delivered"] + pk["dropped"] + pk["in_flight"]
    with pytest.raises(ValueError, match="progress must be"):
        airtcp.run(long_dumbbell("1s"), progress="bar")


def _sigint_as_a_shell_gives_it() -> None:
    """SIGINT delivered and handled by default: a test worker may have it ignored or blocked
    (the disposition and the mask pass on to child processes), and Ctrl-C tests need it as a
    user's shell gives it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_ctrl_c_returns_a_partial_result():
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = airtcp.run(long_dumbbell())
    finally:
        timer.cancel()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, old)
    assert r.partial["reason"] == "interrupted"
    assert 0 < r.partial["reached_s"] < 1e6
    assert any(issubclass(x.category, airtcp.PartialResultWarning) for x in w)


def test_a_partial_result_is_never_stored_as_a_complete_run():
    with pytest.warns(airtcp.PartialResultWarning):
        r = airtcp.run(long_dumbbell(), progress=lambda p: False)
    with pytest.raises(ValueError, match="never a complete run"):
        run_record(scenario_hash="h", seed=1, scenario="{}", status="ok", raw=r.raw)
    rec = run_record(scenario_hash="h", seed=1, scenario="{}", status="failed", raw=r.raw)
    assert rec.status == "failed"


def test_run_display_shows_progress_after_two_seconds_then_every_30(capsys):
    d = budgets.RunDisplay("x", bar=False)
    d(budgets.RunProgress(1.0, 100.0, 10**6, 1.0))
    d(budgets.RunProgress(3.0, 100.0, 3 * 10**6, 2.5))
    d(budgets.RunProgress(10.0, 100.0, 10**7, 10.0))
    d(budgets.RunProgress(40.0, 100.0, 4 * 10**7, 33.0))
    d.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "run x: t = 3 s of 100 s (3 %), 1.20 M events/s, 2s elapsed, ETA 1m21s",
        "run x: t = 40 s of 100 s (40 %), 1.21 M events/s, 33s elapsed, ETA 50s",
    ]


def test_run_display_as_a_bar(capsys):
    d = budgets.RunDisplay("x", bar=True)
    d(budgets.RunProgress(1.0, 100.0, 10**6, 1.0))  # too early: nothing yet
    assert capsys.readouterr().err == ""
    d(budgets.RunProgress(50.0, 100.0, 10**7, 4.0))
    d.close()
    err = capsys.readouterr().err
    assert "run x: t = 50 s of 100 s (50 %), 2.50 M events/s, 4s elapsed, ETA 4s |" in err


def test_cli_run_shows_progress_and_ctrl_c_prints_a_partial_result(tmp_path):
    out_json = tmp_path / "partial.json"
    p = subprocess.Popen(
        [sys.executable, "-m", "airtcp", "run", str(DUMBBELL), "--set", "duration=1000000s"]
        + ["--set", "trace={}", "--json", str(out_json)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_as_a_shell_gives_it,
    )
    assert p.stderr is not None
    line = p.stderr.readline()  # the first progress line, after 2 s of running
    assert line.startswith("run dumbbell: t = ") and "M events/s" in line and "ETA" in line
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert out.startswith("PARTIAL RESULT: the run was interrupted at t = ")
    assert "PARTIAL RESULT" in err
    assert "ftp1" in out  # the tables of what was measured
    saved = json.loads(out_json.read_text())
    assert saved["partial"]["reason"] == "interrupted"


# -- sweeps ---------------------------------------------------------------------------------------


def test_sweep_records_a_timed_out_run_with_its_cause_and_goes_on(tmp_path):
    db = tmp_path / "s.sqlite"
    t0 = time.monotonic()
    out = airtcp.sweeps.run_sweep(
        long_dumbbell(),
        {"duration": ["2s", "1000000s"]},
        seeds=2,
        store=db,
        workers=2,
        timeout=0.5,
        progress=False,
    )
    assert time.monotonic() - t0 < 30
    assert out.ok == 2 and out.failed == 2 and not out.aborted
    with Store(db) as st:
        failed = st.runs(keys=out.keys, status="failed")
    assert failed["error_kind"].to_list() == ["BudgetError"] * 2
    for msg in failed["error"].to_list():
        assert msg.startswith("duration: the run's time budget of 0.5 s ran out at t = ")


def test_cli_sweep_run_timeout_and_memory_budget(capsys, tmp_path):
    path = tmp_path / "heavy.json"
    path.write_text(json.dumps(cbr()))
    code, out, err = run_cli(
        capsys,
        "sweep",
        str(path),
        "--set",
        "flows.0.app.rate=1Mbps,1000000Gbps",
        "--seeds",
        "1",
        "--workers",
        "1",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--memory-budget",
        "32MiB",
        "--run-timeout",
        "60",
        "--quiet",
    )
    assert code == 0, err
    assert "2 ran" in err and "1 failed" in err
    assert "links[1].queue.limit: the run's memory budget of 32.00 MiB" in err
