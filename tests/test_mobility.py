"""Mobility from Python: the scenario keys (TOML and dicts), the manet builder, and the view
page, loaded in a headless Chromium."""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import pytest

import airtcp
from airtcp.cli import main
from airtcp.view import _route_at

from .test_routing import DETOUR, walking_chain

WALK_TOML = """
name = "walk"
duration = 12
seed = 4

[[nodes]]
name = "a"
position = [0, 0]

[[nodes]]
name = "b"
position = [50, 0]
mobility = { model = "ns2", file = "walk.tcl" }

[[nodes]]
name = "c"
position = [0, 100]
mobility = { model = "random_walk", area = [300, 300], speed = [2, 5], distance = 40 }

[[media]]
name = "air"
kind = "wifi"
preset = "ns2"

[[flows]]
src = "a"
dst = "b"
app = { kind = "cbr", rate = "80kbps", packet_size = 500 }

[trace]
positions = "0.5s"
rssi = ["*"]
"""

# Node b is $node_(1) (its index in `nodes`): out along x from 1 s at 40 m/s.
WALK_TCL = """# b walks away
$node_(1) set X_ 50.0
$node_(1) set Y_ 0.0
$ns_ at 1.0 "$node_(1) setdest 450.0 0.0 40.0"
"""


def _walk(tmp_path):
    (tmp_path / "walk.toml").write_text(WALK_TOML)
    (tmp_path / "walk.tcl").write_text(WALK_TCL)
    return tmp_path / "walk.toml"


def test_toml_mobility_keys_run_and_record_series(tmp_path):
    r = airtcp.run(_walk(tmp_path))
    pos = r.raw["series"]["positions"]
    assert sorted(pos) == ["a", "b", "c"]
    assert pos["a"]["x"] == [0.0]
    # b: 50 m until 1 s, then 40 m/s: 250 m at 6 s, 450 m from 11 s.
    b = dict(zip(pos["b"]["t"], pos["b"]["x"], strict=True))
    assert b[0.0] == 50.0 and abs(b[6.0] - 250.0) < 1e-6 and abs(b[12.0] - 450.0) < 1e-6
    assert len(pos["c"]["t"]) == 25
    # b hears a until it is out of carrier-sense range (550 m never reached: all frames),
    # and its received power falls as it walks away.
    rs = r.raw["series"]["rssi"]["b@air"]
    assert set(rs["from"]) == {"a"}
    assert rs["dbm"][0] > rs["dbm"][-1] + 20
    t, frm, dbm = r.rssi("b@air")
    assert len(t) == len(dbm) == len(rs["t"]) and set(frm.tolist()) == {"a"}
    t, x, y = r.positions("b")
    assert x[12] == pytest.approx(250.0) and y.tolist() == [0.0] * len(t)
    with pytest.raises(KeyError, match="no positions series for 'z'"):
        r.positions("z")
    # It loses the link at 250 m (6 s): about 6 s of the 12 s are delivered.
    got = r.flow("flow0")["received_packets"]
    assert 115 <= got <= 125, got


def test_bad_keys_name_the_field(tmp_path):
    sc = airtcp.Scenario.from_toml(_walk(tmp_path))
    sc.set("nodes.c.mobility.speed", [5, 2])
    with pytest.raises(airtcp.ScenarioError) as e:
        sc.validate()
    assert str(e.value).startswith("nodes[2].mobility.speed: must be [min, max]")
    path = _walk(tmp_path)
    (tmp_path / "walk.tcl").write_text('$node_(1) set X_ 1\n$ns_ at 2 "$node_(1) setdest 1 2"\n')
    with pytest.raises(airtcp.ScenarioError) as e:
        airtcp.validate(path)
    assert e.value.path == "nodes[1].mobility.file"
    assert "line 2: expected '$ns_ at T" in e.value.message


def test_manet_builder_is_reproducible():
    a = airtcp.manet(8, 500, 400, flows=3, transport="udp", duration=5, seed=7)
    b = airtcp.manet(8, 500, 400, flows=3, transport="udp", duration=5, seed=7)
    c = airtcp.manet(8, 500, 400, flows=3, transport="udp", duration=5, seed=8)
    pairs = [(f["src"], f["dst"]) for f in a["flows"]]
    assert pairs == [(f["src"], f["dst"]) for f in b["flows"]]
    assert pairs != [(f["src"], f["dst"]) for f in c["flows"]]
    assert len(set(pairs)) == 3 and all(s != d for s, d in pairs)
    assert a["mobility"] == {
        "model": "random_waypoint",
        "area": [500, 400],
        "speed": [1, 20],
        "pause": "2s",
        "stationary": True,
    }
    ra, rb = airtcp.run(a), airtcp.run(b)
    assert ra.raw["series"]["positions"] == rb.raw["series"]["positions"]
    assert len(ra.raw["series"]["positions"]) == 8
    tcp = airtcp.manet(4, 300, 300, flows=1, duration=2, seed=1)
    assert tcp["flows"][0]["cc"] == "newreno" and tcp["flows"][0]["app"] == {"kind": "bulk"}
    assert airtcp.run(tcp).flows["transport"].to_list() == ["tcp"]


def test_manet_passes_routing_through():
    from airtcp.manet import scenario_has_key

    assert scenario_has_key("mobility") and not scenario_has_key("no_such_key")
    if scenario_has_key("routing"):
        sc = airtcp.manet(4, 300, 300, routing={"protocol": "aodv"}, duration=1)
        assert sc["routing"] == {"protocol": "aodv"}
    else:
        with pytest.raises(ValueError, match="routing= needs a core with routing protocols"):
            airtcp.manet(4, 300, 300, routing={"protocol": "aodv"}, duration=1)
    assert "routing" not in airtcp.manet(4, 300, 300, duration=1).data


def _node_count(page: str) -> int:
    return len(re.findall(r'<circle class="node', page))


def test_view_of_scenario_and_result(tmp_path):
    sc = airtcp.manet(6, 600, 400, flows=2, transport="udp", duration=10, seed=2)
    page = airtcp.view(sc, tmp_path / "s.html")
    assert (tmp_path / "s.html").read_text() == page
    assert _node_count(page) == 6
    assert page.count('class="route"') == 2
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        '"http://www.w3.org/2000/svg"', ""
    )
    lay = airtcp.layout(sc)
    assert len(lay["positions"]["m0"]["t"]) == 11  # trace.positions = 1 s
    assert lay["media"][0]["rx_range"] == pytest.approx(250.0, abs=0.1)
    assert lay["media"][0]["cs_range"] == pytest.approx(550.0, abs=0.1)
    r = airtcp.run(sc)
    # The run moved the nodes exactly as the layout's models say.
    assert r.raw["series"]["positions"] == lay["positions"]
    page = airtcp.view(r, tmp_path / "r.html")
    assert _node_count(page) == 6 and "goodput" in page
    # A result file without its scenario: positions only.
    r.to_json(tmp_path / "r.json")
    assert main(["view", str(tmp_path / "r.json"), "-o", str(tmp_path / "c.html")]) == 0
    assert _node_count((tmp_path / "c.html").read_text()) == 6


def test_view_cli_of_a_static_scenario(tmp_path, capsys):
    out = tmp_path / "v.html"
    assert main(["view", "scenarios/chain4_wifi.toml", "-o", str(out)]) == 0
    assert str(out) in capsys.readouterr().out
    page = out.read_text()
    assert _node_count(page) == 5
    # Neighbours 200 m apart hear each other; 400 m apart only sense.
    assert page.count('class="edge rx"') == 4 and page.count('class="edge cs"') == 3
    assert 'id="play"' not in page


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "chromium is needed (apt-get install chromium)"
    return exe


def _dump_dom(url: str, profile) -> tuple[str, str]:
    p = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={profile}",
            # Chromium spends a few virtual seconds of the budget before the page's timers
            # run (3 s left the animation at its first frame in about half the runs here).
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout, p.stderr


def _drawn(dom: str) -> int:
    """Frames the page drew (its body's data-drawn)."""
    m = re.search(r'data-drawn="(\d+)"', dom)
    return int(m.group(1)) if m else 0


def test_view_loads_in_chromium_without_errors(tmp_path):
    sc = airtcp.manet(7, 800, 500, flows=2, transport="udp", duration=30, seed=5)
    page = tmp_path / "view.html"
    airtcp.view(sc, page)
    first = re.findall(r'data-name="(m\d)" transform="([^"]+)"', page.read_text())
    profile = tmp_path / "profile"
    profile.mkdir()
    dom, log = _dump_dom(page.as_uri() + "#play", profile)
    # The script ran to its end, with no uncaught error on the console.
    assert 'data-ready="1"' in dom, log[-2000:]
    assert "Uncaught" not in log, log[-2000:]
    assert _node_count(dom) == 7
    assert dom.count('class="route"') == 2
    # Played for some seconds of virtual time: frames after the first were drawn (the
    # animation loops, so the frame shown may be any), and the nodes stand where that frame's
    # time puts them.
    assert _drawn(dom) >= 10
    clock = re.search(r'id="clock">t = ([0-9.]+) s<', dom)
    assert clock
    later = re.findall(r'data-name="(m\d)" transform="([^"]+)"', dom)
    assert len(later) == 7

    def xy(t: str) -> tuple[float, float]:
        m = re.fullmatch(r"translate\(([-0-9.e]+),([-0-9.e]+)\)", t)
        assert m, t
        return float(m.group(1)), float(m.group(2))

    # Nodes moved from where the page drew them at t = 0, unless the loop is back there.
    moved = sum(math.dist(xy(a[1]), xy(b[1])) > 0.5 for a, b in zip(first, later, strict=True))
    assert moved >= 1 if float(clock.group(1)) > 0 else moved == 0


def test_mesh_builders_take_a_mobility_table():
    walk = {"model": "random_walk", "area": [600, 100], "speed": [1, 3], "time": "2s"}
    sc = airtcp.chain(2, mobility=walk, duration=4, trace={"positions": "1s"})
    assert sc["mobility"] == walk
    r = airtcp.run(sc)
    _, x, _ = r.positions("n1")
    # n1 starts at its place on the chain and walks from there.
    assert x[0] == 200.0 and len(x) == 5 and len(set(x.tolist())) > 1
    with pytest.raises(ValueError, match="mobility needs mac='wifi'"):
        airtcp.grid(2, 2, mac="tdma", mobility=walk)


def test_view_of_a_result_file_with_its_scenario(tmp_path):
    pcap = tmp_path / "pcap"
    sc = airtcp.chain(
        3, duration=2, trace={"positions": "1s", "pcap": ["*"], "pcap_dir": str(pcap)}
    )
    sc.to_toml(tmp_path / "c.toml")
    r = airtcp.run(airtcp.chain(3, duration=2, trace={"positions": "1s"}))
    r.to_json(tmp_path / "r.json")
    out = tmp_path / "v.html"
    args = ["view", str(tmp_path / "r.json"), "--scenario", str(tmp_path / "c.toml")]
    assert main([*args, "-o", str(out)]) == 0
    page = out.read_text()
    # Ranges and routes come from the scenario: the flow's route runs along the chain.
    assert _node_count(page) == 4 and "n0 → n1 → n2 → n3" in page
    assert page.count('class="edge rx"') == 3
    # Drawing a scenario writes no packet trace.
    assert not pcap.exists()


def test_manet_takes_a_protocol_name_for_routing():
    sc = airtcp.manet(6, 300, 300, flows=1, transport="udp", routing="aodv", duration=2)
    assert sc["routing"] == {"protocol": "aodv"}
    r = airtcp.run(sc)
    assert [row["kind"] for row in r.raw["routing"]] == ["aodv"] * 6


def _points(page: str) -> list[int]:
    """The number of points of each route polyline."""
    got = re.findall(r'<polyline class="route"[^>]*points="([^"]*)"', page)
    return [len(p.split()) for p in got]


def test_view_draws_the_routes_the_protocol_used(tmp_path):
    r = airtcp.run(walking_chain())
    page = airtcp.view(r, tmp_path / "r.html")
    # The legend lists the route in use from each change: the chain's, then the detour.
    assert "routes in use: " in page
    assert "n0 → n1 → n2 → n3 from " in page and "n0 → m1 → m2 → n2 → n3 from " in page
    assert "static shortest path" not in page
    # Frame 0 (t = 0): the source still holds its first packet while AODV looks for a
    # route: the route drawn is the source alone.
    assert _points(page) == [1]
    data = re.search(r'<script type="application/json" id="data">(.*?)</script>', page)
    assert data and '"m1","m2"' in data.group(1)
    rows = [(row["t"], row["path"]) for row in r.raw["routes"]]
    assert _route_at(rows, 19.0) == DETOUR
    assert _route_at(rows, 2.0) == ["n0", "n1", "n2", "n3"]
    assert _route_at(rows, -1.0) == []


def test_view_of_a_dynamic_run_without_recorded_routes_says_so(tmp_path):
    sc = walking_chain(duration=3)
    sc.data["trace"] = {"positions": "1s"}
    page = airtcp.view(airtcp.run(sc), tmp_path / "r.html")
    assert "static shortest path at the start" in page
    # Static runs draw as before: no note, the static route.
    page = airtcp.view(airtcp.run(walking_chain(None, duration=3)), tmp_path / "s.html")
    assert "static shortest path" not in page


def test_view_of_routes_in_use_plays_in_chromium(tmp_path):
    r = airtcp.run(walking_chain())
    page = tmp_path / "routes.html"
    airtcp.view(r, page)
    assert _points(page.read_text()) == [1]
    profile = tmp_path / "profile"
    profile.mkdir()
    dom, log = _dump_dom(page.as_uri() + "#play", profile)
    assert 'data-ready="1"' in dom, log[-2000:]
    assert "Uncaught" not in log, log[-2000:]
    # Played (frames after the first drawn; the animation loops, so the frame shown may be
    # any): the chain's route (4 nodes) or the detour (5), whichever was in use at that
    # frame's time.
    assert _drawn(dom) >= 10
    clock = re.search(r'id="clock">t = ([0-9.]+) s<', dom)
    assert clock
    t = float(clock.group(1))
    rows = [(row["t"], row["path"]) for row in r.raw["routes"]]
    assert _points(dom) == [len(_route_at(rows, t))]
    assert _points(dom)[0] in (4, 5)
