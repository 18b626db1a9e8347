"""Statistics of two sets of runs: deltas, bootstrap intervals, tests,
minimum detectable effects, Holm's correction, outliers. No printing and no
exits: what a caller should know comes back as values."""
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

from .model import Configuration
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

    def good(self):
        """Delta signed so that positive is better."""
        return self.delta_pct * self.direction


def ratio_ci(a, b, level=0.95, resamples=10000):
    """Percentile bootstrap CI of mean(b) / mean(a), as a percent change."""
    if len(a) < 2 or len(b) < 2:
        return math.nan, math.nan
    if np.ptp(a) == 0 and np.ptp(b) == 0:   # no spread to resample: the ratio is exact
        d = (b[0] / a[0] - 1) * 100
        return d, d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(y, axis=axis) / np.mean(x, axis=axis),
                              vectorized=True, paired=False, confidence_level=level,
                              n_resamples=resamples, method="percentile",
                              random_state=np.random.default_rng(12345))
    lo, hi = res.confidence_interval
    return (lo - 1) * 100, (hi - 1) * 100


def p_value(a, b, test):
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if np.all(a == a[0]) and np.all(b == b[0]):
        return 1.0 if a[0] == b[0] else 0.0
    if test == "welch":
        return float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    if test == "yuen":     # Welch's t on 20%-trimmed means: robust to an outlier run
        return float(stats.ttest_ind(a, b, equal_var=False, trim=0.2).pvalue)
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


_POWER = TTestIndPower()
_POWER_PAIRED = TTestPower()


def pooled_sd(a, b):
    return math.sqrt(((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1)) /
                     (len(a) + len(b) - 2))


def _solve(model=_POWER, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(model.solve_power(alpha=kw.pop("alpha"), power=kw.pop("power"),
                                       alternative="two-sided", **kw))


def mde_pct(a, b, alpha, power=0.8):
    """The minimum detectable effect: the smallest change, in % of the first
    set's mean, that a two-sided two-sample t-test at alpha finds with the
    given power, for these run counts and their pooled run-to-run sd
    (statsmodels' TTestIndPower). NaN with fewer than two runs a side."""
    if len(a) < 2 or len(b) < 2 or not np.mean(a):
        return math.nan
    sd = pooled_sd(a, b)
    if sd == 0:
        return 0.0
    d = _solve(effect_size=None, nobs1=len(a), ratio=len(b) / len(a), alpha=alpha, power=power)
    return d * sd / abs(np.mean(a)) * 100


def runs_needed(a, b, pct, alpha, power=0.8):
    """Runs a side that would detect a change of pct % with this noise."""
    if len(a) < 2 or len(b) < 2 or not pct:
        return math.nan
    sd = pooled_sd(a, b)
    if sd == 0:
        return 2
    d = pct / 100 * abs(np.mean(a)) / sd
    # Near-zero noise (the icount clock) makes d huge, where the solver's
    # noncentral t overflows: two runs do once d is past what two runs see.
    if d >= _solve(effect_size=None, nobs1=2, ratio=1.0, alpha=alpha, power=power):
        return 2
    return max(2, math.ceil(_solve(effect_size=d, nobs1=None, ratio=1.0, alpha=alpha, power=power)))


def paired_mde_pct(a, b, alpha, power=0.8):
    """The MDE of a paired comparison (run i of a with run i of b, e.g. the
    same round of an interleaved A/B): from the sd of the per-pair relative
    differences, with a one-sample t power analysis."""
    r = np.asarray(b) / np.asarray(a) - 1
    if len(r) < 2:
        return math.nan
    sd = np.std(r, ddof=1)
    if sd == 0:
        return 0.0
    return _solve(_POWER_PAIRED, effect_size=None, nobs=len(r), alpha=alpha, power=power) * sd * 100


def sequential_look(a, b, target_pct, alpha, looks, power=0.8, paired=False):
    """One look of a sequential A/B that may stop at any of `looks` looks.
    alpha is spent equally over the looks (Bonferroni), so however it stops
    the false-alarm rate stays at or below alpha. Returns (decision, delta %,
    p, MDE %): "difference" when the change is significant at alpha / looks,
    "no change" when the MDE at that level is below target_pct, else
    "continue"."""
    level = alpha / looks
    delta = (np.mean(b) / np.mean(a) - 1) * 100
    a, b = np.asarray(a), np.asarray(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = paired_p(a, b) if paired else p_value(a, b, "welch")
        mde = mde_of_test("paired" if paired else "welch", a, b, level, power)
    if p < level:
        return "difference", delta, p, mde
    if mde < target_pct:
        return "no change", delta, p, mde
    return "continue", delta, p, mde


def outliers(runs, metric, z=3.5, cv_factor=3.0, min_dev=0.005):
    """(run, why) for runs far from their group: a robust z-score (median and
    MAD) above z and more than min_dev (0.5%) from the median, or a within-run
    CV over cv_factor x the group's median within-run CV (and over 2%). The
    min_dev floor keeps a noise-free clock, whose MAD is near zero, from
    calling a 0.01% wobble an outlier."""
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
        for r, x, cv in zip(rs, v, cvs):
            why = []
            if len(rs) >= 4 and mad and 0.6745 * abs(x - med) / mad > z \
                    and abs(x / med - 1) > min_dev:
                why.append(f"{(x / med - 1) * 100:+.1f}% from the group's median")
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


def compare(a_runs, b_runs, metric, test="mwu", level=0.95, ignore=()):
    """One Comparison per group present in both sets; parameters in ignore do
    not take part in matching (e.g. max_entries, to set two sizes side by side).
    test "paired" compares the runs of the same round only (Run.round)."""
    ga, gb = groups(a_runs, metric, ignore), groups(b_runs, metric, ignore)
    first = {}
    for r in a_runs:
        if metric in r.metrics:
            first.setdefault(r.key(ignore), r)
    out = []
    for key in sorted(set(ga) & set(gb)):
        a, b = ga[key], gb[key]
        if test == "paired":
            a, b = paired(a_runs, b_runs, metric, key, ignore)
            if not len(a):
                continue
        delta = (np.mean(b) / np.mean(a) - 1) * 100 if np.mean(a) else math.nan
        lo, hi = ratio_ci(a, b, level)
        p = paired_p(a, b) if test == "paired" else p_value(a, b, test)
        out.append(Comparison(key, metric, a, b, delta, lo, hi, p,
                              direction=first[key].direction(metric),
                              unit=first[key].unit(metric)))
    return out, sorted(set(ga) ^ set(gb))


def mde_of_test(test, a, b, alpha, power=0.8):
    """The MDE of the test that judges a and b: paired or two-sample."""
    return paired_mde_pct(a, b, alpha, power) if test == "paired" else mde_pct(a, b, alpha, power)


def too_few(c, min_runs):
    """"too few runs (2/2 of 5 a side: 3 more)", or "" where there are enough."""
    if len(c.a) >= min_runs and len(c.b) >= min_runs:
        return ""
    more = min_runs - min(len(c.a), len(c.b))
    return f"too few runs ({len(c.a)}/{len(c.b)} of {min_runs} a side: {more} more)"


@dataclass
class Geomean:
    """One number for a table: the geometric mean of its after/before ratios
    (oriented so that above 1 is better where the rows' directions differ),
    as a percent change, with a confidence interval."""
    delta_pct: float
    ci_low: float
    ci_high: float
    n: int
    oriented: bool


def geomean(comps, level=0.95):
    """The Geomean of comparisons whose means are positive, or None. Each
    row's log ratio has the delta method's variance, var(b)/(n_b mean_b^2) +
    var(a)/(n_a mean_a^2); their mean's CI is normal on the log scale."""
    rows = [c for c in comps if len(c.a) and len(c.b) and c.a.mean() > 0 and c.b.mean() > 0]
    if not rows:
        return None
    oriented = len({c.direction for c in rows}) > 1
    logs, var = [], 0.0
    for c in rows:
        sign = c.direction if oriented else 1
        logs.append(sign * math.log(c.b.mean() / c.a.mean()))
        for side in (c.a, c.b):
            if len(side) > 1:
                var += side.var(ddof=1) / (len(side) * side.mean() ** 2)
    mean = float(np.mean(logs))
    half = stats.norm.ppf(0.5 + level / 2) * math.sqrt(var) / len(rows)
    return Geomean((math.exp(mean) - 1) * 100, (math.exp(mean - half) - 1) * 100,
                   (math.exp(mean + half) - 1) * 100, len(rows), oriented)


def geomean_text(g):
    """"geomean -0.36% [-0.50, -0.21]% over 4" for a summary line."""
    return (f"geomean {g.delta_pct:+.2f}% [{g.ci_low:+.2f}, {g.ci_high:+.2f}]% over {g.n}"
            + (" (oriented: + is better)" if g.oriented else ""))
