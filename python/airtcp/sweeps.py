"""Parameter sweeps: a grid of scenario values (cross product) times a range of seeds, run on a
local process pool or a dask.distributed cluster, every finished run written to a
:class:`~airtcp.store.Store` by this (the driving) process.

    import airtcp
    df = airtcp.sweep(
        "scenarios/dumbbell.toml",
        grid={"links.R2-D1.error.per": [0, 0.01, 0.05], "flows.*.cc": ["newreno", "westwood+"]},
        seeds=20,
        store="out/store.sqlite",
    )

Runs already in the store (same scenario after the grid point is applied, same seed) are
skipped; runs that failed before are skipped too unless ``retry_failed=True`` (the simulator is
deterministic, so a failure repeats until the scenario or the simulator changes). A run whose
scenario is invalid, or that fails in the simulator, is recorded as ``failed`` with its error
and the sweep goes on.

On Linux the local pool uses the ``forkserver`` start method (elsewhere ``spawn``): a script
that calls :func:`sweep` at top level must guard it with ``if __name__ == "__main__":``, as
for any multiprocessing code.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import logging
import math
import multiprocessing as mp
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core
from .scenario import Scenario, as_scenario

if TYPE_CHECKING:  # pragma: no cover
    import polars as pl

    from .store import Store

__all__ = [
    "DaskError",
    "Job",
    "SweepAborted",
    "SweepOutcome",
    "plan",
    "parse_axis",
    "point_table",
    "run_sweep",
    "split_values",
    "sweep",
]

ScenarioError = _core.ScenarioError

#: seconds between progress lines when stderr is not a terminal
PROGRESS_INTERVAL = 30.0


class SweepAborted(RuntimeError):
    """The sweep could not go on (a worker process died, the cluster went away). Every run
    finished before is in the store; rerunning the sweep resumes it."""


class DaskError(SweepAborted):
    """dask.distributed is missing or the scheduler cannot be reached (nothing was run)."""


# --------------------------------------------------------------------------------------------
# grid values from the command line


def split_values(text: str) -> list[str]:
    """Split ``--set`` value text at top-level commas: ``0,0.01`` -> ``["0", "0.01"]``, while
    ``[1, 2]``, ``{ a = 1, b = 2 }`` and ``"a,b"`` stay whole."""
    items: list[str] = []
    buf: list[str] = []
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote is not None:
            buf.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{text!r}: unbalanced {ch!r}")
        elif ch == "," and depth == 0:
            items.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    if quote is not None:
        raise ValueError(f"{text!r}: unterminated {quote} string")
    if depth:
        raise ValueError(f"{text!r}: unbalanced brackets")
    items.append("".join(buf).strip())
    if any(not it for it in items):
        raise ValueError(f"{text!r}: empty value (values are separated by single commas)")
    return items


def parse_axis(item: str) -> tuple[str, list[Any]]:
    """``PATH=V1,V2,...`` -> ``(PATH, [v1, v2, ...])`` with each value read like a ``--set``
    value of ``airtcp run`` (a TOML value, or else the text)."""
    from ._common import parse_value

    if "=" not in item:
        raise ValueError("expected PATH=VALUE[,VALUE...]")
    path, _, text = item.partition("=")
    path = path.strip()
    if not path:
        raise ValueError("empty path")
    if not text.strip():
        raise ValueError("no value")
    return path, [parse_value(v) for v in split_values(text.strip())]


# --------------------------------------------------------------------------------------------
# planning


@dataclass
class Job:
    """One run of a sweep."""

    point: dict[str, Any]
    seed: int
    scenario_hash: str
    scenario_json: str  #: the full scenario with the seed, canonical JSON
    params: str  #: the grid point as JSON
    invalid: str | None = None  #: the ScenarioError message when the point is invalid

    @property
    def key(self) -> tuple[str, int]:
        return (self.scenario_hash, self.seed)


def _canon(v: Any) -> str:
    return json.dumps(v, sort_keys=True, default=str)


def normalise_grid(grid: Mapping[str, Any] | None) -> dict[str, list[Any]]:
    """Check a grid ``{path: values}``: a scalar becomes a one-value axis, duplicates and empty
    axes are errors, the seed is not a grid axis."""
    out: dict[str, list[Any]] = {}
    for path, values in (grid or {}).items():
        if not isinstance(path, str) or not path.strip():
            raise ValueError(f"grid: a path is a non-empty string, got {path!r}")
        if path.strip() == "seed":
            raise ValueError("grid: 'seed' is not a grid axis; use seeds= (--seeds/--seed-start)")
        if isinstance(values, (list, tuple)):
            vals = list(values)
        elif hasattr(values, "tolist") and not isinstance(values, (str, bytes)):
            vals = list(values.tolist())
        else:
            vals = [values]
        if not vals:
            raise ValueError(f"grid: {path}: no values")
        seen = Counter(_canon(v) for v in vals)
        dups = [k for k, n in seen.items() if n > 1]
        if dups:
            raise ValueError(f"grid: {path}: value {dups[0]} is given twice")
        if path in out:
            raise ValueError(f"grid: {path} is given twice")
        out[path] = vals
    return out


def seed_list(seeds: int | Sequence[int], seed_start: int = 1) -> list[int]:
    """Seeds ``seed_start .. seed_start + seeds - 1``, or an explicit list."""
    if isinstance(seeds, bool):
        raise ValueError(f"seeds must be a count or a list of seeds, got {seeds!r}")
    if isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds}")
        if isinstance(seed_start, bool) or not isinstance(seed_start, int) or seed_start < 0:
            raise ValueError(f"seed start must be an integer >= 0, got {seed_start!r}")
        return list(range(seed_start, seed_start + seeds))
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ValueError(f"seeds: {s!r} is not an integer >= 0")
        out.append(int(s))
    if not out:
        raise ValueError("seeds: empty list")
    if len(set(out)) != len(out):
        raise ValueError("seeds: a seed is given twice")
    return out


def trace_everything(sc: Scenario) -> Scenario:
    """Add a ``[trace]`` table recording cwnd of every flow and the queue of every link
    direction (unless the scenario has its own)."""
    if sc.data.get("trace"):
        return sc
    dirs = []
    for link in sc.data.get("links", []) or []:
        a, b = link.get("a"), link.get("b")
        if isinstance(a, str) and isinstance(b, str):
            dirs += [f"{a}->{b}", f"{b}->{a}"]
    sc.data["trace"] = {"cwnd": True, "queue": dirs}
    return sc


def plan(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    grid: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] = 10,
    *,
    seed_start: int = 1,
    trace: bool = False,
    validate: bool = True,
) -> tuple[list[dict[str, Any]], list[int], list[Job]]:
    """The grid points, the seeds and every run of a sweep, seed-major (all points of the first
    seed, then the next seed), so an interrupted sweep has covered the whole grid evenly.

    A path that does not resolve raises :class:`airtcp.PathError` (or ValueError for a
    malformed one) before anything runs. With ``validate`` each point is checked by the core;
    an invalid point's runs carry the error in ``Job.invalid``.
    """
    base = as_scenario(scenario).copy()
    if trace:
        trace_everything(base)
    axes = normalise_grid(grid)
    seeds_ = seed_list(seeds, seed_start)
    points = [dict(zip(axes, combo, strict=False)) for combo in itertools.product(*axes.values())]
    prepared = []
    for point in points:
        sc = base.copy()
        for path, value in point.items():
            sc.set(path, value)
        invalid = None
        if validate:
            try:
                sc.validate()
            except ScenarioError as e:
                invalid = str(e)
        prepared.append((point, sc, scenario_key(sc), invalid))
    jobs = []
    for seed in seeds_:
        for point, sc, h, invalid in prepared:
            d = copy.deepcopy(sc.data)
            d["seed"] = seed
            jobs.append(
                Job(
                    point=point,
                    seed=seed,
                    scenario_hash=h,
                    scenario_json=Scenario(d).canonical_json(),
                    params=json.dumps(point, default=str),
                    invalid=invalid,
                )
            )
    return points, seeds_, jobs


def scenario_key(sc: Scenario) -> str:
    """The store's scenario hash of a run: SHA-256 of the scenario without its seed together
    with the simulator's build fingerprint, so runs are redone, not reused, after the core
    changes."""
    return hashlib.sha256(f"{sc.hash(include_seed=False)}:{_core.__build__}".encode()).hexdigest()


# --------------------------------------------------------------------------------------------
# the worker side


def run_job(scenario_json: str, keep_series: bool = False) -> dict[str, Any]:
    """Run one scenario (JSON text) and return its outcome as plain data; never raises for a
    scenario or simulator error. Time series are dropped unless ``keep_series``. This is what
    pool and dask workers execute."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"version": _core.__version__}
    try:
        raw = json.loads(_core.run_json(scenario_json))
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


# --------------------------------------------------------------------------------------------
# backends: each yields (job, outcome dict) or (job, exception) as runs finish


def _local_pool(workers: int) -> tuple[ProcessPoolExecutor, Any]:
    """A process pool and the write end of its workers' lifeline (close it after shutdown)."""
    methods = mp.get_all_start_methods()
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["airtcp.sweeps"])
    else:  # pragma: no cover - macOS/Windows
        ctx = mp.get_context("spawn")
    lifeline_r, lifeline_w = ctx.Pipe(duplex=False)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_worker_init,
        initargs=(lifeline_r,),
    )
    return pool, (lifeline_r, lifeline_w)


def _run_local(jobs: Sequence[Job], workers: int, keep_series: bool) -> Iterator[tuple[Job, Any]]:
    pool, lifeline = _local_pool(workers)
    window = max(2 * workers, 4)
    it = iter(jobs)
    pending: dict[Any, Job] = {}
    clean = False
    try:

        def fill() -> None:
            while len(pending) < window:
                job = next(it, None)
                if job is None:
                    return
                pending[pool.submit(run_job, job.scenario_json, keep_series)] = job

        fill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                job = pending.pop(fut)
                try:
                    out = fut.result()
                except BrokenProcessPool as e:
                    raise SweepAborted(f"a worker process died ({e})") from None
                except Exception as e:  # noqa: BLE001
                    out = e
                yield job, out
            fill()
        clean = True
    finally:
        pool.shutdown(wait=clean, cancel_futures=True)
        for conn in lifeline:
            conn.close()


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


def _run_dask(
    jobs: Sequence[Job], address: str, workers: int | None, keep_series: bool
) -> Iterator[tuple[Job, Any]]:
    from distributed import as_completed

    client, cluster = _dask_client(address, workers)
    try:
        nthreads = sum(client.nthreads().values()) or 1
        window = max(4 * nthreads, 16)
        it = iter(jobs)
        pending: dict[Any, Job] = {}
        ac = as_completed()

        def fill() -> None:
            while len(pending) < window:
                job = next(it, None)
                if job is None:
                    return
                fut = client.submit(run_job, job.scenario_json, keep_series, pure=False)
                pending[fut] = job
                ac.add(fut)

        fill()
        for fut in ac:
            job = pending.pop(fut)
            if fut.status == "error":
                out: Any = fut.exception()
            else:
                try:
                    out = fut.result()
                except Exception as e:  # noqa: BLE001 - cancelled, worker lost
                    out = e
            fut.release()
            yield job, out
            fill()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# --------------------------------------------------------------------------------------------
# progress


class _Progress:
    """A tqdm bar on a terminal; elsewhere a line every PROGRESS_INTERVAL seconds."""

    def __init__(self, total: int, desc: str, enabled: bool | None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.t0 = time.monotonic()
        self.last = self.t0
        self.desc = desc
        tty = sys.stderr.isatty()
        self.enabled = enabled if enabled is not None else True
        self.bar = None
        if self.enabled and tty and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)

    def update(self, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        if self.bar is not None:
            self.bar.update(1)
            if failed:
                self.bar.set_postfix(failed=self.failed, refresh=False)
            return
        now = time.monotonic()
        if self.enabled and now - self.last >= PROGRESS_INTERVAL and self.done < self.total:
            self.last = now
            rate = self.done / (now - self.t0)
            eta = (self.total - self.done) / rate if rate > 0 else math.inf
            print(
                f"{self.desc}: {self.done}/{self.total} runs, {self.failed} failed, "
                f"{now - self.t0:.0f} s elapsed, ETA {_fmt_s(eta)}",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _fmt_s(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


# --------------------------------------------------------------------------------------------
# the driver


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
        head += f"; {self.wall_s:.1f} s on {self.backend}"
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
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    grid: Mapping[str, Any] | None = None,
    *,
    seeds: int | Sequence[int] = 10,
    seed_start: int = 1,
    store: Store | str | os.PathLike[str],
    workers: int | None = None,
    dask: str | None = None,
    name: str | None = None,
    trace: bool = False,
    retry_failed: bool = False,
    progress: bool | None = None,
) -> SweepOutcome:
    """Run a sweep into ``store`` and return a :class:`SweepOutcome` (see :func:`sweep`)."""
    from .store import Store

    t0 = time.perf_counter()
    base = as_scenario(scenario)
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    points, seeds_, jobs = plan(base, grid, seeds, seed_start=seed_start, trace=trace)
    if points and all(j.invalid for j in jobs):
        # Every grid point is invalid: the command line, not the grid, is wrong.
        raise _core.scenario_error("", jobs[0].invalid)
    st = store if isinstance(store, Store) else Store(store)
    sweep_name = name or base.name
    axes = normalise_grid(grid)
    st.register_sweep(
        sweep_name,
        base_scenario=base.canonical_json(),
        grid=axes,
        seeds=seeds_,
        members=((j.scenario_hash, j.seed, j.params) for j in jobs),
    )
    nworkers = workers or (os.cpu_count() or 1)
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
    bar = _Progress(len(todo), f"sweep {sweep_name}", progress)

    def record(job: Job, res: dict[str, Any]) -> None:
        raw = res.get("raw")
        series_file = None
        if res["status"] == "ok" and raw and raw.get("series"):
            series_file = st.write_series(job.scenario_hash, job.seed, raw["series"])
        st.record(
            scenario_hash=job.scenario_hash,
            seed=job.seed,
            params=job.params,
            scenario=job.scenario_json,
            status=res["status"],
            raw=raw,
            error=res.get("error"),
            error_kind=res.get("error_kind"),
            airtcp_version=res.get("version"),
            wall_s=res.get("wall_s"),
            sweep=sweep_name,
            series=series_file,
        )
        out.ran += 1
        if res["status"] == "ok":
            out.ok_now += 1
        else:
            out.failed_now += 1
        bar.update(res["status"] != "ok")

    try:
        # Invalid points fail without a worker: the core's validation is the whole run.
        runnable = []
        for j in todo:
            if j.invalid is not None:
                record(
                    j,
                    {
                        "status": "failed",
                        "error": j.invalid,
                        "error_kind": "ScenarioError",
                        "version": _core.__version__,
                        "wall_s": 0.0,
                    },
                )
            else:
                runnable.append(j)
        if runnable:
            if dask is not None:
                results = _run_dask(runnable, dask, workers, trace)
            elif nworkers == 1 and len(runnable) == 1:
                results = ((j, run_job(j.scenario_json, trace)) for j in runnable)
            else:
                results = _run_local(runnable, min(nworkers, len(runnable)), trace)
            for job, res in results:
                if isinstance(res, BaseException):
                    out.lost += 1
                    out.ran += 1
                    out.lost_errors[f"{type(res).__name__}: {res}"] += 1
                    bar.update(True)
                    continue
                record(job, res)
    except DaskError:
        raise
    except SweepAborted as e:
        out.aborted = str(e)
    finally:
        bar.close()
        final = st.status(out.keys)
        out.ok = sum(1 for s in final.values() if s == "ok")
        out.failed = sum(1 for s in final.values() if s == "failed")
        if out.failed:
            failed = st.runs(keys=out.keys, status="failed")
            out.errors = Counter(failed["error"].to_list())
        out.wall_s = time.perf_counter() - t0
        if not isinstance(store, Store):
            st.close()
    return out


def sweep(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    grid: Mapping[str, Any] | None = None,
    *,
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
    True/False, or None for a bar on a terminal and a line every 30 s elsewhere; the summary
    goes to stderr when progress is on.

    Raises ValueError/PathError for a bad grid and ScenarioError when every point is invalid;
    a run that fails is recorded (``status == "failed"``, ``error``) and the sweep goes on.
    """
    from .store import Store

    if table not in ("runs", "flows", "links"):
        raise ValueError(f"table must be 'runs', 'flows' or 'links', got {table!r}")
    tmp = None
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="airtcp-sweep-")
        store = Path(tmp.name) / "store.sqlite"
    st = store if isinstance(store, Store) else Store(store)
    try:
        res = run_sweep(
            scenario,
            grid,
            seeds=seeds,
            seed_start=seed_start,
            store=st,
            workers=workers,
            dask=dask,
            name=name,
            trace=trace,
            retry_failed=retry_failed,
            progress=progress,
        )
        if progress or (progress is None and sys.stderr.isatty()):
            print(res.summary(), file=sys.stderr)
        if res.aborted:
            raise SweepAborted(res.aborted)
        return getattr(st, table)(res.name, keys=res.keys)
    finally:
        if st is not store:
            st.close()
        if tmp is not None:
            tmp.cleanup()


def point_table(store: Store, outcome: SweepOutcome, *, level: float = 0.95) -> pl.DataFrame:
    """One row per grid point of a finished sweep: the point's values, runs ok and failed, and
    over the ok runs the mean and CI half-width of the total goodput of all flows (bits/s) and
    the mean Jain fairness."""
    import polars as pl

    from .analysis import mean_ci
    from .store import frame

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
