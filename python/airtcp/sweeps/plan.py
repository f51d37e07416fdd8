"""Planning a sweep: grid values from the command line, the grid's cross product times the
seeds, and each run's scenario and key."""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..scenario import AllowPaths, Scenario, _json_default, as_scenario

ScenarioError = _core.ScenarioError


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
    from .._common import parse_value

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
    #: where the run may read files (``Scenario.file_access``); None: the working directory
    files: dict[str, Any] | None = None

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


#: The store keeps seeds as SQLite integers (signed 64-bit).
MAX_SEED = 2**63 - 1


def seed_list(seeds: int | Sequence[int], seed_start: int = 1) -> list[int]:
    """Seeds ``seed_start .. seed_start + seeds - 1``, or an explicit list."""
    if isinstance(seeds, bool):
        raise ValueError(f"seeds must be a count or a list of seeds, got {seeds!r}")
    if isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds must be >= 1, got {seeds}")
        if isinstance(seed_start, bool) or not isinstance(seed_start, int) or seed_start < 0:
            raise ValueError(f"seed start must be an integer >= 0, got {seed_start!r}")
        if seed_start + seeds - 1 > MAX_SEED:
            raise ValueError(f"seeds must be at most 2^63 - 1, got up to {seed_start + seeds - 1}")
        return list(range(seed_start, seed_start + seeds))
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0 or s > MAX_SEED:
            raise ValueError(f"seeds: {s!r} is not an integer from 0 to 2^63 - 1")
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


Source = Scenario | Mapping[str, Any] | str | os.PathLike[str] | Callable[..., Scenario]


def builder_axes(builder: Callable[..., Any], axes: Sequence[str]) -> list[str]:
    """The grid axes that name arguments of ``builder`` (``hops``, ``n_flows``, ...); the other
    axes are scenario paths."""
    params = inspect.signature(builder).parameters
    return [a for a in axes if a in params]


def builder_source(builder: Callable[..., Any], base: Mapping[str, Any] | None) -> str:
    """What identifies a builder sweep's base in the store: the builder and its fixed
    arguments (a sweep of another builder or other fixed arguments is another sweep)."""
    where = f"{builder.__module__}.{builder.__qualname__}"
    return json.dumps(
        {"builder": where, "base": dict(base or {})}, sort_keys=True, default=_json_default
    )


def _build(
    builder: Callable[..., Scenario], base: Mapping[str, Any], args: Mapping[str, Any]
) -> tuple[Scenario | None, str | None]:
    """The builder's scenario for one point, or the reason it cannot build it."""
    try:
        return as_scenario(builder(**{**base, **args})), None
    except TypeError as e:
        name = getattr(builder, "__name__", "builder")
        raise ValueError(f"{name}: {e} (give it in base= or as a grid axis)") from None
    except ValueError as e:
        told = ", ".join(f"{k}={_canon(v)}" for k, v in args.items())
        return None, f"{told}: {e}" if told else str(e)


def _created_table_hint(sc: Scenario, point: Mapping[str, Any], message: str) -> str:
    """A hint for an axis whose path runs into a table the base scenario lacks (a chain
    without an error model and ``media.air.error.per``): the sweep creates the table with one
    key, and the core then misses the table's required ones."""
    field, _, detail = message.partition(": ")
    if "missing required field" not in detail or "." not in field:
        return message
    table = field.rsplit(".", 1)[0]
    for path in point:
        if "." not in path:
            continue
        parent = path.rsplit(".", 1)[0]
        try:
            if table not in sc.paths(parent):
                continue
        except (KeyError, ValueError):
            continue
        return (
            f"{message} (the sweep path {path} makes a table {table} of that key alone: "
            f'give the whole table as the axis, e.g. {parent}={{ model = "bernoulli", '
            "per = 0.01 }, or start from a scenario that has the table, e.g. a builder's "
            "per > 0, or sweep the builder's per)"
        )
    return message


def plan(
    scenario: Source,
    grid: Mapping[str, Any] | None = None,
    seeds: int | Sequence[int] = 10,
    *,
    seed_start: int = 1,
    trace: bool = False,
    validate: bool = True,
    allow_paths: AllowPaths = None,
    base: Mapping[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[int], list[Job]]:
    """The grid points, the seeds and every run of a sweep, seed-major (all points of the first
    seed, then the next seed), so an interrupted sweep has covered the whole grid evenly.

    ``scenario`` may be a builder (``airtcp.chain``, or any function returning a Scenario):
    grid axes that name its arguments (``hops``, ``n_flows``, ``spacing``) are given to it,
    with ``base`` (its fixed arguments), to build each point's scenario; the other axes are
    paths set on what it built. A point the builder refuses (``ValueError``) is invalid.

    A path that does not resolve raises :class:`airtcp.PathError` (or ValueError for a
    malformed one) before anything runs. With ``validate`` each point is checked by the core;
    an invalid point's runs carry the error in ``Job.invalid``. Files the scenario names are
    read as :func:`airtcp.run` reads them (``allow_paths``).
    """
    axes = normalise_grid(grid)
    builder: Callable[..., Scenario] | None = None
    if callable(scenario) and not isinstance(scenario, Scenario):
        builder = scenario
        built_by = builder_axes(builder, list(axes))
        fixed = dict(base or {})
    elif base:
        raise ValueError("base= gives a builder's fixed arguments; the scenario is not a builder")
    else:
        built_by = []
        fixed = {}
    seeds_ = seed_list(seeds, seed_start)
    points = [dict(zip(axes, combo, strict=False)) for combo in itertools.product(*axes.values())]
    start: Scenario | None = None
    if builder is None:
        start = as_scenario(scenario).copy()  # type: ignore[arg-type]
        if trace:
            trace_everything(start)
    files: dict[str, Any] | None = None
    prepared = []
    for point in points:
        invalid = None
        if start is not None:
            sc = start.copy()
        else:
            assert builder is not None
            made, invalid = _build(builder, fixed, {k: point[k] for k in built_by})
            sc = made if made is not None else Scenario({"name": "unbuilt"})
            if made is not None and trace:
                trace_everything(sc)
        if files is None and invalid is None:
            files = sc.file_access(allow_paths)
        if invalid is None:
            for path, value in point.items():
                if path not in built_by:
                    sc.set(path, value)
        if validate and invalid is None:
            try:
                sc.validate(allow_paths=(files or {}).get("allow_paths"))
            except ScenarioError as e:
                invalid = _created_table_hint(sc, point, str(e))
        prepared.append((point, sc, scenario_key(sc), invalid))
    if files is None:
        files = Scenario({}).file_access(allow_paths)
    texts = [(point, _seeded_json(sc.data), h, invalid) for point, sc, h, invalid in prepared]
    params = [json.dumps(point, default=str) for point in points]
    jobs = []
    for seed in seeds_:
        for (point, with_seed, h, invalid), p in zip(texts, params, strict=True):
            jobs.append(
                Job(
                    point=point,
                    seed=seed,
                    scenario_hash=h,
                    scenario_json=with_seed(seed),
                    params=p,
                    invalid=invalid,
                    files=files,
                )
            )
    return points, seeds_, jobs


def _seeded_json(data: Mapping[str, Any]) -> Callable[[int], str]:
    """``seed -> Scenario(data with that seed).canonical_json()``, cheaply: a sweep's runs of
    one point differ only in the seed, so every other top-level value is encoded once (the
    text is the same, since sorted-key JSON of a table is its sorted items joined)."""
    enc = functools.partial(
        json.dumps, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default
    )
    rest = {k: v for k, v in data.items() if k != "seed"}
    keys = sorted([*rest, "seed"])
    at = keys.index("seed")
    items = [f"{enc(k)}:{enc(rest[k])}" for k in keys if k != "seed"]
    head = "{" + "".join(f"{x}," for x in items[:at]) + '"seed":'
    tail = "".join(f",{x}" for x in items[at:]) + "}"
    # A seed is an int (seed_list): its JSON is its decimal text, without an encoder's cost.
    return lambda seed: f"{head}{int(seed)}{tail}"


def unusable_value(
    grid: Mapping[str, Sequence[Any]], jobs: Sequence[Job]
) -> tuple[str, Any, str] | None:
    """The first grid value (path, value, the core's message) with which every point of the
    grid is invalid, e.g. ``tcp.initial_cwnd = "abc"``: such a value can only give failed
    runs, so it is a mistake in the command, not a result. A point that is invalid only in
    combination with another axis's value does not count (its runs are recorded failed)."""
    invalid: dict[str, tuple[dict[str, Any], str | None]] = {}
    for j in jobs:
        invalid.setdefault(j.params, (j.point, j.invalid))
    for path, values in grid.items():
        for v in values:
            with_v = [msg for point, msg in invalid.values() if _canon(point[path]) == _canon(v)]
            if with_v and all(with_v):
                return path, v, str(with_v[0])
    return None


def scenario_key(sc: Scenario) -> str:
    """The store's scenario hash of a run: SHA-256 of the scenario without its seed together
    with the simulator's build fingerprint, so runs are redone, not reused, after the core
    changes."""
    return hashlib.sha256(f"{sc.hash(include_seed=False)}:{_core.__build__}".encode()).hexdigest()


# --------------------------------------------------------------------------------------------
# the worker side
