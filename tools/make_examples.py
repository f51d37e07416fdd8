"""Write the multi-hop example scenarios in scenarios/ from the Python builders, so the TOML
examples and `airtcp.chain`/`cross`/`grid` cannot drift apart (tests/test_builders.py checks
it): `python tools/make_examples.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import airtcp

ROOT = Path(__file__).resolve().parent.parent

EXAMPLES = {
    "chain4_wifi.toml": (
        "A 4-hop 802.11 chain (ns-2 defaults, 200 m spacing), one NewReno flow: airtcp.chain(4).",
        lambda: airtcp.chain(4),
    ),
    "cross4_wifi.toml": (
        "Two 4-hop 802.11 chains crossing at their middle node, NewReno vs Vegas: "
        'airtcp.cross(4, cc=["newreno", "vegas"]).',
        lambda: airtcp.cross(4, cc=["newreno", "vegas"]),
    ),
    "grid3x3_tdma.toml": (
        "A 3x3 TDMA mesh with six client/server pairs at the edges: airtcp.grid(3, 3).",
        lambda: airtcp.grid(3, 3),
    ),
}


def render(name: str) -> str:
    what, build = EXAMPLES[name]
    header = f"{what}\nWritten by tools/make_examples.py; edit the builder, not this file.\n"
    return build().to_toml(header=header)


def main() -> int:
    for name in EXAMPLES:
        (ROOT / "scenarios" / name).write_text(render(name))
        print(f"wrote scenarios/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
