"""The airtcp command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import polars as pl
import pytest

import airtcp
from airtcp import Scenario
from airtcp.cli import main, parse_value

from .conftest import DUMBBELL, ROOT


def _write(tmp_path, d, name="s.toml"):
    p = tmp_path / name
    Scenario.from_dict(d).to_toml(p)
    return str(p)


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_prints_tables_and_summary(capsys):
    code, out, err = run_cli(capsys, "run", str(DUMBBELL), "--set", "duration=10s")
    assert code == 0, err
    for col in ("flow", "cc", "goodput kbps", "retx", "timeouts", "avg cwnd", "rtt mean ms"):
        assert col in out
    assert "ftp1" in out and "ftp2" in out and "newreno" in out
    assert "links with drops" in out and "R1->R2" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("dumbbell: seed 1, 10 s simulated") and "packet-hops" in last


def test_set_takes_one_value_so_the_file_may_follow(capsys):
    code, out, _ = run_cli(capsys, "run", "--set", "duration=1s", str(DUMBBELL))
    assert code == 0
    assert "1 s simulated" in out


def test_run_seed_and_set(capsys):
    code, out, _ = run_cli(
        capsys,
        "run",
        str(DUMBBELL),
        "--seed",
        "5",
        "--set",
        "duration=2s",
        "--set",
        "links.R2-D1.error.per=0.02",
        "--set",
        "flows.*.tcp={ delayed_ack = true }",
        "--all-links",
    )
    assert code == 0
    assert "seed 5, 2 s simulated" in out
    assert "D2->R2" in out  # every direction listed


def test_a_seed_beyond_64_bits_is_quoted_as_given(capsys):
    big = "99999999999999999999999"
    want = f"error: seed: must be an integer from 0 to 2^64 - 1 (18446744073709551615), got {big}\n"
    for args in (["--seed", big], ["--set", f"seed={big}"]):
        code, _, err = run_cli(capsys, "run", str(DUMBBELL), *args)
        assert (code, err) == (2, want), args
    code, _, err = run_cli(capsys, "validate", str(DUMBBELL), "--set", "seed=-3")
    assert code == 2 and err.endswith("got -3\n")
    # The largest seed runs.
    code, out, _ = run_cli(
        capsys, "run", str(DUMBBELL), "--set", "duration=1s", "--seed", str(2**64 - 1)
    )
    assert code == 0 and f"seed {2**64 - 1}," in out


def test_run_writes_json_and_parquet(capsys, tmp_path, dumbbell_dict):
    path = _write(tmp_path, dumbbell_dict)
    out_json = tmp_path / "res" / "r.json"
    pq = tmp_path / "pq"
    code, out, err = run_cli(capsys, "run", path, "--json", str(out_json), "--parquet", str(pq))
    assert code == 0, err
    raw = json.loads(out_json.read_text())
    assert [f["name"] for f in raw["flows"]] == ["ftp1", "ftp2"]
    flows = pl.read_parquet(pq / "flows.parquet")
    links = pl.read_parquet(pq / "links.parquet")
    assert flows["name"].to_list() == ["ftp1", "ftp2"]
    assert links.height == 10
    assert flows["goodput_bps"].to_list() == [f["goodput_bps"] for f in raw["flows"]]
    # The scenario traces cwnd and queues: the series go out too, as one long table.
    assert str(pq / "series.parquet") in out
    series = pl.read_parquet(pq / "series.parquet")
    assert series.columns == ["kind", "name", "t", "value", "ssthresh"]
    cwnd = series.filter((pl.col("kind") == "cwnd") & (pl.col("name") == "ftp1"))
    assert cwnd["t"].to_list() == raw["series"]["cwnd"]["ftp1"]["t"]
    assert cwnd["value"].to_list() == [float(c) for c in raw["series"]["cwnd"]["ftp1"]["cwnd"]]
    queues = set(series.filter(pl.col("kind") == "queue")["name"])
    assert queues == set(raw["series"]["queue"]) and queues


def test_run_parquet_without_series(capsys, tmp_path, dumbbell_dict):
    dumbbell_dict.pop("trace", None)
    path = _write(tmp_path, dumbbell_dict)
    code, out, err = run_cli(capsys, "run", path, "--parquet", str(tmp_path / "pq"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "pq").iterdir()) == ["flows.parquet", "links.parquet"]


def test_schemes(capsys):
    code, out, _ = run_cli(capsys, "schemes")
    assert code == 0
    assert "newreno  (recovery: newreno)" in out
    # Each scheme's parameters with their defaults, in 100 columns.
    assert "cc_params: a = 0.01, b = 0.125, low_window = 16, ns3 = 0" in out
    assert "cc_params: alpha = 1, beta = 3, gamma = 1" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_schemes_params_lists_each_parameter_with_its_description(capsys):
    code, out, _ = run_cli(capsys, "schemes", "--params")
    assert code == 0
    lines = out.splitlines()
    i = lines.index("    rtt0 = 0.025 (ns3 profile: 0.05)")
    assert "reference round trip RTT0" in lines[i + 1]
    assert "    g = 0.0625" in lines
    assert "    cc_params: none" in lines
    assert max(len(line) for line in lines) <= 100


def test_schemes_help_describes_the_listing(capsys):
    with pytest.raises(SystemExit) as ei:
        main(["schemes", "--help"])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert "cc_params" in out and "--params" in out


def test_validate_ok(capsys):
    code, out, _ = run_cli(capsys, "validate", str(DUMBBELL))
    assert code == 0 and out.startswith("ok:")


def _bad(tmp_path, dumbbell_dict, mutate):
    mutate(dumbbell_dict)
    return _write(tmp_path, dumbbell_dict)


def _add_lonely(d):
    d["nodes"].append({"name": "D3"})
    d["flows"][0]["dst"] = "D3"


BAD = {
    "unknown_field": (
        lambda d: d["links"][0].update(bogus=1),
        "error: links[0].bogus: unknown field `bogus`",
    ),
    "negative_rate": (
        lambda d: d["links"][2].update(rate="-1Mbps"),
        "error: links[2].rate: '-1Mbps': rate must be > 0",
    ),
    "unknown_node": (
        lambda d: d["flows"][0].update(src="S7"),
        "error: flows[0].src: unknown node 'S7'",
    ),
    "unreachable": (_add_lonely, "error: flows[0].dst: 'D3' is not reachable from 'S1'"),
    "unknown_cc": (
        lambda d: d["flows"][1].update(cc="nwereno"),
        "error: flows[1].cc: unknown scheme 'nwereno' (did you mean 'newreno'?)",
    ),
}


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_scenarios_exit_2_with_error_line(capsys, tmp_path, dumbbell_dict, command, case):
    mutate, expected = BAD[case]
    path = _bad(tmp_path, dumbbell_dict, mutate)
    code, out, err = run_cli(capsys, command, path)
    assert code == 2
    assert err.startswith(expected), err
    assert "Traceback" not in err
    assert err.count("\n") == 1  # one line


def test_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nope.toml")
    for command in ("run", "validate"):
        code, _, err = run_cli(capsys, command, missing)
        assert code == 2
        assert err == f"error: {missing}: no such file\n"


def test_invalid_toml_names_the_file(capsys, tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text("duration = [\n")
    code, _, err = run_cli(capsys, "run", str(p))
    assert code == 2 and err.startswith(f"error: {p}: invalid TOML")


@pytest.mark.parametrize(
    "setting, fragment",
    [
        ("links.R9-R2.rate=1Mbps", "no link named 'R9-R2'"),
        ("flows.7.cc=newreno", "index 7 is out of range"),
        ("tcp.bogus=1", "unknown field `bogus`"),
        ("duration", "expected PATH=VALUE"),
        ("flows..cc=x", "empty step"),
    ],
)
def test_bad_set_exits_2(capsys, setting, fragment):
    code, _, err = run_cli(capsys, "run", str(DUMBBELL), "--set", setting)
    assert code == 2
    assert err.startswith("error: --set") and fragment in err, err


def test_set_value_out_of_range_is_a_scenario_error(capsys):
    code, _, err = run_cli(capsys, "run", str(DUMBBELL), "--set", "links.R2-D1.error.per=2")
    assert code == 2
    assert err.startswith("error: links[3].error.per: must be in [0, 1]")


def test_output_into_a_directory_is_a_user_error(capsys, tmp_path):
    code, _, err = run_cli(
        capsys, "run", str(DUMBBELL), "--set", "duration=1s", "--json", str(tmp_path)
    )
    assert code == 2 and err.startswith("error: ")


def test_parse_value():
    assert parse_value("0.01") == 0.01
    assert parse_value("3") == 3
    assert parse_value("true") is True
    assert parse_value("10s") == "10s"
    assert parse_value("newreno") == "newreno"
    assert parse_value('"5"') == "5"
    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value('{ kind = "bulk" }') == {"kind": "bulk"}
    assert parse_value("2024-01-01") == "2024-01-01"


def _subprocess(*args, **kw):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "airtcp", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        **kw,
    )


def test_python_dash_m_end_to_end():
    p = _subprocess("run", "scenarios/dumbbell.toml", "--set", "duration=5s")
    assert p.returncode == 0, p.stderr
    assert "goodput kbps" in p.stdout
    p = _subprocess("run", "does/not/exist.toml")
    assert p.returncode == 2
    assert p.stderr == "error: does/not/exist.toml: no such file\n"


def test_usage_error_exits_2():
    p = _subprocess("run")
    assert p.returncode == 2 and "error:" in p.stderr


def test_run_table_shows_a_file_transfers_completion_time(capsys, tmp_path):
    sc = airtcp.dumbbell(1, duration=20.0).set("flows.0.app", {"kind": "file", "size": "200KB"})
    path = tmp_path / "file.json"
    path.write_text(sc.to_json())
    code, out, _ = run_cli(capsys, "run", str(path))
    assert code == 0
    assert "completed s" in out
    done = airtcp.run(sc).flows["completion_time_s"][0]
    assert f"{done:.3f}" in out


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("list.json", b"[1, 2]", "invalid JSON: the document is a list, not a table"),
        ("latin1.json", b'{"name": "caf\xe9"}', "not UTF-8 text (byte 13)"),
        ("latin1.toml", b'name = "caf\xe9"', "not UTF-8 text (byte 11)"),
    ],
)
def test_a_scenario_file_that_is_no_table_or_no_text_is_an_error(
    capsys, tmp_path, name, content, fragment
):
    p = tmp_path / name
    p.write_bytes(content)
    code, _, err = run_cli(capsys, "run", str(p))
    assert code == 2
    assert err == f"error: {p}: {fragment}\n"


def test_an_endless_scenario_file_is_refused_after_a_bounded_read(capsys):
    code, _, err = run_cli(capsys, "validate", "/dev/zero")
    assert code == 2
    assert err == "error: /dev/zero: more than 64 MiB, too large for a scenario file\n"


def test_a_bad_set_names_the_path_once(capsys):
    assert main(["run", "scenarios/dumbbell.toml", "--set", "foo=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --set foo=1: unknown field `foo`"), err
    assert err.count("foo") == 2  # in the item and in the message, not a third time


def test_schemes_help_says_what_the_command_lists(capsys):
    with pytest.raises(SystemExit):
        main(["schemes", "--help"])
    out = capsys.readouterr().out
    assert "congestion-control schemes a flow can use" in out and "cc_params" in out
