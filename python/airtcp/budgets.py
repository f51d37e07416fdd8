"""Budgets and progress of a single run: the memory budget and wall-time budget the core
enforces, the progress callback it calls back with, and how a run that stopped early is
shown (``partial``). Used by :func:`airtcp.run`, the sweeps and the command line."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import _core

#: Wall time before a run's progress is shown at all: most runs end sooner.
SHOW_AFTER_S = 2.0
#: Seconds between progress lines when stderr is not a terminal.
LINE_INTERVAL_S = 30.0
#: How often a progress callback given to :func:`airtcp.run` is called.
CALLBACK_INTERVAL_S = 0.5


class PartialResultWarning(UserWarning):
    """A run stopped before its end (Ctrl-C, or its progress callback returned False): the
    result covers the simulated time up to ``result.partial["reached_s"]`` only."""


@dataclass(frozen=True)
class RunProgress:
    """Where a running simulation is: simulated time reached and planned (seconds), events
    processed, wall time so far; with the event rate and an estimate of the time left."""

    now_s: float
    end_s: float
    events: int
    wall_s: float

    @property
    def fraction(self) -> float:
        return self.now_s / self.end_s if self.end_s > 0 else 0.0

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s if self.wall_s > 0 else 0.0

    @property
    def eta_s(self) -> float:
        """Wall seconds left at the pace so far (inf before any simulated time passed)."""
        if self.now_s <= 0:
            return math.inf
        return self.wall_s * (self.end_s - self.now_s) / self.now_s


def memory_bytes(value: Any, name: str = "memory_budget") -> int | None:
    """A memory budget in bytes from an int or a size text ("2GiB", "500MB"); None stays
    None. Raises ScenarioError naming ``name``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise _core.scenario_error(name, f"must be a size such as '2GiB', got {value!r}")
    try:
        b = value if isinstance(value, (int, float)) else _core.parse_size(str(value))
    except ValueError as e:
        raise _core.scenario_error(name, str(getattr(e, "message", e))) from None
    if not math.isfinite(b) or b < 1:
        raise _core.scenario_error(name, f"must be > 0 bytes, got {value!r}")
    return int(b)


def seconds(value: Any, name: str = "timeout") -> float | None:
    """A wall-time budget in seconds from a number or a duration text ("90s", "2min")."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise _core.scenario_error(name, f"must be a number of seconds, got {value!r}")
    try:
        s = float(value) if isinstance(value, (int, float)) else _core.parse_duration(str(value))
    except ValueError as e:
        raise _core.scenario_error(name, str(getattr(e, "message", e))) from None
    if not math.isfinite(s) or s <= 0:
        raise _core.scenario_error(name, f"must be > 0 seconds, got {value!r}")
    return s


def _fmt_s(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def describe(p: RunProgress) -> str:
    """One line: simulated time, share done, event rate, wall time and estimate."""
    return (
        f"t = {p.now_s:.6g} s of {p.end_s:g} s ({100 * p.fraction:.0f} %), "
        f"{p.events_per_s / 1e6:.2f} M events/s, {_fmt_s(p.wall_s)} elapsed, "
        f"ETA {_fmt_s(p.eta_s)}"
    )


class RunDisplay:
    """Progress of one run on stderr, once it has run SHOW_AFTER_S: a tqdm bar over simulated
    seconds on a terminal (or in a notebook), else a line every LINE_INTERVAL_S."""

    def __init__(self, name: str, bar: bool | None = None) -> None:
        self.name = name
        self.bar_wanted = (
            bar if bar is not None else sys.stderr.isatty() or "ipykernel" in sys.modules
        )
        self.bar: Any = None
        self.next_line = SHOW_AFTER_S

    def __call__(self, p: RunProgress) -> None:
        if p.wall_s < SHOW_AFTER_S:
            return
        if self.bar_wanted:
            if self.bar is None:
                from tqdm.auto import tqdm

                self.bar = tqdm(
                    total=p.end_s,
                    desc=f"run {self.name}",
                    unit="s sim",
                    file=sys.stderr,
                    dynamic_ncols=True,
                    # The run's own figures: the bar starts late, tqdm's clock with it.
                    bar_format="{desc} |{bar}|",
                )
            self.bar.n = p.now_s
            self.bar.set_description_str(f"run {self.name}: {describe(p)}", refresh=False)
            self.bar.refresh()
        elif p.wall_s >= self.next_line:
            self.next_line = p.wall_s + LINE_INTERVAL_S
            print(f"run {self.name}: {describe(p)}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


Progress = bool | str | Callable[[RunProgress], Any] | None


def progress_callback(
    progress: Progress, name: str
) -> tuple[Callable[[float, float, int, float], bool] | None, RunDisplay | None]:
    """The core's callback for ``progress`` (see :func:`airtcp.run`) and the display to close
    after the run, if one was made."""
    if progress is None or progress is False:
        return None, None
    display: RunDisplay | None = None
    if progress is True or progress == "tqdm":
        display = RunDisplay(name, bar=True if progress == "tqdm" else None)
        user: Callable[[RunProgress], Any] = display
    elif callable(progress):
        user = progress
    else:
        raise ValueError(f"progress must be True, 'tqdm', a callable or None, got {progress!r}")
    last = [-math.inf]

    def cb(now_s: float, end_s: float, events: int, wall_s: float) -> bool:
        if wall_s - last[0] < CALLBACK_INTERVAL_S:
            return True
        last[0] = wall_s
        return user(RunProgress(now_s, end_s, events, wall_s)) is not False

    return cb, display


def partial_banner(partial: dict[str, Any]) -> str:
    """The line that heads every display of a partial result."""
    why = {
        "interrupted": "interrupted",
        "timeout": "stopped by its time budget",
        "memory_budget": "stopped by its memory budget",
        "max_events": "stopped by its event budget",
    }.get(partial.get("reason", ""), str(partial.get("reason")))
    return (
        f"PARTIAL RESULT: the run was {why} at t = {partial.get('reached_s', 0):.6g} s of "
        f"{partial.get('duration_s', 0):g} s; every figure covers [0, "
        f"{partial.get('reached_s', 0):.6g}) s only"
    )
