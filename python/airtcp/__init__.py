"""airtcp: a fast, reproducible packet-level simulator for TCP over error-prone wireless
networks. The simulator is Rust (``airtcp._core``); this package is the Python front.

    >>> import airtcp
    >>> r = airtcp.run(airtcp.dumbbell(2, per=0.01, duration=10))
    >>> r.flows.select("name", "goodput_bps")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping
from typing import Any

from . import _core
from .budgets import PartialResultWarning, Progress, RunProgress, memory_bytes, seconds
from .budgets import progress_callback as _progress_callback
from .builders import chain, cross, dumbbell, grid, parse_seconds
from .emulate import emulate
from .manet import manet
from .result import Result, jain
from .scenario import AllowPaths, PathError, Scenario, as_scenario, load
from .scenario_keys import params
from .store import Store, StoreError
from .sweeps import sweep
from .view import layout, view

__version__: str = _core.__version__

ScenarioError = _core.ScenarioError
BudgetError = _core.BudgetError
SimulationError = _core.SimulationError


def schemes() -> list[tuple[str, str]]:
    """Known congestion-control schemes as (name, description) pairs."""
    return [(str(n), str(d)) for n, d in _core.schemes()]


def scheme_info() -> list[dict[str, Any]]:
    """The core's scheme registry: ``name``, ``description``, default ``recovery``,
    ``timestamps`` (the scheme turns the option on) and ``params``, each parameter a dict of
    ``name``, ``default``, ``ns3_default`` (None unless the ``ns3`` profile changes it) and
    ``description`` (the declarations ``cc_params`` are checked against)."""
    return json.loads(_core.scheme_info_json())


def defaults() -> dict[str, Any]:
    """The core's defaults: ``tcp`` options without a profile (times in seconds, sizes in
    bytes), the same per ``profiles`` name, and a link's ``queue``."""
    return json.loads(_core.defaults_json())


def validate(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    *,
    allow_paths: AllowPaths = None,
) -> Scenario:
    """Check a scenario (Scenario, dict or file path) without running it; returns it as a
    Scenario. Raises ScenarioError whose message starts with the field path. Files the
    scenario names are read as in :func:`run`."""
    return as_scenario(scenario).validate(allow_paths=allow_paths)


def run(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    *,
    seed: int | None = None,
    allow_paths: AllowPaths = None,
    memory_budget: int | str | None = None,
    timeout: float | str | None = None,
    progress: Progress = None,
) -> Result:
    """Run a scenario and return its :class:`Result`.

    ``scenario`` is a :class:`Scenario`, a dict in the same schema, or the path of a TOML (or
    ``.json``) scenario file. ``seed`` overrides the scenario's seed for this run only.

    A file the scenario names (an SNR ``trace``) is read relative to the scenario file's
    directory (the working directory for a scenario built in code) and must lie below it;
    ``allow_paths`` (a directory or a list of them) lets it read from those too.

    ``memory_budget`` (bytes, or a size such as ``"2GiB"``) bounds what the run holds that
    grows with its input (queued and in-flight packets, drop records, series samples,
    per-flow state, pending events); it overrides the scenario's ``memory_budget``, and by
    default a run may hold a quarter of the memory this process may use
    (``airtcp._core.default_memory_budget()``). ``timeout`` (seconds, or ``"10min"``) is a
    wall-time budget. A run that exceeds either raises :class:`BudgetError` (a
    ScenarioError whose ``path`` names the field that drives what ran out, and whose
    ``result`` is the partial :class:`Result` up to then).

    ``progress``: ``True`` shows the run's progress once it has taken two seconds (a bar on
    a terminal or in a notebook, a line every 30 s elsewhere), ``"tqdm"`` always a bar, a
    callable is called about twice a second with a :class:`RunProgress` (returning False
    stops the run). Ctrl-C stops the run too: it returns what was measured so far, marked
    ``result.partial`` (reason and simulated time reached) with a
    :class:`PartialResultWarning`; such a result is never a complete one.

    Raises ScenarioError (a ValueError) for a bad scenario, with the message starting at the
    offending field path, and SimulationError (a RuntimeError) if the simulator fails
    internally.
    """
    sc = as_scenario(scenario)
    data: Any = sc.data
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise _core.scenario_error("seed", f"must be an integer >= 0, got {seed!r}")
        data = {**data, "seed": seed}
        sc = Scenario(data, source=sc.source)
    budget = memory_bytes(memory_budget)
    limit = seconds(timeout)
    callback, display = _progress_callback(progress, str(sc.data.get("name", "scenario")))
    try:
        text = _core.run_json(
            sc.to_json(),
            **sc.file_access(allow_paths),
            memory_budget=budget,
            timeout=limit,
            progress=callback,
        )
    except _core.BudgetError as e:
        e.result = Result(json.loads(e.partial), scenario=sc) if e.partial else None
        raise
    finally:
        if display is not None:
            display.close()
    r = Result(json.loads(text), scenario=sc)
    if r.partial:
        warnings.warn(
            f"{sc.data.get('name', 'scenario')}: run interrupted at t = "
            f"{r.partial['reached_s']:.6g} s of {r.partial['duration_s']:g} s; the result is "
            "partial",
            PartialResultWarning,
            stacklevel=2,
        )
    return r


__all__ = [
    "BudgetError",
    "PartialResultWarning",
    "PathError",
    "Result",
    "RunProgress",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "Store",
    "StoreError",
    "__version__",
    "chain",
    "cross",
    "dumbbell",
    "emulate",
    "grid",
    "jain",
    "layout",
    "load",
    "manet",
    "params",
    "parse_seconds",
    "run",
    "defaults",
    "scheme_info",
    "schemes",
    "sweep",
    "validate",
    "view",
]
