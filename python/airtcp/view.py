"""A picture of the network as one self-contained HTML page (inline SVG and script, nothing
fetched): node positions, who hears whom (by each 802.11 medium's receive and carrier-sense
ranges), the flows' routes, and for moving nodes an animation over the run."""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import _core
from .result import Result
from .scenario import AllowPaths, Scenario, as_scenario

_W, _H, _PAD = 900.0, 640.0, 40.0
#: route changes listed per flow in the legend (all of them are drawn)
_SHOWN = 12
_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2"]


def layout(
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str],
    *,
    interval: float | None = None,
    allow_paths: AllowPaths = None,
) -> dict[str, Any]:
    """What the view draws, computed by the core from the scenario without running it: each
    node's positions over the run (its mobility model sampled every ``interval`` seconds;
    default the scenario's ``trace.positions``, else a 200th of the run), each 802.11
    medium's receive and carrier-sense ranges and stations, and each flow's route."""
    sc = as_scenario(scenario)
    text = _core.layout_json(sc.to_json(), **sc.file_access(allow_paths), interval=interval)
    out: dict[str, Any] = json.loads(text)
    return out


def _is_result(d: Mapping[str, Any]) -> bool:
    return "packets" in d and "flows" in d and "duration_s" in d


def _frames(
    positions: Mapping[str, Mapping[str, list[float]]],
) -> tuple[list[float], dict[str, list[list[float]]]]:
    """Positions on one time grid: the longest series' times; a shorter one (a node that
    does not move) holds its last sample."""
    times: list[float] = []
    for s in positions.values():
        if len(s["t"]) > len(times):
            times = list(s["t"])
    if not times:
        times = [0.0]
    grid: dict[str, list[list[float]]] = {}
    for name, s in positions.items():
        pts: list[list[float]] = []
        k = 0
        for t in times:
            while k + 1 < len(s["t"]) and s["t"][k + 1] <= t + 1e-12:
                k += 1
            pts.append([float(s["x"][k]), float(s["y"][k])])
        grid[name] = pts
    return times, grid


def _dynamic(result: Mapping[str, Any] | None, sc: Scenario | None) -> bool:
    """Whether the run (or the scenario) routes with a protocol rather than static paths."""
    if result is not None and result.get("routing"):
        return True
    if sc is None:
        return False

    def proto(r: Any) -> bool:
        return isinstance(r, Mapping) and r.get("protocol") not in (None, "static")

    return proto(sc.data.get("routing")) or any(
        proto(n.get("routing")) for n in sc.data.get("nodes") or []
    )


def _with_changes(
    flows: list[dict[str, Any]], result: Mapping[str, Any] | None, sc: Scenario | None
) -> list[dict[str, Any]]:
    """Each flow with ``changes``: [(t, path)] its route takes over the run. A result with a
    ``routes`` table (``trace.routes``) gives the routes its data took, from each row's time
    (nothing drawn before a flow's first row); otherwise the one route drawn holds from the
    start (the static shortest path, ``note`` saying so when a protocol routed the run)."""
    rows = (result or {}).get("routes")
    dynamic = _dynamic(result, sc)
    out = []
    for f in flows:
        if rows is not None:
            ch = [(float(r["t"]), list(r["path"])) for r in rows if r["flow"] == f["name"]]
            out.append({**f, "changes": ch, "recorded": True})
        else:
            out.append({**f, "changes": [(-1.0, list(f["route"]))], "recorded": False})
        out[-1]["note"] = dynamic and rows is None
    return out


def _route_at(changes: list[tuple[float, list[str]]], t: float) -> list[str]:
    """The route in use at time ``t``: the last change at or before it (none before the first)."""
    path: list[str] = []
    for at, p in changes:
        if at > t + 1e-9:
            break
        path = p
    return path


def view(
    source: Scenario | Result | Mapping[str, Any] | str | os.PathLike[str],
    path: str | os.PathLike[str] | None = None,
    *,
    scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    interval: float | None = None,
    allow_paths: AllowPaths = None,
) -> str:
    """Write (to ``path`` when given) and return a self-contained HTML page drawing the network.

    ``source`` is a scenario (a :class:`Scenario`, a dict, or a TOML/JSON scenario file) or a
    run's :class:`Result` (or its JSON file). A scenario's positions come from its mobility
    models, sampled as the run would move the nodes; a result's from its ``positions``
    series (``trace.positions``), with the ranges and routes from its scenario (the
    :class:`Result`'s own, or ``scenario=``). Edges join stations within the receive range
    (solid) and the carrier-sense range (dashed) of their medium at the frame shown;
    log-normal shadowing and fading, which the run applies per pair and frame, are not drawn.
    A flow's route is its static shortest path, unless the result recorded the routes its
    data took (``trace.routes``): then each frame draws the route in use at its time, and
    the legend lists the changes.
    """
    result: dict[str, Any] | None = None
    sc: Scenario | None = None
    if isinstance(source, Result):
        result = source.raw
        sc = source.scenario
    elif isinstance(source, Scenario):
        sc = source
    elif isinstance(source, Mapping):
        if _is_result(source):
            result = dict(source)
        else:
            sc = as_scenario(source)
    else:
        p = Path(source)
        if p.suffix == ".json":
            d = json.loads(p.read_text(encoding="utf-8"))
            if _is_result(d):
                result = d
            else:
                sc = Scenario(d, source=str(p))
        else:
            sc = as_scenario(p)
    if scenario is not None:
        sc = as_scenario(scenario)
    if sc is None and result is None:
        raise ValueError("nothing to draw")
    lay = layout(sc, interval=interval, allow_paths=allow_paths) if sc is not None else None
    positions: Mapping[str, Any] = {}
    if result is not None:
        positions = (result.get("series") or {}).get("positions") or {}
    if not positions and lay is not None:
        positions = lay["positions"]
    if not positions:
        raise ValueError(
            "no positions to draw: a result needs trace.positions (or give scenario=), a "
            "scenario needs nodes with a position or a mobility model"
        )
    times, grid = _frames(positions)
    nodes = [
        {"name": n["name"], "kind": n["kind"], "moves": n["moves"]}
        for n in (lay["nodes"] if lay else [])
        if n["name"] in grid
    ] or [
        {"name": k, "kind": "host", "moves": len(set(map(tuple, v))) > 1} for k, v in grid.items()
    ]
    media = lay["media"] if lay else []
    flows = (
        lay["flows"]
        if lay
        else [
            {"name": f["name"], "src": f["src"], "dst": f["dst"], "route": [f["src"], f["dst"]]}
            for f in (result or {}).get("flows", [])
        ]
    )
    flows = _with_changes(flows, result, sc)
    goodput = {f["name"]: f.get("goodput_bps") for f in (result or {}).get("flows", [])}
    title = (lay or {}).get("name") or (result or {}).get("name") or "network"
    page = _page(str(title), times, grid, nodes, media, flows, goodput)
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


def _page(
    title: str,
    times: list[float],
    grid: dict[str, list[list[float]]],
    nodes: list[dict[str, Any]],
    media: list[dict[str, Any]],
    flows: list[dict[str, Any]],
    goodput: Mapping[str, Any],
) -> str:
    xs = [p[0] for v in grid.values() for p in v]
    ys = [p[1] for v in grid.values() for p in v]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    span = max(x1 - x0, y1 - y0, 1.0)
    k = min(
        (_W - 2 * _PAD) / max(x1 - x0, span * 1e-3), (_H - 2 * _PAD) / max(y1 - y0, span * 1e-3)
    )

    def sx(x: float) -> float:
        return round(_PAD + (x - x0) * k, 2)

    def sy(y: float) -> float:
        return round(_H - _PAD - (y - y0) * k, 2)

    # Frame 0 drawn here, so the page shows the network before (or without) its script.
    edges = []
    for m in media:
        st = [s for s in m["stations"] if s in grid]
        for i, a in enumerate(st):
            for b in st[i + 1 :]:
                pa, pb = grid[a][0], grid[b][0]
                d = math.dist(pa, pb)
                cls = "rx" if d <= m["rx_range"] else "cs" if d <= m["cs_range"] else None
                if cls:
                    edges.append(
                        f'<line class="edge {cls}" x1="{sx(pa[0])}" y1="{sy(pa[1])}" '
                        f'x2="{sx(pb[0])}" y2="{sy(pb[1])}"/>'
                    )
    routes = []
    for i, f in enumerate(flows):
        now = _route_at(f["changes"], times[0])
        pts = " ".join(f"{sx(grid[n][0][0])},{sy(grid[n][0][1])}" for n in now if n in grid)
        routes.append(
            f'<polyline class="route" data-flow="{html.escape(f["name"])}" '
            f'stroke="{_COLOURS[i % len(_COLOURS)]}" points="{pts}"/>'
        )
    dots = []
    for n in nodes:
        x, y = grid[n["name"]][0]
        cls = "node" + (" router" if n["kind"] == "router" else "")
        dots.append(
            f'<g class="nodeg" data-name="{html.escape(n["name"])}" '
            f'transform="translate({sx(x)},{sy(y)})"><circle class="{cls}" r="7"/>'
            f'<text x="9" y="-9">{html.escape(n["name"])}</text></g>'
        )
    legend = []
    for i, f in enumerate(flows):
        g = goodput.get(f["name"])
        gp = f", goodput {g / 1e3:.1f} kbit/s" if isinstance(g, (int, float)) else ""
        if f["recorded"]:
            shown = [
                f"{html.escape(' → '.join(p))} from {t:.2f} s" for t, p in f["changes"][:_SHOWN]
            ]
            more = len(f["changes"]) - _SHOWN
            if more > 0:
                shown.append(f"{more} more change(s)")
            where = "; ".join(shown) or "no data routed"
            routes_text = f"routes in use: {where}"
        else:
            routes_text = html.escape(" → ".join(f["route"]))
            if f["note"]:
                routes_text += (
                    " (static shortest path at the start; a run with [trace] routes = true "
                    "shows the routes its protocol used)"
                )
        legend.append(
            f'<li><span style="color:{_COLOURS[i % len(_COLOURS)]}">&#9632;</span> '
            f"{html.escape(f['name'])}: {routes_text}{gp}</li>"
        )
    for m in media:
        legend.append(
            f"<li>medium {html.escape(m['name'])}: receive range {m['rx_range']:.0f} m (solid), "
            f"carrier sense {m['cs_range']:.0f} m (dashed), {len(m['stations'])} stations</li>"
        )
    data = {
        "t": times,
        "pos": grid,
        "nodes": [n["name"] for n in nodes],
        "media": [
            {
                "rx": m["rx_range"],
                "cs": m["cs_range"],
                "st": [s for s in m["stations"] if s in grid],
            }
            for m in media
        ],
        "flows": [[[t, [n for n in p if n in grid]] for t, p in f["changes"]] for f in flows],
        "view": {"x0": x0, "y0": y0, "k": k, "pad": _PAD, "h": _H},
    }
    # The data sits in a JSON script block; '</' is escaped so it cannot close the block.
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    animated = len(times) > 1
    controls = (
        '<div id="controls"><button id="play" type="button">play</button> '
        f'<input id="slider" type="range" min="0" max="{len(times) - 1}" value="0" step="1"> '
        '<span id="clock">t = 0 s</span> '
        '<label><input id="showcs" type="checkbox" checked> carrier-sense edges</label></div>'
        if animated
        else '<div id="controls"><span id="clock">t = 0 s</span></div>'
    )
    return _TEMPLATE.format(
        title=html.escape(title),
        w=int(_W),
        h=int(_H),
        edges="".join(edges),
        routes="".join(routes),
        dots="".join(dots),
        legend="".join(legend),
        controls=controls,
        blob=blob,
        nodes=len(nodes),
        frames=len(times),
        script=_SCRIPT,
    )


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body{{font-family:sans-serif;margin:1em;color:#222}}
svg{{border:1px solid #ccc;background:#fcfcfc}}
.edge.rx{{stroke:#555;stroke-width:1.2}}
.edge.cs{{stroke:#aaa;stroke-width:0.8;stroke-dasharray:4 4}}
.route{{fill:none;stroke-width:3;opacity:0.7}}
circle.node{{fill:#1f77b4;stroke:#fff;stroke-width:1.5}}
circle.node.router{{fill:#7f7f7f}}
text{{font-size:11px}}
ul{{padding-left:1.2em}}
</style></head><body>
<h1>{title}</h1>
<p>{nodes} nodes, {frames} frame(s).</p>
{controls}
<svg id="net" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">
<g id="edges">{edges}</g><g id="routes">{routes}</g><g id="nodes">{dots}</g>
</svg>
<ul id="legend">{legend}</ul>
<script type="application/json" id="data">{blob}</script>
<script>{script}</script>
</body></html>
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var V = D.view, NS = "http://www.w3.org/2000/svg";
  function sx(x) { return V.pad + (x - V.x0) * V.k; }
  function sy(y) { return V.h - V.pad - (y - V.y0) * V.k; }
  var groups = {};
  document.querySelectorAll("#nodes .nodeg").forEach(function (g) {
    groups[g.getAttribute("data-name")] = g;
  });
  var edges = document.getElementById("edges");
  var routes = document.querySelectorAll("#routes polyline");
  var showcs = document.getElementById("showcs");
  var frame = 0;
  // Frames drawn so far, on the body as data-drawn: a looping animation may be back at its
  // first frame, and this says whether it played at all.
  var drawn = 0;
  function draw(f) {
    frame = f;
    drawn += 1;
    document.body.setAttribute("data-drawn", String(drawn));
    D.nodes.forEach(function (n) {
      var p = D.pos[n][f];
      groups[n].setAttribute("transform", "translate(" + sx(p[0]) + "," + sy(p[1]) + ")");
    });
    while (edges.firstChild) { edges.removeChild(edges.firstChild); }
    var cs = !showcs || showcs.checked;
    D.media.forEach(function (m) {
      for (var i = 0; i < m.st.length; i++) {
        for (var j = i + 1; j < m.st.length; j++) {
          var a = D.pos[m.st[i]][f], b = D.pos[m.st[j]][f];
          var d = Math.hypot(a[0] - b[0], a[1] - b[1]);
          var cls = d <= m.rx ? "rx" : (d <= m.cs && cs ? "cs" : null);
          if (!cls) { continue; }
          var l = document.createElementNS(NS, "line");
          l.setAttribute("class", "edge " + cls);
          l.setAttribute("x1", sx(a[0])); l.setAttribute("y1", sy(a[1]));
          l.setAttribute("x2", sx(b[0])); l.setAttribute("y2", sy(b[1]));
          edges.appendChild(l);
        }
      }
    });
    // Each flow's route in use at this frame's time: its last change at or before it.
    D.flows.forEach(function (changes, i) {
      var route = [];
      for (var c = 0; c < changes.length && changes[c][0] <= D.t[f] + 1e-9; c++) {
        route = changes[c][1];
      }
      routes[i].setAttribute("points", route.map(function (n) {
        var p = D.pos[n][f]; return sx(p[0]) + "," + sy(p[1]);
      }).join(" "));
    });
    document.getElementById("clock").textContent = "t = " + D.t[f].toFixed(2) + " s";
    var s = document.getElementById("slider");
    if (s) { s.value = f; }
  }
  var timer = null;
  var play = document.getElementById("play");
  if (play) {
    play.addEventListener("click", function () {
      if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
      play.textContent = "pause";
      timer = setInterval(function () { draw((frame + 1) % D.t.length); }, 100);
    });
    document.getElementById("slider").addEventListener("input", function (e) {
      draw(parseInt(e.target.value, 10));
    });
    showcs.addEventListener("change", function () { draw(frame); });
  }
  draw(0);
  // "#play" in the address starts the animation (a page opened to be watched, and tests).
  if (play && window.location.hash === "#play") { play.click(); }
  document.body.setAttribute("data-ready", "1");
})();
"""
