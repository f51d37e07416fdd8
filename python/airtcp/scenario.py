"""Scenarios: a plain dict in the documented schema (docs/scenario.md), with loading, dotted-path
editing for sweeps, validation through the core, TOML output and a stable hash.

Paths used by :meth:`Scenario.set` and :meth:`Scenario.get`
------------------------------------------------------------

A path is a list of steps separated by dots::

    duration                      top-level key
    tcp.delayed_ack               key of a table (created if the table is absent)
    flows.0.cc                    list item by index (negative indices count from the end)
    links.R2-D1.error.per         list item by its ``name``
    flows.*.cc                    every item of the list
    links.R2-D*.error.per         every item whose name matches the pattern (``*``, ``?``)
    links[R2-D1].error.per        the same with brackets; inside brackets a name may contain dots
    flows["0"].cc                 a quoted name is always a name, never an index

Items without an explicit ``name`` are addressed by their default one: ``"<a>-<b>"`` for links
and ``"flow<i>"`` for flows, exactly as the core names them in results.
"""

from __future__ import annotations

import copy
import fnmatch
import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from . import _core

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = ["Scenario", "PathError", "load"]

ScenarioError = _core.ScenarioError

_INT_RE = re.compile(r"^-?[0-9]+$")
_BARE_KEY_RE = re.compile(r"^[A-Za-z0-9_-]+$")


class PathError(KeyError):
    """A scenario path does not resolve. ``str(e)`` is a readable message naming the path."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# --------------------------------------------------------------------------------------------
# Path parsing and resolution


class _Step:
    __slots__ = ("text", "quoted")

    def __init__(self, text: str, quoted: bool = False) -> None:
        self.text = text
        self.quoted = quoted

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"_Step({self.text!r}, quoted={self.quoted})"


def _parse_path(path: str) -> list[_Step]:
    """Split a path into steps; raise ValueError on a malformed one."""
    if not isinstance(path, str):
        raise ValueError(f"a scenario path is a string, got {type(path).__name__}")
    if not path.strip():
        raise ValueError("empty scenario path")
    steps: list[_Step] = []
    buf = ""
    i, n = 0, len(path)
    after_bracket = False
    while i < n:
        c = path[i]
        if c == ".":
            if buf:
                steps.append(_Step(buf))
                buf = ""
            elif not after_bracket:
                raise ValueError(f"{path!r}: empty step at position {i}")
            after_bracket = False
            i += 1
            if i == n:
                raise ValueError(f"{path!r}: path ends with '.'")
        elif c == "[":
            if buf:
                steps.append(_Step(buf))
                buf = ""
            j = i + 1
            quoted = j < n and path[j] in "\"'"
            if quoted:
                q = path[j]
                end = path.find(q, j + 1)
                if end < 0 or end + 1 >= n or path[end + 1] != "]":
                    raise ValueError(f"{path!r}: unterminated quoted name at position {i}")
                text, i = path[j + 1 : end], end + 2
            else:
                end = path.find("]", j)
                if end < 0:
                    raise ValueError(f"{path!r}: '[' at position {i} is never closed")
                text, i = path[j:end].strip(), end + 1
                if not text:
                    raise ValueError(f"{path!r}: empty '[]' at position {j - 1}")
            steps.append(_Step(text, quoted))
            after_bracket = True
            if i < n and path[i] not in ".[":
                raise ValueError(f"{path!r}: expected '.' or '[' after ']' at position {i}")
        else:
            if after_bracket:  # pragma: no cover - guarded above
                raise ValueError(f"{path!r}: expected '.' after ']' at position {i}")
            buf += c
            i += 1
    if buf:
        steps.append(_Step(buf))
    return steps


def _item_name(parent_key: str, i: int, item: Any) -> str | None:
    """The name the core gives list item ``i`` of ``parent_key`` (explicit or default)."""
    if not isinstance(item, Mapping):
        return None
    name = item.get("name")
    if isinstance(name, str):
        return name
    if parent_key == "links" and isinstance(item.get("a"), str) and isinstance(item.get("b"), str):
        return f"{item['a']}-{item['b']}"
    if parent_key == "flows":
        return f"flow{i}"
    return None


def _fmt(steps: list[str]) -> str:
    return ".".join(steps) if steps else "<root>"


def _core_path(concrete: list[str | int]) -> str:
    """A concrete path in the core's error format, e.g. ``links[3].error.per``."""
    out = ""
    for s in concrete:
        if isinstance(s, int):
            out += f"[{s}]"
        else:
            out += ("." if out else "") + s
    return out


def _resolve(
    root: Any, path: str, *, create: bool
) -> tuple[list[tuple[Any, str | int, list[str | int]]], list[list[str | int]]]:
    """Resolve ``path`` to a list of (container, key, concrete path) targets.

    With ``create`` missing table keys along the way (and the last key) are created as empty
    tables; the concrete paths of created keys are returned too.
    """
    steps = _parse_path(path)
    created: list[list[str | int]] = []
    # Each frontier entry: (node, shown steps so far, concrete path so far)
    frontier: list[tuple[Any, list[str], list[str | int]]] = [(root, [], [])]
    targets: list[tuple[Any, str | int, list[str | int]]] = []
    for k, step in enumerate(steps):
        last = k == len(steps) - 1
        nxt: list[tuple[Any, list[str], list[str | int]]] = []
        for node, shown, conc in frontier:
            here = shown + [step.text]
            if isinstance(node, dict):
                key = step.text
                if key == "*" and not step.quoted:
                    raise PathError(f"{path}: '*' selects list items, but {_fmt(shown)} is a table")
                if key not in node:
                    if not create:
                        keys = ", ".join(sorted(map(str, node))) or "none"
                        raise PathError(
                            f"{path}: {_fmt(here)} is not set (keys present at "
                            f"{_fmt(shown)}: {keys})"
                        )
                    if not last:
                        # An intermediate step creates a table only when the next step is a key;
                        # list items cannot be conjured up.
                        nxt_step = steps[k + 1]
                        if nxt_step.text == "*" or _INT_RE.match(nxt_step.text):
                            raise PathError(
                                f"{path}: {_fmt(here)} is not set, so it has no item "
                                f"'{nxt_step.text}'"
                            )
                        node[key] = {}
                    created.append(conc + [key])
                if last:
                    targets.append((node, key, conc + [key]))
                else:
                    nxt.append((node[key], here, conc + [key]))
            elif isinstance(node, list):
                parent_key = str(conc[-1]) if conc and isinstance(conc[-1], str) else ""
                what = parent_key[:-1] if parent_key.endswith("s") else "item"
                if step.text == "*" and not step.quoted:
                    if not node:
                        raise PathError(f"{path}: {_fmt(shown)} is empty, '*' selects nothing")
                    idxs = list(range(len(node)))
                elif _INT_RE.match(step.text) and not step.quoted:
                    i = int(step.text)
                    if not -len(node) <= i < len(node):
                        raise PathError(
                            f"{path}: index {i} is out of range, {_fmt(shown)} has "
                            f"{len(node)} item(s)"
                        )
                    idxs = [i % len(node)]
                else:
                    names = [_item_name(parent_key, i, it) for i, it in enumerate(node)]
                    if not step.quoted and any(c in step.text for c in "*?"):
                        idxs = [
                            i
                            for i, nm in enumerate(names)
                            if nm is not None and fnmatch.fnmatchcase(nm, step.text)
                        ]
                    else:
                        idxs = [i for i, nm in enumerate(names) if nm == step.text]
                    if not idxs:
                        known = [nm for nm in names if nm is not None]
                        if known:
                            hint = f"known: {', '.join(known)}"
                        else:
                            hint = f"items of {_fmt(shown)} have no names; use an index"
                        raise PathError(f"{path}: no {what} named '{step.text}' ({hint})")
                for i in idxs:
                    if last:
                        targets.append((node, i, conc + [i]))
                    else:
                        nxt.append((node[i], here, conc + [i]))
            else:
                raise PathError(
                    f"{path}: {_fmt(shown)} is a {type(node).__name__} value "
                    f"({node!r}), it has no '{step.text}'"
                )
        frontier = nxt
    return targets, created


# --------------------------------------------------------------------------------------------
# JSON and TOML output


def _json_default(o: Any) -> Any:
    # numpy scalars and arrays (from sweeps) without importing numpy here.
    if hasattr(o, "item") and callable(o.item) and getattr(o, "shape", None) == ():
        return o.item()
    if hasattr(o, "tolist") and callable(o.tolist):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    if isinstance(o, os.PathLike):
        return os.fspath(o)
    raise TypeError(f"scenario value {o!r} of type {type(o).__name__} is not JSON-serializable")


_LARGEST_NUMBER = int(1.7976931348623157e308)  # sys.float_info.max

#: Deepest nesting a scenario may have (the schema needs six levels; `meta` is free-form).
MAX_DEPTH = 64


def _sub(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key == "":  # as the core names an empty key
        return f'{path}[""]'

    return f"{path}.{key}" if path else key


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def _value_problem(d: Any, path: str = "") -> tuple[str, str] | None:
    """``(path, what is wrong)`` for the first value in ``d`` that JSON cannot hold (an object,
    bytes, a date, a key that is not a string, nesting deeper than MAX_DEPTH), else None.
    Iterative, so no input can exhaust the interpreter's stack."""
    stack: list[tuple[Any, str, int]] = [(d, path, 0)]
    while stack:
        v, here, depth = stack.pop()
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > _LARGEST_NUMBER:
            # The core reads numbers as 64-bit floats at most; beyond those JSON cannot go.
            return here, f"an integer of {len(str(abs(v)))} digits is beyond any valid value"
        if v is None or isinstance(v, (bool, int, float, str)):
            continue
        if depth >= MAX_DEPTH:
            return here, f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(v, Mapping):
            items = []
            for k, x in v.items():
                if not isinstance(k, str):
                    return here, (
                        f"key {_short(k)} of type {type(k).__name__}: table keys are strings"
                    )
                items.append((x, _sub(here, k), depth + 1))
            stack.extend(reversed(items))
        elif isinstance(v, (list, tuple)):
            stack.extend(reversed([(x, _sub(here, i), depth + 1) for i, x in enumerate(v)]))
        elif isinstance(v, (set, frozenset)):
            try:
                ordered = sorted(v)
            except TypeError:
                return here, "is a set of values that have no order; use a list"
            stack.extend(reversed([(x, _sub(here, i), depth + 1) for i, x in enumerate(ordered)]))
        elif isinstance(v, os.PathLike):
            continue
        elif hasattr(v, "item") and callable(v.item) and getattr(v, "shape", None) == ():
            stack.append((v.item(), here, depth))  # a numpy scalar
        elif hasattr(v, "tolist") and callable(v.tolist) and hasattr(v, "shape"):
            stack.append((v.tolist(), here, depth))  # a numpy array
        else:
            return here, (
                f"{_short(v)} of type {type(v).__name__} is not a scenario value (a string, "
                "number, boolean, list or table)"
            )
    return None


_MAX_SEED = 2**64 - 1


def _check_values(d: Any, path: str = "") -> None:
    """Raise ScenarioError naming the field of the first value JSON cannot hold."""
    problem = _value_problem(d, path)
    if problem is not None:
        raise _core.scenario_error(*problem)
    seed = d.get("seed") if not path and isinstance(d, Mapping) else None
    if isinstance(seed, int) and not isinstance(seed, bool) and not 0 <= seed <= _MAX_SEED:
        # Checked here, where the integer is exact: the core would read one beyond 64 bits
        # from JSON as a float and could only quote it rounded.
        raise _core.scenario_error(
            "seed", f"must be an integer from 0 to 2^64 - 1 ({_MAX_SEED}), got {seed}"
        )


def _non_finite_path(d: Any, path: str = "") -> str:
    """The field path of the first NaN or infinite number in ``d`` (core path syntax), in
    the order JSON output meets it (sets sorted, numpy values as Python values)."""
    stack: list[tuple[Any, str]] = [(d, path)]
    while stack:
        v, here = stack.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                return here
            continue
        if isinstance(v, (str, int)) or v is None:
            continue
        if isinstance(v, Mapping):
            kids = [(x, _sub(here, k)) for k, x in v.items()]
        elif isinstance(v, (list, tuple)):
            kids = [(x, _sub(here, i)) for i, x in enumerate(v)]
        elif isinstance(v, (set, frozenset)):
            kids = [(x, _sub(here, i)) for i, x in enumerate(sorted(v))]
        elif hasattr(v, "item") and callable(v.item) and getattr(v, "shape", None) == ():
            kids = [(v.item(), here)]
        elif hasattr(v, "tolist") and callable(v.tolist):
            kids = [(v.tolist(), here)]
        else:
            continue
        stack.extend(reversed(kids))
    return ""


def _dumps(d: Any, *, canonical: bool = False) -> str:
    # The live ``data`` dict can be given anything after construction: check again here.
    _check_values(d)
    if canonical:
        return json.dumps(
            d, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default
        )
    return json.dumps(d, default=_json_default)


def _toml_key(k: str) -> str:
    return k if _BARE_KEY_RE.match(k) else json.dumps(k, ensure_ascii=False)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Mapping):
        inner = ", ".join(
            f"{_toml_key(str(k))} = {_toml_value(x)}" for k, x in v.items() if x is not None
        )
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    conv = _json_default(v)
    return _toml_value(conv)


def _is_table_list(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _to_toml(d: Mapping[str, Any], header: str = "") -> str:
    lines: list[str] = []
    if header:
        lines += [f"# {h}".rstrip() for h in header.splitlines()]
    scalars = [(k, v) for k, v in d.items() if not isinstance(v, Mapping) and not _is_table_list(v)]
    tables = [(k, v) for k, v in d.items() if isinstance(v, Mapping)]
    arrays = [(k, v) for k, v in d.items() if _is_table_list(v)]
    for k, v in scalars:
        if v is not None:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in tables:
        lines += ["", f"[{_toml_key(k)}]"]
        lines += [
            f"{_toml_key(str(kk))} = {_toml_value(x)}" for kk, x in v.items() if x is not None
        ]
    for k, v in arrays:
        for item in v:
            lines += ["", f"[[{_toml_key(k)}]]"]
            lines += [
                f"{_toml_key(str(kk))} = {_toml_value(x)}"
                for kk, x in item.items()
                if x is not None
            ]
    return "\n".join(lines).lstrip("\n") + "\n"


# --------------------------------------------------------------------------------------------
# Files a scenario reads

#: ``allow_paths``: None, a directory, or a list of directories.
AllowPaths = str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None


def _allow_list(allow_paths: AllowPaths) -> list[str]:
    """The allowed directories as absolute paths (a relative one is taken from the working
    directory now, not wherever a worker process runs)."""
    if allow_paths is None:
        return []
    items = [allow_paths] if isinstance(allow_paths, (str, os.PathLike)) else list(allow_paths)
    out = []
    for p in items:
        if not isinstance(p, (str, os.PathLike)):
            raise TypeError(f"allow_paths: expected directory paths, got {type(p).__name__}")
        out.append(os.path.abspath(os.fspath(p)))
    return out


# --------------------------------------------------------------------------------------------


#: Largest scenario file read: a scenario is a few kB, this leaves room for inline samples.
MAX_FILE_BYTES = 64 * 1024 * 1024


def _read_scenario_file(p: Path) -> str:
    """The text of a scenario file, read to at most MAX_FILE_BYTES (``/dev/zero`` or a huge
    file is refused, not read until memory runs out)."""
    with open(p, "rb") as f:
        raw = f.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise _core.scenario_error(
            "", f"{p}: more than {MAX_FILE_BYTES >> 20} MiB, too large for a scenario file"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.scenario_error("", f"{p}: not UTF-8 text (byte {e.start})") from None


def _toml_error(path: Path, exc: Exception) -> ScenarioError:
    return _core.scenario_error("", f"{path}: invalid TOML: {exc}")


class Scenario:
    """A scenario in the schema of docs/scenario.md, held as a plain dict.

    Build one with :meth:`from_toml`, :meth:`from_dict` or a builder such as
    :func:`airtcp.dumbbell`; edit it with :meth:`set`; run it with :func:`airtcp.run`.
    """

    __slots__ = ("_data", "source")

    def __init__(self, data: Mapping[str, Any] | None = None, *, source: str | None = None):
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise TypeError(f"a scenario is a mapping, got {type(data).__name__}")
        _check_values(data)
        self._data: dict[str, Any] = copy.deepcopy(dict(data))
        #: Where the scenario came from (a file path), if anywhere.
        self.source = source

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Scenario:
        """A scenario from a dict (deep-copied)."""
        return cls(d)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Scenario:
        """Load a TOML scenario file. A file that is not valid TOML raises ScenarioError naming
        the file; a missing file raises FileNotFoundError."""
        p = Path(path)
        text = _read_scenario_file(p)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise _toml_error(p, e) from None
        except RecursionError:
            raise _core.scenario_error("", f"{p}: invalid TOML: nested too deeply") from None
        return cls(data, source=str(p))

    @classmethod
    def from_toml_str(cls, text: str) -> Scenario:
        """Parse a scenario from TOML text."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise _core.scenario_error("", f"invalid TOML: {e}") from None
        except RecursionError:
            raise _core.scenario_error("", "invalid TOML: nested too deeply") from None
        return cls(data)

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> Scenario:
        """Load a scenario stored as JSON."""
        p = Path(path)
        text = _read_scenario_file(p)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise _core.scenario_error("", f"{p}: invalid JSON: {e}") from None
        except RecursionError:
            raise _core.scenario_error("", f"{p}: invalid JSON: nested too deeply") from None
        if not isinstance(data, dict):
            raise _core.scenario_error(
                "", f"{p}: invalid JSON: the document is a {type(data).__name__}, not a table"
            )
        return cls(data, source=str(p))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """Load a scenario file: ``.json`` as JSON, anything else as TOML."""
        if str(path).lower().endswith(".json"):
            return cls.from_json(path)
        return cls.from_toml(path)

    # -- access -------------------------------------------------------------------------------

    @property
    def data(self) -> dict[str, Any]:
        """The underlying dict (live: edits change the scenario)."""
        return self._data

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario as a plain dict."""
        return copy.deepcopy(self._data)

    def copy(self) -> Scenario:
        return Scenario(self._data, source=self.source)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Scenario):
            return self.canonical_json() == other.canonical_json()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        d = self._data
        parts = [
            f"name={d.get('name', 'scenario')!r}",
            f"duration={d.get('duration')!r}",
            f"seed={d.get('seed', 1)!r}",
            f"nodes={len(d.get('nodes', []) or [])}",
            f"links={len(d.get('links', []) or [])}",
            f"flows={len(d.get('flows', []) or [])}",
        ]
        return f"Scenario({', '.join(parts)})"

    @property
    def name(self) -> str:
        return str(self._data.get("name", "scenario"))

    @property
    def seed(self) -> int:
        return int(self._data.get("seed", 1))

    # -- paths --------------------------------------------------------------------------------

    def get(self, path: str) -> Any:
        """The value at ``path``; a list of values when the path contains ``*`` or a name
        pattern."""
        targets, _ = _resolve(self._data, path, create=False)
        values = [c[k] for c, k, _ in targets]
        if any(not s.quoted and any(c in s.text for c in "*?") for s in _parse_path(path)):
            return values
        return values[0]

    def paths(self, path: str) -> list[str]:
        """The concrete paths (in the core's ``links[3].error.per`` form) ``path`` resolves to."""
        targets, _ = _resolve(copy.deepcopy(self._data), path, create=True)
        return [_core_path(c) for _, _, c in targets]

    def set(self, path: str, value: Any) -> Scenario:
        """Set the value at ``path`` (see the module docstring for the syntax) and return self.

        Missing table keys along the path are created, so ``set("tcp.sack", True)`` works on a
        scenario without a ``[tcp]`` table. A step that does not resolve (no such list item, an
        index out of range, stepping into a number) raises :class:`PathError` (a KeyError); a
        key the schema does not know raises PathError with the core's list of allowed keys; a
        malformed path raises ValueError. On error the scenario is left unchanged.
        """
        work = copy.deepcopy(self._data)
        targets, created = _resolve(work, path, create=True)
        for container, key, conc in targets:
            _check_values(value, _core_path(conc))
            container[key] = copy.deepcopy(value)
        if created:
            self._check_created(work, path, created)
        self._data = work
        return self

    def update(self, values: Mapping[str, Any]) -> Scenario:
        """Apply several :meth:`set` calls (``{path: value}``) atomically; return self."""
        work = Scenario(self._data)
        for p, v in values.items():
            work.set(p, v)
        self._data = work._data
        return self

    def with_values(self, values: Mapping[str, Any] | None = None, **kw: Any) -> Scenario:
        """A modified copy: ``s.with_values({"flows.*.cc": "newreno"}, seed=3)``."""
        out = self.copy()
        out.update({**(values or {}), **kw})
        return out

    @staticmethod
    def _check_created(work: dict[str, Any], path: str, created: list[list[str | int]]) -> None:
        """Reject keys the schema does not know, using the core's own parser."""
        try:
            _core.validate_json(_dumps(work))
        except ScenarioError as e:
            epath, detail = e.path, e.message
            if not str(detail).startswith("unknown field"):
                return
            for c in created:
                full = _core_path(c)
                # Tagged tables (app = { kind = ... }) report the unknown key at the table.
                at_parent = epath == _core_path(c[:-1]) and f"unknown field `{c[-1]}`" in detail
                if epath == full or at_parent:
                    where = path if full == path else f"{path}: {full}"
                    raise PathError(f"{where}: {detail}") from None

    # -- checks, output, identity ------------------------------------------------------------

    def to_json(self, *, indent: int | None = None) -> str:
        """The scenario as JSON text (the form the core takes). A NaN or infinite number
        raises ScenarioError naming its field (JSON has no such values)."""
        _check_values(self._data)
        try:
            return json.dumps(self._data, indent=indent, default=_json_default, allow_nan=False)
        except ValueError:
            raise _core.scenario_error(_non_finite_path(self._data), "must be finite") from None

    @property
    def base_dir(self) -> str:
        """The directory a relative file path in the scenario (an SNR ``trace``) is read from,
        and below which every such path must lie: the scenario file's directory, or the
        working directory for a scenario built in code."""
        if self.source:
            return str(Path(self.source).resolve().parent)
        return os.getcwd()

    def file_access(self, allow_paths: AllowPaths = None) -> dict[str, Any]:
        """Where the core may read this scenario's files, as keyword arguments of
        ``_core.run_json``: :attr:`base_dir`, and the directories of ``allow_paths`` (a path
        or a list of them) besides it. Absolute, so they hold in any worker process."""
        return {"base_dir": self.base_dir, "allow_paths": _allow_list(allow_paths)}

    def validate(self, *, allow_paths: AllowPaths = None) -> Scenario:
        """Check the scenario with the core without running it. Raises ScenarioError whose
        message starts with the field path; returns self when valid. Files the scenario names
        are read as in :func:`airtcp.run` (``allow_paths``)."""
        _core.validate_json(self.to_json(), **self.file_access(allow_paths))
        return self

    def is_valid(self, *, allow_paths: AllowPaths = None) -> bool:
        try:
            self.validate(allow_paths=allow_paths)
        except ScenarioError:
            return False
        return True

    def canonical_json(self) -> str:
        """Compact JSON with sorted keys: equal scenarios give equal text."""
        return _dumps(self._data, canonical=True)

    def hash(self, *, include_seed: bool = True) -> str:
        """SHA-256 (hex) of :meth:`canonical_json`. With ``include_seed=False`` the seed is left
        out, so the runs of one scenario over many seeds share a hash."""
        d = self._data
        if not include_seed and "seed" in d:
            d = {k: v for k, v in d.items() if k != "seed"}
        return hashlib.sha256(_dumps(d, canonical=True).encode("utf-8")).hexdigest()

    def to_toml(self, path: str | os.PathLike[str] | None = None, *, header: str = "") -> str:
        """The scenario as TOML text (written to ``path`` when given). Keys whose value is None
        are left out (None means "use the default")."""
        text = _to_toml(self._data, header)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text


def load(path: str | os.PathLike[str]) -> Scenario:
    """Load a scenario file (TOML, or JSON by extension)."""
    return Scenario.load(path)


def as_scenario(obj: Scenario | Mapping[str, Any] | str | os.PathLike[str]) -> Scenario:
    """Coerce a Scenario, a dict, or a path to a scenario file into a Scenario."""
    if isinstance(obj, Scenario):
        return obj
    if isinstance(obj, Mapping):
        return Scenario(obj)
    if isinstance(obj, (str, os.PathLike)):
        return Scenario.load(obj)
    raise TypeError(
        f"expected a Scenario, a dict or a path to a scenario file, got {type(obj).__name__}"
    )
