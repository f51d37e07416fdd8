"""The 802.11 cross-check script's own logic (no ns-3 needed): reading a sender's timeline
from ``wifi_chain.cc --trace`` and airtcp's side of the crossing chains."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benches" / "ns3"))
spec = importlib.util.spec_from_file_location(
    "validate_wifi", ROOT / "benches/ns3/validate_wifi.py"
)
vw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vw)

# Flow 1 sends three segments, times out and resends the first, then gets three duplicate
# ACKs and a fourth; a later recovery starts on the first duplicate ACK. Flow 2's lines and
# the other kinds of line are ignored for flow 1.
TIMELINE = """\
tcp 0.01 1 ack 1
tcp 0.01 1 rto 0.2
tcp 0.01 1 tx 1 1460
tcp 0.01 1 tx 1461 1460
tcp 0.02 2 tx 1 1460
tcp 0.02 1 tx 2921 1460
drop 0.05 3 2 48
ip 0.06 1 rx 49153>5000 1 1 1460
tcp 0.21 1 rto 0.4
tcp 0.21 1 state CA_LOSS
tcp 0.21 1 tx 1 1460
tcp 0.30 1 ack 1461
tcp 0.30 1 tx 4381 1460
tcp 0.31 1 state CA_OPEN
tcp 0.32 1 ack 1461
tcp 0.32 1 state CA_DISORDER
tcp 0.33 1 ack 1461
tcp 0.34 1 ack 1461
tcp 0.34 1 state CA_RECOVERY
tcp 0.34 1 tx 1461 1460
tcp 0.35 1 ack 1461
tcp 0.40 1 ack 5841
tcp 0.40 1 state CA_OPEN
tcp 0.41 1 ack 5841
tcp 0.41 1 state CA_DISORDER
tcp 0.41 1 state CA_RECOVERY
tcp 0.41 1 tx 5841 1460
tcp 0.50 2 state CA_LOSS
"""


def test_timeline_counts_timeouts_recoveries_and_resent_segments():
    lines = TIMELINE.splitlines()
    one = vw.sender_timeline(lines, 1)
    assert one["timeouts"] == 1
    assert one["first_timeout"] == 0.21
    # Two recoveries: the first on the third duplicate ACK, the second on the first one.
    assert one["recoveries"] == 2
    assert one["early_recoveries"] == 1
    # Resent: 1 (after the timeout) and 1461; 4381 and 5841 were new data.
    assert one["retx"] == 2
    two = vw.sender_timeline(lines, 2)
    assert two == {
        "timeouts": 1,
        "first_timeout": 0.5,
        "recoveries": 0,
        "early_recoveries": 0,
        "retx": 0,
    }


def test_ns3_tcp_side_opens_with_a_handshake_on_wifi_chain_settings():
    sc = vw.scenario(4, 1, 2.0, True, "ns3")
    tcp = sc["tcp"]
    assert tcp["profile"] == "ns3" and tcp["handshake"]
    assert (tcp["segment_size"], tcp["initial_cwnd"], tcp["rcv_window"]) == (1460, 2, 20000)
    assert (tcp["min_rto"], tcp["sack"], tcp["timestamps"], tcp["delayed_ack"]) == (
        0.2,
        False,
        False,
        False,
    )
    assert vw.scenario(4, 1, 2.0, True)["tcp"] == {"profile": "ns2", "segment_size": 1460}
    from airtcp import _core

    r = json.loads(_core.run_json(json.dumps(sc), series=False))
    assert [f["name"] for f in r["flows"]] == ["ftp", "ftp2"]
    assert all(f["delivered_bytes"] > 0 for f in r["flows"])
