"""Paper reproductions: the registry, `airtcp reproduce`, `airtcp report`, the HTML report."""

from __future__ import annotations

import base64
import random
import re
from html.parser import HTMLParser

import polars as pl
import pytest

from airtcp import Store, papers
from airtcp.cli import main
from airtcp.papers import padhye
from airtcp.stats import INCONCLUSIVE, NOT_SUPPORTED, SUPPORTED

OUTCOMES = {"supported", "not-supported", "inconclusive"}
#: a claim line of `airtcp reproduce`/`report`: the outcome field, the statement, [id]
CLAIM_LINE = re.compile(r"^(supported|NOT supported|inconclusive) +(.+) \[([a-z0-9-]+)\]$")


def claim_lines(out: str) -> dict[str, str]:
    """{claim id: outcome} from the CLI's output, the outcome as the report's data-verdict."""
    found = {}
    for line in out.splitlines():
        m = CLAIM_LINE.match(line)
        if m:
            found[m.group(3)] = m.group(1).lower().replace(" ", "-")
    return found


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_oracle_shares(
    p: ReportParser, paper: papers.Paper, empty: frozenset[str] = frozenset()
) -> None:
    """Every figure with an upper bound (and a share table) has the table of its lines as a
    share of the oracle under it, and its caption says what the dashed line is; ``empty``
    names figures with no rows at this size (no table)."""
    bounded = {f.name for f in paper.figures if f.upper is not None and f.share}
    assert bounded, "every reproduction has a goodput figure bounded by the oracle"
    assert p.share_tables == {name: "oracle" for name in bounded - empty}
    for f in paper.figures:
        if f.upper is not None:
            assert "Dashed black: oracle, the loss-cause oracle" in p.captions[f.name], f.name


class ReportParser(HTMLParser):
    """Collects figures (with their image sources), claims (with verdicts) and external refs."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, list[str]] = {}
        self.fig_tables: set[str] = set()
        #: figure -> its upper bound, for each table of the lines as a share of it
        self.share_tables: dict[str, str] = {}
        self.claims: dict[str, str] = {}
        self.captions: dict[str, str] = {}
        self.external: list[str] = []
        self.ids: set[str] = set()
        self.toc_links: list[str] = []
        self.details = 0
        self._fig: str | None = None
        self._caption: list[str] | None = None
        self._nav = False
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure":
            self._fig = a.get("data-figure")
            self.figures[self._fig] = []
        elif tag == "img" and self._fig is not None:
            self.figures[self._fig].append(a.get("src", ""))
        elif tag == "div" and a.get("class") == "fig-table":
            self.fig_tables.add(a["data-figure"])
        elif tag == "div" and a.get("class") == "share-table":
            self.share_tables[a["data-figure"]] = a["data-upper"]
        elif tag == "section" and "data-claim" in a:
            self.claims[a["data-claim"]] = a["data-verdict"]
        elif tag == "figcaption":
            self._caption = []
        elif tag == "nav":
            self._nav = True
        elif tag == "a" and self._nav:
            self.toc_links.append(a["href"])
        elif tag == "details":
            self.details += 1
        if "id" in a:
            self.ids.add(a["id"])
        for k in ("src", "href"):
            v = a.get(k)
            if v and not v.startswith(("data:", "#")):
                self.external.append(v)
        if tag in ("link", "script"):
            self.external.append(tag)

    def handle_endtag(self, tag):
        if tag == "figure":
            self._fig = None
        elif tag == "figcaption" and self._caption is not None:
            self.captions[self._fig] = "".join(self._caption)
            self._caption = None
        elif tag == "nav":
            self._nav = False

    def handle_data(self, data):
        self.text.append(data)
        if self._caption is not None:
            self._caption.append(data)


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    code = main(["reproduce", "padhye", "--quick", "--out", str(out), "--workers", "2"])
    assert code == 0
    return out


def test_list_papers(capsys):
    code, out, _ = run_cli(capsys, "reproduce", "--list")
    assert code == 0 and "padhye" in out and "Padhye" in out
    assert "padhye" in papers.papers()


def test_reproduce_quick_writes_a_complete_self_contained_report(quick_report):
    html = (quick_report / "padhye" / "quick" / "index.html").read_text()
    p = ReportParser()
    p.feed(html)
    paper = papers.get("padhye")
    assert set(p.figures) == {f.name for f in paper.figures}
    assert p.fig_tables == {f.name for f in paper.figures}
    assert_oracle_shares(p, paper)
    for name, srcs in p.figures.items():
        assert len(srcs) == 1 and srcs[0].startswith("data:image/png;base64,"), name
        png = base64.b64decode(srcs[0].split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert (quick_report / "padhye" / "quick" / f"{name}.svg").is_file()
    assert set(p.claims) == {c.id for c in paper.claims}
    assert set(p.claims.values()) <= OUTCOMES
    assert p.external == []
    text = " ".join(p.text)
    for c in paper.claims:
        assert c.statement in text
        assert c.test and c.test in text, "the test deciding a claim is stated"
    for needle in ("links.R2-D.error.per", "rcv_window", "95%", "quick", "padhye/loss-quick"):
        assert needle in text, needle
    # Captions name the figure's own data (its rows and sweep), never an internal table.
    assert set(p.captions) == set(p.figures)
    for cap in p.captions.values():
        assert "padhye/loss-quick" in cap and " flows" in cap, cap
        assert "rows of" not in cap and "runs_all" not in cap, cap
        assert "clipped to the metric's range [0, ∞)" in cap, cap
    # Contents: every figure, claim and section is linked and every link has its target.
    assert {f"#fig-{f.name}" for f in paper.figures} <= set(p.toc_links)
    assert {f"#claim-{c.id}" for c in paper.claims} <= set(p.toc_links)
    assert {"#parameters", "#provenance"} <= set(p.toc_links)
    assert {h[1:] for h in p.toc_links} <= p.ids
    assert p.details == len(paper.sweeps), "each sweep's parameters fold away"
    # Provenance: versions, the core build, the commit (or why not), host and wall times.
    from airtcp import __version__, _core

    for needle in (
        "core build fingerprint",
        _core.__build__,
        __version__,
        "git commit",
        "host",
        "reproduction wall time",
        "report build wall time",
    ):
        assert needle in text, needle


def test_quick_runs_are_in_the_store_and_the_claims_use_them(quick_report):
    with Store(quick_report / "padhye" / "runs.sqlite") as st:
        flows = st.flows("padhye/loss-quick")
    spec = papers.get("padhye").sweep("loss")
    n = len(spec.quick_grid[padhye.P_PATH]) * len(padhye.CCS) * spec.quick_seeds
    assert flows.height == n and set(flows["cc"]) == set(padhye.CCS)
    assert flows["goodput_bps"].min() > 0


def test_report_rebuilds_from_the_store_without_running(quick_report, capsys, monkeypatch):
    from airtcp import sweeps

    def boom(*a, **k):
        raise AssertionError("report must not run anything")

    monkeypatch.setattr(sweeps, "run_sweep", boom)
    index = quick_report / "padhye" / "quick" / "index.html"
    pngs = {
        f.name: quick_report / "padhye" / "quick" / f"{f.name}.png" for f in padhye.PAPER.figures
    }
    before = {n: (f.stat().st_mtime_ns, f.read_bytes()) for n, f in pngs.items()}
    index.unlink()
    code, out, err = run_cli(capsys, "report", "padhye", "--quick", "--out", str(quick_report))
    assert code == 0, err
    assert f"report: {index}" in out and index.is_file()
    # One line per claim whose outcome field matches the report's verdict for it.
    p = ReportParser()
    p.feed(index.read_text())
    assert claim_lines(out) == p.claims
    # Nothing changed since the first build: no figure is drawn again; the embedded PNG is
    # the file beside the report.
    assert {n: (f.stat().st_mtime_ns, f.read_bytes()) for n, f in pngs.items()} == before
    assert "figures drawn for this build 0 of 2" in " ".join(p.text)
    for name, srcs in p.figures.items():
        assert base64.b64decode(srcs[0].split(",", 1)[1]) == before[name][1]
    # the full-size runs are not in this store
    code, _, err = run_cli(capsys, "report", "padhye", "--out", str(quick_report))
    assert code == 2
    assert err.startswith("error: ") and "lacks runs of padhye" in err
    assert "airtcp reproduce padhye" in err


def test_report_errors(capsys, tmp_path):
    code, _, err = run_cli(capsys, "report", "padhye", "--out", str(tmp_path))
    assert code == 2 and "no such store" in err and "airtcp reproduce padhye" in err
    code, _, err = run_cli(capsys, "reproduce", "padhey")
    assert code == 2 and "no paper 'padhey' (did you mean 'padhye'?)" in err
    code, _, err = run_cli(capsys, "reproduce")
    assert code == 2 and "--list" in err
    code, _, err = run_cli(capsys, "report", "padhye", "--seeds", "0")
    assert code == 2


def test_padhye_model_formula():
    # p small: the square-root term dominates, B ~ 1 / (RTT sqrt(2p/3))
    rtt, t0 = 0.1, 0.3
    b = padhye.send_rate(1e-6, rtt, t0)
    assert b == pytest.approx(1 / (rtt * (2e-6 / 3) ** 0.5), rel=2e-3)
    # the receive window caps it
    assert padhye.send_rate(1e-9, rtt, t0) == pytest.approx(padhye.WMAX / rtt)
    # p = 2%: the full expression by hand
    p = 0.02
    denom = rtt * (2 * p / 3) ** 0.5 + t0 * min(1, 3 * (3 * p / 8) ** 0.5) * p * (1 + 32 * p * p)
    assert padhye.send_rate(p, rtt, t0) == pytest.approx(1 / denom)
    assert padhye.model_goodput_bps(p, rtt, t0) == pytest.approx((1 - p) * 8000 / denom)


def test_claim_lines_tell_not_supported_from_supported():
    assert claim_lines("NOT supported  Goodput falls [falls]") == {"falls": "not-supported"}
    assert claim_lines("supported      Goodput falls [falls]") == {"falls": "supported"}
    assert claim_lines("inconclusive   Goodput falls [falls]") == {"falls": "inconclusive"}


def _padhye_data(ratio, goodput, noise, seeds=5, ps=(0.005, 0.01, 0.02, 0.05)):
    """NewReno and Reno rows: at each p the given ratio and goodput (Mbps), each seed scattered
    by the relative ``noise``."""
    rng = random.Random(7)
    rows = []
    for i, p in enumerate(ps):
        for seed in range(1, seeds + 1):
            for cc in ("newreno", "reno"):
                g = goodput[i] * 1e6 * (1 + rng.gauss(0, noise)) * (1 if cc == "newreno" else 0.9)
                r = ratio[i] * (1 + rng.gauss(0, noise)) if cc == "newreno" else 1.0
                rows.append(
                    {
                        "cc": cc,
                        "p": p,
                        "seed": seed,
                        "goodput_bps": g,
                        "model_bps": g / r,
                        "ratio": r,
                    }
                )
    d = papers.PaperData(padhye.PAPER, quick=True, sweeps=[], tables={}, store=None)
    d.set_table("loss", "flows", pl.DataFrame(rows))
    return d


def test_padhye_claims_on_constructed_data():
    """Each claim's three outcomes, on tables whose answer is known."""
    band, falls = padhye.PAPER.claims
    # Inside the band at every p <= 2% (p = 5% is outside the claim's range), clear falls.
    d = _padhye_data([1.0, 1.1, 0.9, 2.0], [2.0, 1.0, 0.6, 0.3], noise=0.01)
    r = band.check(d)
    assert r.outcome is SUPPORTED and r.supported, r.sentence
    assert [row["outcome"] for row in r.numbers] == ["supported"] * 3
    assert all(0 <= row["CI low"] <= row["goodput / model"] <= row["CI high"] for row in r.numbers)
    r = falls.check(d)
    assert r.outcome is SUPPORTED, r.sentence
    # the measured fall beside the model's (here equal: the model is goodput / ratio)
    assert r.numbers[0]["fall %"] == pytest.approx(50, abs=3)
    # Outside the band at p = 1%, goodput rising from 1% to 2%.
    d = _padhye_data([1.0, 1.5, 0.9, 1.0], [2.0, 1.0, 1.3, 0.3], noise=0.01)
    r = band.check(d)
    assert r.outcome is NOT_SUPPORTED and not r.supported, r.sentence
    assert [row["outcome"] for row in r.numbers] == ["supported", "not supported", "supported"]
    assert "1 outside" in r.sentence
    r = falls.check(d)
    assert r.outcome is NOT_SUPPORTED, r.sentence
    # Scattered runs: an interval across the band's edge, steps whose sign is unknown.
    d = _padhye_data([1.15, 1.0, 1.0, 1.0], [1.0, 0.98, 0.96, 0.94], noise=0.3, seeds=3)
    assert band.check(d).outcome is INCONCLUSIVE
    assert falls.check(d).outcome is INCONCLUSIVE
    # Nothing to judge: 0 of 0 is inconclusive, not supported.
    d = _padhye_data([1.0], [1.0], noise=0.01, ps=(0.05,))
    r = band.check(d)
    assert r.outcome is INCONCLUSIVE and "0 of 0" in r.sentence
    assert falls.check(d).outcome is INCONCLUSIVE
