"""The sweep driver: plans the runs, skips those the store has, runs the rest on a backend
and sees every finished run into the store (a local pool's workers write their own chunks;
the driver writes what dask workers return and the runs that no worker could finish)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from ..scenario import AllowPaths, Scenario, as_scenario
from ..store import RunRecord, run_record
from .backends import (
    DaskCluster,
    DaskError,
    LocalPool,
    Stored,
    SweepAborted,
    WorkerDied,
    died_record,
    run_chunk,
    run_jobs,
    task,
)
from .plan import Job, Source, builder_source, normalise_grid, plan, unusable_value
from .progress import _Progress

_PROBE = '{"name": "airtcp-probe", "duration": "1ms", "nodes": [{"name": "a"}]}'


def _pool_can_run() -> bool:
    """Whether a fresh worker survives a trivial run: if not, workers die whatever they run
    (a script without the __main__ guard), and no run is to blame."""
    probe = Job(point={}, seed=1, scenario_hash="probe", scenario_json=_PROBE, params="{}")
    return not any(
        isinstance(res, WorkerDied)
        for _, outs in run_jobs(LocalPool(1), [probe], False)
        for res in outs
    )


def _died(job: Job) -> tuple[RunRecord, None]:
    """The outcome of a run that killed its worker process."""
    return died_record(
        job,
        "the worker process died running this run (killed, out of memory, or a crash in the "
        "simulator)",
    )


def _run_isolating_crashes(
    jobs: Sequence[Job],
    workers: int,
    keep_series: bool,
    sink: tuple[str, str] | None = None,
    first: LocalPool | None = None,
    limits: dict[str, Any] | None = None,
) -> Iterator[tuple[list[Job], list[Any]]]:
    """Run ``jobs`` on a local pool, yielding chunks as :func:`run_jobs` does. When a worker
    dies, every job in flight on the pool is a suspect: the suspects run again one at a time,
    and one that kills its worker again is recorded as failed with that cause, so a poisoned
    grid point cannot stop the sweep or make every rerun abort. The jobs not yet started go
    on in a fresh pool. With ``sink`` the workers write what they ran to the store (see
    :func:`run_chunk`); ``first`` is the pool to start with, already started."""
    remaining = list(jobs)
    checked = False
    while remaining:
        seen: set[tuple[str, int]] = set()
        suspects: list[Job] = []
        pool = first or LocalPool(min(workers, len(remaining)), sink=sink, limits=limits)
        first = None
        for chunk, outs in run_jobs(pool, remaining, keep_series):
            seen.update(j.key for j in chunk)
            done = [
                (j, r) for j, r in zip(chunk, outs, strict=True) if not isinstance(r, WorkerDied)
            ]
            suspects += [j for j, r in zip(chunk, outs, strict=True) if isinstance(r, WorkerDied)]
            if done:
                yield [j for j, _ in done], [r for _, r in done]
        remaining = [j for j in remaining if j.key not in seen]
        if suspects and not checked:
            if not _pool_can_run():
                raise SweepAborted(
                    "worker processes die as they start; if this is a script, call sweep() "
                    'under `if __name__ == "__main__":` (workers import the script)'
                )
            checked = True
        # One run in flight at a time: a worker that dies was running that run. After a
        # death the rest go on in a fresh pool.
        while suspects:
            n = 0
            for chunk, outs in run_jobs(
                LocalPool(1, window=1, sink=sink, limits=limits),
                suspects,
                keep_series,
                single=True,
            ):
                n += len(chunk)
                yield (
                    chunk,
                    [
                        _died(j) if isinstance(r, WorkerDied) else r
                        for j, r in zip(chunk, outs, strict=True)
                    ],
                )
            suspects = suspects[n:]


def _importing_main_in_a_worker() -> bool:
    """True while a worker process runs the user's script to start (multiprocessing runs it
    under the name ``__mp_main__``): the script's top level is then among the callers."""
    f = sys._getframe(1)
    while f is not None:
        if f.f_globals.get("__name__") == "__mp_main__":
            return True
        f = f.f_back
    return False


#: seconds between the driver's checkpoints of the store while the local workers write it
CHECKPOINT_S = 0.05

MAIN_GUARD = (
    "airtcp.sweep() ran while a worker process was importing your script: the sweep's "
    "worker processes import the script that started them, so a script must call sweep() "
    'under `if __name__ == "__main__":`'
)

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

    from ..store import Store


@dataclass
class SweepOutcome:
    """What a sweep did. ``ran`` runs were executed now (``ok_now`` + ``failed_now``, plus
    ``lost`` whose worker vanished and that were not recorded), ``skipped`` were already in the
    store; ``failed`` counts every failed run of the sweep at the end, with ``errors`` the
    distinct error messages and how often each occurred."""

    name: str
    store: Path | None
    points: list[dict[str, Any]]
    seeds: list[int]
    keys: list[tuple[str, int]]
    total: int = 0
    ran: int = 0
    skipped: int = 0
    ok_now: int = 0
    failed_now: int = 0
    lost: int = 0
    ok: int = 0
    failed: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    lost_errors: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    backend: str = "local"
    aborted: str | None = None

    def summary(self) -> str:
        """The closing summary (first line, then one line per distinct error)."""
        shape = f"{len(self.points)} point{'s' * (len(self.points) != 1)} x " + (
            f"{len(self.seeds)} seed{'s' * (len(self.seeds) != 1)}"
        )
        head = (
            f"sweep {self.name}: {self.total} runs ({shape}): {self.ran} ran, "
            f"{self.skipped} skipped (already in the store), {self.failed} failed"
        )
        if self.lost:
            head += f", {self.lost} lost (not recorded; rerun to retry)"
        head += f"; {self.wall_s:.{2 if self.wall_s < 10 else 1}f} s on {self.backend}"
        if self.ran and self.wall_s > 0:
            head += f" ({self.ran / self.wall_s:.0f} runs/s)"
        if self.store is not None:
            head += f"; store {self.store}"
        lines = [head]
        for msg, n in sorted(self.errors.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {n} x {msg}")
        for msg, n in sorted(self.lost_errors.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {n} x lost: {msg}")
        if self.aborted:
            lines.append(f"aborted: {self.aborted}")
        return "\n".join(lines)


def _backend_name(dask: str | None, workers: int) -> str:
    if dask is None:
        return f"{workers} local worker{'s' * (workers != 1)}"
    return "a local dask cluster" if dask == "local" else f"dask at {dask}"


def run_sweep(
    scenario: Source,
    grid: Mapping[str, Any] | None = None,
    *,
    base: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] = 10,
    seed_start: int = 1,
    store: Store | str | os.PathLike[str],
    workers: int | None = None,
    dask: str | None = None,
    name: str | None = None,
    trace: bool = False,
    retry_failed: bool = False,
    progress: bool | None = None,
    replace: bool = False,
    allow_paths: AllowPaths = None,
    memory_budget: int | str | None = None,
    timeout: float | str | None = None,
) -> SweepOutcome:
    """Run a sweep into ``store`` and return a :class:`SweepOutcome` (see :func:`sweep`)."""
    from ..budgets import memory_bytes, seconds
    from ..store import Store

    if _importing_main_in_a_worker():
        # A pool worker is importing the user's script to start (multiprocessing runs it as
        # __mp_main__), and the script calls sweep() at top level: it would start pools of
        # its own. Say what to do once, and leave without a traceback.
        print(f"error: {MAIN_GUARD}", file=sys.stderr)
        raise SystemExit(2)

    t0 = time.perf_counter()
    if callable(scenario) and not isinstance(scenario, Scenario):
        # A builder: its fixed arguments, not one scenario, are the sweep's base.
        source, base_name = builder_source(scenario, base), scenario.__name__
    else:
        sc0 = as_scenario(scenario)
        scenario, source, base_name = sc0, sc0.canonical_json(), sc0.name
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    budget = memory_bytes(memory_budget)
    limits: dict[str, Any] = {"memory_budget": budget, "timeout": seconds(timeout)}
    points, seeds_, jobs = plan(
        scenario,
        grid,
        seeds,
        seed_start=seed_start,
        trace=trace,
        allow_paths=allow_paths,
        base=base,
    )
    if points and all(j.invalid for j in jobs):
        # Every grid point is invalid: the command line, not the grid, is wrong.
        raise _core.scenario_error("", jobs[0].invalid)
    bad = unusable_value(normalise_grid(grid), jobs)
    if bad is not None:
        # A value no point can run with (a wrong type, say): refuse before anything starts
        # instead of recording its runs as failed.
        path, value, message = bad
        raise _core.scenario_error(
            "", f"{message} (sweep value {path} = {json.dumps(value, default=str)})"
        )
    st = store if isinstance(store, Store) else Store(store, create=True)
    sweep_name = name or base_name
    axes = normalise_grid(grid)
    try:
        st.register_sweep(
            sweep_name,
            base_scenario=source,
            grid=axes,
            seeds=seeds_,
            members=((j.scenario_hash, j.seed, j.params) for j in jobs),
            replace=replace,
        )
    except BaseException:
        if st is not store:
            st.close()
        raise
    nworkers = workers or (os.cpu_count() or 1)
    if budget is None and dask is None:
        # The default is a share of the machine for one run; a local pool's runs share it.
        limits["memory_budget"] = max(1, _core.default_memory_budget() // nworkers)
    out = SweepOutcome(
        name=sweep_name,
        store=st.path,
        points=points,
        seeds=seeds_,
        keys=[j.key for j in jobs],
        total=len(jobs),
        backend=_backend_name(dask, nworkers),
    )
    have = st.status(out.keys)
    traced = st.has_series(out.keys) if trace else {}
    todo: list[Job] = []
    for j in jobs:
        s = have.get(j.key)
        if s == "ok" and trace and not traced.get(j.key):
            todo.append(j)  # done before without --trace: run again for its series
        elif s == "ok" or (s == "failed" and not retry_failed):
            out.skipped += 1
        else:
            todo.append(j)
    # Invalid points fail without a worker: the core's validation is the whole run.
    invalid = [j for j in todo if j.invalid is not None]
    runnable = [j for j in todo if j.invalid is None]
    sink = (str(st.path), sweep_name)
    pool: LocalPool | None = None
    bar: _Progress | None = None
    last_checkpoint = time.monotonic()

    def record(chunk: Sequence[Job], outs: Sequence[Any]) -> None:
        """Write a finished chunk in one transaction, then count it: a run counted (and shown
        as done) is in the store."""
        entries = []
        failed = lost = stored = 0
        for job, res in zip(chunk, outs, strict=True):
            if isinstance(res, BaseException):
                lost += 1
                out.lost_errors[f"{type(res).__name__}: {res}"] += 1
                continue
            rec, series = res
            failed += rec.status != "ok"
            if isinstance(rec, Stored):
                stored += 1  # the worker wrote it
                continue
            series_file = None
            if series:
                series_file = st.write_series(job.scenario_hash, job.seed, series)
            entries.append((rec, job.params, job.scenario_json, sweep_name, series_file))
        st.record_many(entries)
        if stored:
            # The local workers leave checkpoints to this process, which mostly waits.
            # Frequent ones keep the log short, and so the last one, when the store is
            # closed at the end of the sweep (40 ms for 300 short runs).
            nonlocal last_checkpoint
            now = time.monotonic()
            if now - last_checkpoint > CHECKPOINT_S:
                st.checkpoint()
                last_checkpoint = now
        out.ran += len(chunk)
        out.lost += lost
        out.failed_now += failed
        out.ok_now += len(entries) + stored - failed
        if bar is not None:
            bar.update(failed + lost, len(chunk))

    try:
        if dask is None and runnable and not (nworkers == 1 and len(runnable) == 1):
            # Started before the progress bar's thread, so that the workers can be forked.
            pool = LocalPool(min(nworkers, len(runnable)), sink=sink, limits=limits)
        bar = _Progress(len(todo), f"sweep {sweep_name}", progress)
        if invalid:
            record(
                invalid,
                [
                    (
                        run_record(
                            scenario_hash=j.scenario_hash,
                            seed=j.seed,
                            scenario=j.scenario_json,
                            status="failed",
                            error=j.invalid,
                            error_kind="ScenarioError",
                            airtcp_version=_core.__version__,
                            wall_s=0.0,
                        ),
                        None,
                    )
                    for j in invalid
                ],
            )
        if runnable:
            results: Iterable[tuple[list[Job], list[Any]]]
            if dask is not None:
                results = run_jobs(DaskCluster(dask, workers, limits), runnable, trace)
            elif nworkers == 1 and len(runnable) == 1:
                results = [(runnable, run_chunk([task(runnable[0])], trace, None, limits))]
            else:
                # The local workers write their own chunks: inserting is most of what the
                # driver would do a run, on the cores the workers need.
                results = _run_isolating_crashes(runnable, nworkers, trace, sink, pool, limits)
            try:
                for chunk, outs in results:
                    record(chunk, outs)
            finally:
                # Stop the workers now, not when the generator is collected (an exception's
                # traceback keeps it alive).
                close = getattr(results, "close", None)
                if close is not None:
                    close()
    except DaskError:
        raise
    except SweepAborted as e:
        out.aborted = str(e)
    finally:
        if pool is not None:
            pool.close(clean=False)  # if the sweep ended before the pool was used
        if bar is not None:
            bar.close()
        final = st.status(out.keys)
        out.ok = sum(1 for s in final.values() if s == "ok")
        out.failed = sum(1 for s in final.values() if s == "failed")
        if out.failed:
            failed = st.runs(keys=out.keys, status="failed")
            out.errors = Counter(failed["error"].to_list())
        if not isinstance(store, Store):
            st.close()  # the last checkpoint of the store: part of the sweep's time
        out.wall_s = time.perf_counter() - t0
    return out


def sweep(
    scenario: Source,
    grid: Mapping[str, Any] | None = None,
    *,
    base: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] = 10,
    seed_start: int = 1,
    store: Store | str | os.PathLike[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    name: str | None = None,
    trace: bool = False,
    retry_failed: bool = False,
    progress: bool | None = None,
    table: str = "runs",
    allow_paths: AllowPaths = None,
    memory_budget: int | str | None = None,
    timeout: float | str | None = None,
) -> pl.DataFrame:
    """Run ``scenario`` at every point of ``grid`` (``{path: [values]}``, cross product; paths
    as in :meth:`Scenario.set`, e.g. ``"links.R2-D1.error.per"`` or ``"flows.*.cc"``) with
    each seed (``seeds=N`` means ``seed_start .. seed_start + N - 1``; a list gives them
    explicitly), and return the ``table`` (``"runs"``, ``"flows"`` or ``"links"``) of the
    sweep's runs as a polars DataFrame, with one column per grid path.

    ``store`` is the results database (path or :class:`Store`); runs already in it are not
    run again. Without one, a temporary store is used and discarded. ``workers`` sizes the
    local process pool (default: every core); ``dask="tcp://host:8786"`` runs on a
    dask.distributed cluster instead, ``dask="local"`` on a local one with worker processes.
    ``trace=True`` records cwnd and queue time series (``Store.series``). ``progress``:
    True/False, or None for a bar on a terminal and a line every 30 s elsewhere; the closing
    summary goes to stderr unless ``progress=False``. Files the scenario names are read as
    :func:`airtcp.run` reads them (``allow_paths``).

    ``scenario`` may also be a builder (``airtcp.chain``): grid axes named after its
    arguments (``{"hops": [1, 2, 4]}``) are given to it, with ``base`` (its fixed arguments,
    ``{"duration": 10}``), to build each point, and are columns of the tables like paths; the
    sweep is named after the builder unless ``name`` says otherwise.

    Budgets of each run: ``timeout`` (seconds, or ``"5min"``) of wall time and
    ``memory_budget`` (bytes, or ``"1GiB"``; by default the default of :func:`airtcp.run`
    divided among a local pool's workers, and each dask worker's own default). A run that
    exceeds one is stopped, recorded failed with the budget's error (which names the field
    that drives it) and the sweep goes on; ``retry_failed=True`` runs it again.

    Raises ValueError/PathError for a bad grid and ScenarioError when every point is invalid;
    a run that fails is recorded (``status == "failed"``, ``error``) and the sweep goes on.
    """
    from ..store import Store

    if table not in ("runs", "flows", "links"):
        raise ValueError(f"table must be 'runs', 'flows' or 'links', got {table!r}")
    tmp = None
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="airtcp-sweep-")
        store = Path(tmp.name) / "store.sqlite"
    # A path is opened by run_sweep once the grid is checked, so a sweep refused before it
    # starts leaves no empty store file behind.
    st: Store | None = store if isinstance(store, Store) else None
    try:
        res = run_sweep(
            scenario,
            grid,
            base=base,
            seeds=seeds,
            seed_start=seed_start,
            store=st if st is not None else store,
            workers=workers,
            dask=dask,
            name=name,
            trace=trace,
            retry_failed=retry_failed,
            progress=progress,
            allow_paths=allow_paths,
            memory_budget=memory_budget,
            timeout=timeout,
        )
        if progress is not False:
            # On a terminal or not: a log of a sweep ends with what it did.
            print(res.summary(), file=sys.stderr)
        if res.aborted:
            raise SweepAborted(res.aborted)
        if st is None:
            st = Store(store)
        return getattr(st, table)(res.name, keys=res.keys)
    finally:
        if st is not None and st is not store:
            st.close()
        if tmp is not None:
            tmp.cleanup()


def point_table(store: Store, outcome: SweepOutcome, *, level: float = 0.95) -> pl.DataFrame:
    """One row per grid point of a finished sweep: the point's values, runs ok and failed, and
    over the ok runs the mean and CI half-width of the total goodput of all flows (bits/s) and
    the mean Jain fairness."""
    import polars as pl

    from ..analysis import mean_ci
    from ..store import frame

    runs = store.runs(outcome.name, keys=outcome.keys)
    flows = store.flows(outcome.name, keys=outcome.keys)
    total: dict[tuple[str, int], float] = {}
    if flows.height:
        sums = flows.group_by(["scenario_hash", "seed"]).agg(pl.col("goodput_bps").sum())
        total = {(h, s): g for h, s, g in sums.iter_rows()}
    by_hash: dict[str, list[dict[str, Any]]] = {}
    for r in runs.iter_rows(named=True):
        by_hash.setdefault(r["scenario_hash"], []).append(r)
    rows = []
    # Jobs are seed-major: the first len(points) keys are the points in grid order.
    for i, point in enumerate(outcome.points):
        h = outcome.keys[i][0]
        rs = by_hash.get(h, [])
        ok = [r for r in rs if r["status"] == "ok"]
        stats = mean_ci([total.get((h, r["seed"]), 0.0) for r in ok], level)
        fair = mean_ci([r["fairness"] for r in ok], level)
        rows.append(
            {
                **point,
                "ok": len(ok),
                "failed": sum(1 for r in rs if r["status"] == "failed"),
                "goodput_bps": stats["mean"],
                "goodput_ci_bps": stats["ci_half"],
                "fairness": fair["mean"],
            }
        )
    return frame(rows)
