"""Statistics for benchmark samples, standard library only.

- Student-t confidence intervals (JMH's scoreError: the 99.9% half-width).
- The Mann-Whitney U test (two-sided): exact distribution for small samples
  without ties, normal approximation with tie and continuity correction
  otherwise (Mann & Whitney 1947; tie correction as in Lehmann,
  "Nonparametrics", 1975).
- A percentile bootstrap interval for the relative change of medians.
"""
import math
import random
from functools import lru_cache


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of no samples")
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2


def mean(xs):
    return sum(xs) / len(xs)


def stdev(xs):
    """Sample standard deviation; NaN below two samples."""
    n = len(xs)
    if n < 2:
        return math.nan
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))


def percentile(xs, q):
    """Linear interpolation between closest ranks, q in [0, 100]."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def geometric_mean(xs):
    xs = [x for x in xs if x > 0]
    if not xs:
        return math.nan
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _betacf(a, b, x):
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-14:
            break
    return h


def regularized_beta(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def student_t_cdf(t, df):
    x = df / (df + t * t)
    tail = 0.5 * regularized_beta(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def student_t_quantile(p, df):
    """Inverse of student_t_cdf by bisection (p in (0, 1))."""
    lo, hi = -1e4, 1e4
    for _ in range(200):
        mid = (lo + hi) / 2
        if student_t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def ci_half_width(xs, confidence=0.999):
    """Half-width of the Student-t interval of the mean; NaN below 2 samples."""
    n = len(xs)
    if n < 2:
        return math.nan
    return student_t_quantile(0.5 + confidence / 2, n - 1) * stdev(xs) / math.sqrt(n)


@lru_cache(maxsize=None)
def _u_counts(m, n):
    """Number of arrangements giving each U value, for samples of m and n."""
    # counts[u] for sizes (i, j) built up by adding one element at a time.
    table = {(0, j): [1] for j in range(n + 1)}
    for i in range(1, m + 1):
        table[(i, 0)] = [1]
        for j in range(1, n + 1):
            a = table[(i - 1, j)]  # the new largest element is from sample 1: adds j to U
            b = table[(i, j - 1)]
            size = i * j + 1
            row = [0] * size
            for u, c in enumerate(a):
                row[u + j] += c
            for u, c in enumerate(b):
                row[u] += c
            table[(i, j)] = row
    return tuple(table[(m, n)])


def min_achievable_p(m, n):
    """The smallest two-sided p-value the exact test can give for m and n samples."""
    if m == 0 or n == 0:
        return 1.0
    return min(1.0, 2 / math.comb(m + n, m))


def mann_whitney(a, b):
    """Two-sided Mann-Whitney U test. Returns (U of sample a, p-value, method)."""
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        raise ValueError("both samples need values")
    pooled = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    ranks = [0.0] * len(pooled)
    tie_term = 0
    i = 0
    while i < len(pooled):
        j = i
        while j + 1 < len(pooled) and pooled[j + 1][0] == pooled[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        t = j - i + 1
        tie_term += t ** 3 - t
        i = j + 1
    rank_sum_a = sum(r for r, (_, g) in zip(ranks, pooled) if g == 0)
    u_a = rank_sum_a - m * (m + 1) / 2
    if tie_term == 0 and m + n <= 40:
        counts = _u_counts(m, n)
        total = math.comb(m + n, m)
        u_low = min(u_a, m * n - u_a)
        tail = sum(counts[: int(u_low) + 1]) / total
        return u_a, min(1.0, 2 * tail), "exact"
    mu = m * n / 2
    var = m * n / 12 * ((m + n + 1) - tie_term / ((m + n) * (m + n - 1)))
    if var <= 0:
        return u_a, 1.0, "normal"
    z = (abs(u_a - mu) - 0.5) / math.sqrt(var)
    p = math.erfc(max(z, 0) / math.sqrt(2))
    return u_a, min(1.0, p), "normal"


def bootstrap_change_ci(base, new, confidence=0.95, resamples=4000, seed=20261130):
    """Percentile bootstrap interval for median(new) / median(base) - 1."""
    rng = random.Random(seed)
    changes = []
    for _ in range(resamples):
        mb = median([rng.choice(base) for _ in base])
        mn = median([rng.choice(new) for _ in new])
        if mb != 0:
            changes.append(mn / mb - 1)
    if not changes:
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    return percentile(changes, 100 * alpha), percentile(changes, 100 * (1 - alpha))
