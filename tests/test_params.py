"""`airtcp params` and `airtcp.params()`: every scenario key from the core's key table, and
docs/scenario.md's key reference generated from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import airtcp
from airtcp import scenario_keys
from airtcp.cli import main
from airtcp.docgen import find_regions

DOCS = Path(__file__).resolve().parent.parent / "docs"
FIELDS = {
    "path", "table", "also", "tag", "variants", "key", "section", "type", "unit", "default",
    "range", "choices", "description",
}  # fmt: skip


def test_rows_have_every_field_and_one_row_per_key_and_variant():
    rows = airtcp.params()
    assert rows and all(set(r) == FIELDS for r in rows)
    seen = set()
    for r in rows:
        for v in r["variants"] or [""]:
            assert (r["path"], v) not in seen, r["path"]
            seen.add((r["path"], v))
    by_path = {r["path"]: r for r in rows if len([x for x in rows if x["path"] == r["path"]]) == 1}
    seg = by_path["tcp.segment_size"]
    assert (seg["type"], seg["unit"], seg["default"], seg["range"]) == (
        "int",
        "bytes",
        "1000",
        "[1, 65000]",
    )
    assert seg["also"] == ["flows[].tcp"] and seg["section"] == "tcp"
    guard = by_path["tcp.recover_guard"]
    assert guard["choices"] == ["careful", "less_careful", "ack", "timestamp", "off"]
    # The table's defaults are the core's (the Rust test checks every one; spot-check here).
    assert float(by_path["tcp.min_rto"]["default"]) == airtcp.defaults()["tcp"]["min_rto"]
    assert by_path["links[].queue.limit"]["default"] == str(airtcp.defaults()["queue"]["limit"])


def test_section_and_search_filters():
    queues = airtcp.params("queues")
    assert queues and {r["section"] for r in queues} == {"queues"}
    assert {r["key"] for r in queues} >= {"limit", "max_p", "mark_threshold", "threshold"}
    assert airtcp.params("hooks") == airtcp.params("agents")
    assert airtcp.params("que") == queues
    budgets = {r["path"] for r in airtcp.params("budgets")}
    assert budgets == {"max_events", "memory_budget"}
    rto = airtcp.params(search="RTO")
    assert rto and all("rto" in json.dumps(r).lower() for r in rto)
    assert {"tcp.min_rto", "agents[].min_rto"} <= {r["path"] for r in rto}
    assert len(rto) < len(airtcp.params())
    assert airtcp.params("tcp", search="nonexistent-word") == []
    with pytest.raises(airtcp.scenario_keys.UserError, match="unknown section 'bogus'"):
        airtcp.params("bogus")


def test_cli_lists_a_section_within_100_columns(capsys):
    assert main(["params", "queues"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Queues and AQMs (by kind)\n")
    assert 'links[].queue (also media[].queue), kind = "red"' in out
    assert "Mark/drop probability at max_threshold. Range: (0, 1]." in out
    assert "TCP options" not in out
    assert main(["params"]) == 0
    full = capsys.readouterr().out
    assert max(len(line) for line in full.splitlines()) <= 100
    for title in ("Top level", "Budgets", "Media", "Error models", "Agents", "Traces"):
        assert title in full
    assert 'flows[].app, kind = "bulk"\n  (no keys)' in full


def test_cli_search_json_and_errors(capsys):
    assert main(["params", "--search", "doppler", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["path"] for r in rows} == {
        "media[].fading.doppler_hz",
        "media[].fading.speed",
        "media[].fading.coherence_time",
        "links[].error.synth.doppler_hz",
    }
    assert main(["params", "tcp", "--search", "zzz"]) == 2
    assert "no scenario key matching 'zzz' in tcp" in capsys.readouterr().err
    assert main(["params", "bogus"]) == 2
    assert "sections: globals, budgets" in capsys.readouterr().err


def test_the_docs_key_reference_is_the_generated_one():
    """docs/scenario.md's region is what `airtcp docs-tables --only params` writes; when a key
    is added to the table, regenerate it."""
    text = (DOCS / "scenario.md").read_text(encoding="utf-8")
    [region] = [r for r in find_regions(text) if r.name == scenario_keys.REGION]
    assert text[region.start : region.end] == scenario_keys.markdown(), (
        "docs/scenario.md's key reference is stale: run "
        "`airtcp docs-tables --docs docs/scenario.md --only params`"
    )
    # Every key appears in it, with its range.
    for r in airtcp.params():
        assert f"| `{r['key']}` |" in text[region.start : region.end]
    assert "| `max_p` | float |  | 0.1 | (0, 1] |" in text


def test_markdown_of_one_section(capsys):
    assert main(["params", "errors", "--markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("### Error models (by model)\n")
    also = "(also `links[].error_ab`, `links[].error_ba`, `media[].error`)"
    assert f'`links[].error` {also}, model = "snr"' in md
    assert "| `modulation` | choice |  | required | dsss1 \\| dsss2 \\| cck5.5 \\| cck11 |" in md


def test_media_lists_each_presets_values(capsys):
    assert main(["params", "wifi"]) == 0
    out = capsys.readouterr().out
    assert "media[] defaults by preset:" in out
    lines = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()[out.splitlines().index(
        "media[] defaults by preset:") + 1 :]}  # fmt: skip
    assert lines["key"] == ["ns2", "80211b", "ns3", "80211g"]
    assert lines["rate"] == ["2Mbps", "11Mbps", "11Mbps", "54Mbps"]
    assert lines["slot"][3] == "9us" and lines["cw_min"][3] == "15"
    # Exactly the keys whose default the table gives as the preset's.
    preset_keys = {r["key"] for r in airtcp.params("media") if r["default"] == "preset"}
    assert set(lines) - {"key"} == preset_keys


def test_defaults_list_every_tcp_key_of_the_table():
    # A [tcp] key added to the table must reach airtcp.defaults() too, for every profile
    # (`profile` names one; `dda_delay` is off unless set).
    keys = {r["key"] for r in airtcp.params("tcp") if r["path"].startswith("tcp.")}
    d = airtcp.defaults()
    for tcp in [d["tcp"], *d["profiles"].values()]:
        assert keys - set(tcp) == {"dda_delay", "profile"}
    assert d["profiles"]["ns3"]["disorder_acks"] == "hold"
    assert d["profiles"]["ns3"]["sack_list"] == "ns3"
    assert d["tcp"]["disorder_acks"] == "grow" and d["tcp"]["sack_list"] == "ranges"
