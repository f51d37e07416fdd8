"""The statistics that decide paper claims (airtcp.stats), against known values."""

from __future__ import annotations

import math

import pytest

from airtcp.stats import (
    INCONCLUSIVE,
    NOT_SUPPORTED,
    SUPPORTED,
    Outcome,
    binomial_ci,
    bonferroni,
    clip,
    combine,
    contrast,
    degenerate,
    direction,
    holm,
    interval_outcome,
    magnitude,
    one_sample,
    part_outcome,
    part_outcome_one,
    per_condition,
    per_condition_sentence,
    rate_ci,
    relative_samples,
    welch,
    within,
    zero_events_upper,
)


def test_outcome_reads_bools_and_text():
    assert Outcome.of(True) is SUPPORTED and Outcome.of(False) is NOT_SUPPORTED
    assert Outcome.of("Inconclusive") is INCONCLUSIVE
    assert NOT_SUPPORTED == "not supported" and NOT_SUPPORTED.css == "not-supported"
    with pytest.raises(ValueError, match="one of"):
        Outcome.of("maybe")


def test_binomial_interval_is_clopper_pearson():
    # Reference values (exact binomial, 95%).
    assert binomial_ci(3, 10) == pytest.approx((0.066739, 0.652453), abs=1e-5)
    lo, hi = binomial_ci(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    lo, hi = binomial_ci(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10))
    assert binomial_ci(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        binomial_ci(3, 2)


def test_zero_events_bound_and_bonferroni():
    assert zero_events_upper(0) == 1.0
    assert zero_events_upper(300) == pytest.approx(1 - 0.05 ** (1 / 300))
    assert zero_events_upper(300) < 0.01 < zero_events_upper(298)
    assert bonferroni(0.95, 10) == pytest.approx(0.995)
    assert bonferroni(0.95, 1) == pytest.approx(0.95)


def test_rate_interval_covers_the_count_and_the_spread():
    # Every run counts 0: the t interval is a point, the exact interval is not.
    r = rate_ci([0, 0, 0], [100, 100, 100])
    assert r["rate"] == 0.0 and r["ci_low"] == 0.0
    assert r["ci_high"] == pytest.approx(binomial_ci(0, 300)[1])
    # Runs that disagree: the spread between runs widens the interval beyond the count's.
    r = rate_ci([0, 50], [100, 100])
    assert r["rate"] == 0.25
    assert r["ci_high"] == 1.0 and r["ci_low"] == 0.0, "clipped to [0, 1]"
    # Runs without trials are left out; none at all gives NaN.
    assert rate_ci([1, 0], [10, 0])["runs"] == 1
    assert math.isnan(rate_ci([0], [0])["rate"])


def test_intervals_stay_in_the_metrics_range():
    r = one_sample([0.0, 0.0, 0.1], bounds=(0.0, None))
    assert r["ci_low"] == 0.0 and r["clipped"]
    assert one_sample([0.5, 0.6, 0.7], bounds=(0.0, 1.0))["clipped"] is False
    assert clip(-0.2, 1.3, (0.0, 1.0)) == (0.0, 1.0, True)
    assert clip(-0.2, 1.3, None) == (-0.2, 1.3, False)


def test_within_a_band_or_under_a_bound():
    assert within(0.9, 1.1, 0.85, 1.2) is SUPPORTED
    assert within(1.21, 1.4, 0.85, 1.2) is NOT_SUPPORTED
    assert within(1.1, 1.3, 0.85, 1.2) is INCONCLUSIVE
    assert within(0.0, 0.8, None, 1.0) is SUPPORTED
    assert within(1.5, 3.0, None, 1.0) is NOT_SUPPORTED
    assert within(math.nan, math.nan, None, 1.0) is INCONCLUSIVE


def test_direction_and_combine():
    assert direction(0.1, 2.0) is SUPPORTED
    assert direction(-2.0, -0.1) is NOT_SUPPORTED
    assert direction(-1.0, 1.0) is INCONCLUSIVE
    assert direction(-2.0, -0.1, sign=-1) is SUPPORTED
    # A smallest change counted: a real but negligible rise is not "higher".
    assert direction(0.1, 0.5, smallest=1.0) is NOT_SUPPORTED
    assert direction(0.1, 1.5, smallest=1.0) is SUPPORTED
    assert combine([SUPPORTED, SUPPORTED]) is SUPPORTED
    assert combine([SUPPORTED, INCONCLUSIVE]) is INCONCLUSIVE
    assert combine([SUPPORTED, INCONCLUSIVE, "not supported"]) is NOT_SUPPORTED
    assert combine([]) is INCONCLUSIVE, "0 of 0 supports nothing"


def test_magnitude_against_the_papers_size():
    assert magnitude(40.0, 70.0, 15.0) == "larger than the paper's"
    assert magnitude(2.0, 8.0, 15.0) == "smaller than the paper's"
    assert magnitude(10.0, 20.0, 15.0) == "consistent with the paper's"
    assert magnitude(-20.0, -14.0, -12.0) == "larger than the paper's"
    assert magnitude(-4.0, 1.0, -12.0) == "smaller than the paper's"
    assert magnitude(math.nan, 1.0, 15.0) == "undetermined"


def test_contrast_of_two_is_welch_and_of_four_adds_every_spread():
    a, b = [1.0, 2.0, 4.0, 3.5], [0.5, 0.9, 1.1, 2.0, 1.6]
    k, w = contrast([a, b], [1.0, -1.0]), welch(a, b)
    for key in ("diff", "se", "df", "p", "ci_low", "ci_high"):
        assert k[key] == pytest.approx(getattr(w, key)), key
    # (mean(a) - mean(b)) - (mean(c) - mean(d)): variance sum of s²/n over all four, and
    # Welch-Satterthwaite degrees of freedom from the four terms.
    c, d = [2.0, 2.5, 2.2], [1.0, 1.4, 1.2, 0.9]
    k = contrast([a, b, c, d], [1.0, -1.0, -1.0, 1.0])

    def mv(x):
        m = sum(x) / len(x)
        return m, sum((v - m) ** 2 for v in x) / (len(x) - 1)

    terms = [(mv(x)[1] / len(x), len(x)) for x in (a, b, c, d)]
    var = sum(q for q, _ in terms)
    df = var**2 / sum(q * q / (n - 1) for q, n in terms)
    diff = mv(a)[0] - mv(b)[0] - mv(c)[0] + mv(d)[0]
    assert k["diff"] == pytest.approx(diff) and k["se"] == pytest.approx(math.sqrt(var))
    assert k["df"] == pytest.approx(df)
    assert k["ci_low"] < diff < k["ci_high"] and k["n"] == [4, 5, 3, 4]
    # A sample too small for a variance leaves the interval undefined; a zero coefficient
    # leaves its sample out.
    assert math.isnan(contrast([a, [1.0]], [1.0, -1.0])["ci_low"])
    alone, one = contrast([a, [1.0]], [1.0, 0.0]), one_sample(a)
    assert (alone["ci_low"], alone["ci_high"]) == pytest.approx((one["ci_low"], one["ci_high"]))
    with pytest.raises(ValueError, match="2 samples but 3 coefficients"):
        contrast([a, b], [1.0, -1.0, 1.0])


def test_relative_samples_carry_the_denominators_spread_by_the_delta_method():
    import polars as pl

    df = pl.DataFrame(
        {
            "cc": ["a"] * 3 + ["b"] * 3 + ["a"] * 2 + ["b"] * 2,
            "x": [1] * 6 + [2] * 4,
            "v": [18.0, 20.0, 22.0, 9.0, 10.0, 11.0, 5.0, 5.0, 4.0, 6.0],
        }
    )
    xa, xb = relative_samples(df, "v", label="cc", a="a", b="b", at="x", values=[1, 2])
    # a in % of b's mean at each x; b spread about 100 by the ratio there (2 at x=1, 1 at x=2).
    assert xa == pytest.approx([180, 200, 220, 100, 100])
    assert xb == pytest.approx([80, 100, 120, 80, 120])
    # So Welch's standard error of the difference is the delta method's for 100 * a/b:
    # (100/b)^2 (s_a^2/n_a + R^2 s_b^2/n_b) at x = 1.
    w = welch(xa[:3], xb[:3])
    assert w.se == pytest.approx(100 / 10 * math.sqrt(4 / 3 + 4 * 1 / 3))


def test_a_part_is_supported_at_its_own_level_and_ruled_out_at_the_corrected_one():
    decide = lambda lo, hi: direction(lo, hi, sign=1, smallest=1.0)  # noqa: E731
    a, b = [1.9, 2.0, 2.1, 2.05, 1.95], [0.0, 0.1, -0.1, 0.05, -0.05]
    o, w = part_outcome(decide, a, b, parts=10)
    assert o is SUPPORTED and w.level == 0.95
    # An interval just below the smallest change at 95% but not at 99.5%: ruled out alone,
    # undecided as one of ten parts.
    a2 = [0.6, 0.8, 1.0, 0.8, 0.8]
    w95 = welch(a2, b)
    assert decide(w95.ci_low, w95.ci_high) is NOT_SUPPORTED
    assert part_outcome(decide, a2, b, parts=1)[0] is NOT_SUPPORTED
    wide = welch(a2, b, bonferroni(0.95, 10))
    assert wide.ci_high >= 1.0
    assert part_outcome(decide, a2, b, parts=10)[0] is INCONCLUSIVE


def test_a_one_sample_part_is_ruled_out_only_by_its_corrected_interval():
    inside = lambda lo, hi: within(lo, hi, 0.4, 0.6)  # noqa: E731
    assert part_outcome_one(inside, [0.5, 0.51, 0.49, 0.5], parts=12) is SUPPORTED
    xs = [0.62, 0.64, 0.66, 0.64]
    one = one_sample(xs)
    assert one["ci_low"] > 0.6 and part_outcome_one(inside, xs, parts=1) is NOT_SUPPORTED
    assert one_sample(xs, bonferroni(0.95, 12))["ci_low"] < 0.6
    assert part_outcome_one(inside, xs, parts=12) is INCONCLUSIVE


# --------------------------------------------------------------------------------------------
# degenerate samples decide nothing


def _up(lo, hi):
    return direction(lo, hi, sign=1)


def test_identical_runs_give_no_interval_and_no_verdict():
    # Every seed gave the same run (0% loss, no jitter): a 0.35-point margin, no spread.
    a, b = [100.35] * 10, [100.0] * 10
    w = welch(a, b)
    assert w.diff == pytest.approx(0.35)
    assert math.isnan(w.ci_low) and math.isnan(w.ci_high) and math.isnan(w.p)
    assert "a has zero variance" in w.reason and "b has zero variance" in w.reason
    assert direction(w.ci_low, w.ci_high, sign=1) is INCONCLUSIVE
    # One constant sample is enough: its spread is not estimable.
    w = welch([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert math.isnan(w.ci_low) and w.reason == "b has zero variance (3 runs, all 0)"
    assert part_outcome(_up, a, b, 3)[0] is INCONCLUSIVE
    assert part_outcome_one(_up, [5.0] * 4, 2) is INCONCLUSIVE
    s = one_sample([7.0] * 5)
    assert math.isnan(s["ci_low"]) and "zero variance" in s["reason"]
    c = contrast([[1.0, 2.0], [3.0, 3.0], [1.0, 5.0]], [1, -1, 0])
    assert math.isnan(c["ci_low"]) and c["reason"] == "sample 2 has zero variance (2 runs, all 3)"
    # A sample with a zero coefficient does not count.
    c = contrast([[1.0, 2.0], [3.0, 3.0], [1.0, 5.0]], [1, 0, -1])
    assert not c["reason"] and c["ci_low"] < c["diff"] < c["ci_high"]
    assert degenerate([1.0], [1.0, 2.0]) == "sample 1 has 1 value"
    assert degenerate([1.0, 2.0]) == ""


def test_a_zero_width_bootstrap_interval_is_inconclusive_with_its_reason():
    out, why = interval_outcome(_up, 0.01, 0.01, what="bootstrap interval")
    assert out is INCONCLUSIVE and why == "the bootstrap interval has zero width (every value 0.01)"
    assert interval_outcome(_up, math.nan, 1.0)[0] is INCONCLUSIVE
    assert interval_outcome(_up, 0.5, 1.0) == (SUPPORTED, "")
    assert interval_outcome(_up, -2.0, -1.0) == (NOT_SUPPORTED, "")


def test_holm_adjusts_step_down():
    # Sorted p 0.01, 0.02, 0.04 over k = 3: 0.03, 0.04, 0.04 (monotone).
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    adj = holm([0.5, math.nan, 0.01])
    assert adj[0] == pytest.approx(0.5) and math.isnan(adj[1]) and adj[2] == pytest.approx(0.02)


def test_a_claim_per_condition_is_decided_at_each_and_not_pooled():
    import random

    rng = random.Random(3)

    def sample(m):
        return [m + rng.gauss(0, 1.0) for _ in range(10)]

    # a beats b by 10 at 8 hops, loses by 10 at 4 hops: pooled, the two cancel.
    parts = {
        4: (sample(90), sample(100)),
        8: (sample(110), sample(100)),
        2: ([100.0] * 10, [100.0] * 10),
    }
    pooled = welch(parts[4][0] + parts[8][0], parts[4][1] + parts[8][1])
    assert direction(pooled.ci_low, pooled.ci_high, sign=1) is INCONCLUSIVE
    res = {r.condition: r for r in per_condition(parts, _up)}
    assert res[8].outcome is SUPPORTED and res[4].outcome is NOT_SUPPORTED
    assert res[2].outcome is INCONCLUSIVE and "zero variance" in res[2].reason
    # Simultaneous intervals: Bonferroni over the three conditions; Holm p beside.
    assert res[8].level == pytest.approx(1 - 0.05 / 3)
    assert res[8].p_holm >= res[8].p
    wide = welch(*parts[8], level=1 - 0.05 / 3)
    assert res[8].ci_low == pytest.approx(wide.ci_low)
    text = per_condition_sentence(list(res.values()), "hops")
    assert text.startswith("supported at hops 8; not supported at hops 4; inconclusive at hops 2 (")
    # Relative: a in % of b's mean; a one-sample condition by its mean.
    r = per_condition({1: (sample(110), sample(100))}, _up, relative=True)[0]
    assert r.outcome is SUPPORTED and 5 < r.diff < 15
    r = per_condition({1: (sample(3), None)}, _up)[0]
    assert r.outcome is SUPPORTED and r.n_b == 0


# paired samples


def test_paired_t_matches_its_formulas_and_is_narrower_than_welch_on_shared_noise():
    from airtcp.stats import paired

    a = [10.0, 12.0, 9.0, 15.0, 11.0]
    b = [9.0, 11.5, 7.5, 14.0, 10.5]
    d = [1.0, 0.5, 1.5, 1.0, 0.5]
    p = paired(a, b)
    md = sum(d) / 5
    sd = math.sqrt(sum((x - md) ** 2 for x in d) / 4)
    from airtcp.analysis import t_cdf, t_ppf

    assert p.n == 5 and p.diff == pytest.approx(md) and p.sd == pytest.approx(sd)
    assert p.se == pytest.approx(sd / math.sqrt(5)) and p.df == 4
    half = t_ppf(0.975, 4) * sd / math.sqrt(5)
    assert (p.ci_low, p.ci_high) == pytest.approx((md - half, md + half))
    assert p.p == pytest.approx(2 * (1 - t_cdf(md / (sd / math.sqrt(5)), 4)))
    assert p.dz == pytest.approx(md / sd) and not p.degenerate
    # The shared noise (a spread of 6 between pairs) cancels: Welch's interval holds 0.
    w = welch(a, b)
    assert w.ci_low < 0 < w.ci_high and p.ci_low > 0
    assert (p.ci_high - p.ci_low) < (w.ci_high - w.ci_low) / 4
    # Pairs with a missing value are left out; unequal lengths are an error.
    q = paired([*a, None], [*b, 3.0])
    assert (q.n, q.diff) == (5, pytest.approx(md))
    with pytest.raises(ValueError, match="equal lengths"):
        paired([1.0, 2.0], [1.0])


def test_paired_relative_change_is_the_delta_method_of_the_ratio():
    from airtcp.analysis import t_ppf
    from airtcp.stats import paired

    a = [110.0, 95.0, 130.0, 100.0, 121.0, 90.0]
    b = [100.0, 90.0, 115.0, 95.0, 110.0, 80.0]
    p = paired(a, b, relative=True)
    ma, mb = sum(a) / 6, sum(b) / 6
    r = ma / mb
    assert p.diff == pytest.approx(100 * (r - 1))
    z = [100 * (x - r * y) / mb for x, y in zip(a, b, strict=True)]
    assert sum(z) == pytest.approx(0, abs=1e-9)
    sd = math.sqrt(sum(v * v for v in z) / 5)
    half = t_ppf(0.975, 5) * sd / math.sqrt(6)
    assert (p.ci_low, p.ci_high) == pytest.approx((p.diff - half, p.diff + half))
    assert p.relative and p.ci_low > 0


def test_paired_samples_without_spread_decide_nothing():
    from airtcp.stats import paired, paired_bootstrap, verdict

    # Gate and baseline identical on every trace (a transfer that ends before the fade).
    same = [50.0, 61.0, 58.0, 47.0]
    for rel in (False, True):
        p = paired(same, same, relative=rel)
        assert p.degenerate and p.diff == 0
        assert math.isnan(p.ci_low) and math.isnan(p.ci_high) and math.isnan(p.p)
        assert verdict(p.ci_low, p.ci_high, 15.0) is INCONCLUSIVE
        assert direction(p.ci_low, p.ci_high) is INCONCLUSIVE
    # A constant nonzero shift has no spread either: still nothing to decide on.
    shifted = paired([x + 2 for x in same], same)
    assert shifted.degenerate and shifted.diff == 2 and math.isnan(shifted.ci_low)
    assert paired([1.0], [0.0]).degenerate
    assert all(math.isnan(v) for v in paired_bootstrap(same, same))
    assert all(math.isnan(v) for v in paired_bootstrap([x + 2 for x in same], same))


def test_paired_bootstrap_is_seeded_and_near_the_t_interval():
    import random

    from airtcp.stats import paired, paired_bootstrap

    rng = random.Random(3)
    base = [rng.gauss(100, 20) for _ in range(40)]
    a = [x * 1.1 + rng.gauss(0, 2) for x in base]
    lo, hi = paired_bootstrap(a, base)
    assert (lo, hi) == paired_bootstrap(a, base)
    p = paired(a, base)
    assert lo < p.diff < hi
    assert lo == pytest.approx(p.ci_low, rel=0.15) and hi == pytest.approx(p.ci_high, rel=0.15)
    rlo, rhi = paired_bootstrap(a, base, relative=True)
    pr = paired(a, base, relative=True)
    assert rlo < pr.diff < rhi and rlo == pytest.approx(pr.ci_low, rel=0.2)
