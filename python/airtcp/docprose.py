"""Figures typed in the prose of a docs page that has generated regions, checked against the
figures of those regions (``airtcp docs-tables --check``; no run is needed).

A page whose tables and sentences come from runs (:mod:`airtcp.docgen`) should not also carry
a run's figure typed by hand: it drifts when the runs change. A *figure* here is a number
with a unit that results are given in (``%``, ``points``, ``Mbit/s``, ``kbit/s``, ``Mbps``,
``kbps``, ``×``) outside code, comments and the generated regions. It agrees when a number
of the page's generated regions rounds to it (``91 %`` agrees with a table's ``90.6``, the
sign aside: "falls by 4.5%" with ``−4.5``); otherwise it is reported. A figure that is not a
run's result (a parameter, a threshold, a paper's value) is listed on the page in a comment,
``<!-- typed: 25 %; 500 kbps (why) -->``, which says so to the reader of the source too; a run's
figure belongs in a generated sentence (a paper's ``doc_tables`` entry may return prose)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ProseFigure", "check_file", "check_text", "figures"]

_UNIT = r"(?:\s?%|\s?points?\b|\s?Mbit/s|\s?kbit/s|\s?Mbps|\s?kbps|\s?×)"
_FIG = re.compile(rf"(?<![\w.\-−+/])([+\-−±]?)(\d+(?:\.\d+)?)({_UNIT})")
_NUM = re.compile(r"(?<![\w.])[+\-−]?\d+(?:\.\d+)?")
_TYPED = re.compile(r"<!--\s*typed:(.*?)-->", re.S)
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass(frozen=True)
class ProseFigure:
    """A figure typed in a page's prose that no generated figure of the page rounds to."""

    file: str
    line: int
    text: str
    context: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.text!r} typed in the prose matches no figure of "
            f"the page's generated regions (…{self.context}…); take it from a generated "
            "table or sentence, or list it in <!-- typed: ... --> if it is not a run's figure"
        )


def _key(text: str) -> str:
    return re.sub(r"\s+", "", text).replace("−", "-")


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces (newlines kept), so positions and line
    numbers stay those of the file."""
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def figures(text: str, where: str = "text") -> tuple[list[tuple[int, str, float, int]], set]:
    """The page's prose figures (offset, text, value, decimals) and its generated regions'
    numbers (absolute values)."""
    from .docgen import find_regions

    regions = find_regions(text, where)
    values: set[float] = set()
    spans = []
    for r in regions:
        for m in _NUM.finditer(text[r.start : r.end]):
            values.add(abs(float(m.group().replace("−", "-"))))
        spans.append((r.start, r.end))
    spans += [(m.start(), m.end()) for m in _FENCE.finditer(text)]
    prose = _blank(text, spans)
    prose = _blank(prose, [(m.start(), m.end()) for m in _COMMENT.finditer(prose)])
    prose = _blank(prose, [(m.start(), m.end()) for m in _CODE.finditer(prose)])
    out = []
    for m in _FIG.finditer(prose):
        n = m.group(2)
        decimals = len(n.split(".")[1]) if "." in n else 0
        out.append((m.start(), m.group(0), float(n), decimals))
    return out, values


def check_text(text: str, where: str = "text") -> list[ProseFigure]:
    """The figures typed in ``text``'s prose that disagree with its generated regions (none
    when the page has no generated region: its figures do not come from runs)."""
    from .docgen import find_regions

    if not find_regions(text, where):
        return []
    # Items separated by ";", each a figure with an optional "(why)" after it.
    typed = {
        _key(re.sub(r"\(.*?\)", "", item, flags=re.S))
        for m in _TYPED.finditer(text)
        for item in re.sub(r"\(.*?\)", "", m.group(1), flags=re.S).split(";")
        if item.strip()
    }
    figs, values = figures(text, where)
    bad = []
    for pos, fig, v, decimals in figs:
        if _key(fig) in typed or _key(fig.lstrip("+-−±")) in typed:
            continue
        tol = 0.5 * 10.0**-decimals + 1e-9
        if any(abs(v - x) <= tol for x in values):
            continue
        line = text.count("\n", 0, pos) + 1
        ctx = " ".join(text[max(0, pos - 40) : pos + len(fig) + 20].split())
        bad.append(ProseFigure(where, line, fig, ctx))
    return bad


def check_file(path: str | Path) -> list[ProseFigure]:
    p = Path(path)
    return check_text(p.read_text(encoding="utf-8"), str(p))
