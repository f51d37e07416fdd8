"""Parameter sweeps: a grid of scenario values (cross product) times a range of seeds, run on a
local process pool or a dask.distributed cluster, every finished run written to a
:class:`~airtcp.store.Store` (by a local pool's workers, or by this, the driving, process).

    import airtcp
    df = airtcp.sweep(
        "scenarios/dumbbell.toml",
        grid={"links.R2-D1.error.per": [0, 0.01, 0.05], "flows.*.cc": ["newreno", "westwood+"]},
        seeds=20,
        store="out/store.sqlite",
    )

Runs go to the workers in chunks (a task runs several, about 50 ms of work, fewer towards the
end of the sweep) and the workers turn results into store rows; each finished chunk is
committed in one transaction before it counts as done, so an interrupted sweep loses at most
the chunks in flight.

Runs already in the store (same scenario after the grid point is applied, same seed) are
skipped; runs that failed before are skipped too unless ``retry_failed=True`` (the simulator is
deterministic, so a failure repeats until the scenario or the simulator changes). A run whose
scenario is invalid, or that fails in the simulator, is recorded as ``failed`` with its error
and the sweep goes on.

On Linux the local pool forks its workers while the driving process has a single thread, and
otherwise starts them from a fork server (elsewhere ``spawn``): a script that calls
:func:`sweep` at top level must guard it with ``if __name__ == "__main__":``, as for any
multiprocessing code.
"""

from __future__ import annotations

from .backends import DaskError, SweepAborted, run_chunk, run_job
from .driver import SweepOutcome, point_table, run_sweep, sweep
from .plan import Job, parse_axis, plan, scenario_key, split_values
from .progress import PROGRESS_INTERVAL

__all__ = [
    "PROGRESS_INTERVAL",
    "DaskError",
    "Job",
    "SweepAborted",
    "SweepOutcome",
    "plan",
    "parse_axis",
    "point_table",
    "run_chunk",
    "run_job",
    "run_sweep",
    "scenario_key",
    "split_values",
    "sweep",
]
