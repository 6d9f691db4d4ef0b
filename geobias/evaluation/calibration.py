"""Calibration of geobias's default intervals and tests on simulated embeddings with a known truth.

A statement of uncertainty is only as good as its coverage: a 95 % interval should hold the true
value in about 95 % of data sets, and a test at the 5 % level should reject a true null in at most
about 5 %. This module simulates word vectors whose true effects are known, sized like the real
queries (the French occupation query: 27 occupation pairs, 11 + 11 attribute words; 15
definitional pairs, 20 two-form adjectives), runs the metrics exactly as the commands do (the
same functions, their default intervals), and counts.

The generative model (dimension ``dim``, default 64). Every word is a base vector drawn
``N(0, I / dim)`` (norm about 1) plus structured parts along three unit axes: ``e0`` semantic
gender, ``e2`` the nouns' grammatical class, and agreement, ``u = 0.6 e2 + 0.8 e3`` (what agreeing
with a masculine or feminine form adds; it shares ``e2`` with the noun class and has a part of
its own):

- attribute words: male ``+0.35 e0``, female ``−0.35 e0``, plus ``±0.2 u`` where the language
  agrees (the definition words of a gendered language agree too);
- attribute words share a "person" axis ``e4`` (they are all words for people), and each has a
  meaning of its own (0.7 × a base);
- occupations: masculine form ``o + 0.6 ε_m + bias · e0 + a_m · u``, feminine ``o + 0.6 ε_f +
  bias · e0 + a_f · u`` (one base ``o`` per occupation, with no part on ``e0`` or ``e3``, and each
  form a meaning of its own, ε);
- definitional pairs (for d_s): ``p ± 0.6 e0 + a_{m,f} · u`` plus a meaning of each word's own;
  inanimate nouns (for d_g): ``n ± 0.8 e2``; two-form adjectives: ``r + a_{m,f} · u`` (no ``e0`` part).

Scenarios (:data:`SCENARIOS`): ``neither`` (no agreement, no bias: English-like and fair),
``agreement`` (``a_m = +0.3, a_f = −0.3``, no bias), ``agreement-asymmetric`` (``a_m = 0,
a_f = −0.6``: the feminine form alone marked, no bias), ``bias`` (``bias = 0.15``, no agreement) and
``both``. Each data set is run through MWEAT, WEAT, gender-aware RIPA, RNSB, and the grammatical
variants of RND, ECT and MAC on the occupation pairs, and through SEAT on simulated sentences of the
WEAT sets (each word with :data:`SEAT_TEMPLATES` template sentences, :func:`_sentences`). The sizes of the effects are those of the French query on fr-spacy-md in order of
magnitude (its sums of s are +2.2 and −4.3). The true value of each figure is computed once per scenario on a very large sample from
the same model (:func:`truths`).

References
----------
Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, §13 (coverage of percentile
intervals). Zhou et al. (2019), EMNLP (MWEAT, d_s). Caliskan et al. (2017), Science (WEAT).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from geobias._progress import ProgressArg, loop_bar
from geobias.errors import ParameterError
from geobias.results import Result

__all__ = ["QUANTITY", "SCENARIOS", "CalibrationResult", "CalibrationRow", "Scenario", "calibrate", "simulate", "truths",
           "verdict"]


@dataclass(frozen=True)
class Scenario:
    """One simulated world: agreement of the two forms (``a_m``, ``a_f`` along ``u``) and the
    semantic bias of every occupation (along ``e0``)."""

    name: str
    a_m: float
    a_f: float
    bias: float
    description: str

    @property
    def agreement(self) -> bool:
        return self.a_m != 0 or self.a_f != 0


SCENARIOS: dict[str, Scenario] = {s.name: s for s in (
    Scenario("neither", 0.0, 0.0, 0.0, "no agreement, no bias"),
    Scenario("agreement", 0.3, -0.3, 0.0, "agreement without bias, symmetric"),
    Scenario("agreement-asymmetric", 0.0, -0.6, 0.0, "agreement without bias, the feminine form alone marked"),
    Scenario("bias", 0.0, 0.0, 0.15, "bias without agreement"),
    Scenario("both", 0.3, -0.3, 0.15, "agreement and bias"),
)}

#: The declared ``(metric, quantity)`` (:mod:`geobias.metrics.declaration`) each calibrated interval
#: is of: the bootstrap every command runs for it (:func:`geobias.metrics.bootstrap.bootstrap_query`).
#: Its measured coverage becomes that interval's note (:mod:`geobias.metrics.coverage`).
QUANTITY: dict[tuple[str, str], tuple[str, str]] = {
    ("MWEAT", "signed_statistic"): ("mweat", "signed_statistic"),
    ("MWEAT", "sum_masculine"): ("mweat", "sum_masculine"),
    ("MWEAT", "sum_feminine"): ("mweat", "sum_feminine"),
    ("WEAT", "effect_size"): ("weat", "effect_size"),
    ("SEAT", "seat_effect_size"): ("seat", "effect_size"),
    ("RIPA gender-aware", "ripa_mean"): ("ripa", "mean"),
    ("RND", "rnd"): ("rnd", "rnd"),
    ("ECT", "ect"): ("ect", "ect"),
    ("MAC", "mac"): ("mac", "mac"),
}

#: Sizes of the simulated queries (the French defaults).
SIZES = {"pairs": 27, "attributes": 11, "definitional": 15, "nouns": 200, "adjectives": 20}


@dataclass(frozen=True)
class CalibrationRow(Result):
    """One default interval or test in one scenario.

    Attributes
    ----------
    metric, figure : str
        E.g. ``("MWEAT", "signed_statistic")`` or ``("MWEAT", "eq. 1 permutation test")``.
    kind : {"interval", "test"}
    truth : float or None
        The figure's true value (intervals); ``None`` for tests.
    null_holds : bool
        Tests: whether the test's null is true in this scenario (its rejection rate is then a
        false-positive rate); intervals: whether the truth is 0.
    rate : float
        Intervals: the share of data sets whose interval held the truth (coverage). Tests: the share
        that rejected at the 5 % level.
    n : int
        Data sets.
    mc_se : float
        Binomial standard error of ``rate``.
    """

    scenario: str
    metric: str
    figure: str
    kind: str
    truth: float | None
    null_holds: bool
    rate: float
    n: int
    mc_se: float


@dataclass(frozen=True)
class CalibrationResult(Result):
    """Every row of one calibration run, with its settings."""

    rows: list[CalibrationRow]
    n_datasets: int
    n_permutations: int
    n_resamples: int
    seed: int
    dim: int
    sizes: dict = field(default_factory=lambda: dict(SIZES))

    def tidy_rows(self) -> list[dict]:
        return [r.to_dict() for r in self.rows]


def _unit_axes(dim: int) -> dict[str, np.ndarray]:
    e = np.eye(dim)
    return {"g": e[0], "h": e[2], "u": 0.6 * e[2] + 0.8 * e[3]}


def simulate(scenario: Scenario, rng: np.random.Generator, *, dim: int = 64, sizes: dict | None = None,
             scale: int = 1) -> dict[str, np.ndarray]:
    """One simulated data set: the rows of every word set (float64), ``scale`` × the sizes.

    Returns
    -------
    dict of str to ndarray
        ``x``, ``y`` (n_pairs, dim) masculine and feminine occupation forms; ``a``, ``b`` (n_attr,
        dim); ``def_m``, ``def_f`` definitional pairs; ``noun_m``, ``noun_f`` inanimate nouns;
        ``adj_m``, ``adj_f`` two-form adjectives.

    Examples
    --------
    >>> d = simulate(SCENARIOS["both"], np.random.default_rng(0))
    >>> d["x"].shape, d["a"].shape
    ((27, 64), (11, 64))
    """
    n = {k: v * scale for k, v in (sizes or SIZES).items()}
    ax = _unit_axes(dim)
    g, h, u = ax["g"], ax["h"], ax["u"]

    def base(k: int, free: bool = True) -> np.ndarray:
        v = rng.standard_normal((k, dim)) / np.sqrt(dim)
        if not free:  # no idiosyncratic place on semantic gender or on agreement's own axis
            v[:, [0, 3]] = 0.0
        return v

    s = scenario
    agree_attr = 0.2 if s.agreement else 0.0
    o = base(n["pairs"], free=False)
    p = base(n["definitional"])
    r = base(n["adjectives"], free=False)
    person = np.eye(dim)[4]  # what the attribute words share (all words for people): fixed, so the truth is too
    return {
        "x": o + 0.6 * base(n["pairs"]) + s.bias * g + s.a_m * u,
        "y": o + 0.6 * base(n["pairs"]) + s.bias * g + s.a_f * u,
        "a": person + 0.7 * base(n["attributes"]) + 0.35 * g + agree_attr * u,
        "b": person + 0.7 * base(n["attributes"]) - 0.35 * g - agree_attr * u,
        "def_m": p + 0.5 * base(n["definitional"]) + 0.6 * g + s.a_m * u,
        "def_f": p + 0.5 * base(n["definitional"]) - 0.6 * g + s.a_f * u,
        "noun_m": base(n["nouns"]) + 0.8 * h,
        "noun_f": base(n["nouns"]) - 0.8 * h,
        "adj_m": r + s.a_m * u,
        "adj_f": r + s.a_f * u,
    }


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _d_s(data: dict[str, np.ndarray]) -> np.ndarray:
    """d_s as geobias fits it (d_PCA of the unit definitional pairs, LDA's d_g projected out)."""
    from geobias.directions.grammatical import orthogonalize
    from geobias.metrics.ripa import semantic_directions

    diffs = (_unit(data["def_m"]) - _unit(data["def_f"])) / 2
    d_pca = semantic_directions(diffs, np.ones((1, len(diffs))), None)[0]
    # two-class LDA's direction: the pooled within-class covariance's inverse times the mean difference
    # (scikit-learn's LinearDiscriminantAnalysis, which `geobias directions` runs, gives the same direction)
    m, f = _unit(data["noun_m"]), _unit(data["noun_f"])
    within = np.cov(np.concatenate([m - m.mean(axis=0), f - f.mean(axis=0)]), rowvar=False)
    d_g = np.linalg.solve(within, m.mean(axis=0) - f.mean(axis=0))
    d_g = d_g / np.linalg.norm(d_g)
    return np.asarray(orthogonalize(d_pca, d_g), dtype=np.float64), d_g


def truths(scenario: Scenario, *, dim: int = 64, seed: int = 12345, scale: int = 400,
           sizes: dict | None = None) -> dict[str, float]:
    """The true value of every calibrated figure: the same model on ``scale`` × the sizes (``sizes``,
    default :data:`SIZES`).

    The MWEAT sums are ``n_pairs × E[s(x)]`` with ``E[cos(x, a)] = E[x̂] · E[â]`` (x and a
    independent), their signed difference ``|Σ_X| − |Σ_Y|``; WEAT's effect size is the large
    sample's; RIPA's (centred, gender-aware) mean is ``bias ⟨e0, d_s⟩`` on the large sample's d_s.
    """
    rng = np.random.default_rng(seed)
    big = simulate(scenario, rng, dim=dim, scale=scale, sizes=sizes)
    ma, mb = _unit(big["a"]).mean(axis=0), _unit(big["b"]).mean(axis=0)
    mu_x, mu_y = _unit(big["x"]).mean(axis=0) @ (ma - mb), _unit(big["y"]).mean(axis=0) @ (ma - mb)
    n = (sizes or SIZES)["pairs"]
    s = np.concatenate([_unit(big["x"]), _unit(big["y"])]) @ (ma - mb)
    d_s, _ = _d_s(big)
    ua, ub = _unit(big["a"]).mean(axis=0), _unit(big["b"]).mean(axis=0)
    ux, uy = _unit(big["x"]), _unit(big["y"])

    def rnd_of(w):  # Garg et al.'s r(w) on unit rows against the (not re-normalised) unit means
        return np.linalg.norm(w - ua, axis=1) - np.linalg.norm(w - ub, axis=1)

    from scipy.stats import spearmanr

    sent = {k: _sentences(big[k], np.random.default_rng(seed + 1))[0] for k in "xyab"}
    sa, sb = sent["a"].mean(axis=0), sent["b"].mean(axis=0)
    sx, sy = sent["x"] @ (sa - sb), sent["y"] @ (sa - sb)
    return {
        "seat_effect_size": float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1)),
        # the grammatical variants, pairs of forms as the commands read a two-form language
        "rnd": float(n * (rnd_of(ux).mean() + rnd_of(uy).mean())),
        "mac": float(1.0 - (ux.mean(axis=0) + uy.mean(axis=0)) @ (ua + ub) / 4),
        "ect": float(spearmanr(ux @ (ua / np.linalg.norm(ua)), uy @ (ub / np.linalg.norm(ub)))[0]),
        "sum_masculine": float(n * mu_x), "sum_feminine": float(n * mu_y),
        "signed_statistic": float(abs(n * mu_x) - abs(n * mu_y)),
        "effect_size": float((mu_x - mu_y) / s.std(ddof=1)),
        "ripa_mean": float(scenario.bias * d_s[0]),  # d_s is oriented masculine positive
    }


#: SEAT's simulated sentences: each word brings this many template sentences.
SEAT_TEMPLATES = 5


def _templates(dim: int) -> np.ndarray:
    """The template vectors every word's sentences share (fixed: a test's templates are)."""
    return np.random.default_rng(99).standard_normal((SEAT_TEMPLATES, dim)) / np.sqrt(dim)


def _sentences(words: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Unit sentence rows ``word + 0.6 template + 0.3 noise`` (each word × each template) and the
    word each came from."""
    n, dim = words.shape
    t = _templates(dim)
    rows = words[:, None, :] + 0.6 * t[None] + 0.3 * rng.standard_normal((n, len(t), dim)) / np.sqrt(dim)
    return _unit(rows).reshape(n * len(t), dim), np.repeat(np.arange(n), len(t))


def _store(data: dict[str, np.ndarray]):
    from geobias.store import VectorStore

    words, rows = [], []
    for key, v in data.items():
        words += [f"{key}{i}" for i in range(len(v))]
        rows.append(v)
    return VectorStore(words, np.concatenate(rows).astype(np.float32)), {k: [f"{k}{i}" for i in range(len(v))]
                                                                          for k, v in data.items()}


def _seat(data: dict[str, np.ndarray], *, n_permutations: int, n_resamples: int, seed: int) -> dict:
    """SEAT on simulated sentences of the WEAT sets: the word bootstrap's interval, May et al.'s
    test over the sentences and ours over the words."""
    from geobias.metrics import weat
    from geobias.metrics.bootstrap import run, seat_resampling
    from geobias.metrics.seat import word_permutation_test
    from geobias.query import WordQuery
    from geobias.store import VectorStore

    rng = np.random.default_rng([seed, 7])
    rows, groups = {}, {}
    for key, k in zip("XYAB", "xyab", strict=True):
        rows[key], groups[key] = _sentences(data[k], rng)
    names = {k: [f"{k}{i}" for i in range(len(v))] for k, v in rows.items()}
    store = VectorStore([w for k in "XYAB" for w in names[k]], np.concatenate([rows[k] for k in "XYAB"]))
    r = weat(store, WordQuery(names["X"], names["Y"], names["A"], names["B"]), permutations=n_permutations,
             seed=seed)
    boot = run(seat_resampling(rows, groups), n_resamples=n_resamples, seed=seed)
    by_word = word_permutation_test(r, groups, n_permutations, seed)
    return {("SEAT", "seat_effect_size"): (boot.low, boot.high),
            ("SEAT", "word permutation test (the default p)"): by_word.p_value,
            ("SEAT", "sentence permutation test (May et al.; not the default p)"): r.p_value}


def _one(data: dict[str, np.ndarray], *, n_permutations: int, n_resamples: int, seed: int) -> dict[str, object]:
    """Every calibrated figure of one data set: intervals as (low, high), tests as p-values."""
    from geobias.metrics import mweat, weat
    from geobias.metrics.ect import ect
    from geobias.metrics.mac import mac
    from geobias.metrics.ripa import ripa_grammatical
    from geobias.metrics.rnd import rnd
    from geobias.metrics.rnsb import rnsb
    from geobias.query import WordQuery

    store, names = _store(data)
    occ = [(f, m, "") for m, f in zip(names["x"], names["y"], strict=True)]
    two_form = WordQuery.two_form(occ, names["a"], names["b"])
    m = mweat(store, two_form, permutations=n_permutations, seed=seed, bootstrap=n_resamples, bootstrap_seed=seed)
    boot = {"bootstrap": n_resamples, "bootstrap_seed": seed}
    rd = rnd(store, two_form, variant="grammatical", permutations=n_permutations, seed=seed, **boot)
    ec = ect(store, two_form, variant="grammatical", **boot)
    mc = mac(store, two_form, variant="grammatical", **boot)
    w = weat(store, WordQuery(names["x"], names["y"], names["a"], names["b"]), permutations=n_permutations,
             seed=seed, bootstrap=n_resamples, bootstrap_seed=seed)
    d_s, d_g = _d_s(data)
    r = ripa_grammatical(store, names["x"], names["y"], d_s, reference=(names["adj_m"], names["adj_f"]),
                         definitional=(names["def_m"], names["def_f"]), d_g=d_g, bootstrap=n_resamples,
                         bootstrap_seed=seed)
    rn = rnsb(store, WordQuery(names["x"] + names["y"], None, names["a"], names["b"]), seed=seed,
              null_directions=n_permutations)

    def iv(boot):
        return boot.low, boot.high

    return {
        ("MWEAT", "signed_statistic"): iv(m.bootstrap),
        ("MWEAT", "sum_masculine"): iv(m.bootstrap_sums["sum_masculine"]),
        ("MWEAT", "sum_feminine"): iv(m.bootstrap_sums["sum_feminine"]),
        ("MWEAT", "eq. 1 permutation test"): m.p_value,
        ("MWEAT", "Σ_X s − Σ_Y s permutation test"): m.difference_p_value,
        ("WEAT", "effect_size"): iv(w.bootstrap),
        ("WEAT", "permutation test"): w.p_value,
        ("RIPA gender-aware", "ripa_mean"): iv(r.bootstrap),
        ("RNSB", "null-band test"): rn.p_value,
        ("RND", "rnd"): iv(rd.bootstrap),
        ("RND", "bootstrap test"): rd.p_value,
        ("RND", "sign-flip test (given A and B; not the default p)"): rd.permutation.p_value,
        ("ECT", "ect"): iv(ec.bootstrap),
        ("MAC", "mac"): iv(mc.bootstrap),
        **_seat(data, n_permutations=n_permutations, n_resamples=n_resamples, seed=seed),
    }


#: The calibrated tests whose p a result prints beside its default one, or that a paper's name calls
#: for (metric, figure) → the verdict when it rejects a true null too often: RND's sign-flip test
#: (given these A and B; the default p is the bootstrap's test) and May et al.'s SEAT test over the
#: sentences (the paper's p, ``sentence_p_value``; the default ``p_value`` is over the words).
OTHER_TESTS: dict[tuple[str, str], str] = {
    ("RND", "sign-flip test (given A and B; not the default p)"): "above target (not the default p)",
    ("SEAT", "sentence permutation test (May et al.; not the default p)"): "above target (the paper's p; not the default)",
}


def verdict(row: CalibrationRow | dict) -> str:
    """A row against its target (coverage 93–97 %, false positives ≤ 5.5 % for a nominal 5 %): ``"in
    target"``, ``"conservative"``, ``"**below target**"``, ``"(power: the null is false)"`` (a test
    whose null is false has no target), or above target for a test — marked when it is not the p a
    result reports by default. ``row`` is a :class:`CalibrationRow` or its ``to_dict()``.

    >>> verdict({"kind": "interval", "rate": 0.98, "null_holds": False, "figure": "ect"})
    'conservative'
    >>> verdict({"kind": "test", "rate": 0.18, "null_holds": True, "metric": "SEAT",
    ...          "figure": "sentence permutation test (May et al.; not the default p)"})
    "above target (the paper's p; not the default)"
    """
    get = row.get if isinstance(row, dict) else lambda k: getattr(row, k)
    rate = get("rate")
    if get("kind") == "interval":
        return "in target" if 0.93 <= rate <= 0.97 else ("conservative" if rate > 0.97 else "**below target**")
    if not get("null_holds"):
        return "(power: the null is false)"
    if rate <= 0.055:
        return "in target"
    return OTHER_TESTS.get((get("metric"), get("figure")), "**above target**")


def _test_null(metric: str, figure: str, scenario: Scenario) -> bool:
    """Whether a test's null holds: X and Y exchangeable (permutation tests), the targets no more
    spread along A−B than along the null's directions (RNSB: targets without bias), the
    pairs' relative norm distances centred on 0 (RND's tests: the population's RND is 0)."""
    if metric == "RNSB":
        return scenario.bias == 0 and not scenario.agreement
    if metric == "RND":  # the forms' r(m) + r(f) centred on 0: no bias, agreement (if any) symmetric
        return scenario.bias == 0 and scenario.a_m == -scenario.a_f
    return not scenario.agreement  # the two forms identically distributed


def calibrate(scenarios: list[str] | None = None, *, n_datasets: int = 1000, n_permutations: int = 999,
              n_resamples: int = 1000, seed: int = 0, dim: int = 64, sizes: dict | None = None,
              progress: ProgressArg = None) -> CalibrationResult:
    """Coverage of every default interval and rejection rate of every default test, per scenario.

    Parameters
    ----------
    scenarios : list of str, optional
        Keys of :data:`SCENARIOS` (default: all).
    n_datasets : int, default 1000
        Simulated data sets per scenario (at least 20).
    n_permutations : int, default 999
        Permutations of each test (RNSB: random directions); the p-value's Monte Carlo error does
        not bias a rejection rate.
    n_resamples : int, default 1000
        Bootstrap resamples of each interval (the commands' default).
    seed : int, default 0
    dim : int, default 64
    sizes : dict of str to int, optional
        Sizes to use instead of :data:`SIZES`' (``{"pairs": 8, "attributes": 8}``: the occupation
        pairs, or WEAT's target words, and the attribute words per set, each at least 3), for the
        coverage of the intervals of queries smaller than the French one.
    progress : Progress, bool or None, optional
        A bar of the data sets simulated (:data:`geobias._progress.ProgressArg`).

    Returns
    -------
    CalibrationResult

    Raises
    ------
    ParameterError
        An unknown scenario, fewer than 20 data sets or more than 100,000, fewer than 99
        permutations or resamples, an unknown size or one below 3.

    Examples
    --------
    >>> r = calibrate(["neither"], n_datasets=20, n_permutations=99, n_resamples=99)
    >>> sorted({row.metric for row in r.rows})
    ['ECT', 'MAC', 'MWEAT', 'RIPA gender-aware', 'RND', 'RNSB', 'SEAT', 'WEAT']
    """
    names = list(scenarios or SCENARIOS)
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        raise ParameterError(f"unknown scenario(s) {', '.join(unknown)}; one of {', '.join(SCENARIOS)}", "scenarios")
    if not 20 <= n_datasets <= 100_000:
        raise ParameterError(f"n_datasets must be 20..100,000 (got {n_datasets})", "n_datasets")
    if n_permutations < 99 or n_resamples < 99:
        raise ParameterError("calibration needs at least 99 permutations and 99 resamples", "n_resamples")
    odd = {k: v for k, v in (sizes or {}).items() if k not in SIZES or not isinstance(v, int) or v < 3}
    if odd:
        raise ParameterError(f"sizes must be among {', '.join(SIZES)}, each an integer of at least 3; got {odd}", "sizes")
    sizes = {**SIZES, **(sizes or {})}
    rows: list[CalibrationRow] = []
    with loop_bar(progress, len(names) * n_datasets, "simulated data sets") as bar:
        for name in names:
            sc = SCENARIOS[name]
            truth = truths(sc, dim=dim, sizes=sizes)
            # a scenario's stream depends on its place in SCENARIOS, not on the scenarios asked for
            # with it, so that a run of some scenarios repeats those rows of a run of all of them
            rng = np.random.default_rng([seed, list(SCENARIOS).index(name)])
            counts: dict[tuple[str, str], int] = {}
            for i in range(n_datasets):
                out = _one(simulate(sc, rng, dim=dim, sizes=sizes), n_permutations=n_permutations, n_resamples=n_resamples,
                           seed=seed * 100_003 + i)
                for key, v in out.items():
                    if isinstance(v, tuple):
                        t = truth[key[1]]
                        hit = v[0] is not None and v[0] <= t <= v[1]
                    else:
                        hit = v is not None and v <= 0.05
                    counts[key] = counts.get(key, 0) + int(hit)
                bar.update(1)
            for (metric, figure), c in counts.items():
                rate = c / n_datasets
                interval = figure in truth
                rows.append(CalibrationRow(
                    scenario=name, metric=metric, figure=figure, kind="interval" if interval else "test",
                    truth=truth[figure] if interval else None,
                    # a truth within Monte Carlo error of 0 is 0 (sums of a symmetric model, say)
                    null_holds=(abs(truth[figure]) < 0.02 if interval else _test_null(metric, figure, sc)),
                    rate=rate, n=n_datasets, mc_se=float(np.sqrt(rate * (1 - rate) / n_datasets))))
    return CalibrationResult(rows, n_datasets, n_permutations, n_resamples, seed, dim, sizes)
