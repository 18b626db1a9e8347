"""Statistics of two sets of runs: deltas, confidence intervals, tests,
minimum detectable effects, Holm's correction, outliers. No printing and no
exits: what a caller should know comes back as values."""
import functools
import math
import warnings
from dataclasses import dataclass
from math import comb

import numpy as np
from scipy import optimize, stats

from .model import Configuration, InputError
from .results import groups


@dataclass
class Comparison:
    key: Configuration
    metric: str
    a: np.ndarray
    b: np.ndarray
    delta_pct: float
    ci_low: float
    ci_high: float
    p: float
    p_adj: float = math.nan        # set by whoever corrects for many comparisons
    verdict: str = ""              # one of verdict.VERDICTS, set by verdict.judge
    result: str = ""               # the verdict in words, with its reason
    mde: float = math.nan          # minimum detectable effect, % (mde_pct)
    direction: int = +1            # +1 higher is better, -1 lower
    unit: str = ""
    estimate: str = "ratio of means"   # what delta_pct and its interval estimate (the test's own)
    ci_level: float = 0.95         # the confidence of [ci_low, ci_high]

    def good(self):
        """Delta signed so that positive is better."""
        return self.delta_pct * self.direction


def scaled(a, b):
    """a and b divided by a's mean magnitude (b's where a's is 0). Every
    statistic here is free of scale; figures of 1e-300 would lose their
    spread to underflow (their squares are 0) and large ones their squares
    to overflow, so all are computed on numbers near 1."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = next((abs(v.mean()) for v in (a, b) if len(v) and v.mean()), 1.0)
    return a / scale, b / scale


def _log_ratio(a, b):
    """log(mean(b) / mean(a)), and the delta method's variance of it by side:
    [(var(side) / (n mean^2), n - 1)] for each side of two runs or more."""
    a, b = scaled(a, b)
    parts = [(side.var(ddof=1) / (len(side) * side.mean() ** 2), len(side) - 1)
             for side in (a, b) if len(side) > 1]
    return math.log(b.mean() / a.mean()), parts


def _t_half_width(parts, level):
    """Student's t half-width of a sum of variances, at its Welch-Satterthwaite
    degrees of freedom (0 where there is no spread)."""
    var = sum(v for v, _ in parts)
    if var <= 0:
        return 0.0
    df = var ** 2 / sum(v ** 2 / dof for v, dof in parts)
    return stats.t.ppf(0.5 + level / 2, df) * math.sqrt(var)


def ratio_ci(a, b, level=0.95):
    """CI of mean(b) / mean(a) as a percent change: Student's t on the log
    ratio at Welch's degrees of freedom. (A percentile bootstrap, used until
    December 2026, held the truth in 69% of simulated A/As of two runs a
    side, 84% of three, 87% of five: too few runs to resample.)"""
    a, b = scaled(a, b)
    if len(a) < 2 or len(b) < 2 or a.mean() <= 0 or b.mean() <= 0:
        return math.nan, math.nan
    center, parts = _log_ratio(a, b)
    half = _t_half_width(parts, level)
    return (math.exp(center - half) - 1) * 100, (math.exp(center + half) - 1) * 100


def _t_mde(se, df, level, power):
    """The smallest shift a two-sided t test at level with this standard
    error and these (known) degrees of freedom finds with the given power
    (noncentral t), in the data's unit."""
    if se == 0:
        return 0.0
    crit = stats.t.ppf(1 - level / 2, df)

    def short(nc):
        return stats.nct.sf(crit, df, nc) + stats.nct.cdf(-crit, df, nc) - power
    hi = crit + 10
    while short(hi) < 0:
        hi *= 2
    return optimize.brentq(short, 0, hi, xtol=1e-6) * se


# Trials of the simulated power analyses (fixed seeds: a figure repeats), and
# the most runs a side a simulation draws; past it a test's MDE comes from
# its large-sample formula.
TRIALS = 2000
SIMULATED_RUNS = 30


@functools.lru_cache(maxsize=4096)
def _simulated_shift(test, na, nb, sd_a, sd_b, level, power):
    """The smallest shift of b's mean, in units of the larger sd, that the
    test finds at level in `power` of the trials, on Gaussian runs with these
    sds (the larger 1): bisection on common random numbers, so the rate rises
    with the shift. inf where even 64 sds are not seen."""
    rng = np.random.default_rng(20261203)
    x = rng.standard_normal((TRIALS, na)) * sd_a
    y = rng.standard_normal((TRIALS, nb)) * sd_b
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rate = TESTS[test].rejection_rate(x, y, level)
    lo, hi = 0.0, 64.0
    if rate(hi) < power:
        return math.inf
    for _ in range(24):     # to 64 / 2^24 sd
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if rate(mid) >= power else (mid, hi)
    return hi


class TwoSample:
    """A test of two independent sets. Its MDE is the change it finds with
    the given power on Gaussian runs of each set's own spread and count,
    simulated with the test itself (so Welch's estimated degrees of freedom,
    Yuen's trimming, the range rule's ranges and the rank test's steps all
    count); past SIMULATED_RUNS a side, a large-sample formula. A test
    whose scale does not move with a shift gives, per trial, the gap d and
    the bar k it must clear (|shift + d| > k rejects), so any shift's
    rejection rate is one comparison."""
    name = words = ""
    simulated_runs = SIMULATED_RUNS     # past this many a side, large_sample_mde

    def p(self, a, b):
        return float(self.pvalues(np.asarray(a)[None, :], np.asarray(b)[None, :])[0])

    def rejection_rate(self, x, y, level):
        d, k = self.gap_and_bar(x, y, level)
        return lambda shift: np.mean(np.abs(shift + d) > k)

    def smallest_p(self, na, nb):
        return 0.0

    def mde(self, a, b, level, power, n=None):
        na, nb = (n, n) if n else (len(a), len(b))
        sd_a, sd_b = np.std(a, ddof=1), np.std(b, ddof=1)
        scale = max(sd_a, sd_b)
        if scale == 0:
            return 0.0
        if min(na, nb) > self.simulated_runs:
            shift = self.large_sample_mde(sd_a, sd_b, na, nb, level, power)
        else:
            shift = scale * _simulated_shift(self.name, na, nb, round(sd_a / scale, 3),
                                             round(sd_b / scale, 3), level, power)
        return shift / abs(np.mean(a)) * 100

    def large_sample_mde(self, sd_a, sd_b, na, nb, level, power):
        """Welch's noncentral t, its degrees of freedom as large samples give them."""
        ea, eb = sd_a ** 2 / na, sd_b ** 2 / nb
        df = (ea + eb) ** 2 / (ea ** 2 / (na - 1) + eb ** 2 / (nb - 1))
        return _t_mde(math.sqrt(ea + eb), df, level, power)

    # What interval() estimates: a t test's change is of the means.
    estimate_words = "ratio of means"

    def interval(self, a, b, level):
        """(change %, low %, high %): the test's own estimate of the change
        and its interval at confidence level (ratio_ci for the means)."""
        return (b.mean() / a.mean() - 1) * 100, *ratio_ci(a, b, level)

    def half_width_at(self, a, b, n, level):
        """The half-width (in %) of interval() with n runs a side of these
        spreads: the interval of two sets of n evenly spaced normal scores
        with each set's mean and sd."""
        _, low, high = self.interval(_like(a, n), _like(b, n), level)
        return (high - low) / 2


def _like(v, n):
    """n runs with v's mean and sd, at evenly spaced normal scores."""
    z = stats.norm.ppf((np.arange(n) + 0.5) / n)
    return v.mean() + np.std(v, ddof=1) * (z - z.mean()) / z.std(ddof=1)


def _t_bar(err_a, err_b, df_a, df_b, level):
    """Welch's bar per trial: the critical t at its Welch-Satterthwaite
    degrees of freedom times its standard error (0 where there is no spread).
    Those degrees of freedom lie between the smaller side's and the sum, and
    the critical t is smooth in them: interpolated on a grid there."""
    se2 = err_a + err_b
    with np.errstate(all="ignore"):
        df = se2 ** 2 / (err_a ** 2 / df_a + err_b ** 2 / df_b)
    grid = np.geomspace(min(df_a, df_b), df_a + df_b, 256)
    crit = np.interp(np.log(np.where(se2 > 0, df, 1.0)), np.log(grid),
                     stats.t.ppf(1 - level / 2, grid))
    return np.where(se2 > 0, crit * np.sqrt(se2), 0.0)


class Welch(TwoSample):
    """Welch's t: means, each set with its own variance."""
    name, words = "welch", "Welch t"

    def pvalues(self, x, y):
        return stats.ttest_ind(x, y, axis=1, equal_var=False).pvalue

    def gap_and_bar(self, x, y, level):
        na, nb = x.shape[1], y.shape[1]
        return (y.mean(axis=1) - x.mean(axis=1),
                _t_bar(x.var(axis=1, ddof=1) / na, y.var(axis=1, ddof=1) / nb, na - 1, nb - 1,
                       level))


def _trimmed(v, trim=0.2):
    """Per row: (20%-trimmed mean, Yuen's squared standard error, runs kept)."""
    n = v.shape[1]
    g = int(trim * n)
    v = np.sort(v, axis=1)
    kept = n - 2 * g
    winsorized = np.clip(v, v[:, g:g + 1], v[:, n - g - 1:n - g])
    return (v[:, g:n - g].mean(axis=1),
            (n - 1) * winsorized.var(axis=1, ddof=1) / (kept * (kept - 1)), kept)


class Yuen(TwoSample):
    """Yuen's t: Welch's test on 20%-trimmed means, robust to one bad run."""
    name, words = "yuen", "Yuen trimmed t"

    def pvalues(self, x, y):
        return stats.ttest_ind(x, y, axis=1, equal_var=False, trim=0.2).pvalue

    def gap_and_bar(self, x, y, level):
        (ma, ea, ha), (mb, eb, hb) = _trimmed(x), _trimmed(y)
        return mb - ma, _t_bar(ea, eb, ha - 1, hb - 1, level)

    def large_sample_mde(self, sd_a, sd_b, na, nb, level, power):
        # trimmed means of Gaussian runs: about 1.06 times the mean's standard error
        return 1.06 * super().large_sample_mde(sd_a, sd_b, na, nb, level, power)

    estimate_words = "ratio of 20%-trimmed means"

    def interval(self, a, b, level):
        """Yuen's: the trimmed means' difference, Welch's t on Yuen's
        standard errors at their degrees of freedom, in % of a's trimmed mean."""
        (ma, ea, ha), (mb, eb, hb) = (_trimmed(v[None, :]) for v in (a, b))
        ma, mb = float(ma[0]), float(mb[0])
        if ma <= 0:
            return math.nan, math.nan, math.nan
        half = _t_half_width([(float(ea[0]), ha - 1), (float(eb[0]), hb - 1)], level)
        gap = mb - ma
        return gap / ma * 100, (gap - half) / ma * 100, (gap + half) / ma * 100


@functools.lru_cache(maxsize=None)
def _u_null(na, nb):
    """The exact distribution of Mann-Whitney's U (b's runs above a's) for
    na and nb runs without ties, as probabilities of U = 0 .. na * nb."""
    # f[i][j]: the counts for i runs of a and j of b, by U
    f = [[np.ones(1) for _ in range(nb + 1)] for _ in range(na + 1)]
    for i in range(1, na + 1):
        for j in range(1, nb + 1):
            b_top = np.concatenate([np.zeros(i), f[i][j - 1]])  # the largest is b's: above i
            a_top = f[i - 1][j]
            size = max(len(b_top), len(a_top))
            f[i][j] = np.pad(b_top, (0, size - len(b_top))) + np.pad(a_top, (0, size - len(a_top)))
    return f[na][nb] / f[na][nb].sum()


@functools.lru_cache(maxsize=None)
def _u_exact_p(na, nb):
    """The two-sided exact p of each U."""
    pmf = _u_null(na, nb)
    low, high = np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1]
    return np.minimum(1, 2 * np.minimum(low, high))


# scipy's mannwhitneyu is exact up to this many runs a side (without ties),
# and uses the normal approximation with a continuity correction past it.
EXACT_U_RUNS = 8


class MannWhitney(TwoSample):
    """Mann-Whitney U: ranks. Its exact p cannot fall below 2 / C(na + nb, na):
    with 2 runs a side, never below 1/3."""
    name, words = "mwu", "Mann-Whitney U"

    def p(self, a, b):
        return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)

    def pvalues(self, x, y):
        """scipy's p for runs without ties (Gaussian ones), from U directly."""
        na, nb = x.shape[1], y.shape[1]
        u = (y[:, None, :] > x[:, :, None]).sum(axis=(1, 2))
        if max(na, nb) <= EXACT_U_RUNS:
            return _u_exact_p(na, nb)[u]
        mu, sigma = na * nb / 2, math.sqrt(na * nb * (na + nb + 1) / 12)
        z = (np.maximum(u, na * nb - u) - mu - 0.5) / sigma
        return np.minimum(1, 2 * stats.norm.sf(z))

    def smallest_p(self, na, nb):
        return min(1.0, 2 / comb(na + nb, na))

    def rejection_rate(self, x, y, level):
        return lambda shift: np.mean(self.pvalues(x, y + shift) < level)

    def large_sample_mde(self, sd_a, sd_b, na, nb, level, power):
        # its efficiency against the t test on Gaussian runs is 3/pi
        return super().large_sample_mde(sd_a, sd_b, na, nb, level, power) / math.sqrt(3 / math.pi)

    estimate_words = "Hodges-Lehmann shift"

    def interval(self, a, b, level):
        """The Hodges-Lehmann shift (the median of every after - before
        difference) and the rank test's own interval of it (Moses': the
        differences whose rank U's null distribution puts at its tails),
        in % of a's median. Infinite where the test could not reject any
        shift at that level (too few runs)."""
        center = float(np.median(a))
        if center <= 0:
            return math.nan, math.nan, math.nan
        diffs = np.sort((b[None, :] - a[:, None]).ravel())
        shift = float(np.median(diffs)) / center * 100
        c = _rank_bound(len(a), len(b), 1 - level)
        if c < 1:
            return shift, -math.inf, math.inf
        return shift, diffs[c - 1] / center * 100, diffs[len(diffs) - c] / center * 100


def _rank_bound(na, nb, gamma):
    """How many of the na x nb differences at each end lie outside a rank
    interval of confidence 1 - gamma: the most c with P(U < c) <= gamma / 2
    (exact, or the normal approximation past EXACT_U_RUNS runs a side)."""
    if max(na, nb) <= EXACT_U_RUNS:
        return int(np.sum(np.cumsum(_u_null(na, nb)) <= gamma / 2 * (1 + 1e-9)))
    sigma = math.sqrt(na * nb * (na + nb + 1) / 12)
    return max(0, int(math.floor(na * nb / 2 - stats.norm.ppf(1 - gamma / 2) * sigma)))


# Draws of the range rule's null distribution (fewer for many runs, to bound memory).
NULL_DRAWS = 200000


def _range_statistic(a, b):
    """|mean(b) - mean(a)| over the larger of the two sets' ranges, per row."""
    gap = np.abs(np.mean(b, axis=-1) - np.mean(a, axis=-1))
    spread = np.maximum(np.ptp(a, axis=-1), np.ptp(b, axis=-1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(spread > 0, gap / np.where(spread > 0, spread, 1),
                        np.where(gap > 0, np.inf, 0.0))


@functools.lru_cache(maxsize=None)
def _range_null(na, nb):
    """The range statistic of pairs of Gaussian sets alike, sorted."""
    rng = np.random.default_rng(2026)
    draws = min(NULL_DRAWS, int(8e6 // (na + nb)))
    return np.sort(_range_statistic(rng.standard_normal((draws, na)),
                                    rng.standard_normal((draws, nb))))


class Range(TwoSample):
    """The range rule, for a clock with almost no noise (icount) and a few
    boots a side: the gap between the means in units of the larger range
    within either set. Its p is the share of pairs of Gaussian sets alike
    whose gap is as large (simulated once per run count), so it holds alpha
    as the t tests do. With 2 boots a side Welch's t has one degree of
    freedom and needs 64 standard errors at 0.01; the rule needs 5.6 ranges."""
    name, words = "range", "range rule"
    simulated_runs = math.inf           # no large-sample formula: always simulated

    def pvalues(self, x, y):
        null = _range_null(x.shape[-1], y.shape[-1])
        t = _range_statistic(x, y)
        p = (len(null) - np.searchsorted(null, t, side="left") + 1) / (len(null) + 1)
        return np.where(t == 0, 1.0, p)

    def smallest_p(self, na, nb):
        return 1 / (len(_range_null(na, nb)) + 1)

    def gap_and_bar(self, x, y, level):
        spread = np.maximum(np.ptp(x, axis=1), np.ptp(y, axis=1))
        # p <= level where the gap is past the null's (1 - level) quantile
        return y.mean(axis=1) - x.mean(axis=1), range_critical(x.shape[1], y.shape[1], level) * spread

    def interval(self, a, b, level):
        """The gap of the means, give or take the critical number of the
        larger range (the rule inverted: a shift of the after set by the gap
        does not change the ranges), in % of a's mean."""
        mean = a.mean()
        if mean <= 0:
            return math.nan, math.nan, math.nan
        gap = b.mean() - mean
        half = range_critical(len(a), len(b), 1 - level) * max(np.ptp(a), np.ptp(b))
        return gap / mean * 100, (gap - half) / mean * 100, (gap + half) / mean * 100


def range_critical(na, nb, level):
    """How many times the larger range the gap must be to reach level."""
    null = _range_null(na, nb)
    return float(null[min(len(null) - 1, int(math.ceil((1 - level) * len(null))))])


class Paired:
    """A paired t on the rounds' relative differences b/a - 1 (run i of a
    with run i of b): slow drift of the machine hits both runs of a round.
    A one-sample t with n - 1 degrees of freedom: its power is exact."""
    name, words = "paired", "paired t on the rounds"

    def p(self, a, b):
        return paired_p(a, b)

    def smallest_p(self, na, nb):
        return 0.0

    def mde(self, a, b, level, power, n=None):
        r = np.asarray(b) / np.asarray(a) - 1
        k = n or len(r)
        return _t_mde(np.std(r, ddof=1) / math.sqrt(k), k - 1, level, power) * 100

    estimate_words = "mean of the rounds' ratios"

    def interval(self, a, b, level):
        """The mean of the rounds' relative differences and its t interval."""
        r = (b / a - 1) * 100
        return r.mean(), *(r.mean() + np.array([-1, 1]) * self.half(r, len(r), level))

    def half_width_at(self, a, b, n, level):
        return self.half(b / a - 1, n, level) * 100

    @staticmethod
    def half(r, n, level):
        """The t interval's half-width of n differences of r's sd."""
        return stats.t.ppf(0.5 + level / 2, n - 1) * np.std(r, ddof=1) / math.sqrt(n)


TESTS = {t.name: t for t in (Welch(), Yuen(), MannWhitney(), Range(), Paired())}


def estimate(test, a, b, level):
    """(change %, low %, high %) of the test that judges a and b: its own
    estimate of the change (the means' ratio for Welch's t and the range
    rule, the trimmed means' for Yuen's, the Hodges-Lehmann shift for
    Mann-Whitney's, the rounds' mean ratio for the paired t) and its interval
    at confidence level. With fewer than two runs a side, the means' ratio
    and no interval."""
    a, b = scaled(a, b)
    if not len(a) or not len(b) or not a.mean():
        return math.nan, math.nan, math.nan
    if len(a) < 2 or len(b) < 2:
        return (b.mean() / a.mean() - 1) * 100, math.nan, math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return tuple(map(float, TESTS[test].interval(a, b, level)))


def p_value(a, b, test):
    a, b = scaled(a, b)
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if np.all(a == a[0]) and np.all(b == b[0]):
        return 1.0 if a[0] == b[0] else TESTS[test].smallest_p(len(a), len(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # near-equal runs: scipy warns of lost precision
        return TESTS[test].p(a, b)


def pooled_sd(a, b):
    return math.sqrt(((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1)) /
                     (len(a) + len(b) - 2))


def mde_of_test(test, a, b, alpha, power=0.8):
    """The minimum detectable effect of the test that judges a and b: the
    smallest change, in % of a's mean, that this test finds at alpha with the
    given power, for these run counts and spreads. NaN with fewer than two
    runs a side."""
    if len(a) < 2 or len(b) < 2 or not np.mean(a):
        return math.nan
    a, b = scaled(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(TESTS[test].mde(a, b, alpha, power))


# The most runs a side runs_needed looks at.
MAX_RUNS = 200


def _fewest_runs(enough):
    """The fewest runs a side n (2 to MAX_RUNS) for which enough(n) holds,
    enough being monotone; MAX_RUNS + 1 where even MAX_RUNS would not do."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        lo, hi = 1, 2
        while not enough(hi):
            if hi >= MAX_RUNS:
                return MAX_RUNS + 1
            lo, hi = hi, min(2 * hi, MAX_RUNS)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if enough(mid) else (mid, hi)
        return hi


def runs_needed(test, a, b, pct, alpha, power=0.8):
    """The fewest runs a side (of these spreads) at which the test's MDE is
    pct % or less; MAX_RUNS + 1 where even MAX_RUNS would not do."""
    if len(a) < 2 or len(b) < 2 or not pct:
        return math.nan
    a, b = scaled(a, b)
    return _fewest_runs(lambda n: TESTS[test].mde(a, b, alpha, power, n=n) <= pct)


def runs_to_bound(test, a, b, margin, level):
    """The fewest runs a side (of these spreads) at which the test's
    interval at level is narrower than margin % each way: what it takes to
    tell a change from the threshold it lies margin % from."""
    if len(a) < 2 or len(b) < 2 or margin <= 0:
        return MAX_RUNS + 1
    a, b = scaled(a, b)
    return _fewest_runs(lambda n: TESTS[test].half_width_at(a, b, n, level) < margin)


# The share of sets of Gaussian runs in which the outlier rule may flag a run.
OUTLIER_RATE = 0.001


@functools.lru_cache(maxsize=None)
def outlier_bar(n, rate=OUTLIER_RATE):
    """How many MADs from the median the farthest of n Gaussian runs lies in
    no more than `rate` of sets: simulated once per n (fixed seed), so a
    set of normal draws flags a run that seldom. (A fixed 3.5 robust z,
    used until December 2026, flagged a run in 21% of Gaussian sets of 5:
    their MAD is often small by chance.)"""
    rng = np.random.default_rng(20261207)
    x = rng.standard_normal((min(200000, int(4e6 // n)), n))
    med = np.median(x, axis=1, keepdims=True)
    far = np.abs(x - med).max(axis=1) / np.median(np.abs(x - med), axis=1)
    return float(np.quantile(far, 1 - rate))


def outliers(runs, metric, cv_factor=3.0, min_dev=0.005):
    """(run, why) for runs far from their group (four runs or more): more
    MADs from the median than outlier_bar allows n Gaussian runs, and more
    than min_dev (0.5%) from it; or a within-run CV over cv_factor x the
    group's median within-run CV (and over 2%). The min_dev floor keeps a
    noise-free clock, whose MAD is near zero, from calling a 0.01% wobble an
    outlier."""
    keyed = {}
    for r in runs:
        if metric in r.metrics:
            keyed.setdefault(r.key(), []).append(r)
    out = []
    for rs in keyed.values():
        v = np.array([r.metrics[metric] for r in rs])
        med = np.median(v)
        mad = np.median(np.abs(v - med))
        cvs = np.array([r.within_cv for r in rs])
        med_cv = np.nanmedian(cvs) if np.isfinite(cvs).any() else math.nan
        bar = outlier_bar(len(rs)) if len(rs) >= 4 else math.inf
        for r, x, cv in zip(rs, v, cvs):
            why = []
            if mad and abs(x - med) / mad > bar and abs(x / med - 1) > min_dev:
                why.append(f"{(x / med - 1) * 100:+.1f}% from the group's median "
                           f"({abs(x - med) / mad:.0f} MADs; {len(rs)} Gaussian runs reach "
                           f"{bar:.0f} in 1 set of {1 / OUTLIER_RATE:.0f})")
            if np.isfinite(cv) and cv > max(0.02, cv_factor * med_cv):
                why.append(f"within-run CV {cv * 100:.1f}% (group median {med_cv * 100:.1f}%)")
            if why:
                out.append((r, "; ".join(why)))
    return out


def holm(pvalues):
    """Holm-adjusted p-values, in the input order (NaN stays NaN)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    order = sorted(idx, key=lambda i: pvalues[i])
    adj = [math.nan] * len(pvalues)
    running = 0.0
    m = len(order)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adj[i] = running
    return adj


def paired(a_runs, b_runs, metric, key, ignore=()):
    """(a, b) arrays of the runs of one group that share a round, in round order."""
    def by_round(runs):
        return {r.round: r.metrics[metric] for r in runs
                if metric in r.metrics and r.round is not None and r.key(ignore) == key}
    pa, pb = by_round(a_runs), by_round(b_runs)
    common = sorted(set(pa) & set(pb))
    return np.array([pa[n] for n in common]), np.array([pb[n] for n in common])


def paired_p(a, b):
    """p of a paired t-test on the rounds' relative differences b/a - 1."""
    if len(a) < 2:
        return math.nan
    r = b / a - 1
    if np.all(r == r[0]):
        return 1.0 if r[0] == 0 else 0.0
    return float(stats.ttest_1samp(r, 0).pvalue)


def bare_unit(unit):
    """A unit without its clock or model ("M ops/s [icount: ...]" -> "M ops/s"):
    sets on different clocks are refused as environments, not as units."""
    return unit.split(" [")[0]


def compare(a_runs, b_runs, metric, test="welch", level=0.95, ignore=()):
    """One Comparison per group present in both sets, with the test's own
    estimate of the change and its interval at level; parameters in ignore do
    not take part in matching (e.g. max_entries, to set two sizes side by side).
    test "paired" compares the runs of the same round only (Run.round). A
    group whose unit differs between the sets is refused (InputError)."""
    ga, gb = groups(a_runs, metric, ignore), groups(b_runs, metric, ignore)
    first = {}
    for side, runs in enumerate((a_runs, b_runs)):
        for r in runs:
            if metric in r.metrics:
                first.setdefault((side, r.key(ignore)), r)
    out = []
    for key in sorted(set(ga) & set(gb)):
        units = [bare_unit(first[(side, key)].unit(metric)) for side in (0, 1)]
        if units[0] != units[1]:
            raise InputError(f"{key.benchmark}: its {metric} is in {units[0]} before and "
                             f"{units[1]} after; compare results of one unit")
        a, b = ga[key], gb[key]
        if test == "paired":
            a, b = paired(a_runs, b_runs, metric, key, ignore)
            if not len(a):
                continue
        out.append(Comparison(key, metric, a, b, *estimate(test, a, b, level),
                              p_value(a, b, test), direction=first[(0, key)].direction(metric),
                              unit=first[(0, key)].unit(metric),
                              estimate=TESTS[test].estimate_words, ci_level=level))
    return out


def too_few(c, min_runs):
    """"too few runs (2/2 of 5 a side: 3 more)", or "" where there are enough."""
    if len(c.a) >= min_runs and len(c.b) >= min_runs:
        return ""
    more = min_runs - min(len(c.a), len(c.b))
    return f"too few runs ({len(c.a)}/{len(c.b)} of {min_runs} a side: {more} more)"


# The one convention of every geomean: each ratio turned so that above 1 is better.
GEOMEAN_WORDS = "+ is better"


@dataclass
class Geomean:
    """One number for a table: the geometric mean of its after/before ratios,
    each turned so that above 1 is better (a latency that halves counts as a
    throughput that doubles), as a percent change, with a confidence interval."""
    delta_pct: float
    ci_low: float
    ci_high: float
    n: int


def geomean(comps, level=0.95):
    """The Geomean of comparisons whose means are positive, or None: the mean
    of their log ratios, with Student's t at the Welch-Satterthwaite degrees
    of freedom of the sum of their variances (ratio_ci's interval, over many
    rows; a normal one read an A/A of sampled layouts as a suite-wide change)."""
    rows = [c for c in comps if len(c.a) and len(c.b) and c.a.mean() > 0 and c.b.mean() > 0]
    if not rows:
        return None
    logs, parts = [], []
    for c in rows:
        center, row_parts = _log_ratio(c.a, c.b)
        logs.append(c.direction * center)
        parts += row_parts
    mean = float(np.mean(logs))
    half = _t_half_width(parts, level) / len(rows)
    return Geomean((math.exp(mean) - 1) * 100, (math.exp(mean - half) - 1) * 100,
                   (math.exp(mean + half) - 1) * 100, len(rows))


def geomean_text(g):
    """"geomean -0.36% [-0.50, -0.21]% over 4 (+ is better)" for a summary line."""
    return (f"geomean {g.delta_pct:+.2f}% [{g.ci_low:+.2f}, {g.ci_high:+.2f}]% over {g.n} "
            f"({GEOMEAN_WORDS})")
