"""Seed paper 004: SNR-driven activation/deactivation of TCP at a mobile host.

W. Lilakiatsakun, A. Seneviratne, "Enhancing TCP Performance Through Intelligent
Activation/Deactivation". A thin layer between IP and TCP at the mobile host samples the SNR
every 100 ms; when it falls below a threshold the layer stops TCP by presenting a zero receive
window, and resumes it with a window update when the SNR rises above the threshold.

Setup (§4.1): mobile host –5.5 Mbps/2 ms wireless– base station –1 Mbps/100 ms– fixed host;
a 5 MB FTP from the mobile host with TCP Reno; CCK 5.5 with 1000-byte packets; no MAC
retransmissions; no buffer overflow at the base station. The paper's measured WaveLAN trace is
not available: each seed synthesizes a walk at 1.4 m/s away from the base station and back
(20 m → 75 m → 20 m) with log-distance path loss, 3 dB shadowing and Rayleigh fading with
Clarke's Doppler spectrum at 2.4 GHz (f_d = 11.2 Hz). The gate acts on the SNR measured over
the interval that has just ended. Thresholds 3, 4, 5 and 6 dB against plain Reno, then at 5 dB
the measurement delay and, with Gauss–Markov fading, the coherence time. Metrics (§4.3):
throughput (goodput), connection time, and overhead = (bytes sent − data) / data × 100.
Claims are judged by paired tests over seeds (gate and Reno runs of a seed share the trace)
against the paper's magnitudes (see docs/schemes/snr_gate.md).

The claims and the paper's figures are in _snr_gate_claims.py; this module declares the
scenarios, sweeps, tables, readings and the paper.
"""

from __future__ import annotations

import math
from typing import Any

from ..scenario import Scenario
from . import (
    ORACLE,
    ClaimSpec,
    FigureSpec,
    Paper,
    PaperData,
    Reading,
    SweepSpec,
    Variant,
    register,
)
from ._snr_gate_claims import (  # noqa: F401 - the paper's constants, re-exported
    PAPER_OVERHEAD_PTS,
    PAPER_THROUGHPUT_PCT,
    PAPER_TIME_PCT,
    SLIGHT_GAINS_KBPS,
    SMALLEST_STEP_PTS,
    TEST_T,
    THRESHOLDS,
    _claim_connection_time,
    _claim_overhead,
    _claim_small_then_large,
    _claim_throughput,
    _gate_at,
    compare,
)

FILE_BYTES = 5_000_000
T_PATH = "agents.0.threshold_db"
DELAY_PATH = "agents.0.measurement_delay"
TC_PATH = "links.0.error.synth.coherence_time"

# Scenario values fixed before running (docs/schemes/snr_gate.md): walking speed, carrier,
# and one slow excursion to 75 m and back, as the paper's Fig. 3 describes.
WALK_MPS = 1.4
CARRIER_HZ = 2.4e9
DOPPLER_HZ = round(WALK_MPS * CARRIER_HZ / 299_792_458.0, 1)  # 11.2 Hz
_OUT = 10 + 55 / WALK_MPS
WAYPOINTS = [
    [0, 20],
    [10, 20],
    [round(_OUT, 2), 75],
    [round(_OUT + 55 / WALK_MPS, 2), 20],
    [600, 20],
]
# Shadowing decorrelates over 5 m of walk (Gudmundson): per 100 ms sample.
SHADOWING_CORR = round(math.exp(-WALK_MPS * 0.1 / 5.0), 4)
DELAY_S = 0.1  # the interval that has just ended
# New sweeps at the threshold where the paper's gain becomes "dramatic".
SWEEP_T = 5.0
DELAYS = [0.1, 0.2, 0.5, 1.0, 2.0]
COHERENCE = [0.05, 0.2, 1.0, 5.0, 25.0]


def _base(quick: bool, gate: bool, *, coherence: bool = False, cc: str = "reno") -> Scenario:
    synth: dict[str, Any] = {
        "waypoints": WAYPOINTS,
        "shadowing_db": 3.0,
        "shadowing_corr": SHADOWING_CORR,
        "fading": "rayleigh",
    }
    if coherence:
        synth["coherence_time"] = 1.0
    else:
        synth["doppler_hz"] = DOPPLER_HZ
    data: dict[str, Any] = {
        "name": "snr-gate",
        # Long enough for the slowest transfer; the run ends early once all is delivered.
        "duration": "600s",
        "seed": 1,
        "tcp": {"segment_size": 1000, "header_size": 40},
        "nodes": [
            {"name": "MH", "kind": "host"},
            {"name": "BS", "kind": "router"},
            {"name": "FH", "kind": "host"},
        ],
        "links": [
            {
                "name": "MH-BS",
                "a": "MH",
                "b": "BS",
                "kind": "wireless",
                "rate": "5.5Mbps",
                "delay": "2ms",
                "queue": {"kind": "droptail", "limit": 50, "unit": "packets"},
                "error": {
                    "model": "snr",
                    "modulation": "cck5.5",
                    "interval": "100ms",
                    "synth": synth,
                    "applies_to": "all",
                },
            },
            {
                "name": "BS-FH",
                "a": "BS",
                "b": "FH",
                "rate": "1Mbps",
                "delay": "100ms",
                "queue": {"kind": "droptail", "limit": 1000, "unit": "packets"},
            },
        ],
        "flows": [
            {
                "name": "ftp",
                "src": "MH",
                "dst": "FH",
                "cc": cc,
                "app": {"kind": "file", "size": FILE_BYTES},
            }
        ],
    }
    if gate:
        data["agents"] = [
            {
                "kind": "snr_gate",
                "node": "MH",
                "link": "MH-BS",
                "threshold_db": SWEEP_T,
                "interval": "100ms",
                "measurement_delay": DELAY_S,
            }
        ]
    return Scenario(data)


def reno_scenario(quick: bool) -> Scenario:
    return _base(quick, gate=False)


def gate_scenario(quick: bool) -> Scenario:
    return _base(quick, gate=True)


def coherence_reno_scenario(quick: bool) -> Scenario:
    return _base(quick, gate=False, coherence=True)


def oracle_scenario(quick: bool) -> Scenario:
    """Plain Reno's setup with the loss-cause oracle as the sender (no gate): it does not cut
    its window for a loss to the channel's errors."""
    return _base(quick, gate=False, cc=ORACLE)


def coherence_oracle_scenario(quick: bool) -> Scenario:
    return _base(quick, gate=False, coherence=True, cc=ORACLE)


def coherence_gate_scenario(quick: bool) -> Scenario:
    return _base(quick, gate=True, coherence=True)


def _prep(df: Any) -> Any:
    import polars as pl

    return df.with_columns(
        ((pl.col("sent_bytes") - FILE_BYTES) / FILE_BYTES * 100).alias("overhead_pct"),
        (pl.col("goodput_bps") / 8000).alias("throughput_kBps"),
    )


def _paired(gate: Any, reno: Any, x_col: str, x_name: str, on: list[str]) -> Any:
    """Per seed (and swept value in ``on``), the gate's change against plain Reno on the same
    trace: throughput and connection time in %, overhead in points."""
    import polars as pl

    cols = ["throughput_kBps", "completion_time_s", "overhead_pct"]
    g = gate.select(
        [pl.col(c) for c in on]
        + [pl.col(x_col).cast(pl.Float64).alias(x_name)]
        + [pl.col(c).alias(f"g_{c}") for c in cols]
    )
    r = reno.select([pl.col(c) for c in on] + [pl.col(c).alias(f"r_{c}") for c in cols])
    j = g.join(r, on=on, how="inner")
    return j.select(
        "seed",
        x_name,
        ((pl.col("g_throughput_kBps") / pl.col("r_throughput_kBps") - 1) * 100).alias(
            "throughput_gain_pct"
        ),
        ((pl.col("g_completion_time_s") / pl.col("r_completion_time_s") - 1) * 100).alias(
            "connection_time_change_pct"
        ),
        (pl.col("g_overhead_pct") - pl.col("r_overhead_pct")).alias("overhead_change_pts"),
    ).sort(x_name, "seed")


def _with_x(df: Any, col: str, values: list[Any]) -> Any:
    """``df`` repeated at each of ``values`` of a new column ``col`` (runs whose setup does not
    depend on it, drawn beside runs that do)."""
    import polars as pl

    return df.join(pl.DataFrame({col: values}), how="cross")


def derive(data: PaperData) -> None:
    """Add the overhead and throughput in kB/s to every sweep's flows; a comparison table
    (``cmp``) holding, at each threshold, the gated runs (``scheme`` = "Reno + gate"), the
    plain Reno runs (``scheme`` = "Reno") and the oracle's (``scheme`` = "oracle"); per-seed
    changes against Reno on the same trace (``paired``) for the delay and coherence-time
    sweeps, the gate's and the oracle's (``scheme``); and the coherence sweeps' runs side by
    side (``coh-gate``/``cmp``)."""
    import polars as pl

    for name in list(data.tables):
        data.set_table(name, "flows", _prep(data.table(name, "flows")))
    gate = data.table("gate", "flows")
    reno = data.table("reno", "flows")
    cols = ["seed", "throughput_kBps", "completion_time_s", "overhead_pct", "goodput_bps"]

    def store_name(sweep: str) -> str:
        # The store's name of a sweep, so a figure can say where its points come from.
        return data.sweeps[sweep].name if sweep in data.sweeps else sweep

    gated = gate.select(pl.col(T_PATH).cast(pl.Float64).alias("threshold_db"), *cols).with_columns(
        pl.lit("Reno + gate").alias("scheme"), pl.lit(store_name("gate")).alias("sweep")
    )
    thresholds = sorted(set(gated["threshold_db"].to_list()))
    flat = [("Reno", "reno")] + ([(ORACLE, ORACLE)] if ORACLE in data.tables else [])
    base = [
        pl.concat(
            [
                data.table(sweep, "flows")
                .select(cols)
                .with_columns(
                    pl.lit(t).alias("threshold_db"),
                    pl.lit(label).alias("scheme"),
                    pl.lit(store_name(sweep)).alias("sweep"),
                )
                for t in thresholds
            ]
        ).select(gated.columns)
        for label, sweep in flat
    ]
    data.set_table("gate", "cmp", pl.concat([gated, *base]))

    def label(df: Any, scheme: str, sweeps: str) -> Any:
        return df.with_columns(pl.lit(scheme).alias("scheme"), pl.lit(sweeps).alias("sweep"))

    if "delay" in data.tables:
        paired = _paired(data.table("delay", "flows"), reno, DELAY_PATH, "delay_s", ["seed"])
        parts = [label(paired, "Reno + gate", f"{store_name('delay')} and {store_name('reno')}")]
        if ORACLE in data.tables:
            delays = sorted(set(paired["delay_s"].to_list()))
            oracle = _with_x(data.table(ORACLE, "flows"), DELAY_PATH, delays)
            o = _paired(oracle, reno, DELAY_PATH, "delay_s", ["seed"])
            parts.append(label(o, ORACLE, f"{store_name(ORACLE)} and {store_name('reno')}"))
        data.set_table("delay", "paired", pl.concat(parts))
    if "coh-gate" in data.tables and "coh-reno" in data.tables:
        cr = data.table("coh-reno", "flows").with_columns(pl.col(TC_PATH).cast(pl.Float64))
        cg = data.table("coh-gate", "flows").with_columns(pl.col(TC_PATH).cast(pl.Float64))
        paired = _paired(cg, cr, TC_PATH, "coherence_s", ["seed", TC_PATH])
        parts = [
            label(paired, "Reno + gate", f"{store_name('coh-gate')} and {store_name('coh-reno')}")
        ]
        runs = [("Reno", cr, "coh-reno"), ("Reno + gate", cg, "coh-gate")]
        if "coh-oracle" in data.tables:
            co = data.table("coh-oracle", "flows").with_columns(pl.col(TC_PATH).cast(pl.Float64))
            o = _paired(co, cr, TC_PATH, "coherence_s", ["seed", TC_PATH])
            sweeps = f"{store_name('coh-oracle')} and {store_name('coh-reno')}"
            parts.append(label(o, ORACLE, sweeps))
            runs.append((ORACLE, co, "coh-oracle"))
        data.set_table("coh-gate", "paired", pl.concat(parts))
        data.set_table(
            "coh-gate",
            "cmp",
            pl.concat(
                [
                    label(
                        df.select(pl.col(TC_PATH).alias("coherence_s"), *cols),
                        scheme,
                        store_name(sweep),
                    )
                    for scheme, df, sweep in runs
                ]
            ),
        )


# --------------------------------------------------------------------------------------------
# claims (_snr_gate_claims.py): paired tests over seeds (gate and Reno runs of a seed share the
# trace), verdict against the paper's magnitude (stats.verdict)


# --------------------------------------------------------------------------------------------
# tables for docs/schemes/snr_gate.md (airtcp docs-tables)

_METRICS = [
    ("throughput_kBps", "throughput (kB/s)", 1),
    ("completion_time_s", "connection time (s)", 1),
    ("overhead_pct", "overhead (%)", 2),
]


def _doc_results(data: PaperData) -> str:
    """Means over seeds with 95% intervals: plain Reno and the gate at each threshold."""
    from ..analysis import aggregate
    from ..docgen import ci, md_table

    cmp = data.table("gate", "cmp")
    ts = sorted(set(cmp["threshold_db"].to_list()))
    rows = []
    for metric, label, digits in _METRICS:
        agg = aggregate(cmp, metric, ["scheme", "threshold_db"], bounds=(0.0, None))
        cell = {(r["scheme"], r["threshold_db"]): r for r in agg.iter_rows(named=True)}
        reno = cell[("Reno", ts[0])]
        row = [label, ci(reno["mean"], reno["ci_low"], reno["ci_high"], digits)]
        for t in ts:
            r = cell[("Reno + gate", t)]
            row.append(ci(r["mean"], r["ci_low"], r["ci_high"], digits))
        rows.append(row)
    n = len(data.table("reno", "flows"))
    head = ["", "Reno", *(f"gate {t:g} dB" for t in ts)]
    return f"Means over {n} seeds, 95% CI in brackets:\n\n" + md_table(
        head, rows, "l" + "r" * (len(head) - 1)
    )


def _doc_claims(data: PaperData) -> str:
    """Each claim: the paper's change, the measured change with its interval, p and g, and
    the outcome."""
    from ..docgen import md_table, num

    rows = []
    for spec in PAPER.claims:
        res = spec.check(data)
        c = res.numbers[0] if isinstance(res.numbers, list) and res.numbers else {}
        # The step claim is in points of Reno's throughput, the overhead in points of overhead.
        unit = " points" if "overhead" in spec.id or "step" in str(c.get("metric", "")) else " %"
        rows.append(
            [
                spec.statement,
                "+2, +4 kB/s at 3, 4 dB; more at 5–6 dB (no number)"
                if spec.id == "small-then-large"
                else f"{c.get('paper', float('nan')):+g}{unit}".replace("-", "−"),
                f"{num(c.get('change'), 2, True)}{unit} ({num(c.get('ci_low'), 2, True)} to "
                f"{num(c.get('ci_high'), 2, True)})",
                f"{c.get('p', float('nan')):.2g}, {num(c.get('dz'), 2)}",
                f"**{res.outcome}**",
                c.get("magnitude", "–"),
            ]
        )
    return (
        "Paired over the traces (each run with and without the gate). Supported needs the "
        "interval on the paper's side of 0 and reaching half the paper's change; the magnitude "
        "column sets the interval against the paper's own number.\n\n"
        + md_table(
            ["claim", "paper", "measured (paired 95% CI)", "p, d_z", "outcome", "magnitude"],
            rows,
            "lrrrll",
        )
    )


def _doc_paired(data: PaperData, sweep: str, x: str, label: str, metrics: list) -> str:
    from ..analysis import aggregate
    from ..docgen import ci, md_table

    changes = data.table(sweep, "paired", {"scheme": "Reno + gate"})
    xs = sorted(set(changes[x].to_list()))
    rows = []
    for metric, name, digits in metrics:
        agg = aggregate(changes, metric, [x])
        cell = {r[x]: r for r in agg.iter_rows(named=True)}
        rows.append(
            [name]
            + [
                ci(cell[v]["mean"], cell[v]["ci_low"], cell[v]["ci_high"], digits, sign=True)
                for v in xs
            ]
        )
    n = changes["seed"].n_unique()
    return (
        f"Per seed, gated against plain Reno on the same trace; mean over {n} seeds, 95% CI "
        "in brackets:\n\n" + md_table([label, *(f"{v:g}" for v in xs)], rows, "l" + "r" * len(xs))
    )


def _doc_delay(data: PaperData) -> str:
    return _doc_paired(
        data,
        "delay",
        "delay_s",
        "delay (s)",
        [
            ("throughput_gain_pct", "throughput change (%)", 1),
            ("overhead_change_pts", "overhead change (points)", 2),
        ],
    )


def _doc_coherence(data: PaperData) -> str:
    return _doc_paired(
        data,
        "coh-gate",
        "coherence_s",
        "Tc (s)",
        [
            ("throughput_gain_pct", "throughput change (%)", 1),
            ("connection_time_change_pct", "connection time change (%)", 1),
            ("overhead_change_pts", "overhead change (points)", 2),
        ],
    )


def _doc_readings(data: PaperData) -> str:
    """Every claim under every reading and axis (the robustness engine's verdict map)."""
    from ..docgen import verdict_map

    return verdict_map(data, digits=2)


def _doc_oracle(data: PaperData) -> str:
    """Plain and gated Reno's throughput as a share of the oracle's, per threshold and per
    coherence time."""
    from ..docgen import oracle_shares

    return oracle_shares(data)


_MAGNITUDE_TEST = (
    f"Gated runs at {TEST_T:g} dB against plain Reno on the same traces (the same seeds): a "
    "paired t-test of the per-trace differences, 95% CI of the change (in % of Reno's mean by "
    "the delta method of the ratio of paired means, or points for the overhead), d_z, and a "
    "paired bootstrap interval beside it. Supported if the interval lies on the paper's side "
    "of 0 and reaches half the paper's change, not supported if it lies short of half the "
    "paper's change (or on the other side), inconclusive otherwise, and when the differences "
    "have no spread. Whatever the outcome, the interval against the paper's number says "
    "whether the change is larger than, smaller than or consistent with it."
)
_STEP_TEST = (
    "Per trace (seed): the gated throughput at 5–6 dB minus that at 3–4 dB (each the mean of "
    "its two thresholds), in points of Reno's mean throughput; a paired t-test over the "
    "traces (30 traces are 30 pairs, not 60 independent runs), d_z, a paired bootstrap "
    "interval beside it. The paper gives no number: supported if the interval lies above 0 "
    f"and reaches {SMALLEST_STEP_PTS:g} point, not supported if it lies below "
    f"{SMALLEST_STEP_PTS:g} point, inconclusive otherwise and when the differences have no "
    "spread."
)


# --------------------------------------------------------------------------------------------
# readings and sensitivity axes (docs/schemes/snr_gate.md, written before running)

#: the sweeps the claims read (plain and gated Reno on the paper's walk): every reading and
#: axis is applied to these; the delay and coherence sweeps are axes of their own
CLAIM_SWEEPS = ("reno", "gate")
ERROR = "links.0.error"


def _walk(turn_m: float, leave_s: float = 10.0) -> list[list[float]]:
    """The walk at WALK_MPS from 20 m, leaving at ``leave_s``, out to ``turn_m`` and back."""
    out = leave_s + (turn_m - 20) / WALK_MPS
    back = out + (turn_m - 20) / WALK_MPS
    return [[0, 20], [leave_s, 20], [round(out, 2), turn_m], [round(back, 2), 20], [600, 20]]


def _hold_and_age(hold_s: float, age_s: float) -> Variant:
    def transform(sc: Scenario, sweep: str) -> Scenario:
        sc = sc.copy()
        sc.set(f"{ERROR}.interval", hold_s)
        # Shadowing decorrelates over 5 m of walk whatever the sampling.
        sc.set(f"{ERROR}.synth.shadowing_corr", round(math.exp(-WALK_MPS * hold_s / 5.0), 4))
        if sweep == "gate":
            sc.set("agents.0.interval", 0.01)
            sc.set("agents.0.measurement_delay", age_s)
        return sc

    return Variant(
        f"hold {hold_s * 1000:g} ms, age {age_s * 1000:g} ms",
        why=f"The channel holds each sample {hold_s * 1000:g} ms; the gate (polling every 10 "
        f"ms) reads the sample the channel held {age_s * 1000:g} ms ago.",
        transform=transform,
        sweeps=CLAIM_SWEEPS,
    )


READINGS = [
    Reading(
        name="reading-age",
        title="The gate's reading age against the channel's hold time (decides the paper)",
        kind="axis",
        passage="§4.2: 'SNR measurements … were sampled every 100 ms' and the PER 'deduced "
        "directly from the SNR values'; the paper's ns-2 gate most plausibly read the very "
        "sample that set the error rate, which no card can measure before its frames arrive.",
        default=Variant(
            "hold 100 ms, age 100 ms",
            why="A card reports what it measured on frames already received: the interval "
            "that has just ended.",
        ),
        alternatives=(
            _hold_and_age(0.1, 0.05),
            _hold_and_age(0.1, 0.01),
            _hold_and_age(0.01, 0.01),
            _hold_and_age(0.01, 0.05),
            _hold_and_age(0.01, 0.1),
        ),
    ),
    Reading(
        name="slow-depth",
        title="How deep the slow SNR goes (the walk's turning point)",
        kind="axis",
        passage="Fig. 3 shows one deep fade; the trace is not available.",
        default=Variant("75 m", why="Mean SNR 11.8 dB at the turning point."),
        alternatives=tuple(
            Variant(
                f"{d} m",
                why=f"The walk turns at {d} m, at the same speed.",
                set={f"{ERROR}.synth.waypoints": _walk(d)},
                sweeps=CLAIM_SWEEPS,
            )
            for d in (100, 120)
        ),
    ),
    Reading(
        name="fading-speed",
        title="How fast the fading is (maximum Doppler shift)",
        kind="axis",
        passage="Not given.",
        default=Variant(f"{DOPPLER_HZ:g} Hz", why="1.4 m/s at 2.4 GHz."),
        alternatives=tuple(
            Variant(
                f"{f:g} Hz",
                why="Clarke fading ten times slower, or four times faster.",
                set={f"{ERROR}.synth.doppler_hz": f},
                sweeps=CLAIM_SWEEPS,
            )
            for f in (1.1, 45.0)
        ),
    ),
    Reading(
        name="directions",
        title="One SNR trace for both directions of the wireless hop, or two",
        kind="reading",
        passage="§4.2: one trace is 'deduced' into a PER; whether ACKs met it is not said.",
        default=Variant("two traces", why="Each direction draws its own (independent) trace."),
        alternatives=(
            Variant(
                "one trace",
                why="The ACKs meet the mobile host's own trace.",
                set={f"{ERROR}.shared": True},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="ack-per",
        title="The ACKs' error rate",
        kind="reading",
        passage="§4.2: 'PER … using CCK-5.5 coding at 1000 bytes packet'.",
        default=Variant("own size", why="Each frame's PER by its own size (40-byte ACKs)."),
        alternatives=(
            Variant(
                "data frame's",
                why="One PER per SNR, computed for the 1000-byte packet, for every frame.",
                set={f"{ERROR}.per_size": 1040},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="timing",
        title="When the transfer runs relative to the fade",
        kind="axis",
        passage="Not given.",
        default=Variant(
            "start 0 s", why="The transfer starts as the run does; the walk leaves at 10 s."
        ),
        alternatives=(
            Variant(
                "start 30 s",
                why="The transfer starts inside the fade.",
                set={"flows.0.start": 30.0},
                sweeps=CLAIM_SWEEPS,
            ),
            Variant(
                "fade at 150 s",
                why="The walk leaves at 150 s: the transfer is over before the fade.",
                set={f"{ERROR}.synth.waypoints": _walk(75, leave_s=150.0)},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="shadowing",
        title="Log-normal shadowing on the walk",
        kind="axis",
        passage="Not described: Fig. 3's measured trace shows a slow fall and deep fades, and "
        "the trace is not available.",
        default=Variant("3 dB", why="A moderate shadowing, correlated over 5 m of walk."),
        alternatives=(
            Variant(
                "none",
                why="Path loss and Rayleigh fading alone.",
                set={f"{ERROR}.synth.shadowing_db": 0.0},
                sweeps=CLAIM_SWEEPS,
            ),
            Variant(
                "6 dB",
                why="A stronger shadowing, the same correlation.",
                set={f"{ERROR}.synth.shadowing_db": 6.0},
                sweeps=CLAIM_SWEEPS,
            ),
        ),
    ),
    Reading(
        name="hysteresis",
        title="Closing 'when the SNR is decreasing': one threshold or two",
        kind="reading",
        passage="Abstract: 'transmissions are suspended when the SNR is decreasing and goes "
        "below a given threshold, and resume transmission when the SNR goes back above the SNR "
        "threshold' (as written 'decreasing' changes no decision).",
        default=Variant("one threshold", why="The paper's rule as written."),
        alternatives=(
            Variant(
                "two thresholds",
                why="A real hysteresis: reopen only 2 dB above the closing threshold.",
                set={"agents.0.hysteresis_db": 2.0},
                sweeps=("gate",),
            ),
        ),
    ),
]


PAPER = register(
    Paper(
        key="snr-gate",
        title="Enhancing TCP performance through intelligent activation/deactivation",
        citation=(
            "W. Lilakiatsakun, A. Seneviratne. Enhancing TCP Performance Through Intelligent "
            "Activation/Deactivation (seed paper 004)."
        ),
        summary=(
            "A 5 MB FTP from a mobile host over a 5.5 Mbps/2 ms CCK 5.5 wireless hop and a "
            "1 Mbps/100 ms wired hop, TCP Reno, no MAC retransmissions, with and without the "
            "SNR gate at the mobile host (thresholds 3–6 dB, deciding every 100 ms on the SNR "
            "measured over the interval that has just ended). Each seed synthesizes its own "
            "trace along the same walk; at 5 dB the measurement delay and the fading's "
            "coherence time are swept. The loss-cause oracle, on plain Reno's setup, is the "
            "upper bound of the throughput figures."
        ),
        notes=(
            "The paper's WaveLAN trace is not available. The walk (1.4 m/s, 20 m → 75 m → "
            "20 m, path-loss exponent 3, 3 dB shadowing correlated over 5 m, Rayleigh fading "
            "with Clarke's spectrum at 2.4 GHz: f_d = 11.2 Hz) and the test were fixed before "
            "running and not adjusted to the results. Each claim compares gated and plain "
            "Reno runs of the same seeds (the same trace) by a paired t-test over the traces "
            "(95% CI, d_z, a paired bootstrap beside it) and weighs the interval against the "
            "paper's magnitude. The rule: 'supported' needs the interval "
            "only to lie above 0 and reach HALF the paper's change; 'not supported' means it "
            "lies below half; 'inconclusive' otherwise, and whenever the per-trace differences "
            "have no spread. The magnitude verdict beside each claim (larger than, smaller than "
            "or consistent with the paper's number) says whether the paper's size itself is "
            "reproduced. The readings and axes each claim is decided under are in "
            "docs/schemes/snr_gate.md."
        ),
        sweeps=[
            SweepSpec(
                name="reno",
                scenario=reno_scenario,
                grid={},
                seeds=30,
                quick_seeds=4,
                description="plain Reno on the paper's walk",
            ),
            SweepSpec(
                name="gate",
                scenario=gate_scenario,
                grid={T_PATH: THRESHOLDS},
                seeds=30,
                quick_seeds=4,
                description="Reno with the SNR gate at thresholds 3, 4, 5, 6 dB",
            ),
            SweepSpec(
                name="delay",
                scenario=gate_scenario,
                grid={DELAY_PATH: DELAYS},
                seeds=30,
                quick_seeds=4,
                description="the gate at 5 dB with measurements 0.1–2 s behind the channel",
            ),
            SweepSpec(
                name="coh-reno",
                scenario=coherence_reno_scenario,
                grid={TC_PATH: COHERENCE},
                seeds=30,
                quick_seeds=4,
                description="plain Reno, Gauss–Markov fading with coherence time 0.05–25 s",
            ),
            SweepSpec(
                name=ORACLE,
                scenario=oracle_scenario,
                grid={},
                seeds=30,
                quick_seeds=4,
                description="the loss-cause oracle on plain Reno's setup (no gate)",
            ),
            SweepSpec(
                name="coh-oracle",
                scenario=coherence_oracle_scenario,
                grid={TC_PATH: COHERENCE},
                seeds=30,
                quick_seeds=4,
                description="the oracle, Gauss–Markov fading with coherence time 0.05–25 s",
            ),
            SweepSpec(
                name="coh-gate",
                scenario=coherence_gate_scenario,
                grid={TC_PATH: COHERENCE},
                seeds=30,
                quick_seeds=4,
                description="the gate at 5 dB, Gauss–Markov fading with coherence 0.05–25 s",
            ),
        ],
        figures=[
            FigureSpec(
                name="throughput",
                title="Throughput vs SNR threshold (paper Fig. 4, left)",
                sweep="gate",
                table="cmp",
                x="threshold_db",
                metric="throughput_kBps",
                bounds=(0.0, None),
                group="scheme",
                xlabel="SNR threshold (dB)",
                ylabel="throughput (kB/s)",
                ylim0=False,
                caption="Mean over seeds with 95% confidence bands; Reno and the oracle have "
                "no gate (flat).",
                rows="rows (gated runs; the plain Reno and oracle runs repeated at every "
                "threshold)",
                upper=ORACLE,
            ),
            FigureSpec(
                name="connection_time",
                title="Connection time vs SNR threshold (paper Fig. 4, right)",
                sweep="gate",
                table="cmp",
                x="threshold_db",
                metric="completion_time_s",
                bounds=(0.0, None),
                rows="rows (gated runs; the plain Reno runs repeated at every threshold)",
                group="scheme",
                where={"scheme": ["Reno", "Reno + gate"]},
                xlabel="SNR threshold (dB)",
                ylabel="connection time (s)",
                ylim0=False,
            ),
            FigureSpec(
                name="overhead",
                title="Overhead vs SNR threshold (paper Fig. 5)",
                sweep="gate",
                table="cmp",
                x="threshold_db",
                metric="overhead_pct",
                bounds=(0.0, None),
                rows="rows (gated runs; the plain Reno runs repeated at every threshold)",
                group="scheme",
                where={"scheme": ["Reno", "Reno + gate"]},
                xlabel="SNR threshold (dB)",
                ylabel="overhead (%)",
                caption="Overhead = (bytes sent − data) / data × 100.",
            ),
            FigureSpec(
                name="delay_throughput",
                title="Throughput gain vs measurement delay (gate at 5 dB)",
                sweep="delay",
                table="paired",
                x="delay_s",
                metric="throughput_gain_pct",
                bounds=(-100.0, None),
                rows="seeds (gated, and the oracle, vs plain Reno on the same trace)",
                group="scheme",
                xlabel="measurement delay (s)",
                ylabel="throughput change vs Reno (%)",
                logx=True,
                ylim0=False,
                caption="Per seed, gated vs plain Reno on the same trace; mean with 95% CI. "
                "0.1 s: the gate knows the interval that has just ended. The oracle has no "
                "gate: its change is the same at every delay.",
                upper=ORACLE,
                share=False,
            ),
            FigureSpec(
                name="delay_overhead",
                title="Overhead change vs measurement delay (gate at 5 dB)",
                sweep="delay",
                table="paired",
                x="delay_s",
                metric="overhead_change_pts",
                rows="seeds (gated vs plain Reno on the same trace)",
                where={"scheme": "Reno + gate"},
                xlabel="measurement delay (s)",
                ylabel="overhead change vs Reno (points)",
                logx=True,
                ylim0=False,
            ),
            FigureSpec(
                name="coherence_throughput",
                title="Throughput gain vs fading coherence time (gate at 5 dB)",
                sweep="coh-gate",
                table="paired",
                x="coherence_s",
                metric="throughput_gain_pct",
                bounds=(-100.0, None),
                rows="seeds (gated, and the oracle, vs plain Reno on the same trace)",
                group="scheme",
                xlabel="coherence time Tc (s), Gauss–Markov fading",
                ylabel="throughput change vs Reno (%)",
                logx=True,
                ylim0=False,
                caption="Same walk, fading with autocorrelation exp(−τ/Tc); the gate reads "
                "the interval that has just ended.",
                upper=ORACLE,
                share=False,
            ),
            FigureSpec(
                name="coherence_goodput",
                title="Throughput vs fading coherence time (gate at 5 dB)",
                sweep="coh-gate",
                table="cmp",
                x="coherence_s",
                metric="throughput_kBps",
                bounds=(0.0, None),
                rows="runs",
                group="scheme",
                xlabel="coherence time Tc (s), Gauss–Markov fading",
                ylabel="throughput (kB/s)",
                logx=True,
                ylim0=False,
                caption="The runs behind the two figures of changes against Reno, as they are.",
                upper=ORACLE,
            ),
            FigureSpec(
                name="coherence_overhead",
                title="Overhead change vs fading coherence time (gate at 5 dB)",
                sweep="coh-gate",
                table="paired",
                x="coherence_s",
                metric="overhead_change_pts",
                rows="seeds (gated vs plain Reno on the same trace)",
                where={"scheme": "Reno + gate"},
                xlabel="coherence time Tc (s), Gauss–Markov fading",
                ylabel="overhead change vs Reno (points)",
                logx=True,
                ylim0=False,
            ),
        ],
        claims=[
            ClaimSpec(
                id="throughput-improves",
                statement="The gate improves Reno's throughput (up to +15%)",
                check=_claim_throughput,
                source="abstract; §5, Fig. 4",
                test=_MAGNITUDE_TEST,
            ),
            ClaimSpec(
                id="small-then-large",
                statement=("The gain is slight at 3 and 4 dB and much larger at 5 and 6 dB"),
                check=_claim_small_then_large,
                source="§5",
                test=_STEP_TEST,
            ),
            ClaimSpec(
                id="connection-time-falls",
                statement=("Connection time falls as the threshold rises, saving up to 12%"),
                check=_claim_connection_time,
                source="§5, Fig. 4",
                test=_MAGNITUDE_TEST,
            ),
            ClaimSpec(
                id="overhead-falls",
                statement="Overhead falls as the threshold rises (by up to 0.7 points)",
                check=_claim_overhead,
                source="§5, Fig. 5",
                test=_MAGNITUDE_TEST,
            ),
        ],
        derive=derive,
        readings=READINGS,
        doc_tables={
            "results": _doc_results,
            "claims": _doc_claims,
            "delay": _doc_delay,
            "coherence": _doc_coherence,
            "oracle-share": _doc_oracle,
            "readings": _doc_readings,
        },
    )
)
