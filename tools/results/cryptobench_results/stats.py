"""Statistics for benchmark samples, on Debian's python3-scipy (scipy.stats)
rather than hand-written distribution functions.

- Student-t intervals of the mean (JMH's scoreError is the 99.9% half-width).
- The two-sided Mann-Whitney U test: exact for small samples without ties,
  the normal approximation with tie and continuity correction otherwise
  (scipy's method="auto").
- Percentile bootstrap intervals (scipy.stats.bootstrap) for ratios of
  medians, one sample or several per side.
- The t-interval of a geometric mean of ratios (the mean of their logs).
- For paired rounds, the exact sign test and the interval of the median
  that inverts it, so that the two never disagree on one sample.
"""
import bisect
import functools
import math

import numpy as np
from scipy import stats as sps

RESAMPLES = 2000  # bootstrap resamples: interval ends stable to about 1%
SEED = 20261201   # fixed, so that a report is reproducible from its JSON


def median(xs):
    if len(xs) == 0:
        raise ValueError("median of no samples")
    return float(np.median(xs))


def percentile(xs, q):
    """Linear interpolation between closest ranks, q in [0, 100]."""
    return float(np.percentile(xs, q))


def geometric_mean(xs):
    xs = [x for x in xs if x > 0]
    return float(sps.gmean(xs)) if xs else math.nan


def student_t_quantile(p, df):
    return float(sps.t.ppf(p, df))


def ci_half_width(xs, confidence=0.999):
    """Half-width of the Student-t interval of the mean; NaN below 2 samples."""
    n = len(xs)
    if n < 2:
        return math.nan
    return student_t_quantile(0.5 + confidence / 2, n - 1) * float(np.std(xs, ddof=1)) / math.sqrt(n)


def min_achievable_p(m, n):
    """The smallest two-sided p-value the exact test can give for m and n samples."""
    if m == 0 or n == 0:
        return 1.0
    return min(1.0, 2 / math.comb(m + n, m))


def benjamini_hochberg(pvalues):
    """Benjamini-Hochberg adjusted p-values (q-values), in the input's order:
    calling the tests with q < alpha significant keeps the expected share of
    false discoveries among them at most alpha. NaN stays NaN."""
    indexed = sorted((p, i) for i, p in enumerate(pvalues) if not math.isnan(p))
    m = len(indexed)
    q = [math.nan] * len(pvalues)
    running = 1.0
    for rank in range(m, 0, -1):  # from the largest p down: q is the running minimum
        p, i = indexed[rank - 1]
        running = min(running, p * m / rank)
        q[i] = running
    return q


def mann_whitney(a, b):
    """Two-sided Mann-Whitney U test. Returns (U of sample a, p-value, method)."""
    if len(a) == 0 or len(b) == 0:
        raise ValueError("both samples need values")
    if len(set(a) | set(b)) == 1:
        return len(a) * len(b) / 2, 1.0, "normal"  # all equal: no evidence either way
    ties = len(set(a) | set(b)) < len(a) + len(b)
    method = "asymptotic" if ties or len(a) + len(b) > 40 else "exact"
    r = sps.mannwhitneyu(a, b, alternative="two-sided", method=method)
    return float(r.statistic), float(r.pvalue), "exact" if method == "exact" else "normal"


def _ratio_of_medians(*samples, axis=-1):
    """Geometric mean over pairs (new_i, base_i) of median(new_i)/median(base_i)."""
    logs = [np.log(np.median(samples[i], axis=axis)) - np.log(np.median(samples[i + 1], axis=axis))
            for i in range(0, len(samples), 2)]
    return np.exp(np.mean(logs, axis=0))


def bootstrap_ratio_ci(pairs, confidence=0.95):
    """Percentile bootstrap interval of the geometric mean over pairs
    (numerator samples, denominator samples) of their medians' ratio; each
    sample is resampled on its own. (NaN, NaN) when a sample is too small."""
    data = []
    for num, den in pairs:
        if len(num) < 2 or len(den) < 2 or min(num) <= 0 or min(den) <= 0:
            return math.nan, math.nan
        data += [np.asarray(num, dtype=float), np.asarray(den, dtype=float)]
    r = sps.bootstrap(data, _ratio_of_medians, n_resamples=RESAMPLES, confidence_level=confidence,
                      method="percentile", vectorized=True, random_state=SEED)
    return float(r.confidence_interval.low), float(r.confidence_interval.high)


def bootstrap_change_ci(base, new, confidence=0.95):
    """Percentile bootstrap interval for median(new) / median(base) - 1."""
    lo, hi = bootstrap_ratio_ci([(new, base)], confidence)
    return lo - 1, hi - 1


def geometric_mean_ci(ratios, confidence=0.95):
    """(geometric mean, low, high): the Student-t interval of the mean log ratio."""
    logs = np.log([r for r in ratios if r > 0])
    if len(logs) == 0:
        return math.nan, math.nan, math.nan
    m = float(np.mean(logs))
    if len(logs) < 2:
        return math.exp(m), math.nan, math.nan
    half = student_t_quantile(0.5 + confidence / 2, len(logs) - 1) * float(np.std(logs, ddof=1)) \
        / math.sqrt(len(logs))
    return math.exp(m), math.exp(m - half), math.exp(m + half)


def paired_ratios(num, num_rounds, den, den_rounds):
    """num[k] / den[k] over the rounds both measured (the paired design: a
    round measures a class's backends side by side)."""
    by_round = dict(zip(den_rounds, den))
    return [x / by_round[r] for x, r in zip(num, num_rounds) if r in by_round and by_round[r] > 0]


def min_paired_p(n):
    """The smallest two-sided p-value the exact sign test gives for n pairs."""
    return 1.0 if n == 0 else min(1.0, 2 / 2 ** n)


def fewest_for(alpha, paired=True):
    """The fewest rounds (paired: the sign test) or repetitions a side (the
    rank test) whose test can reach p < alpha at all."""
    n = 1
    while (min_paired_p(n) if paired else min_achievable_p(n, n)) >= alpha:
        n += 1
    return n


def sign_test_p(ratios):
    """Two-sided exact sign test of the ratios against 1 (pairs at exactly 1
    left out). A sign, not a rank: a round the probes misjudged (one side
    contended, the other not) counts once, however far off its ratio is."""
    return _sign_p(sum(1 for r in ratios if r < 1), sum(1 for r in ratios if r > 1))


def sign_test_interval(ratios, confidence=0.95):
    """The interval of the median ratio that inverts sign_test_p: every
    value m for which the sign test of ratios / m keeps the null at
    1 - confidence (ratios equal to m left out, as sign_test_p does). Its ends
    are order statistics, or just inside one where a ratio sits on the edge,
    so it is exact and distribution-free, and 1.00 lies outside it exactly
    when sign_test_p(ratios) < 1 - confidence: a p and an interval that
    cannot disagree. (NaN, NaN) when too few ratios to exclude anything."""
    xs = sorted(float(r) for r in ratios)
    alpha = 1 - confidence
    if not xs:
        return math.nan, math.nan
    values = sorted(set(xs))
    # The counts below and above m change only at the ratios: each ratio and
    # each gap between two is one case, as are the two sides beyond them.
    # (low end, high end) of each case; a ratio is its own both ends.
    cases = [(-math.inf, values[0])]
    for a, b in zip(values, values[1:]):
        cases += [(a, a), (a, b)]
    cases += [(values[-1], values[-1]), (values[-1], math.inf)]

    def keeps(case):
        low, high = case
        m = low if low == high else (high / 2 if low == -math.inf else
                                     low * 2 if high == math.inf else (low + high) / 2)
        below = bisect.bisect_left(xs, m)
        return _sign_p(below, len(xs) - bisect.bisect_right(xs, m)) >= alpha

    kept = [k for k, case in enumerate(cases) if keeps(case)]
    if not kept or kept[0] == 0 or kept[-1] == len(cases) - 1:
        return math.nan, math.nan
    # A gap's end is a ratio the test rejects: the interval stops just inside it.
    first, last = cases[kept[0]], cases[kept[-1]]
    low = first[0] if first[0] == first[1] else math.nextafter(first[0], math.inf)
    high = last[1] if last[0] == last[1] else math.nextafter(last[1], -math.inf)
    return low, high


@functools.lru_cache(maxsize=4096)
def _sign_p(below, above):
    """sign_test_p for counts: two-sided exact binomial test."""
    if below + above == 0:
        return 1.0  # no pair differs: no evidence either way
    return float(sps.binomtest(above, below + above, 0.5).pvalue)


def paired_ratio_ci(ratio_lists, confidence=0.95):
    """The interval of the geometric mean over sizes of the median per-round
    ratio. One size: sign_test_interval (it agrees with the sign test by
    construction). Several: a percentile bootstrap where each size's rounds
    are resampled (a round is a block of time: rounds are a whole pass over
    the run apart, longer than a noisy neighbour's regime). (NaN, NaN) when a
    size has fewer than 2 rounds."""
    if any(len(r) < 2 for r in ratio_lists) or not ratio_lists:
        return math.nan, math.nan
    if len(ratio_lists) == 1:
        return sign_test_interval(ratio_lists[0], confidence)
    rng = np.random.default_rng(SEED)
    logs = np.zeros(RESAMPLES)
    for ratios in ratio_lists:
        xs = np.asarray(ratios, dtype=float)
        draws = rng.integers(0, len(xs), size=(RESAMPLES, len(xs)))
        logs += np.log(np.median(xs[draws], axis=1))
    geo = np.exp(logs / len(ratio_lists))
    tail = (1 - confidence) / 2
    return float(np.quantile(geo, tail)), float(np.quantile(geo, 1 - tail))
