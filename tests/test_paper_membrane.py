"""Seed paper 001 reproduction (`airtcp reproduce membrane`): its claims on constructed data
(each outcome), the request/response scenarios, and the quick reproduction end to end."""

from __future__ import annotations

import random

import polars as pl
import pytest

import airtcp
from airtcp import Store, papers
from airtcp.cli import main
from airtcp.papers import PaperData, membrane
from airtcp.stats import INCONCLUSIVE, NOT_SUPPORTED, SUPPORTED

from .test_report import OUTCOMES, ReportParser, assert_oracle_shares

SCHEMES = [
    "Reno",
    "NewReno",
    "Jersey",
    "TIBET",
    "NewReno + ERN",
    "NewReno + ELN",
    "adaptive NewReno",
    "adaptive NewReno (online)",
]


def _responses(goodput, noise: float, n: int, rng: random.Random) -> pl.DataFrame:
    rows = []
    for s in SCHEMES:
        for p in membrane.PERS:
            for seed in range(1, n + 1):
                g = goodput(s, p) * (1 + rng.gauss(0, noise))
                rows.append({"scheme": s, "per": p, "seed": seed, "goodput_bps": g})
    return pl.DataFrame(rows)


def _data(goodput, noise: float, n: int = 10, jain_high: float = 0.8, chain=None) -> PaperData:
    """A grid table: ``goodput(scheme, per)`` in bit/s, relative noise ``noise`` per run; with
    ``chain`` (a function like ``goodput``) a 4-hop chain table too."""
    rng = random.Random(5)
    df = _responses(goodput, noise, n, rng)
    # Jain's index per run: NewReno's six flows share evenly at low PER, ``jain_high`` above.
    jain = pl.DataFrame(
        [
            {
                "scheme": s,
                "per": p,
                "seed": seed,
                "jain": (0.99 if p <= 0.01 else jain_high) * (1 + rng.gauss(0, noise / 10)),
            }
            for s in SCHEMES
            for p in membrane.PERS
            for seed in range(1, n + 1)
        ]
    )
    tables = {"grid-base": {"responses": df, "jain": jain}}
    if chain is not None:
        tables["chain4-base"] = {"responses": _responses(chain, noise, n, rng)}
    return PaperData(membrane.PAPER, quick=False, sweeps=[], tables=tables, store=None)


def _claim(data: PaperData, cid: str):
    return next(c for c in membrane.PAPER.claims if c.id == cid).check(data)


def _as_paper(s: str, p: float) -> float:
    """Goodput shaped as the paper describes it."""
    low = p <= membrane.THRESHOLD
    base = {
        "Reno": 0.9 if low else 0.6,
        "NewReno": 1.0,
        "Jersey": 1.0,
        "TIBET": 0.8 if low else 0.9,
    }.get(s)
    if base is not None:
        return 1e6 * base
    if s == "NewReno + ERN":
        return 1.2e6 if low else 0.8e6
    if s == "NewReno + ELN":
        return 0.9e6 if low else 1.6e6
    return 1.2e6 if low else 1.6e6  # adaptive (either): the better of the two


PAPER_LIKE = (
    "newreno_jersey_best_low",
    "newreno_jersey_best_high",
    "tibet_low",
    "tibet_high",
    "reno_worst_high",
    "newreno_fairness",
    "crossing",
    "ern_low_eln_high",
    "eln_high",
    "adaptive",
    "adaptive_fixed_grid",
    "adaptive_online_grid",
)


def test_claims_supported_when_the_data_look_like_the_paper():
    # 1% run-to-run noise: each PER point is decided on its own ten runs, with intervals
    # simultaneous over up to 16 points, so a tie within 5% needs tight runs to be shown.
    d = _data(_as_paper, 0.01)
    for cid in PAPER_LIKE:
        assert _claim(d, cid).outcome == SUPPORTED, (cid, _claim(d, cid).sentence)
    # The chain has no runs here: nothing to decide.
    for cid in ("adaptive_fixed_chain4", "adaptive_online_chain4"):
        assert _claim(d, cid).outcome == INCONCLUSIVE
    d = _data(_as_paper, 0.01, chain=_as_paper)
    for cid in ("adaptive_fixed_chain4", "adaptive_online_chain4"):
        assert _claim(d, cid).outcome == SUPPORTED, (cid, _claim(d, cid).sentence)


def test_claims_not_supported_when_the_order_is_reversed():
    def reversed_(s: str, p: float) -> float:
        if s in ("NewReno + ERN", "NewReno + ELN", "adaptive NewReno", "adaptive NewReno (online)"):
            low = p < membrane.THRESHOLD
            return {
                "NewReno + ERN": 0.8e6 if low else 1.6e6,
                "NewReno + ELN": 1.2e6 if low else 0.8e6,
                "adaptive NewReno": 0.5e6,
                "adaptive NewReno (online)": 0.5e6,
            }[s]
        return {"Reno": 1.2e6, "NewReno": 1.0e6, "Jersey": 1.0e6, "TIBET": 1.3e6}[s]

    # Fairness as even at high PER as at low.
    d = _data(reversed_, 0.02, jain_high=0.99, chain=reversed_)
    for cid in (
        "newreno_jersey_best_low",
        "newreno_jersey_best_high",
        "tibet_low",
        "tibet_high",
        "reno_worst_high",
        "newreno_fairness",
        "crossing",
        "ern_low_eln_high",
        "eln_high",
        "adaptive",
        "adaptive_fixed_grid",
        "adaptive_online_grid",
        "adaptive_fixed_chain4",
        "adaptive_online_chain4",
    ):
        assert _claim(d, cid).outcome == NOT_SUPPORTED, (cid, _claim(d, cid).sentence)


def test_claims_inconclusive_when_runs_scatter():
    d = _data(_as_paper, 1.5, n=3)
    assert _claim(d, "eln_high").outcome == INCONCLUSIVE
    # Without the base schemes there is nothing to compare.
    empty = PaperData(
        membrane.PAPER,
        quick=False,
        sweeps=[],
        tables={
            "grid-base": {
                "responses": _data(_as_paper, 0.0)
                .table("grid-base", "responses")
                .filter(pl.col("scheme").str.contains("\\+"))
            }
        },
        store=None,
    )
    assert _claim(empty, "newreno_jersey_best_low").outcome == INCONCLUSIVE


def test_every_scenario_is_a_request_then_a_response():
    for topo in membrane.TOPOLOGIES:
        for variant in membrane.VARIANTS:
            sc = membrane._variant(topo, variant)(True)
            sc.validate()
            flows = sc["flows"]
            reqs = [f for f in flows if f["name"].startswith("req")]
            resps = [f for f in flows if f["name"].startswith("resp")]
            assert len(reqs) == len(resps) == (6 if topo == "grid" else 1)
            for q, r in zip(reqs, resps, strict=True):
                assert (q["src"], q["dst"]) == (r["dst"], r["src"])
                assert r["after"] == q["name"]
                assert q["app"] == {"kind": "file", "size": membrane.REQUEST_BYTES}
                assert r["app"] == {"kind": "file", "size": membrane.FILE_BYTES}
            kinds = {a["kind"] for a in sc.data.get("agents", [])}
            assert (
                kinds
                == {
                    "base": set(),
                    "ecn": set(),
                    "eln": {"eln"},
                    "ern": {"explicit_rate"},
                    "adaptive": {"eln", "explicit_rate"},
                    "online": {"eln", "explicit_rate"},
                }[variant]
            )
    # The grid's mesh links carry the PER the sweep sets; its access links carry none.
    sc = membrane._variant("grid", "base")(True).set(membrane.PER_PATHS["grid"], 0.05)
    mesh = [ln for ln in sc["links"] if ln.get("medium") == "mesh"]
    access = [ln for ln in sc["links"] if ln.get("medium") != "mesh"]
    assert len(mesh) == 12 and all(ln["error"]["per"] == 0.05 for ln in mesh)
    assert all("error" not in ln for ln in access)
    r = airtcp.run(sc.with_values(duration=5))
    assert r.flows.filter(pl.col("name").str.starts_with("resp"))["start_s"].min() > 0


@pytest.mark.long
def test_quick_reproduction_report_and_store(tmp_path):
    code = main(["reproduce", "membrane", "--quick", "--out", str(tmp_path), "--workers", "2"])
    assert code == 0
    html = (tmp_path / "membrane" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    assert_oracle_shares(p, papers.get("membrane"))
    assert set(p.claims) == {c.id for c in membrane.PAPER.claims}
    assert set(p.claims.values()) <= OUTCOMES
    assert {"grid_base", "grid_xl", "grid_best"} <= set(p.figures)
    with Store(tmp_path / "membrane" / "runs.sqlite") as st:
        eln = st.flows("membrane/grid-eln-quick")
        agents = st.table("agents", "membrane/grid-eln-quick")
    resp = eln.filter(pl.col("name").str.starts_with("resp"))
    assert resp.height == 6 * 2 * 2  # six pairs, two PER values, two seeds
    lossy = resp.filter(pl.col(membrane.PER_PATHS["grid"]) > 0)
    # At 5% PER the ELN agents mark duplicate ACKs and NewReno resends without cutting.
    assert lossy["eln_retransmits"].sum() > 0
    assert agents.filter(pl.col("kind") == "eln")["marked"].sum() > 0


def test_a_grid_run_counts_once_with_its_responses_mean():
    # Two seeds of one scheme at one PER, six responses each: two rows, each the mean of six.
    rows = [
        {"scheme": "NewReno", "per": 0.01, "seed": s, "name": f"resp{i}", "goodput_bps": g}
        for s, gs in ((1, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), (2, [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]))
        for i, g in enumerate(gs)
    ]
    runs = membrane._per_run(pl.DataFrame(rows))
    assert runs.select("seed", "goodput_bps").rows() == [(1, 3.5), (2, 3.5)]


# --------------------------------------------------------------------------------------------
# readings, the congested regime, seeds at 0% PER


def _resolved(
    reading: str | None = None, topo: str = "grid", variant: str = "base", quick: bool = True
):
    paper = membrane.PAPER
    replace = {reading: paper.reading(reading).alternatives[0]} if reading else None
    (r,) = [
        x for x in paper.resolve(quick=quick, replace=replace) if x.spec.name == f"{topo}-{variant}"
    ]
    return r


def test_the_readings_are_declared_with_passages_and_edit_their_sweeps():
    paper = membrane.PAPER
    names = {r.name for r in paper.readings}
    assert {"ern_rate", "adaptive_scale", "online_model", "jersey_threshold"} <= names
    assert {"rcv_window", "ack_errors"} <= names
    assert all(r.passage for r in paper.readings)
    # ERN: each flow's available rate by default, the node's whole capacity under "node".
    ern = [a for a in _resolved(None, "grid", "ern").scenario["agents"]]
    assert [a["per_flow"] for a in ern if a["kind"] == "explicit_rate"] == [True]
    node = _resolved("ern_rate", "grid", "ern")
    assert node.name == "membrane/grid-ern@ern_rate=node-quick"
    assert [a["per_flow"] for a in node.scenario["agents"] if a["kind"] == "explicit_rate"] == [
        False
    ]
    # The adaptive threshold on the links' scale: the route's hops, 1 under "path".
    for topo, hops in membrane.HOPS.items():
        resp = [f for f in _resolved(None, topo, "adaptive").scenario["flows"] if "cc_params" in f]
        assert resp and all(f["cc_params"] == {"hops": float(hops)} for f in resp)
    path = _resolved("adaptive_scale", "grid", "online").scenario["flows"]
    assert {f["cc_params"]["hops"] for f in path if "cc_params" in f} == {1.0}
    assert {
        f["cc_params"]["online_model"]
        for f in _resolved("online_model", "chain4", "online").scenario["flows"]
        if "cc_params" in f
    } == {0.0}
    # Jersey's warning at 10 packets, 50 under the alternative; the other sweeps untouched.
    cw = [ln["queue"] for ln in _resolved(None).scenario["links"] if "queue" in ln]
    assert {q["threshold"] for q in cw if q["kind"] == "cw"} == {membrane.CW_THRESHOLD}
    # The Jersey axes rerun Jersey alone (full size: the quick grid has no Jersey, so there
    # they run nothing) and take the other base schemes' runs from the default's sweep.
    for reading, key, value in (
        ("jersey_threshold", "threshold", 50),
        ("jersey_queue", "weight", 1.0),
    ):
        r = _resolved(reading, quick=False)
        assert r.name == f"membrane/grid-base@{reading}={r.name.split('=')[1]}"
        cw = [ln["queue"] for ln in r.scenario["links"] if "queue" in ln]
        assert {q[key] for q in cw if q["kind"] == "cw"} == {value}
        assert r.grid[membrane.CC_PATH] == ["jersey"]
        assert r.shared is not None and r.shared.name == "membrane/grid-base"
        assert sorted(r.shared.grid[membrane.CC_PATH]) == sorted(
            membrane.NOT_JERSEY[membrane.CC_PATH]
        )
        assert r.shared.scenario.to_dict() == _resolved(None, quick=False).scenario.to_dict()
        assert _resolved(reading).name == "membrane/grid-base-quick"
        assert _resolved(reading, "grid", "eln").name == "membrane/grid-eln-quick"
        assert _resolved(reading, "chain4", "base", quick=False).name == "membrane/chain4-base"
    # A reading runs only the sweeps some claim reads: the single hop is drawn, not decided on.
    for reading in ("ern_rate", "rcv_window"):
        assert _resolved(reading, "hop1", "ern").name == "membrane/hop1-ern-quick"
        assert _resolved(reading, "grid", "ern").name.startswith(f"membrane/grid-ern@{reading}=")
    assert _resolved("rcv_window").scenario["tcp"]["rcv_window"] == membrane.LARGE_WINDOW
    errs = [ln["error"] for ln in _resolved("ack_errors").scenario["links"] if "error" in ln]
    assert errs and {e["applies_to"] for e in errs} == {"data"}


def _run(reading, cc, per, seed=1, duration=20):
    sc = _resolved(reading).scenario.set(membrane.PER_PATHS["grid"], per).set(membrane.CC_PATH, cc)
    return airtcp.run(sc.with_values(duration=duration, seed=seed))


def test_the_large_window_regime_congests_and_jersey_warns_there():
    big = _run("rcv_window", "jersey", 0.0)
    mesh = big.links.filter(pl.col("name").str.starts_with("g"))
    # Queues overflow: losses to congestion with no channel error at all.
    assert mesh["drops_queue_overflow"].sum() > 0
    assert mesh["drops_channel_error"].sum() == 0
    assert mesh["max_queue_packets"].max() >= membrane.QUEUE
    # Jersey's congestion warning fires at its threshold.
    assert mesh["ecn_marks"].sum() > 0
    # Under the default window the responses are held by their slot share: no overflow.
    small = _run(None, "newreno", 0.0)
    assert small.links["drops_queue_overflow"].sum() == 0


def test_seeds_differ_at_zero_per():
    # The grid's six flows and the chain's single one: no two seeds give the same goodput.
    for topo in ("grid", "chain4"):
        sc = _resolved(None, topo).scenario.set(membrane.PER_PATHS[topo], 0.0)
        sc = sc.set(membrane.CC_PATH, "newreno")
        runs = [airtcp.run(sc.with_values(duration=10, seed=s)) for s in (1, 2, 3)]
        req = [r.flows.filter(pl.col("name") == "req0")["start_s"][0] for r in runs]
        good = [r.flows.filter(pl.col("name") == "resp0")["goodput_bps"][0] for r in runs]
        assert len(set(req)) == 3 and all(0 <= s < 1 for s in req), topo
        assert len(set(good)) == 3, (topo, good)


def test_the_jersey_axes_leave_the_other_schemes_runs_as_they_are():
    """The Jersey axes take Reno's, NewReno's, TIBET's and the oracle's runs from the default
    (``NOT_JERSEY``): the cw queue marks only ECN-capable segments, so their runs behind it are
    the same whatever its threshold or average. Jersey's own runs do change."""

    def flows(reading, cc):
        r = _resolved(reading, quick=False)
        sc = r.scenario.set(membrane.PER_PATHS["grid"], 0.01).set(membrane.CC_PATH, cc)
        return airtcp.run(sc.with_values(duration=8, seed=3)).flows.drop(
            "wall_time_s", strict=False
        )

    for cc in membrane.NOT_JERSEY[membrane.CC_PATH]:
        base = flows(None, cc)
        for reading in ("jersey_threshold", "jersey_queue"):
            assert flows(reading, cc).equals(base), (cc, reading)
    assert not flows("jersey_queue", "jersey").equals(flows(None, "jersey"))


def test_which_frames_errors_hit_does_not_matter_without_errors():
    """``ack_errors = data`` reuses the default's runs at 0% PER (``unchanged``)."""
    r = _resolved("ack_errors", quick=False)
    assert 0.0 not in r.grid[membrane.PER_PATHS["grid"]]
    assert r.shared is not None and r.shared.grid[membrane.PER_PATHS["grid"]] == [0.0]
    for cc in ("newreno", "jersey"):
        runs = []
        for reading in (None, "ack_errors"):
            sc = _resolved(reading, quick=False).scenario.set(membrane.PER_PATHS["grid"], 0.0)
            sc = sc.set(membrane.CC_PATH, cc).with_values(duration=8, seed=2)
            runs.append(airtcp.run(sc).flows.drop("wall_time_s", strict=False))
        assert runs[0].equals(runs[1]), cc


def test_a_claim_is_decided_at_each_per_not_on_its_range_pooled():
    """ELN far ahead at 5% and 10% but level at 2%: pooled over PER > 1% the gain would pass;
    decided at each PER it is ruled out at 2%, and the sentence says where it holds."""

    def shaped(s: str, p: float) -> float:
        if s == "NewReno + ELN":
            return 1e6 if p <= 0.02 else 1.5e6
        return 1e6

    res = _claim(_data(shaped, 0.01), "eln_high")
    assert res.outcome == NOT_SUPPORTED
    by_per = {r["per"]: r for r in res.numbers}
    assert sorted(by_per) == membrane.HIGH
    assert by_per[0.02]["verdict"] == NOT_SUPPORTED
    assert by_per[0.05]["verdict"] == SUPPORTED and by_per[0.1]["verdict"] == SUPPORTED
    assert "supported at NewReno + ELN vs NewReno at 5%" in res.sentence
    assert "not supported at NewReno + ELN vs NewReno at 2%" in res.sentence
    # Intervals simultaneous over the claim's three points; Holm's p at least the raw p.
    assert all(r["level"] == pytest.approx(1 - 0.05 / 3) for r in res.numbers)
    assert all(r["p_holm"] >= r["p"] for r in res.numbers)
    # The effect shown for the claim is the condition that rules it out.
    assert res.effect == pytest.approx(by_per[0.02]["change"])


def test_a_claim_of_both_regimes_is_decided_in_each():
    """NewReno and Jersey level with the others at low PER, far ahead at high PER: not
    supported at low PER, supported at high PER."""

    def shaped(s: str, p: float) -> float:
        if s in ("Reno", "TIBET") and p > membrane.THRESHOLD:
            return 0.6e6
        return 1e6

    d = _data(shaped, 0.01)
    assert _claim(d, "newreno_jersey_best_low").outcome == NOT_SUPPORTED
    assert _claim(d, "newreno_jersey_best_high").outcome == SUPPORTED
    rows = _claim(d, "newreno_jersey_best_high").numbers
    assert {r["regime"] for r in rows} == {"high"} and len(rows) == 2 * 2 * len(membrane.HIGH)


# --------------------------------------------------------------------------------------------
# the Jain figures are the same when the report is rebuilt


def _flow_tables(order_seed: int) -> dict[str, dict[str, pl.DataFrame]]:
    """Grid flows of the base and the ERN/ELN sweeps, six responses a run with goodputs of
    very different magnitudes (so a different summation order shows in the last bits), the
    rows in an order drawn from ``order_seed``: a store read or a group_by may hand them over
    in any order."""
    values = random.Random(11)
    per_col = membrane.PER_PATHS["grid"]
    tables = {}
    for variant, ccs in (("base", ["reno", "newreno", "jersey", "tibet"]), ("ern", ["newreno"])):
        rows = [
            {
                "seed": seed,
                "name": f"resp{i}",
                "cc": cc,
                per_col: per,
                "goodput_bps": values.choice([1e-3, 1.0, 1e7]) * (1 + values.random()),
                "completion_time_s": 1.0,
                "retransmissions": 0,
                "timeouts": 0,
            }
            for cc in ccs
            for per in membrane.PERS[:3]
            for seed in range(1, 6)
            for i in range(6)
        ]
        random.Random(order_seed).shuffle(rows)
        tables[f"grid-{variant}"] = {"flows": pl.DataFrame(rows)}
    return tables


def test_the_jain_figures_rows_are_the_same_whatever_order_the_runs_come_in():
    from airtcp.report import _figure_key

    built = []
    for order_seed in (1, 2, 3):
        data = PaperData(
            membrane.PAPER, quick=False, sweeps=[], tables=_flow_tables(order_seed), store=None
        )
        membrane.derive(data)
        built.append(data)
    for name in ("grid_base_jain", "grid_xl_jain"):
        spec = built[0].figure(name)
        dfs = [d.table(spec.sweep, spec.table, spec.where) for d in built]
        # Canonical order: by scheme, PER, then seed, one row a run.
        keys = dfs[0].select("scheme", "per", "seed").rows()
        assert keys == sorted(keys) and len(set(keys)) == len(keys) == dfs[0].height
        assert dfs[0].height == (30 if name == "grid_xl_jain" else 60)
        for df in dfs[1:]:
            assert df.write_csv() == dfs[0].write_csv()
        assert len({_figure_key(spec, df) for df in dfs}) == 1
