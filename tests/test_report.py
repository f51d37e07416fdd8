"""Paper reproductions: the registry, `airtcp reproduce`, `airtcp report`, the HTML report."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

import polars as pl
import pytest

from airtcp import Store, papers
from airtcp.cli import main
from airtcp.papers import padhye


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class ReportParser(HTMLParser):
    """Collects figures (with their image sources), claims (with verdicts) and external refs."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, list[str]] = {}
        self.fig_tables: set[str] = set()
        self.claims: dict[str, str] = {}
        self.external: list[str] = []
        self._fig: str | None = None
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
        elif tag == "section" and "data-claim" in a:
            self.claims[a["data-claim"]] = a["data-verdict"]
        for k in ("src", "href"):
            v = a.get(k)
            if v and not v.startswith(("data:", "#")):
                self.external.append(v)
        if tag in ("link", "script"):
            self.external.append(tag)

    def handle_endtag(self, tag):
        if tag == "figure":
            self._fig = None

    def handle_data(self, data):
        self.text.append(data)


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
    for name, srcs in p.figures.items():
        assert len(srcs) == 1 and srcs[0].startswith("data:image/png;base64,"), name
        png = base64.b64decode(srcs[0].split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert (quick_report / "padhye" / "quick" / f"{name}.svg").is_file()
    assert set(p.claims) == {c.id for c in paper.claims}
    assert set(p.claims.values()) <= {"supported", "not-supported"}
    assert p.external == []
    text = " ".join(p.text)
    for c in paper.claims:
        assert c.statement in text
    for needle in ("links.R2-D.error.per", "rcv_window", "95%", "quick", "padhye/loss-quick"):
        assert needle in text, needle


def test_quick_runs_are_in_the_store_and_the_claims_use_them(quick_report):
    with Store(quick_report / "padhye" / "runs.sqlite") as st:
        flows = st.flows("padhye/loss-quick")
    spec = papers.get("padhye").sweep("loss")
    n = len(spec.quick_grid[padhye.P_PATH]) * len(padhye.SCHEMES) * spec.quick_seeds
    assert flows.height == n and set(flows["cc"]) == set(padhye.SCHEMES)
    assert flows["goodput_bps"].min() > 0


def test_report_rebuilds_from_the_store_without_running(quick_report, capsys, monkeypatch):
    from airtcp import sweeps

    def boom(*a, **k):
        raise AssertionError("report must not run anything")

    monkeypatch.setattr(sweeps, "run_sweep", boom)
    index = quick_report / "padhye" / "quick" / "index.html"
    index.unlink()
    code, out, err = run_cli(capsys, "report", "padhye", "--quick", "--out", str(quick_report))
    assert code == 0, err
    assert f"report: {index}" in out and index.is_file()
    assert "supported" in out
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


def test_claim_checks_on_constructed_data():
    """The claims' logic, on a table whose answer is known."""

    def data_with(goodputs_newreno, ratio_newreno):
        rows = []
        for i, p in enumerate([0.005, 0.01, 0.02, 0.05]):
            for seed in (1, 2):
                for cc in ("newreno", "reno"):
                    g = goodputs_newreno[i] if cc == "newreno" else goodputs_newreno[i] * 0.9
                    r = ratio_newreno[i] if cc == "newreno" else 1.0
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
        paper = papers.get("padhye")
        d = papers.PaperData(paper, quick=True, sweeps=[], tables={}, store=None)
        d.set_table("loss", "flows", pl.DataFrame(rows))
        return d

    claim_band, claim_mono = papers.get("padhye").claims
    ok = data_with([2e6, 1e6, 6e5, 3e5], [1.0, 1.1, 0.9, 2.0])
    assert claim_band.check(ok).supported  # p = 5% is outside the claim's range
    assert claim_mono.check(ok).supported
    bad = data_with([2e6, 1e6, 1.2e6, 3e5], [1.0, 1.25, 0.9, 1.0])
    res = claim_band.check(bad)
    assert not res.supported and "outside: p = 0.01" in res.sentence
    res = claim_mono.check(bad)
    assert not res.supported and "NOT monotone" in res.sentence
