"""OLSR control bytes, airtcp / ns-3, and bytes per control packet on each side, from the runs
`validate_manet.py` stored for the installed core build (docs/validation.md cites them)."""

from __future__ import annotations

import json
import statistics as st
from pathlib import Path

from airtcp import _core

RESULTS = Path(__file__).resolve().parent / "manet_results.json"


def main() -> None:
    d = json.loads(RESULTS.read_text())
    a, n = d["airtcp"][str(_core.__build__)], d["ns3"]
    for k in ("chain|4|olsr", "chain|8|olsr", "cbr|50|olsr|pause0"):
        seeds = sorted(set(a[k]) & set(n[k]))
        ab = st.fmean(a[k][s]["ctrl_bytes"] for s in seeds)
        nb = st.fmean(n[k][s]["ctrl_bytes"] for s in seeds)
        ap = st.fmean(a[k][s]["ctrl_packets"] for s in seeds)
        npk = st.fmean(n[k][s]["ctrl_packets"] for s in seeds)
        per = f"bytes per packet ns-3 {nb / npk:.0f}, airtcp {ab / ap:.0f}"
        print(f"{k}: bytes {ab / nb:.2f}; {per}")


if __name__ == "__main__":
    main()
