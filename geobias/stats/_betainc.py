"""Regularised incomplete beta function and its inverse in pure Python (no scipy import).

For the Clopper–Pearson interval of every Monte-Carlo p-value: importing ``scipy.special`` costs
~0.2 s of ``geobias mweat`` startup, more than the whole permutation test. ``betainc`` is the
continued fraction of Numerical Recipes (Press et al. 2007, §6.4, eq. 6.4.5, modified Lentz),
``betaincinv`` a safeguarded Newton iteration inside a bisection bracket. Agrees with
``scipy.special.betaincinv`` to a relative 1e-8 on the Clopper–Pearson arguments for 10 to
10^6 + 1 trials (``tests/stats/test_permutation.py``), about 0.2 ms per call.

References
----------
Press, Teukolsky, Vetterling & Flannery (2007). Numerical Recipes, 3rd ed., §6.4.
Clopper & Pearson (1934). Biometrika 26(4), 404–413.
"""

from __future__ import annotations

import math


def _betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-16:
            break
    return h

def _log_front(a, b, x):
    return math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)

def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) for a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(_log_front(a, b, x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b

def betaincinv(a: float, b: float, q: float) -> float:
    """x with I_x(a, b) = q: bisection on [0, 1] refined by Newton (pdf from the log front)."""
    lo, hi = 0.0, 1.0
    x = a / (a + b)
    for _ in range(200):
        f = betainc(a, b, x) - q
        if f > 0:
            hi = x
        else:
            lo = x
        dens = math.exp(_log_front(a, b, x)) / (x * (1.0 - x))
        step = f / dens if dens > 0 else 0.0
        nx = x - step
        if not (lo < nx < hi):
            nx = 0.5 * (lo + hi)
        if abs(nx - x) <= 1e-15 * max(x, 1e-300) or hi - lo < 1e-300:
            x = nx
            break
        x = nx
    return x
