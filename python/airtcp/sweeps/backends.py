"""Where runs execute: a local process pool or a dask.distributed cluster. Both feed one
submit loop (:func:`run_jobs`) that keeps a window of runs in flight and yields each
(job, outcome) as it finishes; an outcome is the run's result dict, or the exception that
lost it."""

from __future__ import annotations

import json
import logging
import multiprocessing as mp
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .. import _core
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
    scenario_json: str, keep_series: bool = False, files: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Run one scenario (JSON text) and return its outcome as plain data; never raises for a
    scenario or simulator error. Time series are dropped unless ``keep_series``; ``files``
    says where the run may read files (``Scenario.file_access``). This is what pool and dask
    workers execute."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"version": _core.__version__}
    # Fault injection for the tests of crash handling: a run of the scenario with this name
    # kills its worker process, as an out-of-memory kill would.
    kill = os.environ.get("AIRTCP_FAULT_KILL_NAME")
    if kill and f'"name":"{kill}"' in scenario_json.replace(" ", ""):
        os._exit(9)
    try:
        raw = json.loads(_core.run_json(scenario_json, **(files or {})))
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


def _worker_init(lifeline: Any) -> None:
    """Pool worker start-up: exit as soon as the sweep driver is gone. ``lifeline`` is the read
    end of a pipe whose only writer is the driver; it never sends anything, so ``recv`` returns
    (with EOFError) exactly when the driver has exited or been killed."""
    import threading

    def watch() -> None:
        try:
            lifeline.recv()
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="airtcp-lifeline", daemon=True).start()


class Backend:
    """What the submit loop needs of an executor."""

    #: runs kept in flight
    window: int = 4

    def submit(self, job: Job, keep_series: bool) -> Any:
        raise NotImplementedError

    def finished(self, pending: dict[Any, Job]) -> Iterable[Any]:
        """Block until at least one pending handle is done; those that are."""
        raise NotImplementedError

    def outcome(self, handle: Any) -> Any:
        """The run's result dict, or the exception that lost it (SweepAborted is raised)."""
        raise NotImplementedError

    def close(self, clean: bool) -> None:
        raise NotImplementedError


def run_jobs(backend: Backend, jobs: Sequence[Job], keep_series: bool) -> Iterator[tuple[Job, Any]]:
    """Run ``jobs`` on ``backend`` with at most ``backend.window`` in flight, yielding each
    (job, outcome) as it finishes; the backend is closed however the loop ends."""
    it = iter(jobs)
    pending: dict[Any, Job] = {}
    clean = False

    def fill() -> None:
        while len(pending) < backend.window:
            job = next(it, None)
            if job is None:
                return
            pending[backend.submit(job, keep_series)] = job

    broken = False
    try:
        fill()
        while pending:
            for h in list(backend.finished(pending)):
                job = pending.pop(h)
                out = backend.outcome(h)
                # A dead worker breaks the whole pool: what is in flight comes back as lost
                # and nothing more is submitted; the caller decides what to rerun.
                broken |= isinstance(out, WorkerDied)
                yield job, out
            if not broken:
                fill()
        clean = not broken
    finally:
        backend.close(clean)


class LocalPool(Backend):
    """A process pool whose workers exit when the driver dies (lifeline pipe)."""

    def __init__(self, workers: int) -> None:
        methods = mp.get_all_start_methods()
        if "forkserver" in methods:
            ctx = mp.get_context("forkserver")
            ctx.set_forkserver_preload(["airtcp.sweeps"])
        else:  # pragma: no cover - macOS/Windows
            ctx = mp.get_context("spawn")
        self.lifeline = ctx.Pipe(duplex=False)
        self.pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_worker_init,
            initargs=(self.lifeline[0],),
        )
        self.window = max(2 * workers, 4)

    def submit(self, job: Job, keep_series: bool) -> Any:
        try:
            return self.pool.submit(run_job, job.scenario_json, keep_series, job.files)
        except BrokenProcessPool as e:
            # The pool broke before its dead worker's job came back: this one is lost too.
            lost: Future[Any] = Future()
            lost.set_exception(e)
            return lost

    def finished(self, pending: dict[Any, Job]) -> Iterable[Any]:
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
        self.pool.shutdown(wait=clean, cancel_futures=True)
        for conn in self.lifeline:
            conn.close()


class DaskCluster(Backend):
    """A dask.distributed cluster: ``address`` of a scheduler, or ``"local"``."""

    def __init__(self, address: str, workers: int | None) -> None:
        from distributed import as_completed

        self.client, self.cluster = _dask_client(address, workers)
        nthreads = sum(self.client.nthreads().values()) or 1
        self.window = max(4 * nthreads, 16)
        self.ac = as_completed()

    def submit(self, job: Job, keep_series: bool) -> Any:
        fut = self.client.submit(
            run_job, job.scenario_json, keep_series, job.files, pure=False
        )
        self.ac.add(fut)
        return fut

    def finished(self, pending: dict[Any, Job]) -> Iterable[Any]:
        return [next(self.ac)]

    def outcome(self, handle: Any) -> Any:
        if handle.status == "error":
            out: Any = handle.exception()
        else:
            try:
                out = handle.result()
            except Exception as e:  # noqa: BLE001 - cancelled, worker lost
                out = e
        handle.release()
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
