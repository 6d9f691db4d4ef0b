"""RND, RNSB, ECT and MAC: each definition on stores small enough to compute by hand, the
grammatical variant's cancellation of agreement, the permutation tests against scipy, and the
commands on the Python and command-line front doors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from geobias.commands import execute, validate
from geobias.errors import InputError, OutOfVocabularyError, ParameterError
from geobias.metrics.ect import ect
from geobias.metrics.mac import mac
from geobias.metrics.rnd import relative_norm_distances, rnd
from geobias.metrics.rnsb import rnsb
from geobias.query import LostVocabularyError, WordQuery
from geobias.store import VectorStore, save_store

REPO = Path(__file__).resolve().parents[2]
SQ2 = np.sqrt(2.0)
#: The store holds float32 rows: 0.6 and 0.8 are stored to about 3e-8, so hand-computed values
#: agree to about 1e-7; exact arithmetic on float64 would give 1e-15.
F32 = 1e-6


@pytest.fixture
def axes():
    # he/man lean to axis 0, she/woman to axis 1; the targets are placed by hand
    words = ["he", "man", "she", "woman", "engineer", "nurse", "poet", "pilot", "baker"]
    vectors = np.array([[1.0, 0, 0], [0.6, 0, 0.8], [0, 1.0, 0], [0, 0.6, 0.8],
                        [2.0, 0, 0], [0, 3.0, 0], [0, 0, 1.0], [1.0, 0, 1.0], [0, 1.0, 1.0]])
    return VectorStore(words, vectors, lang="en")


# -- RND ---------------------------------------------------------------------------------------


def test_rnd_is_garg_sum_of_norm_differences_on_unit_vectors(axes):
    # unit rows: engineer → (1,0,0), nurse → (0,1,0), poet → (0,0,1); mean A = (0.8, 0, 0.4),
    # mean B = (0, 0.8, 0.4)
    r = rnd(axes, WordQuery(["engineer", "nurse", "poet"], None, ["he", "man"], ["she", "woman"]))
    d_near, d_far = np.sqrt(0.04 + 0.16), np.sqrt(1 + 0.64 + 0.16)  # ‖e − ā‖, ‖e − b̄‖
    expected = {"engineer": d_near - d_far, "nurse": d_far - d_near, "poet": 0.0}
    assert {w.word: w.score for w in r.per_word} == pytest.approx(expected, abs=F32)
    assert r.rnd == pytest.approx(0.0, abs=F32) and r.rnd_mean == pytest.approx(0.0, abs=F32)
    assert r.permutation is None and r.p_value is None and r.rnd_y is None  # one target set: no test
    one = rnd(axes, WordQuery(["engineer"], None, ["he", "man"], ["she", "woman"]))
    assert one.rnd == pytest.approx(d_near - d_far, abs=F32)  # negative: closer to A
    swapped = rnd(axes, WordQuery(["engineer"], None, ["she", "woman"], ["he", "man"]))
    assert swapped.rnd == pytest.approx(-one.rnd)  # swapping the groups flips the sign


def test_rnd_scale_invariance_and_the_helper(axes):
    # the paper normalises every vector, so scaling a target does not move RND
    a = rnd(axes, WordQuery(["engineer", "pilot"], None, ["he"], ["she"]))
    w = np.array([[1.0, 0, 0], [1 / SQ2, 0, 1 / SQ2]])
    ref = relative_norm_distances(w, np.array([[1.0, 0, 0]]), np.array([[0, 1.0, 0]]))
    assert [x.score for x in a.per_word] == pytest.approx(ref.tolist())
    assert ref[0] == pytest.approx(0 - SQ2)


def test_rnd_two_target_sets_permutation_matches_scipy(axes):
    X, Y = ["engineer", "pilot"], ["nurse", "baker", "poet"]
    r = rnd(axes, WordQuery(X, Y, ["he", "man"], ["she", "woman"]), alternative="two-sided")
    scores = np.array([w.score for w in r.per_word])
    assert r.rnd_x == pytest.approx(scores[:2].sum()) and r.rnd_y == pytest.approx(scores[2:].sum())
    assert r.permutation.exact and r.permutation.n_permutations == 10  # C(5, 2) partitions
    ref = stats.permutation_test((scores[:2], scores[2:]), lambda x, y: np.sum(x) - np.sum(y),
                                 permutation_type="independent", alternative="two-sided", n_resamples=np.inf)
    assert r.permutation.statistic == pytest.approx(ref.statistic)
    assert r.p_value == pytest.approx(ref.pvalue)


def test_rnd_grammatical_sign_flip_matches_scipy(axes):
    # pairs (engineer, nurse), (pilot, baker), (poet, poet): the sign-flip test of r(m) + r(f)
    X, Y = ["engineer", "pilot", "poet"], ["nurse", "baker", "he"]
    r = rnd(axes, WordQuery(X, Y, ["man"], ["woman"]), variant="grammatical", alternative="greater")
    d = np.array([p.score for p in r.per_pair])
    assert d == pytest.approx([p.score_masculine + p.score_feminine for p in r.per_pair])
    assert r.rnd == pytest.approx(d.sum()) and r.rnd_mean == pytest.approx(d.mean())
    ref = stats.permutation_test((d,), np.sum, permutation_type="samples", alternative="greater",
                                 n_resamples=np.inf)
    assert r.permutation.paired and r.permutation.n_permutations == 8  # 2**3 sign patterns
    assert r.p_value == pytest.approx(ref.pvalue)


# -- the grammatical variant: agreement cancels ------------------------------------------------


@pytest.fixture
def agreement():
    """Every occupation's forms differ only along the grammatical axis (axis 1), and the male
    (female) words are grammatically masculine (feminine): all gender signal is agreement."""
    rng = np.random.default_rng(0)
    words, rows = [], []
    for i in range(6):
        other = rng.normal(size=3)
        words += [f"m{i}", f"f{i}"]
        rows += [[0.0, 1.0, *other], [0.0, -1.0, *other]]
    # the reflection (x0, x1, rest) → (−x0, −x1, rest) maps each masculine form onto its feminine
    # form and the male words onto the female words
    words += ["il", "homme", "elle", "femme"]
    rows += [[1.0, 1.0, 0.3, 0, 0], [1.0, 1.2, 0, 0.2, 0], [-1.0, -1.0, 0.3, 0, 0], [-1.0, -1.2, 0, 0.2, 0]]
    return VectorStore(words, np.array(rows), lang="fr")


def _forms():
    return [f"m{i}" for i in range(6)], [f"f{i}" for i in range(6)]


def test_grammatical_variant_removes_pure_agreement(agreement):
    X, Y = _forms()
    A, B = ["il", "homme"], ["elle", "femme"]
    eng = rnd(agreement, WordQuery(X, Y, A, B))
    assert eng.rnd_x < -1 and eng.rnd_y > 1  # english-style: each form leans to its own gender
    assert eng.p_value < 0.01  # and the X-vs-Y test finds it (it is agreement)
    gram = rnd(agreement, WordQuery(X, Y, A, B), variant="grammatical")
    # the reflection maps m_i to f_i and A to B, so r(m_i) + r(f_i) = 0 (float rounding only)
    assert max(abs(p.score) for p in gram.per_pair) < 1e-12
    assert gram.rnd == pytest.approx(eng.rnd, abs=1e-12)  # RND is linear: the pair sums add up to both sets
    e = ect(agreement, WordQuery(X, Y, A, B), variant="grammatical")
    assert e.ect == pytest.approx(1.0)  # cos(ā, m_i) = cos(b̄, f_i) for every i: identical profiles
    assert [p.score for p in e.per_pair] == pytest.approx([0.0] * 6, abs=1e-12)
    n = rnsb(agreement, WordQuery(X, Y, A, B), variant="grammatical")
    # P(B | m_i) + P(B | f_i) = 1 when the fitted boundary is symmetric; liblinear also penalises the
    # intercept and stops at tol=1e-4, so the pair means are 1/2 to about that precision
    assert [w.probability for w in n.per_word] == pytest.approx([0.5] * 6, abs=1e-3)
    assert n.rnsb < 1e-5
    assert rnsb(agreement, WordQuery(X, Y, A, B)).rnsb > 100 * n.rnsb  # the english reading sees the agreement
    m = mac(agreement, WordQuery(X, Y, A, B), variant="grammatical")
    # the reflection maps S(m_i, A) to S(f_i, B) and S(m_i, B) to S(f_i, A): both forms score alike
    assert [p.score_masculine for p in m.per_pair] == pytest.approx([p.score_feminine for p in m.per_pair])
    assert m.mac == pytest.approx(mac(agreement, WordQuery(X, Y, A, B)).mac)  # complete pairs: the English MAC


def test_grammatical_variant_drops_pairs_and_checks_lengths(agreement):
    X, Y = _forms()
    r = rnd(agreement, WordQuery([*X, "zz"], [*Y, "f0"], ["il"], ["elle"]), variant="grammatical", oov="ignore")
    assert r.dropped_pairs == [("zz", "f0")] and r.missing == ["zz"] and r.n_x == 6
    with pytest.raises(OutOfVocabularyError):
        rnd(agreement, WordQuery([*X, "zz"], [*Y, "f0"], ["il"], ["elle"]), variant="grammatical")
    with pytest.raises(InputError, match="paired by position"):
        mac(agreement, WordQuery(X, Y[:-1], ["il"], ["elle"]), variant="grammatical")
    with pytest.raises(InputError, match="variant"):
        mac(agreement, WordQuery(X, Y, ["il"], ["elle"]), variant="spanish")


# -- ECT ---------------------------------------------------------------------------------------


def test_ect_is_spearman_of_the_two_similarity_profiles(axes):
    # unit targets: engineer (1,0,0), nurse (0,1,0), pilot (1,0,1)/√2, baker (0,1,1)/√2
    # mean A = he = (1,0,0), mean B = she = (0,1,0)
    r = ect(axes, WordQuery(["engineer", "nurse", "pilot", "baker"], None, ["he"], ["she"]))
    prof_a = [1.0, 0.0, 1 / SQ2, 0.0]
    prof_b = [0.0, 1.0, 0.0, 1 / SQ2]
    assert [w.similarity_a for w in r.per_word] == pytest.approx(prof_a)
    assert [w.similarity_b for w in r.per_word] == pytest.approx(prof_b)
    # ranks with ties averaged: a → (4, 1.5, 3, 1.5), b → (1.5, 4, 1.5, 3)
    ra, rb = np.array([4, 1.5, 3, 1.5]), np.array([1.5, 4, 1.5, 3])
    pearson = np.corrcoef(ra, rb)[0, 1]
    assert r.ect == pytest.approx(pearson) and r.ect == pytest.approx(-8 / 9)
    # the table says what ρ cannot: no value of it means "no bias" (the calibration's truths, +0.684
    # without and with a planted bias, are what the note cites)
    from rich.console import Console

    from geobias.metrics.ect import NO_NULL

    console = Console(record=True, width=300)
    console.print(r)
    text = console.export_text()
    assert "1 = no bias" not in text and NO_NULL in text and "0.68 with no bias and 0.68 with bias" in NO_NULL


def test_ect_needs_three_targets_and_a_varying_profile(axes):
    with pytest.raises(InputError, match="at least 3"):
        ect(axes, WordQuery(["engineer", "nurse"], None, ["he"], ["she"]))
    with pytest.raises(InputError, match="constant"):
        ect(axes, WordQuery(["poet", "poet", "poet"], None, ["he"], ["she"]))


# -- MAC ---------------------------------------------------------------------------------------


def test_mac_is_the_mean_cosine_distance(axes):
    # S(engineer, A) = mean(1 − 1, 1 − 0.6) = 0.2; S(engineer, B) = mean(1, 1) = 1
    # S(nurse, A) = 1; S(nurse, B) = mean(0, 0.4) = 0.2
    r = mac(axes, WordQuery(["engineer"], ["nurse"], ["he", "man"], ["she", "woman"]))
    got = [v for w in r.per_word for v in (w.distance_a, w.distance_b)]
    assert got == pytest.approx([0.2, 1.0, 1.0, 0.2], abs=F32)
    assert r.mac == pytest.approx((0.2 + 1.0 + 1.0 + 0.2) / 4, abs=F32)
    g = mac(axes, WordQuery(["engineer", "pilot"], ["nurse", "zzz"], ["he", "man"], ["she", "woman"],
                            lost_vocabulary_threshold=1, minimum_words=1), variant="grammatical", oov="ignore")
    assert g.mac == pytest.approx(0.6, abs=F32) and g.dropped_pairs == [("pilot", "zzz")]  # pilot left out too
    assert g.per_pair[0].score_masculine == pytest.approx(0.6, abs=F32)  # (0.2 + 1.0) / 2


# -- RNSB --------------------------------------------------------------------------------------


def test_rnsb_is_the_kl_of_the_normalised_negative_probabilities(axes):
    from sklearn.linear_model import LogisticRegression

    X, A, B = ["engineer", "nurse", "pilot", "baker", "poet"], ["he", "man"], ["she", "woman"]
    r = rnsb(axes, WordQuery(X, None, A, B))
    unit = lambda ws: axes.lookup(ws, unit=True).vectors.astype(np.float64)  # noqa: E731
    clf = LogisticRegression(solver="liblinear", max_iter=10_000, random_state=0)
    clf.fit(np.concatenate([unit(A), unit(B)]), [1, 1, -1, -1])
    p = clf.predict_proba(unit(X))[:, list(clf.classes_).index(-1)]
    assert [w.probability for w in r.per_word] == pytest.approx(p.tolist(), abs=1e-12)
    share = p / p.sum()
    assert r.rnsb == pytest.approx(float(np.sum(share * np.log(len(p) * share))))
    assert r.rnsb > 0 and r.train_accuracy == 1.0
    assert "liblinear" in r.classifier and "C=1.0" in r.classifier


def test_rnsb_is_zero_for_equally_negative_targets(axes):
    assert rnsb(axes, WordQuery(["poet", "poet"], None, ["he"], ["she"])).rnsb == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(InputError, match="C must be within 1e-06 to 1e\\+06"):
        rnsb(axes, WordQuery(["poet"], None, ["he"], ["she"]), C=0)
    # liblinear never returns for C below about 1e-200: refused, by the library and by the parameter model
    from geobias.commands.catalogue import RnsbParams
    from geobias.metrics.rnsb import C_RANGE

    with pytest.raises(InputError, match="C must be within"):
        rnsb(axes, WordQuery(["poet", "nurse"], None, ["he"], ["she"]), C=1e-300)
    bounds = {m.__class__.__name__: m for m in RnsbParams.model_fields["C"].metadata}
    assert (bounds["Ge"].ge, bounds["Le"].le) == C_RANGE


def test_missing_words_are_listed_and_empty_sets_refused(axes):
    # the library applies WEFE's lost-vocabulary rule (20% per set) like every command does
    for metric in (rnd, rnsb, ect, mac):
        with pytest.raises(LostVocabularyError, match="50% of X .* and 50% of A"):
            metric(axes, WordQuery(["engineer", "zzz"], None, ["he", "qq"], ["she"]), oov="ignore")
    r = mac(axes, WordQuery(["engineer", "zzz"], None, ["he", "qq"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")
    assert r.missing == ["zzz", "qq"] and r.n_x == 1 and r.n_a == 1
    with pytest.raises(InputError, match="out of vocabulary"):
        rnd(axes, WordQuery(["zzz"], None, ["he"], ["she"], lost_vocabulary_threshold=1, minimum_words=1), oov="ignore")


# -- the commands --------------------------------------------------------------------------------


def test_commands_through_the_command_layer(agreement):
    from geobias.sources import use_opener

    X, Y = _forms()
    base = {"lang": "fr", "targets_x": X, "targets_y": Y, "attributes_a": ["il", "homme"],
            "attributes_b": ["elle", "femme"]}
    with use_opener(lambda lang, name, option: agreement):
        result, env = execute("rnd", base)
        assert env["command"] == "rnd" and result.variant == "grammatical"  # the default for fr
        assert env["result"]["rnd"] == pytest.approx(result.rnd) and result.permutation.paired
        eng, _ = execute("rnd", {**base, "variant": "english"})
        assert eng.variant == "english" and not eng.permutation.paired
        for name in ("rnsb", "ect", "mac"):
            r, e = execute(name, base)
            assert r.variant == "grammatical" and e["command"] == name
            assert type(r).from_dict(e["result"]) == r  # the stored JSON form rebuilds the result
    with pytest.raises(ParameterError, match="attributes_b"):
        validate("mac", {"attributes_a": ["il"]})
    with pytest.raises(ParameterError, match="one-form words"):
        validate("ect", {"lang": "fr", "test": "math-arts", "variant": "grammatical"})
    with pytest.raises(InputError, match="pair masculine and feminine forms by position"):
        validate("rnd", {"variant": "grammatical", "targets_x": ["a", "b"], "targets_y": ["c"]})
    with pytest.raises(ParameterError, match="C"):
        validate("rnsb", {"C": -1})


def test_english_defaults_and_built_in_tests():
    from geobias.commands import get

    p = validate("rnd", {"lang": "fr"})
    X, Y, A, B, variant, name = p.query()
    assert variant == "grammatical" and len(X) == len(Y) and "occupations" in name
    p = validate("mac", {"lang": "fr", "test": "math-arts"})
    assert p.query()[4] == "english"  # a built-in test holds one-form words: the paper's metric
    X, Y, *_ , variant, _ = validate("ect", {"lang": "en"}).query()
    assert Y is None and variant == "english" and len(X) == len(set(X))
    with pytest.raises(InputError, match="no grammatical gender"):
        validate("ect", {"lang": "en", "variant": "grammatical"}).query()
    assert get("rnd").params.model_fields["alternative"].default == "two-sided"


def test_the_cli_runs_a_generated_command(axes, tmp_path):
    (tmp_path / "vectors").mkdir()
    save_store(axes, tmp_path / "vectors" / "tiny-axes")
    env_vars = dict(os.environ, GEOBIAS_VECTORS_DIR=str(tmp_path / "vectors"))
    cmd = [sys.executable, str(REPO / "cli.py"), "mac", "--vectors", "tiny-axes", "--targets-x", "engineer",
           "--targets-y", "nurse", "--attributes-a", "he,man", "--attributes-b", "she,woman"]
    out = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=env_vars)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["result"]["mac"] == pytest.approx(0.6)
    table = subprocess.run(cmd, capture_output=True, text=True, env=env_vars)
    assert table.returncode == 0 and "MAC = 0.6000" in table.stdout
    bad = subprocess.run([sys.executable, str(REPO / "cli.py"), "rnd", "--vectors", "tiny-axes", "--targets-x",
                          "zzz", "--attributes-a", "he", "--attributes-b", "she"], capture_output=True, text=True,
                         env=env_vars)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "out of vocabulary" in bad.stderr
    usage = subprocess.run([sys.executable, str(REPO / "cli.py"), "ect", "--vectors", "tiny-axes",
                            "--attributes-a", "he"], capture_output=True, text=True, env=env_vars)
    assert usage.returncode == 2 and "--attributes-b" in usage.stderr


# -- the WEFE parity script ----------------------------------------------------------------------


def test_wefe_parity_script_skips_cleanly_without_wefe():
    env = dict(os.environ, WEFE_PYTHON="/nonexistent/python", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "wefe_parity.py")], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "skipping" in out.stdout or "largest |difference|" in out.stdout  # wefe importable here: it ran


@pytest.mark.slow
def test_wefe_parity_on_gnews():
    """Every metric defined alike agrees with WEFE 1.0.1 to 1e-6 on en-w2v-gnews (needs $WEFE_PYTHON)."""
    if not os.environ.get("WEFE_PYTHON"):
        pytest.skip("set WEFE_PYTHON to an interpreter with wefe==1.0.1")
    from geobias.sources import resolve_store

    try:
        resolve_store("en", "en-w2v-gnews")
    except Exception as exc:  # noqa: BLE001 - any reason the store is unavailable
        pytest.skip(f"en-w2v-gnews not installed: {exc}")
    out = subprocess.run([sys.executable, str(REPO / "benchmarks" / "wefe_parity.py")], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "largest |difference|" in out.stdout


def test_the_service_answers_the_catalogue_routes(tmp_path):
    """``POST /rnd`` ... on a real server: the library's numbers, inline lists, one-line 4xx errors."""
    pytest.importorskip("httpx")

    sys.path.insert(0, str(REPO / "tests"))
    from _server import ServerProcess, small_french_store

    from geobias import wordlists

    store = small_french_store()
    (tmp_path / "vectors").mkdir()
    save_store(store, tmp_path / "vectors" / "small-fr")
    occ = wordlists.occupations("fr")
    male, female = wordlists.attribute_words("fr")
    lib = rnd(store, WordQuery([o.masculine for o in occ], [o.feminine for o in occ], male, female), variant="grammatical",
              oov="ignore", permutations=2000, seed=1)
    with ServerProcess(tmp_path / "vectors", tmp_path / "data") as srv, srv.client(timeout=60) as c:
        r = c.post("/rnd", json={"lang": "fr", "store": "small-fr", "permutations": 2000, "seed": 1})
        assert r.status_code == 200, r.text
        got = r.json()["result"]
        assert got["variant"] == "grammatical" and got["rnd"] == pytest.approx(lib.rnd, rel=1e-9)
        assert got["permutation"]["p_value"] == lib.p_value
        for route in ("rnsb", "ect", "mac"):
            r = c.post(f"/{route}", json={"store": "small-fr", "variant": "english", "X": "infirmier,avocat,homme",
                                          "A": ["il"], "B": ["elle"]})
            assert r.status_code == 200, r.text
            assert r.json()["result"]["variant"] == "english"
        # a string is a comma list in the service, never a server file: one word, out of vocabulary
        r = c.post("/ect", json={"store": "small-fr", "X": "/etc/passwd", "A": ["il"], "B": ["elle"]})
        error = r.json()["error"]
        assert r.status_code == 400 and error["type"] == "LostVocabularyError" and "100% of X" in error["message"]
        r = c.post("/mac", json={"store": "small-fr", "A": ["il"]})
        error = r.json()["error"]
        assert r.status_code == 422 and "attributes_b" in error["message"] and "\n" not in error["message"]


# -- recoverability (Gonen & Goldberg 2019) ------------------------------------------------------


@pytest.fixture
def gendered_space():
    """600 words: axis 0 carries gender g = ±1 (with noise), axis 1 a noisy copy of it (a proxy that
    a linear projection along axis 0 leaves behind), axes 2-9 noise."""
    rng = np.random.default_rng(1)
    g = np.where(np.arange(600) % 2 == 0, 1.0, -1.0) * rng.uniform(0.2, 1.0, 600)
    x = rng.normal(scale=0.3, size=(600, 10))
    x[:, 0] += g
    x[:, 1] += 2 * g
    words = [f"w{i}" for i in range(600)]
    return VectorStore(words, x), g


def test_recoverability_sees_through_a_projection_but_not_noise(gendered_space):
    from geobias.metrics.recoverability import recoverability

    store, _ = gendered_space
    rows = store.lookup(store.words).vectors.astype(np.float64)
    projected = rows.copy()
    projected[:, 0] = 0.0  # "debiased" along the direction only: the proxy on axis 1 remains
    scrubbed = np.random.default_rng(2).normal(size=rows.shape)  # every trace of gender gone
    r = recoverability(store, {"projection": VectorStore(store.words, projected),
                               "scrubbed": VectorStore(store.words, scrubbed)}, np.eye(10)[0],
                       n_biased=100, n_classify=200, n_train=100, k=20, professions=["w0", "w1", "w2", "w3"])
    orig, proj, scrub = r.rows
    assert [x.space for x in r.rows] == ["original", "projection", "scrubbed"]
    # the two gender groups are far apart along axes 0 and 1: both tests recover them (almost) perfectly
    assert orig.cluster_accuracy > 0.95 and orig.classifier_accuracy > 0.95 and orig.neighbour_correlation > 0.5
    assert proj.cluster_accuracy > 0.95 and proj.classifier_accuracy > 0.95  # lipstick on a pig
    # random vectors: chance level (0.5 ± a few standard errors of 200 and 300 words) and no correlation
    assert scrub.cluster_accuracy < 0.6 and scrub.classifier_accuracy < 0.6
    assert abs(scrub.neighbour_correlation) < 0.15
    assert orig.profession_correlation is not None and r.n_professions == 4


def test_neighbour_share_and_exclusions():
    from geobias.metrics.recoverability import _male_share_of_neighbours, recoverability

    # four points on the unit circle at 0°, 10°, 90°, 100°: each one's nearest neighbour is its twin
    ang = np.deg2rad([0, 10, 90, 100])
    v = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    male = np.array([True, False, True, True])
    assert _male_share_of_neighbours(v, male, 1, np.arange(4)).tolist() == [0.0, 1.0, 1.0, 1.0]
    assert _male_share_of_neighbours(v, male, 2, np.arange(4)).tolist() == [0.5, 1.0, 0.5, 0.5]
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(60)]
    store = VectorStore(words, rng.normal(size=(60, 4)))
    r = recoverability(store, {}, np.eye(4)[0], exclude=["w0", "w1"], inanimate=["w2", "w3", "w4"],
                       n_biased=10, n_classify=20, n_train=10, k=5)
    assert r.excluded == 2 and r.inanimate_excluded == 3 and r.n_eligible == 55
    assert r.inanimate_among_biased is not None and 0 <= r.inanimate_among_biased <= 3 / 20
    with pytest.raises(InputError, match="eligible words"):
        recoverability(store, {}, np.eye(4)[0], n_biased=40, n_classify=20, n_train=10, k=5)
    with pytest.raises(InputError, match="n_train"):
        recoverability(store, {}, np.eye(4)[0], n_biased=10, n_classify=5, n_train=10, k=5)
    with pytest.raises(InputError, match="direction"):
        recoverability(store, {}, np.ones(3), n_biased=10, n_classify=20, n_train=10, k=5)


def test_recoverability_command_on_the_synthetic_french_store():
    sys.path.insert(0, str(REPO / "tests"))
    from _server import small_french_store

    from geobias.sources import use_opener

    store = small_french_store()
    with use_opener(lambda lang, name, option: store):
        r, env = execute("recoverability", {"lang": "fr", "methods": "leace,shift-ori", "n_biased": 20,
                                            "n_classify": 40, "n_train": 30, "n_neighbors": 5})
    assert env["command"] == "recoverability" and r.direction == "d_s"  # fr: the orthogonalised direction
    assert [x.space for x in r.rows] == ["original", "leace", "shift-ori"]
    assert r.inanimate_excluded > 0 and r.excluded > 0  # inanimate nouns reported apart, not tested
    # LEACE erases the linear gender signal, so less of it is recoverable than in the original
    assert r.rows[1].neighbour_correlation < r.rows[0].neighbour_correlation
    with pytest.raises(InputError, match="needs English"):
        execute("recoverability", {"lang": "fr", "methods": ["shift-en"]})
    with pytest.raises(ParameterError, match="methods"):
        validate("recoverability", {"lang": "fr", "methods": "leace,nope"})
