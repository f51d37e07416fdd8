"""Type stubs of the compiled core (crates/airtcp-py)."""

import os
from collections.abc import Callable, Sequence

__version__: str
__build__: str

class ScenarioError(ValueError):
    """A bad scenario value: ``path`` is the field path (empty for the whole document),
    ``message`` what is wrong; ``str()`` is ``"<path>: <message>"``."""

    path: str
    message: str
    detail: str

class BudgetError(ScenarioError):
    """A run stopped by a budget: ``kind`` is ``"memory_budget"``, ``"timeout"`` or
    ``"max_events"``, ``path`` the field that drives what ran out, ``partial`` the result JSON
    up to where the run stopped."""

    kind: str
    partial: str

class SimulationError(RuntimeError):
    """The simulator failed internally (a bug)."""

def run_json(
    scenario: str,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: Sequence[str | os.PathLike[str]] | None = None,
    series: bool = True,
    memory_budget: int | None = None,
    timeout: float | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
    progress_interval: float = 0.1,
) -> str: ...
def default_memory_budget() -> int: ...
def validate_json(
    scenario: str,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: Sequence[str | os.PathLike[str]] | None = None,
) -> None: ...
def layout_json(
    scenario: str,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: Sequence[str | os.PathLike[str]] | None = None,
    interval: float | None = None,
) -> str: ...
def emu_hosts(
    scenario: str,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: Sequence[str | os.PathLike[str]] | None = None,
) -> list[str]: ...
def emulate_json(
    scenario: str,
    hosts: Sequence[tuple[int, int]],
    stop_fd: int,
    seconds: float,
    start_offset: float = 0.0,
    base_dir: str | os.PathLike[str] | None = None,
    allow_paths: Sequence[str | os.PathLike[str]] | None = None,
) -> str: ...
def schemes() -> list[tuple[str, str]]: ...
def params_json() -> str: ...
def scheme_info_json() -> str: ...
def defaults_json() -> str: ...
def parse_duration(text: str) -> float: ...
def parse_rate(text: str) -> float: ...
def parse_size(text: str) -> float: ...
def scenario_error(path: str, message: str) -> ScenarioError: ...
