"""`geobias._numeric.quantiles` is `np.quantile` (method "linear") bit for bit.

The bootstrap reads its interval bounds with it (`geobias.stats.bootstrap.bootstrap`): every
interval the CLI, the service and the reproductions print must stay what `np.quantile` gave.
"""

from __future__ import annotations

import numpy as np
import pytest

from geobias._numeric import quantiles


def _samples(rng: np.random.Generator):
    """Samples of every shape the bootstrap meets and some it does not: ties, one or two values,
    magnitudes from 1e-300 to 1e300, heavy tails, sorted and reversed input."""
    for trial in range(3000):
        n = int(rng.integers(1, 12)) if trial % 3 == 0 else int(rng.integers(1, 2500))
        kind = trial % 7
        if kind == 0:
            x = rng.normal(size=n) * 10 ** rng.uniform(-8, 8)
        elif kind == 1:
            x = rng.integers(-3, 4, size=n).astype(np.float64)  # many ties
        elif kind == 2:
            x = rng.standard_cauchy(size=n)
        elif kind == 3:
            x = np.round(rng.normal(size=n), 2)
        elif kind == 4:
            x = rng.uniform(-1, 1, size=n) * rng.choice([1e-300, 1.0, 1e300])
        elif kind == 5:
            x = np.sort(rng.normal(size=n))
        else:
            x = np.full(n, rng.normal())  # every value tied
        if trial % 11 == 0:
            x = x[::-1]
        yield trial, x


@pytest.mark.parametrize("seed", [0, 1])
def test_quantiles_equal_numpys_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for trial, x in _samples(rng):
        alpha = float(rng.uniform(0, 0.5))
        q = [[alpha, 1.0 - alpha], [0.025, 0.975], [0.0, 1.0], [0.5], rng.uniform(0, 1, size=5).tolist(),
             [1e-12, 1 - 1e-12]][trial % 6]
        x_before = x.copy()
        got, want = quantiles(x, q), np.quantile(x, q)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (trial, x.size, q, got, want)
        assert [float(v) for v in got] == [float(v) for v in want]
        assert x.tobytes() == x_before.tobytes()  # the input is not sorted in place
        checked += 1
    assert checked == 3000


def test_bootstrap_bounds_as_the_bootstrap_reads_them():
    """The call the bootstrap makes: the finite resampled values, quantiles at α and 1 − α of the
    interval's level (95 %, and the expanded interval's wider levels)."""
    rng = np.random.default_rng(7)
    for level in (0.95, 0.99, 0.9973, 0.90):
        alpha = (1.0 - level) / 2.0
        for n in (1, 2, 3, 999, 1000, 10_000):
            values = rng.normal(size=n).cumsum()
            values[rng.integers(0, n, size=n // 3)] = values[0]  # ties, as resampling small sets gives
            finite = values[np.isfinite(values)]
            assert quantiles(finite, [alpha, 1.0 - alpha]).tobytes() == np.quantile(finite, [alpha, 1.0 - alpha]).tobytes()


def test_scalar_q_float32_and_nan_as_numpy():
    x = np.array([3.0, -1.0, 2.5, 2.5, 7.0])
    assert quantiles(x, 0.3).tobytes() == np.asarray(np.quantile(x, 0.3)).tobytes()
    assert float(quantiles(x, 0.3)) == float(np.quantile(x, 0.3))
    x32 = x.astype(np.float32)
    assert quantiles(x32, [0.1, 0.9]).tobytes() == np.quantile(x32, [0.1, 0.9]).tobytes()
    assert quantiles(x32, 0.3).dtype == np.quantile(x32, 0.3).dtype == np.float32
    assert quantiles(x32, 0.3) == np.quantile(x32, 0.3)
    with_nan = np.array([1.0, np.nan, 3.0])
    assert np.isnan(quantiles(with_nan, [0.25, 0.75])).all() and np.isnan(np.quantile(with_nan, [0.25, 0.75])).all()
    with pytest.raises(ValueError):
        quantiles(np.array([]), 0.5)
