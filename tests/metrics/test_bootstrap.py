"""The bootstrap over word sets: the vectorised statistic of each metric equals the metric re-run
on the resampled word lists, and the summaries are the percentile interval and the bootstrap SE."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from geobias.errors import InputError
from geobias.metrics import bootstrap as mb
from geobias.metrics import mweat, weat
from geobias.metrics.coverage import note as coverage_note
from geobias.metrics.ect import ect
from geobias.metrics.mac import mac
from geobias.metrics.ripa import ripa
from geobias.metrics.rnd import rnd
from geobias.metrics.rnsb import rnsb
from geobias.query import WordQuery
from geobias.stats.bootstrap import bootstrap, index_counts
from geobias.store import VectorStore

pytestmark = pytest.mark.metrics

SETS = {"X": 7, "Y": 6, "A": 5, "B": 4}


@pytest.fixture(scope="module")
def store():
    rng = np.random.default_rng(3)
    words = [f"{k.lower()}{i}" for k, n in SETS.items() for i in range(n)]
    vecs = rng.normal(size=(len(words), 12))
    vecs[: SETS["X"], 0] += 1.0  # an association to find
    return VectorStore(words, vecs.astype(np.float32))


def names(k: str) -> list[str]:
    return [f"{k.lower()}{i}" for i in range(SETS[k])]


def rows(store, k: str) -> np.ndarray:
    return store.lookup(names(k), unit=True).vectors.astype(np.float64)


def draws(sizes, paired=(), b=4, seed=11):
    rng = np.random.default_rng(seed)
    out = {}
    for group in [*paired, *[[k] for k in sizes if not any(k in g for g in paired)]]:
        d = rng.integers(0, sizes[group[0]], size=(b, sizes[group[0]]))
        for k in group:
            out[k] = d
    return out


def pick(k: str, idx_row) -> list[str]:
    return [names(k)[i] for i in idx_row]


def test_index_counts_sum_to_set_size_and_weight_rows():
    idx = np.random.default_rng(0).integers(0, 5, size=(3, 5))
    c = index_counts(idx, 5)
    assert c.sum(axis=1).tolist() == [5, 5, 5]
    m = np.arange(10.0).reshape(5, 2)
    assert np.allclose(c @ m, m[idx].sum(axis=1))


@pytest.mark.parametrize("quantity", ["effect_size", "statistic"])
def test_weat_statistic_equals_weat_on_resampled_words(store, quantity):
    res = mb.weat_resampling(*(rows(store, k) for k in "XYAB"), quantity=quantity)
    ix = draws(res.sizes)
    got = res.statistic(ix)
    for r in range(4):
        w = weat(store, WordQuery(*(pick(k, ix[k][r]) for k in "XYAB")), permutations=10)
        assert got[r] == pytest.approx(getattr(w, quantity), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("quantity", ["statistic", "difference", "effect_size"])
def test_mweat_statistic_resamples_pairs_and_equals_mweat(store, quantity):
    x, y = rows(store, "X")[:6], rows(store, "Y")
    res = mb.mweat_resampling(x, y, rows(store, "A"), rows(store, "B"), quantity=quantity)
    assert res.paired == [("X", "Y")]
    ix = draws(res.sizes, res.paired)
    assert (ix["X"] == ix["Y"]).all()
    got = res.statistic(ix)
    for r in range(4):
        occ = [(names("Y")[i], names("X")[i], "") for i in ix["X"][r]]
        m = mweat(store, WordQuery.two_form(occ, pick("A", ix["A"][r]), pick("B", ix["B"][r])), permutations=10)
        assert got[r] == pytest.approx(getattr(m, quantity), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("variant", ["english", "grammatical"])
@pytest.mark.parametrize(("fn", "metric", "attr"), [(mb.rnd_resampling, rnd, "rnd"), (mb.mac_resampling, mac, "mac"),
                                                    (mb.ect_resampling, ect, "ect"),
                                                    (mb.rnsb_resampling, rnsb, "rnsb")])
def test_wefe_metric_statistics_equal_the_metric_on_resampled_words(store, variant, fn, metric, attr):
    n = 6
    x, y = rows(store, "X")[:n], rows(store, "Y")[:n]
    res = fn(x, y, rows(store, "A"), rows(store, "B"), variant=variant)
    ix = draws(res.sizes, res.paired, b=3)
    got = res.statistic(ix)
    for r in range(3):
        out = metric(store, WordQuery([names("X")[i] for i in ix["X"][r]], [names("Y")[i] for i in ix["Y"][r]],
                                      pick("A", ix["A"][r]), pick("B", ix["B"][r])), variant=variant)
        want = getattr(out, attr)
        if attr == "ect":
            # a word drawn twice is an exact tie here; in the metric its two BLAS products can differ
            # in the last bit and break the tie, so rank the metric's own profiles with ties restored
            want = spearmanr(np.round([e.similarity_a for e in out.per_word], 9),
                             np.round([e.similarity_b for e in out.per_word], 9)).statistic
        assert got[r] == pytest.approx(want, rel=1e-5, abs=1e-7)


def test_ripa_statistic_refits_the_relation_on_resampled_pairs(store):
    pairs = list(zip(names("A")[:4], names("B"), strict=True))
    t = store.lookup(names("X"), unit=False).vectors.astype(np.float64)
    p1 = store.lookup([p for p, _ in pairs]).vectors.astype(np.float64)
    p2 = store.lookup([q for _, q in pairs]).vectors.astype(np.float64)
    res = mb.ripa_resampling(t, p1, p2)
    assert res.sizes == {"targets": 7, "pairs": 4}
    ix = draws(res.sizes, b=5)
    ix["pairs"][0] = [0, 1, 2, 3]  # one resample with distinct pairs, the others with repeats
    got = res.statistic(ix)
    for r in range(5):
        out = ripa(store, WordQuery.with_pairs(pick("X", ix["targets"][r]), [pairs[i] for i in ix["pairs"][r]]))
        assert got[r] == pytest.approx(out.mean, rel=1e-6, abs=1e-9)


def test_estimate_is_the_metric_and_interval_is_the_percentiles(store):
    """The statistic (Σ_X s − Σ_Y s) gets the percentile interval; the effect size the basic one,
    the same quantiles reflected about the estimate (its resamples share the estimate's bias), read
    from the resamples scaled to the two-way variance at the expanded level over |A| + |B|."""
    from geobias.stats.bootstrap import expanded_confidence

    x, y, a, b = (rows(store, k) for k in "XYAB")
    full = weat(store, WordQuery(names("X"), names("Y"), names("A"), names("B")), permutations=10)
    for quantity, want in (("statistic", full.statistic), ("effect_size", full.effect_size)):
        res = mb.weat_resampling(x, y, a, b, quantity=quantity)
        out = mb.run(res, n_resamples=500, seed=4)
        assert out.estimate == pytest.approx(want, rel=1e-6)
        rng = np.random.default_rng(4)  # the documented draw order: one (b, n) draw per set, in order
        vals = res.statistic({k: rng.integers(0, n, size=(500, n)) for k, n in res.sizes.items()})
        q_lo, q_hi = np.quantile(vals, [0.025, 0.975])
        if quantity == "statistic":
            assert out.interval == "percentile"
            assert (out.low, out.high) == pytest.approx((q_lo, q_hi))
            assert out.standard_error == pytest.approx(vals.std(ddof=1))
        else:
            assert out.interval == "basic" and 0 < out.variance_scale <= 1
            mid = np.median(vals)
            scaled = mid + out.variance_scale * (vals - mid)
            alpha = (1 - expanded_confidence(0.95, SETS["A"] + SETS["B"])) / 2
            q_lo, q_hi = np.quantile(scaled, [alpha, 1 - alpha])
            assert (out.low, out.high) == pytest.approx((2 * out.estimate - q_hi, 2 * out.estimate - q_lo))
            assert out.standard_error == pytest.approx(scaled.std(ddof=1))
    assert out.low < out.estimate < out.high and out.n_finite == 500
    assert out.to_dict()["set_sizes"] == {"X": 7, "Y": 6, "A": 5, "B": 4}


def test_seed_reproduces_and_more_resamples_narrow_the_se_estimate_noise(store):
    res = mb.mweat_resampling(rows(store, "X")[:6], rows(store, "Y"), rows(store, "A"), rows(store, "B"))
    a = mb.run(res, n_resamples=300, seed=1)
    assert a == mb.run(res, n_resamples=300, seed=1)
    assert a != mb.run(res, n_resamples=300, seed=2)


def test_undefined_resamples_are_counted_not_summarised():
    s = np.array([1.0, 1.0, 1.0, 2.0])

    def stat(ix):
        v = s[ix["X"]]
        sd = v.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = v.mean(axis=1) / sd
        out[sd == 0] = np.nan
        return out
    out = bootstrap(stat, {"X": 4}, n_resamples=400, seed=0)
    # P(no 2.0 drawn in 4 draws) = (3/4)^4 ≈ 0.32 and P(only 2.0) ≈ 0.004: those are undefined
    assert 200 < out.n_finite < 330 and out.n_resamples == 400


@pytest.mark.parametrize(("kwargs", "msg"), [
    ({"n_resamples": 0}, "at least 1"), ({"n_resamples": -5}, "at least 1"),
    ({"n_resamples": 10**9}, "more than"), ({"n_resamples": 2.5}, "integer"), ({"confidence": 1.0}, "between"),
])
def test_bad_counts_are_one_line_errors(kwargs, msg):
    with pytest.raises(InputError, match=msg):
        bootstrap(lambda ix: ix["X"].mean(axis=1), {"X": 3}, **kwargs)


def test_a_set_too_small_and_unequal_pairs_are_refused():
    with pytest.raises(InputError, match="set B has 1 word"):
        bootstrap(lambda ix: ix["A"].mean(axis=1), {"A": 3, "B": 1})
    with pytest.raises(InputError, match="same size"):
        bootstrap(lambda ix: ix["A"].mean(axis=1), {"A": 3, "B": 4}, paired=[("A", "B")])


@pytest.mark.parametrize(("name", "call"), [
    ("weat", lambda s, q: weat(s, q, permutations=10, bootstrap=300, bootstrap_seed=5)),
    ("rnd", lambda s, q: rnd(s, q, bootstrap=300, bootstrap_seed=5)),
    ("ect", lambda s, q: ect(s, q, bootstrap=300, bootstrap_seed=5)),
    ("mac", lambda s, q: mac(s, q, bootstrap=300, bootstrap_seed=5)),
    ("rnsb", lambda s, q: rnsb(s, q, bootstrap=30, bootstrap_seed=5)),
])
def test_every_metric_carries_its_bootstrap_in_the_result_and_json(store, name, call):
    q = WordQuery(names("X"), names("Y"), names("A"), names("B"))
    r = call(store, q)
    rows = q.resolve(store)
    # RND also tests its headline sum = 0 by the bootstrap (with two target sets the permutation test is of X against Y)
    want = mb.bootstrap_query(rows, name, n_resamples=r.bootstrap.n_resamples, seed=5, test_zero=name == "rnd")
    assert r.bootstrap == want and r.bootstrap.quantity == mb.quantities()[name][0]
    assert r.bootstrap.low <= r.bootstrap.high and r.bootstrap.set_sizes == {"X": 7, "Y": 6, "A": 5, "B": 4}
    assert r.to_dict()["bootstrap"]["low"] == pytest.approx(r.bootstrap.low)
    assert call(store, q).bootstrap == r.bootstrap  # the seed reproduces it


def test_mweat_and_ripa_carry_theirs_and_a_set_too_small_is_a_usage_error(store):
    from geobias.errors import ParameterError

    occ = [(names("Y")[i], names("X")[i], "") for i in range(6)]
    m = mweat(store, WordQuery.two_form(occ, names("A"), names("B")), permutations=10, bootstrap=200)
    assert m.bootstrap.paired == [["X", "Y"]] and m.bootstrap.estimate == pytest.approx(m.signed_statistic)
    assert m.bootstrap.quantity == "signed_statistic" and abs(m.signed_statistic) == pytest.approx(m.statistic)
    assert m.bootstrap_sums["sum_masculine"].estimate == pytest.approx(m.sum_masculine)
    assert m.bootstrap_sums["sum_feminine"].estimate == pytest.approx(m.sum_feminine)
    assert "bootstrap" in m.to_dict() and "bootstrap_sums" in m.to_dict()
    pairs = list(zip(names("A")[:4], names("B"), strict=True))
    r = ripa(store, WordQuery.with_pairs(names("X"), pairs), bootstrap=200)
    assert r.bootstrap.estimate == pytest.approx(r.mean) and r.bootstrap.set_sizes == {"targets": 7, "pairs": 4}
    with pytest.raises(ParameterError, match="bootstrap: word set X has 1 word"):
        weat(store, WordQuery(names("X")[:1], names("Y"), names("A"), names("B")), permutations=10, bootstrap=100)
    with pytest.raises(ParameterError, match="at least 1"):
        mb.bootstrap_query(m and WordQuery.two_form(occ, names("A"), names("B")).resolve(store), "mweat",
                           n_resamples=-3)


@pytest.mark.parametrize("quantity", ["effect_size", "statistic"])
def test_seat_statistic_resamples_words_with_all_their_sentences(quantity):
    rng = np.random.default_rng(8)
    n_words = {"X": 5, "Y": 4, "A": 4, "B": 3}
    per_word = {"X": [2, 3, 2, 1, 2], "Y": [2, 2, 3, 2], "A": [1, 2, 2, 2], "B": [3, 1, 2]}
    names_, rows_, groups = {}, {}, {}
    for k in "XYAB":
        names_[k] = [f"{k}{w}_{j}" for w in range(n_words[k]) for j in range(per_word[k][w])]
        groups[k] = np.array([w for w in range(n_words[k]) for _ in range(per_word[k][w])])
        v = rng.normal(size=(len(names_[k]), 6))
        rows_[k] = v / np.linalg.norm(v, axis=1, keepdims=True)
    store = VectorStore([s for k in "XYAB" for s in names_[k]], np.concatenate([rows_[k] for k in "XYAB"]).astype(
        np.float64))
    res = mb.seat_resampling(rows_, groups, quantity=quantity)
    assert res.sizes == n_words
    ix = draws(res.sizes, b=4, seed=2)
    got = res.statistic(ix)
    for r in range(4):
        lists = [[s for w in ix[k][r] for s, g in zip(names_[k], groups[k], strict=True) if g == w] for k in "XYAB"]
        w = weat(store, WordQuery(*lists, minimum_words=1), permutations=10)
        assert got[r] == pytest.approx(getattr(w, quantity), rel=1e-6, abs=1e-9)


def test_rnsb_resampling_takes_a_seed_beyond_scikit_learns_range(store):
    """Our seeds go up to 2**63 - 1; scikit-learn's random_state stops at 2**32 - 1. The bootstrap's
    classifiers map a larger seed as rnsb() does, so the default bootstrap never fails on a valid seed."""
    q = WordQuery(names("X"), names("Y"), names("A"), names("B"))
    big = rnsb(store, q, seed=2**63 - 1, bootstrap=20, bootstrap_seed=2**63 - 1)
    assert big.bootstrap.n_finite == 20 and big.bootstrap.low <= big.bootstrap.high
    # liblinear's primal solver draws nothing: the classifier seed does not move the figures
    assert big.bootstrap.standard_error == pytest.approx(
        rnsb(store, q, seed=0, bootstrap=20, bootstrap_seed=2**63 - 1).bootstrap.standard_error)


def test_an_interval_of_a_non_negative_quantity_says_it_cannot_contain_zero(store):
    """Eq. 1 is never negative: its percentile interval says so; the signed quantity's can hold 0."""
    occ = [(names("Y")[i], names("X")[i], "") for i in range(6)]
    rows = WordQuery.two_form(occ, names("A"), names("B")).resolve(store)
    eq1 = mb.bootstrap_query(rows, "mweat", quantity="statistic", n_resamples=300)
    signed = mb.bootstrap_query(rows, "mweat", n_resamples=300)
    assert eq1.low >= 0 and "cannot contain 0" in eq1.note
    # no "cannot contain 0" note: at most its coverage measured in simulation (geobias.metrics.coverage),
    # here with 6 pairs and 4 attribute words, what is known for so few words
    from geobias.metrics.coverage import small_set_note

    said = [coverage_note("mweat", "signed_statistic"), small_set_note("mweat", "signed_statistic", 4)]
    assert min(signed.set_sizes.values()) == 4 and "has 4 words" in said[1]
    assert signed.quantity == "signed_statistic" and signed.note == "; ".join(n for n in said if n)
    assert "cannot contain" not in signed.note
    assert signed.low < 0 < signed.high  # random vectors: no association either way
    # the Monte Carlo error of each bound is reported and is small against the interval's width
    assert 0 < signed.low_mcse < (signed.high - signed.low) / 4 and 0 < signed.high_mcse


def test_quantile_mcse_matches_the_spread_of_bounds_over_seeds():
    """The reported Monte Carlo SE of a 2.5 % bound equals the spread of that bound over seeds
    (1,000 draws of a normal; 400 seeds; tolerance 25 %: the spread itself is estimated from 400)."""
    from geobias.stats.bootstrap import quantile_mcse

    rng = np.random.default_rng(3)
    draws = rng.normal(size=(400, 1000))
    spread = np.quantile(draws, 0.025, axis=1).std(ddof=1)
    reported = np.mean([quantile_mcse(d, 0.025) for d in draws])
    assert reported == pytest.approx(spread, rel=0.25)


def test_results_with_interval_maps_round_trip_through_json(store):
    """MWEAT's bootstrap_sums (a dict of intervals) comes back as intervals from its JSON form, as a
    stored job's result is read by the report page and the tables."""
    from geobias.metrics.mweat import MweatResult
    from geobias.stats.bootstrap import BootstrapResult

    occ = [(names("Y")[i], names("X")[i], "") for i in range(6)]
    m = mweat(store, WordQuery.two_form(occ, names("A"), names("B")), permutations=10, bootstrap=50)
    back = MweatResult.from_dict(m.to_dict())
    assert all(isinstance(b, BootstrapResult) for b in back.bootstrap_sums.values())
    assert back.to_dict() == m.to_dict()


@pytest.mark.parametrize("interval", ["percentile", "basic", "expanded", "basic-expanded"])
def test_the_zero_test_inverts_its_interval(interval):
    """p < 0.05 exactly when the 95 % interval leaves 0 out, for either interval (on samples whose
    interval lands on each side of 0 and across it); without ``test_zero`` there is no p."""
    rng = np.random.default_rng(11)
    agree = 0
    for shift in np.linspace(-1.2, 1.2, 25):
        s = rng.normal(size=12) + shift
        r = bootstrap(lambda ix, s=s: s[ix["X"]].mean(axis=1), {"X": 12}, n_resamples=1999, seed=1,
                      interval=interval.split("-")[0], test_zero=True,
                      units=12 if interval != "basic" else None)
        assert 0 < r.p_value <= 1
        # the quantiles interpolate between draws: only a bound within one draw's gap of 0 may disagree
        agree += (r.p_value < 0.05) == (not r.crosses_zero)
    assert agree >= 24
    plain = bootstrap(lambda ix: np.ones(ix["X"].shape[0]), {"X": 3}, n_resamples=10)
    assert plain.p_value is None


def test_rnds_p_is_the_bootstrap_test_where_no_permutation_test_is_one_of_the_population(store):
    """Grammatical RND (and one target set): the p is the bootstrap's test of 0, the sign-flip p stays
    beside it; with two target sets the permutation test stays the p and the bootstrap gives none."""
    q = WordQuery([f"x{i}" for i in range(6)], [f"y{i}" for i in range(6)], [f"a{i}" for i in range(5)],
                  [f"b{i}" for i in range(4)])
    gram = rnd(store, q, variant="grammatical", permutations=999, bootstrap=500)
    assert gram.population_test and gram.p_value == gram.bootstrap.p_value
    assert gram.permutation.p_value != gram.p_value  # the sign-flip test is kept, not reported as the p
    assert (gram.p_value < 0.05) == (not gram.bootstrap.crosses_zero)
    assert rnd(store, q, variant="grammatical", permutations=999).p_value == gram.permutation.p_value
    english = rnd(store, q, permutations=999, bootstrap=500)
    # two target sets: the p is the permutation test of X against Y; the bootstrap tests the headline sum beside it
    assert not english.population_test and english.p_value == english.permutation.p_value
    assert (english.bootstrap.p_value < 0.05) == (not english.bootstrap.crosses_zero)
    assert english.p_value == english.permutation.p_value
    one = rnd(store, WordQuery(q.X, None, q.A, q.B), bootstrap=500)
    assert one.permutation is None and one.p_value == one.bootstrap.p_value is not None


def test_the_expanded_interval_is_the_percentile_one_at_the_t_matched_level():
    """Hesterberg's expanded percentile interval: the same draws' quantiles at
    ``1 − 2Φ(−√(n/(n−1)) t_{0.975, n−1})``, wider than the percentile interval, equal to it as n grows;
    without the number of units it is refused in one line."""
    from scipy import stats as st

    from geobias.stats.bootstrap import expanded_confidence

    for n in (3, 12, 27, 200):
        want = 1 - 2 * st.norm.cdf(-np.sqrt(n / (n - 1)) * st.t.ppf(0.975, n - 1))
        assert expanded_confidence(0.95, n) == pytest.approx(want, abs=1e-12)
    assert expanded_confidence(0.95, 27) == pytest.approx(0.9638, abs=1e-4)
    s = np.random.default_rng(3).normal(size=12)

    def stat(ix):
        return s[ix["X"]].mean(axis=1)

    exp = bootstrap(stat, {"X": 12}, n_resamples=2000, seed=4, interval="expanded", units=12)
    wide = bootstrap(stat, {"X": 12}, n_resamples=2000, seed=4, confidence=expanded_confidence(0.95, 12))
    pct = bootstrap(stat, {"X": 12}, n_resamples=2000, seed=4)
    assert (exp.low, exp.high) == (wide.low, wide.high) and exp.confidence == 0.95 and exp.interval == "expanded"
    assert exp.low < pct.low and exp.high > pct.high
    with pytest.raises(InputError, match="number of units averaged") as info:
        bootstrap(stat, {"X": 12}, interval="expanded")
    assert "\n" not in str(info.value)


def test_mac_reads_the_expanded_interval_over_its_target_units(store):
    """MAC averages over its targets: pairs in the grammatical variant (a pair counts once), X ∪ Y in
    the English one; its interval is the expanded one at that n."""
    from geobias.stats.bootstrap import expanded_confidence

    occ = [(names("Y")[i], names("X")[i], "") for i in range(6)]
    rows = WordQuery.two_form(occ, names("A"), names("B")).resolve(store)
    gram = mb.bootstrap_query(rows, "mac", variant="grammatical", n_resamples=400)
    res = mb.mac_resampling(rows.x, rows.y, rows.a, rows.b, variant="grammatical")
    want = bootstrap(res.statistic, res.sizes, paired=res.paired, n_resamples=400,
                     confidence=expanded_confidence(0.95, 6))
    assert gram.interval == "expanded" and (gram.low, gram.high) == (want.low, want.high)
    q = WordQuery(names("X")[:6], names("Y")[:6], names("A"), names("B")).resolve(store)
    eng = mb.bootstrap_query(q, "mac", n_resamples=400)
    res = mb.mac_resampling(q.x, q.y, q.a, q.b)
    want = bootstrap(res.statistic, res.sizes, paired=res.paired, n_resamples=400,
                     confidence=expanded_confidence(0.95, 12))
    assert (eng.low, eng.high) == (want.low, want.high)


def test_the_two_way_variance_undoes_the_pigeonhole_overcount():
    """A mean over a crossed array ``α_i + β_j + ε_ij`` (rows × columns both sampled): resampling rows
    and columns at once counts the interaction three times; the two-way scale brings the resamples'
    spread back to the true standard error, within 15 %, where the plain bootstrap is 40 % too wide."""
    from geobias.stats.bootstrap import two_way_scale

    n, m, sa, sb, se = 60, 40, 0.3, 0.3, 3.0
    true_sd = np.sqrt(sa**2 / n + sb**2 / m + se**2 / (n * m))
    ratios, plain = [], []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        y = rng.normal(0, sa, (n, 1)) + rng.normal(0, sb, (1, m)) + rng.normal(0, se, (n, m))

        def stat(ix, y=y):
            w_r, w_c = index_counts(ix["R"], n) / n, index_counts(ix["C"], m) / m
            return np.einsum("bi,ij,bj->b", w_r, y, w_c)

        r = bootstrap(stat, {"R": n, "C": m}, n_resamples=2000, seed=seed, crossed=(("R",), ("C",)))
        flat = bootstrap(stat, {"R": n, "C": m}, n_resamples=2000, seed=seed)
        assert 0 < r.variance_scale < 1 and r.method == "two-way percentile"
        assert r.standard_error == pytest.approx(r.variance_scale * flat.standard_error, rel=1e-9)
        ratios.append(r.standard_error / true_sd)
        plain.append(flat.standard_error / true_sd)
    assert 0.85 < np.mean(ratios) < 1.15 and np.mean(plain) > 1.3
    # no interaction: the one-sided variances add up to the plain one, which is kept
    both, first, second = (np.random.default_rng(k).normal(0, s, 20_000) for k, s in ((1, 1.0), (2, 0.6), (3, 0.8)))
    assert two_way_scale(both, first, second, units=(1000, 1000)) == pytest.approx(1.0, abs=0.03)
    assert two_way_scale(np.zeros(10), np.zeros(10), np.zeros(10), units=(5, 5)) == 1.0


def test_the_two_way_interval_scales_the_same_draws_about_their_median():
    """The first pass draws what the plain bootstrap draws; the interval is its resamples' quantiles
    after scaling them about their median by ``variance_scale`` (percentile; basic: reflected)."""
    rng = np.random.default_rng(5)
    y = rng.normal(size=(9, 7)) + rng.normal(size=(9, 1))
    seen = []

    def stat(ix):
        v = np.einsum("bi,ij,bj->b", index_counts(ix["X"], 9) / 9, y, index_counts(ix["A"], 7) / 7)
        seen.append(v)
        return v

    for interval in ("percentile", "basic"):
        seen.clear()
        r = bootstrap(stat, {"X": 9, "A": 7}, n_resamples=500, seed=2, crossed=(("X",), ("A",)), interval=interval)
        first = np.concatenate(seen[1:])[:500]
        seen.clear()
        plain = bootstrap(stat, {"X": 9, "A": 7}, n_resamples=500, seed=2)
        assert np.array_equal(first, np.concatenate(seen[1:]))
        mid = np.median(first)
        lo, hi = np.quantile(mid + r.variance_scale * (first - mid), [0.025, 0.975])
        want = (lo, hi) if interval == "percentile" else (2 * r.estimate - hi, 2 * r.estimate - lo)
        assert (r.low, r.high) == pytest.approx(want, rel=1e-12)
        assert r.estimate == plain.estimate and r.variance_scale <= 1


@pytest.mark.parametrize("crossed, msg", [
    ((("X",), ("A",)), "share out the sets"),
    ((("X", "Y"), ("X", "A")), "share out the sets"),
    ((("X", "A"), ("Y",)), "paired sets X/Y must lie on one side"),
])
def test_crossed_sides_that_do_not_fit_the_sets_are_one_line_errors(crossed, msg):
    with pytest.raises(InputError, match=msg) as info:
        bootstrap(lambda ix: ix["X"].mean(axis=1) * 1.0, {"X": 4, "Y": 4, "A": 3}, paired=[("X", "Y")],
                  n_resamples=10, crossed=crossed)
    assert "\n" not in str(info.value)


def test_the_basic_interval_reads_the_expanded_level_when_given_units():
    from geobias.stats.bootstrap import expanded_confidence

    s = np.random.default_rng(8).normal(size=12)

    def stat(ix):
        return s[ix["X"]].mean(axis=1)

    exp = bootstrap(stat, {"X": 12}, n_resamples=2000, seed=4, interval="basic", units=12)
    wide = bootstrap(stat, {"X": 12}, n_resamples=2000, seed=4, interval="basic",
                     confidence=expanded_confidence(0.95, 12))
    assert (exp.low, exp.high) == (wide.low, wide.high) and exp.confidence == 0.95
    assert exp.level == pytest.approx(expanded_confidence(0.95, 12)) and exp.method == "basic expanded"
    assert bootstrap(stat, {"X": 12}, n_resamples=20, interval="basic").level is None


def test_the_crossed_quantities_read_the_two_way_interval(store):
    """MWEAT's signed figure and WEAT's d: two-way basic at the expanded level over |A| + |B|; MWEAT's
    sums and ECT: two-way percentile; RND and MAC are not corrected (in target without it)."""
    from geobias.stats.bootstrap import expanded_confidence

    occ = [(names("Y")[i], names("X")[i], "") for i in range(6)]
    two_form = WordQuery.two_form(occ, names("A"), names("B"))
    m = mweat(store, two_form, permutations=10, bootstrap=300)
    level = expanded_confidence(0.95, SETS["A"] + SETS["B"])
    assert m.bootstrap.method == "two-way basic expanded" and m.bootstrap.level == pytest.approx(level)
    assert all(b.method == "two-way percentile" for b in m.bootstrap_sums.values())
    w = weat(store, WordQuery(names("X"), names("Y"), names("A"), names("B")), permutations=10, bootstrap=300)
    assert w.bootstrap.method == "two-way basic expanded"
    assert ect(store, two_form, variant="grammatical", bootstrap=300).bootstrap.method == "two-way percentile"
    assert rnd(store, two_form, variant="grammatical", bootstrap=300).bootstrap.variance_scale is None
    assert mac(store, two_form, variant="grammatical", bootstrap=300).bootstrap.variance_scale is None


def test_intervals_are_clipped_to_what_a_population_could_give():
    """A basic interval reflects the resamples about the estimate and can pass the quantity's range:
    3 + 3 target words with a strong association (effect size 1.46; resamples of 3 words spread far
    below it), and the reflected upper bound, unclipped, lies near 4, past the largest effect size any
    population with those shares of X and Y has (±1/√(pq), 2 here); clipped, it stops there. Within
    the range nothing changes."""
    rng = np.random.default_rng(2)
    x, y, a, b = (rng.standard_normal((3, 8)) for _ in range(4))
    for v, sign in ((x, 1.0), (y, -1.0), (a, 1.0), (b, -1.0)):
        v[:, 0] += sign
    x, y, a, b = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in (x, y, a, b))
    res = mb.weat_resampling(x, y, a, b)
    assert res.bounds == mb.effect_size_bounds(3, 3) == (-2.0, 2.0)
    free = bootstrap(res.statistic, res.sizes, n_resamples=500, seed=1, interval="basic")
    clipped = bootstrap(res.statistic, res.sizes, n_resamples=500, seed=1, interval="basic", bounds=res.bounds)
    assert free.high > 2.0 and clipped.high == 2.0 and clipped.low == free.low
    assert mb.run(res, n_resamples=500, seed=1).high <= 2.0
    inside = bootstrap(res.statistic, res.sizes, n_resamples=500, seed=1, interval="basic", bounds=(-50.0, 50.0))
    assert (inside.low, inside.high) == (free.low, free.high)
    lo, hi = mb.effect_size_bounds(1, 3)  # one X word against 3 Y words: p = 1/4, 1/√(pq) = 4/√3
    assert hi == pytest.approx(4 / np.sqrt(3)) and lo == -hi
    values = np.r_[np.full(1, 1.0), np.zeros(3)]  # every X score one value, every Y score another: the largest
    assert (values[:1].mean() - values[1:].mean()) / values.std(ddof=0) == pytest.approx(hi)


def test_ect_and_mac_intervals_keep_to_their_ranges(store):
    q = WordQuery(*(names(k) for k in "XYAB"))
    for fn, lo, hi in ((ect, -1.0, 1.0), (mac, 0.0, 2.0)):
        b = fn(store, q, bootstrap=200).bootstrap
        assert lo <= b.low <= b.high <= hi
