"""Every claim of a paper decided under each reading of the paper and each value of the setup
it leaves open (:class:`airtcp.papers.Reading`): the robustness table.

A *condition* is one variant of one reading with every other reading at its default. Each
condition resolves the paper's sweeps with its variant applied (a variant that does not apply
to a sweep, or the default variant, leaves the sweep as the paper declares it) under the store
names ``<paper>/<sweep>@<reading>=<variant>`` (``-quick`` at the quick size); the store keys
runs by their scenario's hash, so runs shared between conditions are run once. Every claim (or
those a reading names) is then checked on each condition's data by its own test, giving a cell
per claim and condition: its outcome, its effect and interval, and its sentence. Per claim, a
generated sentence says under which readings it is supported and under which not, and which
choice decides it.

At the quick size only the default and the first alternative of each reading are run."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .stats import Outcome

if TYPE_CHECKING:  # pragma: no cover
    from .papers import ClaimResult, Paper, PaperData, Reading, ResolvedSweep, Variant
    from .store import Store

__all__ = [
    "Cell",
    "Condition",
    "Robustness",
    "claim_sentence",
    "conditions",
    "effect_of",
    "evaluate",
    "evaluate_data",
    "resolve_condition",
    "run_conditions",
    "run_resolved",
]

#: keys of a claim's numbers that hold its effect, by preference
_EFFECT_KEYS = ("effect", "change", "diff", "rise", "share", "ratio", "mean", "crossing")


@dataclass(frozen=True)
class Condition:
    """One variant of one reading, the other readings at their defaults. ``reading`` is None
    for the default condition (every reading at its default: the paper's own sweeps)."""

    reading: str | None
    variant: str
    title: str = ""
    kind: str = "reading"

    @property
    def label(self) -> str:
        return "default" if self.reading is None else f"{self.reading}={self.variant}"


def conditions(
    paper: Paper, *, quick: bool = False, only: Iterable[str] | None = None
) -> list[tuple[Condition, Reading | None, Variant | None]]:
    """The conditions to decide the paper's claims under: the default first, then each
    alternative of each reading (only the first alternative at the quick size; only the
    readings named in ``only`` when given)."""
    wanted = None if only is None else list(only)
    if wanted is not None:
        for name in wanted:
            paper.reading(name)  # KeyError names the paper and the reading
    out: list[tuple[Condition, Reading | None, Variant | None]] = [
        (Condition(None, "default"), None, None)
    ]
    for r in paper.readings:
        if wanted is not None and r.name not in wanted:
            continue
        alts = r.alternatives[:1] if quick else r.alternatives
        for v in alts:
            out.append((Condition(r.name, v.name, r.title, r.kind), r, v))
    return out


def _apply(sc: Any, v: Variant, sweep: str) -> Any:
    from .scenario import Scenario

    out = Scenario(sc.to_dict())
    for path, val in v.set.items():
        out.set(path, val)
    if v.transform is not None:
        out = v.transform(out, sweep)
        if not isinstance(out, Scenario):
            raise TypeError(f"variant {v.name}: transform must return a Scenario")
    return out


def _split_unchanged(
    grid: Mapping[str, list[Any]], unchanged: Mapping[str, Sequence[Any]]
) -> tuple[dict[str, list[Any]], dict[str, list[Any]] | None]:
    """The grid a variant runs and the grid of the points it leaves unchanged (None when
    there are none), split on the one axis ``unchanged`` names that the grid has."""
    axes = [k for k in unchanged if k in grid]
    if not axes:
        return dict(grid), None
    if len(axes) > 1:
        # Points unchanged on either of two axes are not a product grid: keep it simple.
        raise ValueError(f"unchanged names more than one of the sweep's axes: {axes}")
    (axis,) = axes
    keep = [x for x in grid[axis] if x not in list(unchanged[axis])]
    same = [x for x in grid[axis] if x in list(unchanged[axis])]
    own = {**grid, axis: keep}
    return own, ({**grid, axis: same} if same else None)


def apply_variant(
    r: ResolvedSweep,
    v: Variant,
    *,
    paper: str,
    reading: str,
    quick: bool,
    share: bool = True,
) -> ResolvedSweep:
    """``r`` with variant ``v`` of ``reading`` applied (``r`` itself when ``v`` is the
    identity or does not apply to the sweep), named ``<paper>/<sweep>@<reading>=<v>``. With
    ``share``, the grid points ``v.unchanged`` names are not run again: the result's
    ``shared`` is ``r`` restricted to them (``r`` itself when the variant changes no point)."""
    from .papers import ResolvedSweep

    if v.is_identity or not v.applies(r.spec.name):
        return r
    grid = {k: list(vals) for k, vals in r.grid.items()}
    for k, vals in v.grid.items():
        grid[k] = list(vals)
    shared = None
    if share and v.unchanged:
        grid, same = _split_unchanged(grid, v.unchanged)
        if any(not vals for vals in grid.values()):
            return r
        if same is not None:
            shared = ResolvedSweep(r.name, r.spec, r.scenario, same, list(r.seeds))
    return ResolvedSweep(
        name=f"{paper}/{r.spec.name}@{reading}={v.name}" + ("-quick" if quick else ""),
        spec=r.spec,
        scenario=_apply(r.scenario, v, r.spec.name),
        grid=grid,
        seeds=list(r.seeds),
        shared=shared,
    )


def resolve_condition(
    paper: Paper,
    reading: Reading | None,
    variant: Variant | None,
    *,
    quick: bool,
    seeds: int | None = None,
) -> list[ResolvedSweep]:
    """The paper's sweeps under one condition: the paper's own (its readings' defaults
    applied, :meth:`Paper.resolve`), with ``variant`` of ``reading`` in place of that
    reading's default."""
    if reading is None or variant is None:
        return paper.resolve(quick=quick, seeds=seeds)
    return paper.resolve(quick=quick, seeds=seeds, replace={reading.name: variant})


def run_resolved(
    r: ResolvedSweep,
    store: Store,
    *,
    workers: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
) -> None:
    """Run what the store lacks of one of a paper's sweeps, logging its summary; raises
    :class:`~airtcp.sweeps.SweepAborted` if the sweep was aborted."""
    from .sweeps import SweepAborted, run_sweep

    res = run_sweep(
        r.scenario,
        r.grid,
        seeds=r.seeds,
        store=store,
        workers=workers,
        dask=dask,
        name=r.name,
        trace=r.spec.trace,
        retry_failed=retry_failed,
        progress=progress,
        # The paper module owns its sweeps' definitions: an edited one replaces the old
        # membership instead of mixing with it.
        replace=True,
    )
    if log is not None:
        log(res.summary())
    if res.aborted:
        raise SweepAborted(res.aborted)


def run_conditions(
    paper: Paper,
    store: Store,
    *,
    quick: bool = False,
    seeds: int | None = None,
    only: Iterable[str] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
) -> None:
    """Run what the store lacks of every condition but the default (which
    :func:`airtcp.papers.reproduce` runs): a progress line per variant, then its sweeps."""
    conds = conditions(paper, quick=quick, only=only)[1:]
    plain = {r.name for r in paper.resolve(quick=quick, seeds=seeds)}
    for k, (c, reading, variant) in enumerate(conds, 1):
        resolved = resolve_condition(paper, reading, variant, quick=quick, seeds=seeds)
        own = [r for r in resolved if r.name not in plain]
        if log is not None and progress is not False:
            log(
                f"[reading {k}/{len(conds)}] {paper.key}: {c.label} "
                f"({len(own)} sweep{'s' if len(own) != 1 else ''} of its own)"
            )
        for r in own:
            run_resolved(
                r,
                store,
                workers=workers,
                dask=dask,
                retry_failed=retry_failed,
                progress=progress,
                log=log,
            )


# --------------------------------------------------------------------------------------------
# cells and sentences


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _num(d: Mapping[str, Any], keys: Sequence[str]) -> float | None:
    for k in keys:
        v = d.get(k)
        if _finite(v):
            return float(v)
    return None


def effect_of(res: ClaimResult) -> tuple[float | None, float | None, float | None]:
    """A claim result's effect and its interval (``effect``, ``ci_low``, ``ci_high``; None
    where it has none). Taken from the result's ``effect``/``ci`` when it sets them, else
    from its numbers: a dict, or the part of a list of dicts that decides (the first whose
    ``verdict`` or ``outcome`` is the claim's outcome, else the first)."""
    eff = getattr(res, "effect", None)
    ci = getattr(res, "ci", None)
    if eff is not None or ci is not None:
        lo, hi = ci if ci is not None else (None, None)
        return (
            float(eff) if _finite(eff) else None,
            float(lo) if _finite(lo) else None,
            float(hi) if _finite(hi) else None,
        )
    nums = res.numbers
    rows: list[Mapping[str, Any]] = []
    if isinstance(nums, Mapping):
        rows = [nums]
    elif isinstance(nums, list):
        rows = [x for x in nums if isinstance(x, Mapping)]
    elif nums is not None and hasattr(nums, "to_dicts"):
        rows = nums.to_dicts()
    if not rows:
        return None, None, None
    # Parts name their own outcome as ``verdict`` or ``outcome``.
    pick = next(
        (
            r
            for r in rows
            if any(k in r and str(r[k]) == str(res.outcome) for k in ("verdict", "outcome"))
        ),
        rows[0],
    )
    return (
        _num(pick, _EFFECT_KEYS),
        _num(pick, ("ci_low", "lo", "low")),
        _num(pick, ("ci_high", "hi", "high")),
    )


@dataclass
class Cell:
    """One claim decided under one condition."""

    claim: str
    reading: str | None  #: None: the default condition
    variant: str
    kind: str
    outcome: Outcome
    effect: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    sentence: str = ""
    error: str | None = None

    @property
    def label(self) -> str:
        return "default" if self.reading is None else f"{self.reading}={self.variant}"

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["outcome"] = str(self.outcome)
        return d


def _cell(claim: str, c: Condition, res: ClaimResult | None, err: str | None) -> Cell:
    if res is None:
        return Cell(claim, c.reading, c.variant, c.kind, Outcome.INCONCLUSIVE, error=err)
    eff, lo, hi = effect_of(res)
    return Cell(claim, c.reading, c.variant, c.kind, res.outcome, eff, lo, hi, res.sentence)


def _list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def claim_sentence(cells: Sequence[Cell], defaults: Mapping[str, str] | None = None) -> str:
    """The sentence for one claim from its cells (the default condition's among them, with
    ``reading`` None): its verdict under the default choices; under which readings it is
    supported and under which not; which readings decide it (those with a variant whose
    outcome differs from the default's)."""
    defaults = defaults or {}
    base = next((c for c in cells if c.reading is None), None)
    others = [c for c in cells if c.reading is not None]
    if base is None:
        return "Not decided under the default choices (no runs)."
    head = f"{str(base.outcome).capitalize()} under the default choices"
    if not others:
        return head + " (no reading or axis is declared for this claim)."
    moved = [c for c in others if c.outcome is not base.outcome]
    if not moved:
        return (
            head + f", and under every alternative tried ({len(others)}: "
            f"{_list([c.label for c in others])}): no reading or axis decides it."
        )
    by_outcome: dict[Outcome, list[str]] = {}
    for c in moved:
        by_outcome.setdefault(c.outcome, []).append(c.label)
    parts = [f"{o} under {_list(v)}" for o, v in by_outcome.items()]
    deciders: list[str] = []
    for c in moved:
        if c.reading is not None and c.reading not in deciders:
            deciders.append(c.reading)
    kept = sorted({c.reading for c in others if c.reading not in deciders} - {None})
    tail = (
        f" The choice that decides it: {_list(deciders)}"
        if len(deciders) == 1
        else f" The choices that decide it: {_list(deciders)}"
    )
    tail += f" (default {', '.join(f'{d}={defaults[d]}' for d in deciders if d in defaults)})"
    if kept:
        tail += f"; {_list(kept)} {'does' if len(kept) == 1 else 'do'} not change it"
    return f"{head}; {'; '.join(parts)}.{tail}."


@dataclass
class Robustness:
    """A paper's robustness table: a cell per claim and condition, and a sentence per claim."""

    paper: str
    quick: bool
    conditions: list[Condition]
    cells: list[Cell]
    sentences: dict[str, str] = field(default_factory=dict)
    #: per claim, the readings whose variants change its outcome
    deciders: dict[str, list[str]] = field(default_factory=dict)
    #: what kept a condition from being evaluated (runs missing), by its label
    missing: dict[str, str] = field(default_factory=dict)

    def cell(self, claim: str, label: str) -> Cell | None:
        for c in self.cells:
            if c.claim == claim and c.label == label:
                return c
        return None

    def outcomes(self, claim: str) -> dict[str, Outcome]:
        """The claim's outcome by condition label."""
        return {c.label: c.outcome for c in self.cells if c.claim == claim}

    def as_dict(self) -> dict[str, Any]:
        return {
            "paper": self.paper,
            "quick": self.quick,
            "conditions": [asdict(c) for c in self.conditions],
            "cells": [c.as_dict() for c in self.cells],
            "sentences": self.sentences,
            "deciders": self.deciders,
            "missing": self.missing,
        }

    def write_json(self, path: str | os.PathLike[str]) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.as_dict(), indent=1, default=str) + "\n", encoding="utf-8")
        return p


def _check(paper: Paper, claim: Any, data: PaperData) -> tuple[ClaimResult | None, str | None]:
    try:
        return claim.check(data), None
    except Exception as e:  # noqa: BLE001 - an error is shown in its cell, not raised
        return None, f"{type(e).__name__}: {e}"


def evaluate_data(
    paper: Paper,
    data_by_condition: Sequence[tuple[Condition, Reading | None, PaperData | None]],
    *,
    quick: bool = False,
    missing: Mapping[str, str] | None = None,
    default_results: Mapping[str, tuple[ClaimResult | None, str | None]] | None = None,
) -> Robustness:
    """The robustness table from each condition's data (None: its runs are missing; it gets
    no cells). A reading that names ``claims`` is decided for those only.
    ``default_results`` reuses the default condition's claim results when already computed."""
    cells: list[Cell] = []
    conds = [c for c, _, _ in data_by_condition]
    for c, reading, data in data_by_condition:
        if data is None:
            continue
        for claim in paper.claims:
            if (
                reading is not None
                and reading.claims is not None
                and claim.id not in reading.claims
            ):
                continue
            if reading is None and default_results is not None and claim.id in default_results:
                res, err = default_results[claim.id]
            else:
                res, err = _check(paper, claim, data)
            cells.append(_cell(claim.id, c, res, err))
    defaults = {r.name: r.default.name for r in paper.readings}
    rob = Robustness(paper.key, quick, conds, cells, missing=dict(missing or {}))
    for claim in paper.claims:
        mine = [x for x in cells if x.claim == claim.id]
        rob.sentences[claim.id] = claim_sentence(mine, defaults)
        base = next((x for x in mine if x.reading is None), None)
        dec: list[str] = []
        for x in mine:
            if base is not None and x.reading is not None and x.outcome is not base.outcome:
                if x.reading not in dec:
                    dec.append(x.reading)
        rob.deciders[claim.id] = dec
    return rob


def evaluate(
    paper: Paper,
    store: Store | str | os.PathLike[str],
    *,
    quick: bool = False,
    seeds: int | None = None,
    only: Iterable[str] | None = None,
    default_data: PaperData | None = None,
    default_results: Mapping[str, tuple[ClaimResult | None, str | None]] | None = None,
) -> Robustness:
    """Decide every claim under every condition from the runs in ``store`` (nothing is run).
    A condition whose runs the store lacks is listed in ``missing`` and gets no cells."""
    from .papers import MissingRuns, load_data
    from .store import Store as _Store

    st = store if isinstance(store, _Store) else _Store(store, create=False)
    try:
        rows: list[tuple[Condition, Reading | None, PaperData | None]] = []
        missing: dict[str, str] = {}
        for c, reading, variant in conditions(paper, quick=quick, only=only):
            if reading is None and default_data is not None:
                rows.append((c, None, default_data))
                continue
            try:
                resolved = resolve_condition(paper, reading, variant, quick=quick, seeds=seeds)
                data = load_data(paper, st, quick=quick, seeds=seeds, resolved=resolved)
            except MissingRuns as e:
                missing[c.label] = str(e)
                data = None
            rows.append((c, reading, data))
    finally:
        if st is not store:
            st.close()
    return evaluate_data(paper, rows, quick=quick, missing=missing, default_results=default_results)
