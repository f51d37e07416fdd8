"""Where runs execute: a local process pool or a dask.distributed cluster. Both feed one
submit loop (:func:`run_jobs`) that sends runs to the workers in chunks (one task runs several,
see :class:`ChunkSizer`), keeps a window of chunks in flight and yields each chunk's jobs and
outcomes as it finishes; an outcome is the run's store record (with its time series, when
kept), or the exception that lost it."""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NamedTuple

from .. import _core
from ..store import Store, run_record
from .plan import Job


class SweepAborted(RuntimeError):
    """The sweep could not go on (a worker process died, the cluster went away). Every run
    finished before is in the store; rerunning the sweep resumes it."""


class WorkerDied(Exception):
    """The worker process running a job died (killed, out of memory, a crash in native
    code): the outcome of every job that was in flight on that pool."""


class DaskError(SweepAborted):
    """dask.distributed is missing or the scheduler cannot be reached (nothing was run)."""


def run_job(
    scenario_json: str,
    keep_series: bool = False,
    files: dict[str, Any] | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """Run one scenario (JSON text) and return its outcome as plain data; never raises for a
    scenario or simulator error. Time series are dropped unless ``keep_series``; ``files``
    says where the run may read files (``Scenario.file_access``); ``limits`` holds the run's
    ``memory_budget`` (bytes) and ``timeout`` (seconds). A run stopped by a budget is failed
    with the budget's error. This is what pool and dask workers execute."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"version": _core.__version__}
    # Fault injection for the tests of crash handling: a run of the scenario with this name
    # kills its worker process, as an out-of-memory kill would.
    kill = os.environ.get("AIRTCP_FAULT_KILL_NAME")
    if kill and f'"name":"{kill}"' in scenario_json.replace(" ", ""):
        os._exit(9)
    try:
        raw = json.loads(
            _core.run_json(scenario_json, series=keep_series, **(files or {}), **(limits or {}))
        )
        if raw.get("partial"):
            # Interrupted (Ctrl-C reached the worker): never a complete run. The sweep
            # stops as it did before runs could be interrupted; the run is not recorded.
            raise KeyboardInterrupt
    except _core.BudgetError as e:
        out.update(status="failed", error=str(e), error_kind="BudgetError")
    except _core.ScenarioError as e:
        out.update(status="failed", error=str(e))
        out["error_kind"] = "ScenarioError"
    except _core.SimulationError as e:
        out.update(status="failed", error=str(e))
        out["error_kind"] = "SimulationError"
    except Exception as e:  # noqa: BLE001 - anything else is recorded, not lost
        out.update(status="failed", error=f"{type(e).__name__}: {e}", error_kind=type(e).__name__)
    else:
        if not keep_series:
            raw.pop("series", None)
        out.update(status="ok", raw=raw)
    out["wall_s"] = time.perf_counter() - t0
    return out


def died_record(job: Job, error: str) -> tuple[Any, None]:
    """The store's record of a run whose worker process died running it."""
    rec = run_record(
        scenario_hash=job.scenario_hash,
        seed=job.seed,
        scenario=job.scenario_json,
        status="failed",
        error=error,
        error_kind="WorkerDied",
        airtcp_version=_core.__version__,
        wall_s=0.0,
    )
    return rec, None


#: What a worker gets for one run: (scenario_hash, seed, scenario JSON, files, grid point
#: JSON).
Task = tuple[str, int, str, dict[str, Any] | None, str]

#: A run's budgets as ``_core.run_json`` takes them: ``memory_budget`` (bytes) and
#: ``timeout`` (seconds), each optional.
Limits = dict[str, Any]


def task(job: Job) -> Task:
    """What a worker needs of ``job`` (a Job carries more than that)."""
    return (job.scenario_hash, job.seed, job.scenario_json, job.files, job.params)


class Stored(NamedTuple):
    """A run the worker wrote to the store itself: what the driver still counts."""

    status: str
    wall_s: float | None


#: Stores this worker process writes to, by path (opened once per process).
_STORES: dict[str, Store] = {}


def _worker_store(path: str) -> Store:
    st = _STORES.get(path)
    if st is None:
        st = _STORES[path] = Store(path)
        st.leave_checkpoints()  # to the driver (see run_sweep)
    return st


def run_chunk(
    tasks: Sequence[Task],
    keep_series: bool,
    sink: tuple[str, str] | None = None,
    limits: Limits | None = None,
) -> list[Any]:
    """Run several scenarios one after another (one task of a pool or dask worker) and return
    each one's outcome in the form the store writes: ``(RunRecord, series or None)``, or the
    exception that lost that run alone. Turning results into rows here, in the workers,
    leaves the driving process only the inserts.

    With ``sink`` (store path, sweep name) the worker writes the chunk to that store itself,
    in one transaction, and returns ``(Stored, None)`` for each run written: a local pool's
    workers share the machine with the driver, and inserting there spares the driver both
    the inserts and receiving the rows. If the write fails, every run of the chunk is lost
    (returned as the exception) and nothing of it is in the store. ``limits``: each run's
    budgets (see :func:`run_job`)."""
    out = _run_tasks(tasks, keep_series, limits)
    if sink is None:
        return out
    path, sweep = sink
    try:
        st = _worker_store(path)
        entries = []
        for (scenario_hash, seed, scenario_json, _, params), res in zip(tasks, out, strict=True):
            if isinstance(res, BaseException):
                continue
            rec, series = res
            series_file = st.write_series(scenario_hash, seed, series) if series else None
            entries.append((rec, params, scenario_json, sweep, series_file))
        st.record_many(entries)
    except Exception as e:  # noqa: BLE001 - the chunk is lost, the sweep goes on
        return [e] * len(tasks)
    return [
        r if isinstance(r, BaseException) else (Stored(r[0].status, r[0].wall_s), None) for r in out
    ]


def _run_tasks(tasks: Sequence[Task], keep_series: bool, limits: Limits | None) -> list[Any]:
    out: list[Any] = []
    for scenario_hash, seed, scenario_json, files, _ in tasks:
        try:
            res = run_job(scenario_json, keep_series, files, limits)
            raw = res.get("raw")
            rec = run_record(
                scenario_hash=scenario_hash,
                seed=seed,
                scenario=scenario_json,
                status=res["status"],
                raw=raw,
                error=res.get("error"),
                error_kind=res.get("error_kind"),
                airtcp_version=res.get("version"),
                wall_s=res.get("wall_s"),
            )
            series = raw.get("series") if res["status"] == "ok" and raw else None
            out.append((rec, series or None))
        except Exception as e:  # noqa: BLE001 - lost, and only this run
            out.append(e)
    return out


#: Seconds of work a task aims at: long enough that the per-task costs (pickling, the pool's
#: queues, one store transaction) are small beside it, short enough that an interrupted sweep
#: loses little and the progress moves.
TASK_S = 0.05


class ChunkSizer:
    """How many runs the next task carries: about TASK_S of work at the mean run time seen so
    far (growing at most twofold per task, so a few fast first runs cannot make a huge chunk of
    slow ones), and never more than a quarter of each worker's share of what is left, so the
    workers finish together (chunks shrink towards the end: guided self-scheduling)."""

    def __init__(self, workers: int, single: bool = False) -> None:
        self.workers = max(1, workers)
        self.single = single
        self.runs = 0
        self.busy = 0.0
        self.largest = 1

    def observe(self, outcomes: Iterable[Any]) -> None:
        for o in outcomes:
            if isinstance(o, tuple):
                self.runs += 1
                self.busy += o[0].wall_s or 0.0

    def size(self, left: int) -> int:
        if self.single or not self.runs:
            return 1
        per_run = self.busy / self.runs
        n = int(TASK_S / per_run) if per_run > 0 else left
        n = max(1, min(n, 2 * self.largest, left // (4 * self.workers)))
        self.largest = max(self.largest, n)
        return n


def _worker_init(lifeline: Any, writer: Any = None) -> None:
    """Pool worker start-up: exit as soon as the sweep driver is gone. ``lifeline`` is the read
    end of a pipe whose only writer is the driver; it never sends anything, so ``recv`` returns
    (with EOFError) exactly when the driver has exited or been killed. A forked worker also
    holds a copy of the write end (``writer``), closed here: otherwise the pipe would never
    reach its end."""
    import threading

    if writer is not None:
        writer.close()

    def watch() -> None:
        try:
            lifeline.recv()
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="airtcp-lifeline", daemon=True).start()


class Backend:
    """What the submit loop needs of an executor."""

    #: chunks kept in flight
    window: int = 4
    #: runs that execute at once (sizes the chunks)
    workers: int = 1

    def submit(self, chunk: list[Job], keep_series: bool) -> Any:
        raise NotImplementedError

    def finished(self, pending: dict[Any, list[Job]]) -> Iterable[Any]:
        """Block until at least one pending handle is done; those that are."""
        raise NotImplementedError

    def outcome(self, handle: Any) -> Any:
        """The chunk's outcomes (see :func:`run_chunk`), or the exception that lost the whole
        chunk (SweepAborted is raised)."""
        raise NotImplementedError

    def close(self, clean: bool) -> None:
        raise NotImplementedError


def run_jobs(
    backend: Backend, jobs: Sequence[Job], keep_series: bool, *, single: bool = False
) -> Iterator[tuple[list[Job], list[Any]]]:
    """Run ``jobs`` on ``backend`` in chunks (one run per task with ``single``), at most
    ``backend.window`` chunks in flight, yielding each chunk's jobs and their outcomes as the
    chunk finishes; the backend is closed however the loop ends."""
    sizer = ChunkSizer(backend.workers, single)
    pending: dict[Any, list[Job]] = {}
    clean = False
    at = 0

    def fill() -> None:
        nonlocal at
        while len(pending) < backend.window and at < len(jobs):
            n = sizer.size(len(jobs) - at)
            chunk = list(jobs[at : at + n])
            at += n
            pending[backend.submit(chunk, keep_series)] = chunk

    broken = False
    try:
        fill()
        while pending:
            for h in list(backend.finished(pending)):
                chunk = pending.pop(h)
                out = backend.outcome(h)
                if isinstance(out, BaseException):
                    # A dead worker breaks the whole pool: what is in flight comes back as
                    # lost and nothing more is submitted; the caller decides what to rerun.
                    broken |= isinstance(out, WorkerDied)
                    outs = [out] * len(chunk)
                else:
                    outs = out
                    sizer.observe(outs)
                if not broken:
                    fill()  # before the caller writes this chunk: keep the workers busy
                yield chunk, outs
        clean = not broken
    finally:
        backend.close(clean)


def _single_threaded() -> bool:
    """True on Linux when this process runs one thread, native ones included (polars, a BLAS
    library and tqdm start threads of their own): forking it then leaves no lock held by a
    thread the child does not have."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:  # pragma: no cover - no /proc
        return False


def start_method() -> str:
    """How a local pool starts its workers: ``fork`` while this process has a single thread
    (milliseconds a worker, a sweep of short runs is not held up), else ``forkserver``
    where there is one (a fresh interpreter imports airtcp once, about 0.2 s, and forks the
    workers from it), else ``spawn``."""
    methods = mp.get_all_start_methods()
    if "fork" in methods and _single_threaded():
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


class LocalPool(Backend):
    """A process pool whose workers exit when the driver dies (lifeline pipe). The workers
    start with the pool (see :func:`start_method`)."""

    def __init__(
        self,
        workers: int,
        window: int | None = None,
        sink: tuple[str, str] | None = None,
        limits: Limits | None = None,
    ) -> None:
        #: (store path, sweep name) the workers write their chunks to, or None (the driver
        #: writes what they return)
        self.sink = sink
        self.limits = limits
        self.method = start_method()
        ctx = mp.get_context(self.method)
        if self.method == "forkserver":
            ctx.set_forkserver_preload(["airtcp.sweeps"])
        self.lifeline = ctx.Pipe(duplex=False)
        forked = self.method == "fork"
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(self.lifeline[0], self.lifeline[1] if forked else None),
        )
        if forked:
            # A pool that forks starts all its workers at the first task, before the threads
            # that feed them exist: start them now, while this process is still one thread.
            self.pool.submit(os.getpid)
        self.workers = workers
        self.closed = False
        # Two chunks a worker: one running, one queued behind it while a chunk is written.
        self.window = window or max(2 * workers, 4)

    def submit(self, chunk: list[Job], keep_series: bool) -> Any:
        try:
            return self.pool.submit(
                run_chunk, [task(j) for j in chunk], keep_series, self.sink, self.limits
            )
        except BrokenProcessPool as e:
            # The pool broke before its dead worker's job came back: this one is lost too.
            lost: Future[Any] = Future()
            lost.set_exception(e)
            return lost

    def finished(self, pending: dict[Any, list[Job]]) -> Iterable[Any]:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        return done

    def outcome(self, handle: Any) -> Any:
        try:
            return handle.result()
        except BrokenProcessPool as e:
            return WorkerDied(str(e))
        except Exception as e:  # noqa: BLE001
            return e

    def close(self, clean: bool) -> None:
        if self.closed:
            return
        self.closed = True
        # Taken before shutdown, which forgets them.
        procs = list((self.pool._processes or {}).values())
        results = self.pool._result_queue
        manager = self.pool._executor_manager_thread
        self.pool.shutdown(wait=clean, cancel_futures=True)
        for conn in self.lifeline:
            conn.close()
        if not clean:
            # The closed lifeline ends the workers at once, possibly in the middle of sending
            # a chunk's results. The pool's manager thread would then wait forever for the
            # rest of that message (this process holds the queue's write end as well), and
            # the interpreter could never exit. Once the workers are gone, closing that end
            # turns the wait into end-of-file, and the pool winds down as broken.
            for p in procs:
                p.join(timeout=10)
            if results is not None:
                results._writer.close()
            # Let the pool finish winding down before a caller starts the next one, so the
            # two never share the fork server at once.
            if manager is not None:
                manager.join(timeout=10)


class DaskCluster(Backend):
    """A dask.distributed cluster: ``address`` of a scheduler, or ``"local"``."""

    def __init__(self, address: str, workers: int | None, limits: Limits | None = None) -> None:
        from distributed import as_completed

        self.limits = limits
        self.client, self.cluster = _dask_client(address, workers)
        nthreads = sum(self.client.nthreads().values()) or 1
        self.workers = nthreads
        #: each pending task's jobs, by task key
        self.chunks: dict[str, list[Job]] = {}
        self.window = max(4 * nthreads, 16)
        self.ac = as_completed()

    def submit(self, chunk: list[Job], keep_series: bool) -> Any:
        fut = self.client.submit(
            run_chunk, [task(j) for j in chunk], keep_series, None, self.limits, pure=False
        )
        self.ac.add(fut)
        self.chunks[fut.key] = chunk
        return fut

    def finished(self, pending: dict[Any, list[Job]]) -> Iterable[Any]:
        return [next(self.ac)]

    def outcome(self, handle: Any) -> Any:
        from distributed import KilledWorker

        chunk = self.chunks.pop(handle.key, [])
        if handle.status == "error":
            out: Any = handle.exception()
        else:
            try:
                out = handle.result()
            except Exception as e:  # noqa: BLE001 - cancelled, worker lost
                out = e
        handle.release()
        if isinstance(out, KilledWorker):
            # The scheduler moves the tasks of a worker that dies to the others; a task
            # whose workers died as often as it allows (distributed.scheduler.allowed-
            # failures, 3 by default) is suspect, as a local pool's run that kills its
            # worker twice: recorded failed with the cause, not lost.
            return [died_record(j, f"dask workers died running this run ({out})") for j in chunk]
        return out

    def close(self, clean: bool) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _dask_client(address: str, workers: int | None) -> tuple[Any, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SweepAborted("--dask needs dask.distributed: pip install 'airtcp[dask]'") from None
    if address == "local":
        cluster = LocalCluster(
            n_workers=workers or (os.cpu_count() or 1),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        return Client(cluster), cluster
    try:
        return Client(address, timeout="10s"), None
    except (OSError, TimeoutError) as e:
        raise DaskError(f"cannot reach the dask scheduler at {address}: {e}") from None
