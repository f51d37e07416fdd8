"""Write the golden files: the scenario JSON and the complete result JSON of fixed runs.

The Rust test `crates/airtcp-core/tests/suite/golden.rs` reruns each scenario and requires the
result to be byte-identical. A change that is meant to move results regenerates them with
`python tools/make_golden.py` in its own commit, saying which figures moved.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import airtcp
from airtcp import _core
from airtcp.papers import papers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden"


def cases():
    for f in sorted((ROOT / "scenarios").glob("*.toml")):
        yield f.stem, airtcp.Scenario.load(f)
    # Variants of the dumbbell that reach the features the files above do not.
    base = airtcp.Scenario.load(ROOT / "scenarios" / "dumbbell.toml").set("duration", "20s")
    variants = {
        "sack": {"flows.*.cc": "sack", "links.R2-D1.error.per": 0.03},
        "cubic": {"flows.*.cc": "cubic", "tcp.delayed_ack": True},
        "vegas": {"flows.*.cc": "vegas"},
        "veno_verdicts": {"flows.*.cc": "veno", "trace.verdicts": True},
        "westwood_plus": {"flows.*.cc": "westwood+", "tcp.timestamps": True},
        "reno_bytes_queue": {
            "flows.*.cc": "reno",
            "links.R1-R2.queue": {"kind": "droptail", "limit": 20000, "unit": "bytes"},
        },
        "ecn_handshake": {
            "tcp.ecn": True,
            "tcp.handshake": True,
            "links.R1-R2.queue": {"kind": "ecn_threshold", "limit": 20, "mark_threshold": 8},
        },
        "red_gentle": {
            "links.R1-R2.queue": {"kind": "red", "limit": 30, "gentle": True, "ecn": False},
        },
        "eln": {
            # At the receiving end of the lossy link: the node that sees the damaged frames.
            "agents": [{"kind": "eln", "node": "D1"}],
            "links.R2-D1.error": {"model": "ber", "ber": 2e-6, "applies_to": "data"},
        },
        "gilbert": {
            "links.R2-D1.error": {
                "model": "gilbert_elliott",
                "mean_good": "1s",
                "mean_bad": "0.1s",
                "per_bad": 0.5,
            },
        },
        # Linux's recovery (SACK, RACK-TLP, F-RTO), with random and with bursty losses.
        "linux_cubic": {
            "flows.*.cc": "cubic",
            "tcp.profile": "linux",
            "links.R2-D1.error.per": 0.03,
        },
        "linux_bbr": {"flows.*.cc": "bbr", "tcp.profile": "linux"},
        "linux_newreno_bursts": {
            "tcp.profile": "linux",
            "links.R2-D1.error": {
                "model": "gilbert_elliott",
                "mean_good": "0.5s",
                "mean_bad": "0.05s",
                "per_bad": 0.6,
            },
        },
        "list_file_cbr": {
            "links.R2-D1.error": {"model": "list", "packets": [5, 6, 30, 31, 32]},
            "flows.ftp1.app": {"kind": "file", "size": "300KB"},
            "flows.ftp2.app": {"kind": "cbr", "rate": "200kbps"},
            "flows.ftp2.stop": "15s",
            "flows.ftp2.cc": None,
        },
    }
    for name, values in variants.items():
        yield f"dumbbell__{name}", base.with_values(values)
    # Per paper sweep: the first and the last grid point at seed 1, series traced.
    for key, paper in sorted(papers().items()):
        for rs in paper.resolve(quick=True):
            keys = list(rs.grid)
            points = list(itertools.product(*(rs.grid[k] for k in keys)))
            for i in sorted({0, len(points) - 1}):
                values = dict(zip(keys, points[i], strict=True))
                sc = rs.scenario.with_values(values)
                sc = sc.set("seed", rs.seeds[0])
                name = f"{key}__{rs.spec.name}__{i}"
                yield name, sc


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    n = 0
    for name, sc in cases():
        text = sc.to_json()
        (OUT / f"{name}.scenario.json").write_text(text + "\n")
        result = _core.run_json(text)
        json.loads(result)
        (OUT / f"{name}.result.json").write_text(result + "\n")
        n += 1
        print(f"{name}: {len(result)} bytes", flush=True)
    print(f"{n} golden cases in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
