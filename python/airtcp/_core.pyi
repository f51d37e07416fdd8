"""Type stubs for the compiled core (crates/airtcp-py)."""

__version__: str
__build__: str

class ScenarioError(ValueError):
    """A scenario value is invalid. ``args`` is (message, path, detail): the message starts
    with the field path, e.g. ``flows[2].cc: unknown scheme 'nwereno' (did you mean
    'newreno'?)``; ``path`` is ``flows[2].cc``; ``detail`` is the message after the path."""

    # Provided by airtcp/__init__.py on import of the package.
    @property
    def path(self) -> str: ...
    @property
    def detail(self) -> str: ...

class SimulationError(RuntimeError):
    """The simulator failed internally (a bug: please report it with the scenario)."""

def run_json(scenario: str) -> str:
    """Run a scenario given as JSON text; return the result as JSON text. Releases the GIL
    while the simulation runs."""

def validate_json(scenario: str) -> None:
    """Check a scenario given as JSON text without running it."""

def schemes() -> list[tuple[str, str]]:
    """Known congestion-control schemes as (name, description) pairs."""
