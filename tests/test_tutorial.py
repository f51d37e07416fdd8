"""The tutorial runs as written: its script and every command, in a fresh directory."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import polars as pl
import pytest

import airtcp

from .conftest import DUMBBELL, ROOT

TEXT = (ROOT / "docs" / "tutorial.md").read_text()


def _commands() -> list[list[str]]:
    """The tutorial's shell commands, continuation lines joined and comments dropped."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", TEXT, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(line, comments=True)
            if argv:
                out.append(argv)
    return out


@pytest.mark.long
def test_the_tutorial_runs_in_a_fresh_directory(tmp_path):
    (tmp_path / "scenarios").mkdir()
    shutil.copy(DUMBBELL, tmp_path / "scenarios" / "dumbbell.toml")
    blocks = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
    assert len(blocks) == 1
    script = tmp_path / "tutorial.py"
    script.write_text(blocks[0])
    p = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "tutorial" / "goodput.png").stat().st_size > 1000
    assert "westwood+" in p.stdout
    assert "sweep dumbbell: 18 runs" in p.stderr  # the closing summary, stderr not a terminal

    commands = _commands()
    assert [c[:2] for c in commands] == [
        ["airtcp", "run"],
        ["airtcp", "sweep"],
        ["airtcp", "export"],
        ["airtcp", "sweep"],
        ["airtcp", "reproduce"],
        ["airtcp", "reproduce"],
    ]
    for argv in commands:
        p = subprocess.run(
            [sys.executable, "-m", "airtcp", *argv[1:]],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert p.returncode == 0, (argv, p.stderr)
    exported = pl.read_csv(tmp_path / "out" / "tutorial" / "export" / "flows.csv")
    assert exported["sweep"].unique().to_list() == ["file"]
    assert exported.height == 6 * 3 * 2
    with airtcp.Store(tmp_path / "out" / "tutorial" / "store.sqlite") as st:
        assert sorted(st.sweeps()["sweep"].to_list()) == ["chain", "dumbbell", "file"]
        chain = st.flows("chain")
        assert sorted(set(chain["hops"].to_list())) == [1, 2, 4]
        # The script's sweep and the command line's ran the same scenario: the same runs.
        a = st.flows("dumbbell").sort("scenario_hash", "seed", "name")
        b = st.flows("file").sort("scenario_hash", "seed", "name")
        cols = ["name", "seed", "cc", "goodput_bps", "retransmissions"]
        assert a.select(cols).sort(cols).equals(b.select(cols).sort(cols))
    assert (tmp_path / "reports" / "padhye" / "quick" / "index.html").is_file()
    # Nothing was written beside the checkout's own files.
    assert not (ROOT / "tutorial.sqlite").exists() and not (ROOT / "out" / "tutorial").exists()


def test_the_tutorial_dumbbell_loses_packets_on_the_first_flows_path_only():
    sc = airtcp.dumbbell(2, per=0.01, wireless=[1], start_spacing=0.5, duration=10.0)
    assert "error" in sc.get("links.R2-D1") and "error" not in sc.get("links.R2-D2")
    r = airtcp.run(sc)
    lossy = r.links.filter(pl.col("drops_channel_error") > 0)["name"].to_list()
    assert lossy == ["R2->D1"]
    # It is the example file at 10 s: the same flows, packet for packet.
    f = airtcp.Scenario.from_toml(DUMBBELL).set("duration", "10s")
    assert airtcp.run(f).flows.equals(r.flows)
