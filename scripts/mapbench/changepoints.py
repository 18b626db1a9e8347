"""Change points in a series of figures over commits: E-divisive means
(Matteson and James), with the changes Hunter (Fleming et al., 2023) and
Apache Otava made for performance CI: a test of the two sides in place of
the permutation test (fast and deterministic; a t-test and a rank test here,
see split_p), sliding windows (a step late in a long series is not drowned by
the rest), and weak candidates re-judged at a strict level.
Written here from their published description; pure numpy and scipy.

A change point is the index of the first point after the change.
"""
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

# Otava's defaults: a window of points looked at together, and the p below
# which a split is a change point; weak candidates are kept at WEAK_P first.
WINDOW = 30
STRICT_P = 0.001
WEAK_P = 0.01
MIN_SIZE = 2     # points a side of a split: a t-test needs two


def energy_split(z, min_size=MIN_SIZE):
    """(tau, kappa, q) of the split of z that E-divisive finds most
    divergent: over every tau and every end kappa of the part after it, the
    largest Q(tau, kappa) = tau (kappa - tau) / kappa * E, E the energy
    distance of z[:tau] and z[tau:kappa] (twice the mean distance between the
    parts, less each part's mean distance within). None where z is too short."""
    n = len(z)
    if n < 2 * min_size:
        return None
    d = np.abs(z[:, None] - z[None, :])
    best = None
    for tau in range(min_size, n - min_size + 1):
        kappas = np.arange(tau + min_size, n + 1)
        m = kappas - tau                                   # points after the split
        between = np.cumsum(d[:tau, tau:].sum(axis=0))[m - 1]
        # pairs within z[tau:kappa]: each new point against those before it
        within_y = np.cumsum(np.tril(d[tau:, tau:], -1).sum(axis=1))[m - 1]
        within_x = d[:tau, :tau].sum() / 2
        energy = 2 * between / (tau * m) - within_x / math.comb(tau, 2) - \
            within_y / (m * (m - 1) / 2)
        q = tau * m / kappas * energy
        i = int(np.argmax(q))
        if best is None or q[i] > best[2]:
            best = (tau, int(kappas[i]), float(q[i]))
    return best


def split_p(left, right, positions):
    """The p of a split: the smaller of Student's t and Mann-Whitney's U
    on its two sides, each at half the level (times 2), times the positions
    the split was chosen among (it was chosen as the most divergent:
    Bonferroni keeps the chance that noise alone passes at the level).
    Student's t, as Hunter and Otava use, sees a step between sides of two or
    three icount boots (a rank test cannot: 3 against 3 never gets below
    0.1); Mann-Whitney's U still sees it where one failed boot 30% off would
    hide it from the t-test. Student's, not Welch's: the question is whether
    both sides are one distribution, and a side of two points whose spread
    is small by chance would give Welch's test the other side's degrees of
    freedom."""
    if len(left) < 2 or len(right) < 2:
        return 1.0
    if np.ptp(left) == 0 and np.ptp(right) == 0:
        return 1.0 if left[0] == right[0] else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # near-equal values: scipy warns of lost precision
        p_t = float(stats.ttest_ind(left, right).pvalue)
    p_u = float(stats.mannwhitneyu(left, right, alternative="two-sided").pvalue)
    return min(1.0, 2 * min(p_t, p_u) * max(1, positions))


def _in_window(z, lo, hi, found, level, min_size):
    """Candidates in z[lo:hi], recursively: the most divergent split, kept
    where its two sides (to the end kappa that made it most divergent) pass
    the test at level, then each side again."""
    cut = energy_split(z[lo:hi], min_size)
    if cut is None:
        return
    tau, kappa = lo + cut[0], lo + cut[1]
    if split_p(z[lo:tau], z[tau:kappa], hi - lo - 2 * min_size + 1) >= level:
        return
    found.add(tau)
    _in_window(z, lo, tau, found, level, min_size)
    _in_window(z, tau, hi, found, level, min_size)


@dataclass
class ChangePoint:
    index: int          # the first point after the change
    mean_before: float  # the segment before it, to the change point before
    mean_after: float   # the segment after it, to the next change point
    p: float            # of the two segments (split_p)

    @property
    def delta_pct(self):
        return (self.mean_after / self.mean_before - 1) * 100 if self.mean_before else math.nan


def _judged(z, points, min_size):
    """Each candidate's two segments (to its neighbours) and their p."""
    bounds = [0] + points + [len(z)]
    out = []
    for i, tau in enumerate(points):
        lo, hi = bounds[i], bounds[i + 2]
        left, right = z[lo:tau], z[tau:hi]
        out.append(ChangePoint(tau, float(left.mean()), float(right.mean()),
                               split_p(left, right, hi - lo - 2 * min_size + 1)))
    return out


def change_points(values, window=WINDOW, strict=STRICT_P, weak=WEAK_P, min_size=MIN_SIZE):
    """The change points of a series: candidates from overlapping windows at
    the weak level, then the weakest candidate that fails the strict level
    against its neighbours dropped, again and again, until all pass."""
    z = np.asarray(values, dtype=float)
    found = set()
    step = max(1, window // 2)
    starts = range(0, max(1, len(z) - window + step), step)
    for lo in starts:
        _in_window(z, lo, min(len(z), lo + window), found, weak, min_size)
    points = sorted(found)
    while points:
        judged = _judged(z, points, min_size)
        worst = max(judged, key=lambda c: c.p)
        if worst.p < strict:
            return judged
        points.remove(worst.index)
    return []
