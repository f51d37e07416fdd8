"""Every scenario key, from the core's key table (the one the validator's range checks and
its schema test use): listing (``airtcp params``), search, and the Markdown reference in
docs/scenario.md."""

from __future__ import annotations

import json
import textwrap
from functools import cache
from typing import Any

from . import _core
from ._common import UserError

#: the name of docs/scenario.md's generated key reference (``airtcp docs-tables --only params``)
REGION = "params"

#: other words a user may give for a section
_ALIASES = {
    "hooks": "agents",
    "agent": "agents",
    "global": "globals",
    "top": "globals",
    "budget": "budgets",
    "node": "nodes",
    "link": "links",
    "medium": "media",
    "wifi": "media",
    "802.11": "media",
    "tdma": "media",
    "flow": "flows",
    "app": "apps",
    "queue": "queues",
    "aqm": "queues",
    "error": "errors",
    "traces": "trace",
}


@cache
def _table() -> dict[str, Any]:
    return json.loads(_core.params_json())


def sections() -> list[tuple[str, str]]:
    """The sections in listing order as (name, title)."""
    return [(s["name"], s["title"]) for s in _table()["sections"]]


def section_name(text: str) -> str:
    """The section ``text`` names: its name, a common alias or a unique prefix."""
    names = [n for n, _ in sections()]
    t = text.lower()
    if t in names:
        return t
    if t in _ALIASES:
        return _ALIASES[t]
    hits = [n for n in names if n.startswith(t)]
    if len(hits) == 1:
        return hits[0]
    raise UserError(f"unknown section {text!r}; sections: {', '.join(names)}")


def params(section: str | None = None, search: str | None = None) -> list[dict[str, Any]]:
    """Every scenario key as a dict: ``path`` (``links[].queue.max_p``), ``table``, ``also``
    (other places the table appears), ``tag`` and ``variants`` (the kinds/models taking the
    key; empty for all), ``key``, ``section``, ``type``, ``unit``, ``default``, ``range``,
    ``choices`` and ``description``. ``section`` keeps one section (a name or alias such as
    ``queues``, ``hooks``); ``search`` keeps keys whose path, description, unit or range
    contains the word (case-insensitive)."""
    rows = [dict(r) for r in _table()["params"]]
    if section is not None:
        name = section_name(section)
        rows = [r for r in rows if r["section"] == name]
    if search:
        w = search.lower()

        def hit(r: dict[str, Any]) -> bool:
            where = " ".join(r["also"]) + " " + " ".join(r["variants"])
            text = f"{r['path']} {where} {r['description']} {r['unit']} {r['range']}"
            return w in text.lower()

        rows = [r for r in rows if hit(r)]
    return rows


def _groups(
    rows: list[dict[str, Any]], empty: bool
) -> list[tuple[str, str, str, list[dict[str, Any]]]]:
    """(section, heading, section title, rows) in listing order: a tagged table once per
    variant (its keys, shared ones repeated; with ``empty``, also the variants without keys
    such as ``kind = "bulk"``), others once."""
    tables = {t["path"]: t for t in _table()["tables"]}
    titles = dict(sections())
    out = []
    for sec, _ in sections():
        in_sec = [r for r in rows if r["section"] == sec]
        order = list(dict.fromkeys(r["table"] for r in in_sec))
        for path in order:
            t = tables[path]
            mine = [r for r in in_sec if r["table"] == path]
            where = f"`{path or '(top level)'}`"
            if t["also"]:
                where += " (also " + ", ".join(f"`{a}`" for a in t["also"]) + ")"
            if not t["tag"]:
                out.append((sec, where, titles[sec], mine))
                continue
            for v in t["variants"]:
                keys = [r for r in mine if not r["variants"] or v in r["variants"]]
                if keys or empty:
                    out.append((sec, f'{where}, {t["tag"]} = "{v}"', titles[sec], keys))
    return out


def _all() -> list[dict[str, Any]]:
    return _table()["params"]


def presets() -> list[tuple[str, dict[str, str]]]:
    """The 802.11 presets in order, each with the values of the keys it sets (as text)."""
    return [(p["name"], dict(p["values"])) for p in _table()["presets"]]


def _preset_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    """[key, value per preset] for the shown media keys whose default is the preset."""
    ps = presets()
    keys = [r["key"] for r in rows if r["table"] == "media[]" and r["default"] == "preset"]
    return [[k, *(v[k] for _, v in ps)] for k in keys]


def text(rows: list[dict[str, Any]], width: int = 100, empty: bool = True) -> str:
    """A listing of ``rows`` for a terminal, no line wider than ``width``: per section and
    table (per variant for tagged ones; ``empty`` also lists variants without keys), each key
    with type, unit and default, then its description and range."""
    lines: list[str] = []
    last = None
    indent = " " * 6

    def preset_table() -> None:
        table = _preset_rows(rows)
        if last != "media" or not table:
            return
        lines.append("media[] defaults by preset:")
        names = [n for n, _ in presets()]
        # The key column is as wide as the longest key, and a space.
        w = max(len(r[0]) for r in table) + 1
        lines.append(f"  {'key':<{w}}" + "".join(f"{n:<19}" for n in names).rstrip())
        for row in table:
            lines.append(f"  {row[0]:<{w}}" + "".join(f"{c:<19}" for c in row[1:]).rstrip())

    for sec, heading, title, keys in _groups(rows, empty):
        if sec != last:
            preset_table()
            if lines:
                lines.append("")
            lines += [title, "=" * len(title)]
            last = sec
        lines.append(heading.replace("`", ""))
        if not keys:
            lines.append("  (no keys)")
        for r in keys:
            unit = r["unit"] or "-"
            head = f"  {r['key']:<28} {r['type']:<8} {unit:<17} default: {r['default']}"
            lines += textwrap.wrap(head, width, subsequent_indent=indent)
            desc = r["description"]
            if r["variants"] and not r["tag"]:
                desc += f" ({' and '.join(r['variants'])} only)"
            if r["range"]:
                desc += f" {'Values' if r['choices'] else 'Range'}: {r['range']}."
            lines += textwrap.wrap(desc, width, initial_indent=indent, subsequent_indent=indent)
    preset_table()
    return "\n".join(lines)


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|") if s else ""


def markdown(rows: list[dict[str, Any]] | None = None) -> str:
    """The Markdown key reference (docs/scenario.md's generated region): a table per section
    and table (per variant for tagged ones)."""
    rows = _all() if rows is None else rows
    out: list[str] = []
    last = None

    def preset_table() -> None:
        table = _preset_rows(rows)
        if last != "media" or not table:
            return
        names = [n for n, _ in presets()]
        out.extend(["`media[]` defaults by `preset`:", ""])
        out.append("| key | " + " | ".join(f"`{n}`" for n in names) + " |")
        out.append("|---" * (len(names) + 1) + "|")
        for row in table:
            out.append(f"| `{row[0]}` | " + " | ".join(_md_cell(c) for c in row[1:]) + " |")
        out.append("")

    for sec, heading, title, keys in _groups(rows, True):
        if sec != last:
            preset_table()
            out += [f"### {title}", ""]
            last = sec
        out += [heading + ("" if keys else ": no keys"), ""]
        if not keys:
            continue
        out.append("| key | type | unit | default | range | description |")
        out.append("|---|---|---|---|---|---|")
        for r in keys:
            desc = r["description"]
            if r["variants"] and not r["tag"]:
                desc += f" ({' and '.join(r['variants'])} only)"
            cells = [f"`{r['key']}`", r["type"], r["unit"], r["default"], r["range"], desc]
            out.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        out.append("")
    preset_table()
    out.append("*Generated by `airtcp docs-tables` (`--only params`; nothing runs) from the")
    out.append("core's key table, as `airtcp params --markdown` prints it. Edit the table, not")
    out.append("this text.*")
    return "\n".join(out) + "\n"
