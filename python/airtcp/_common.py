"""Helpers the command line and the library share (so the library never imports the CLI):
the user-error type, plain-text tables and the reading of ``--set`` values."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import Any

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["UserError", "parse_value", "table"]


class UserError(Exception):
    """An error caused by the command's input; reported as ``error: ...`` with status 2."""


def table(rows: Sequence[Sequence[Any]], header: Sequence[str], align: str | None = None) -> str:
    """A plain-text table. ``align`` has one letter per column: ``l`` or ``r`` (default: first
    column left, the rest right)."""
    cells = [[str(h) for h in header]] + [[str(c) for c in r] for r in rows]
    ncol = len(header)
    if align is None:
        align = "l" + "r" * (ncol - 1)
    widths = [max(len(r[i]) for r in cells) for i in range(ncol)]

    def line(r: list[str]) -> str:
        out = []
        for i, c in enumerate(r):
            out.append(c.ljust(widths[i]) if align[i] == "l" else c.rjust(widths[i]))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value when it parses as one (``0.01``, ``true``, ``"x"``,
    ``[1, 2]``, ``{ kind = "bulk" }``), otherwise the text itself (``10s``, ``newreno``)."""
    try:
        v = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    if isinstance(v, (_dt.date, _dt.time, _dt.datetime)):
        return text
    return v
