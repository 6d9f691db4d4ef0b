"""Guarded statistics: a WEAT-style test refuses a store that lost too much of a word set, and
every interval the erasure table can emit stays inside its quantity's range."""

from __future__ import annotations

import json

import numpy as np
import pytest

from geobias.cli import main
from geobias.commands import run as run_command
from geobias.commands._guards import LostVocabularyError, check_lost_vocabulary, lost_shares
from geobias.store import VectorStore, save_store

X = [f"x{i}" for i in range(8)]
Y = [f"y{i}" for i in range(8)]
A = [f"a{i}" for i in range(6)]
B = [f"b{i}" for i in range(6)]


@pytest.fixture
def store_dir(tmp_path):
    """A store with every word of X, Y, A, B and a planted association (X near A, Y near B)."""
    rng = np.random.default_rng(0)
    dim = 16
    axis = np.eye(dim)[0]
    words = X + Y + A + B
    rows = [rng.normal(size=dim) + (2 * axis if w[0] in "xa" else -2 * axis) for w in words]
    path = tmp_path / "store"
    save_store(VectorStore(words, np.array(rows), lang="en", provenance={"source": "planted"}), path)
    return str(path)


def cli(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def _sets(x_lost: int = 0):
    """Custom WEAT sets whose X has ``x_lost`` words the store does not hold."""
    return {"targets_x": X[: 8 - x_lost] + [f"ghost{i}" for i in range(x_lost)], "targets_y": Y,
            "attributes_a": A, "attributes_b": B}


def test_lost_shares_and_message():
    counts = lost_shares({"X": ["a", "b", "zz", "zz"], "Y": ["a"]}, {"a", "b"})
    assert counts == {"X": (1, 3), "Y": (0, 1)}  # duplicates count once
    check_lost_vocabulary({"X": (1, 5)}, 0.2)  # exactly at the threshold: allowed (WEFE refuses above it)
    with pytest.raises(LostVocabularyError) as exc:
        check_lost_vocabulary({"X": (6, 8), "Y": (7, 8), "A": (0, 8)}, 0.2, test="WEAT career-family",
                              store="en-w2v-gnews")
    msg = str(exc.value)
    assert "75% of X (6 of 8 words) and 88% of Y (7 of 8 words) are out of vocabulary" in msg and "of A" not in msg
    assert "13 of 24 words overall" in msg and "`lost_vocabulary_threshold`" in msg and "\n" not in msg
    assert exc.value.lost == {"X": (6, 8), "Y": (7, 8)} and exc.value.threshold == 0.2
    with pytest.raises(LostVocabularyError, match="X needs at least 2"):  # the minimum holds at any threshold
        check_lost_vocabulary({"X": (2, 3)}, 1.0, minimum={"X": 2})
    check_lost_vocabulary({"X": (0, 1)}, 0.2, minimum={"X": 2})  # a set given small, losing nothing, is the user's


def test_weat_refuses_above_the_threshold_and_runs_below(store_dir):
    ok = run_command("weat", vectors=store_dir, permutations=2000, **_sets(x_lost=1))  # 1 of 8 = 12.5%
    assert ok.effect_size > 1.5 and ok.missing == ["ghost0"]  # the planted association
    with pytest.raises(LostVocabularyError) as exc:
        run_command("weat", vectors=store_dir, permutations=2000, **_sets(x_lost=2))  # 2 of 8 = 25%
    assert "25% of X (2 of 8 words) is out of vocabulary" in str(exc.value) and "planted" in str(exc.value)
    # the option accepts the loss; the number is then the same as with the words removed
    loose = run_command("weat", vectors=store_dir, permutations=2000, lost_vocabulary_threshold=0.5,
                        **_sets(x_lost=2))
    trimmed = run_command("weat", vectors=store_dir, permutations=2000,
                          **{**_sets(), "targets_x": X[:6]})
    assert loose.effect_size == pytest.approx(trimmed.effect_size, abs=1e-12)
    # with oov="raise" nothing is lost silently: the metric's own error names the words
    from geobias.errors import OutOfVocabularyError

    with pytest.raises(OutOfVocabularyError):
        run_command("weat", vectors=store_dir, oov="raise", **_sets(x_lost=2))


def test_mweat_and_ripa_are_guarded(store_dir):
    pairs = [[y, x] for x, y in zip(X, Y, strict=True)]  # [feminine, masculine]
    ok = run_command("mweat", vectors=store_dir, targets=pairs, attributes_a=A, attributes_b=B, permutations=500)
    assert ok.n_pairs == 8
    lossy = pairs[:5] + [["gf1", "gm1"], ["gf2", "gm2"], ["gf3", "gm3"]]  # 3 of 8 pairs lost
    with pytest.raises(LostVocabularyError, match=r"38% of the occupation pairs \(X and Y\) \(3 of 8 pairs\)"):
        run_command("mweat", vectors=store_dir, targets=lossy, attributes_a=A, attributes_b=B, permutations=500)
    with pytest.raises(LostVocabularyError, match=r"33% of B \(female words\) \(2 of 6 words\)"):
        run_command("mweat", vectors=store_dir, targets=pairs, attributes_a=A,
                    attributes_b=B[:4] + ["gone1", "gone2"], permutations=500)
    ripa = run_command("ripa", vectors=store_dir, targets=X, pairs=[[a, b] for a, b in zip(A, B, strict=True)])
    assert len(ripa.words) == 8
    with pytest.raises(LostVocabularyError, match="RIPA on planted: 50% of the targets"):
        run_command("ripa", vectors=store_dir, targets=X[:4] + ["g1", "g2", "g3", "g4"],
                    pairs=[[a, b] for a, b in zip(A, B, strict=True)])


def test_the_threshold_is_a_checked_parameter(store_dir):
    from geobias.errors import ParameterError

    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ParameterError, match="lost_vocabulary_threshold"):
            run_command("weat", vectors=store_dir, lost_vocabulary_threshold=bad, **_sets())


def test_cli_refuses_in_one_line_and_the_option_accepts(store_dir, tmp_path, capsys):
    args = ["weat", "--vectors", store_dir, "--targets-x", ",".join(_sets(x_lost=3)["targets_x"]),
            "--targets-y", ",".join(Y), "--attributes-a", ",".join(A), "--attributes-b", ",".join(B),
            "--permutations", "1000"]
    rc, out, err = cli(args, capsys)
    assert rc == 1 and out == "" and err.count("\n") == 1, err
    assert "38% of X (3 of 8 words)" in err and "--lost-vocabulary-threshold" in err and "--vectors" in err
    rc, out, err = cli([*args, "--lost-vocabulary-threshold", "0.5", "--json"], capsys)
    assert rc == 0, err
    assert json.loads(out)["result"]["missing"] == ["ghost0", "ghost1", "ghost2"]
    rc, _, err = cli([*args, "--lost-vocabulary-threshold", "2"], capsys)
    assert rc == 2 and "--lost-vocabulary-threshold" in err  # outside [0, 1]: a usage error


def test_service_answers_the_refusal_as_a_4xx(store_dir):
    from geobias.commands import get, validate

    params = validate(get("weat"), {"vectors": store_dir, **_sets(x_lost=4)})
    with pytest.raises(LostVocabularyError) as exc:
        get("weat").run(params)
    # the service maps every GeobiasError that is not a server fault to a 4xx (InputError → 400)
    from geobias.errors import InputError

    assert isinstance(exc.value, InputError)


# ------------------------------------------------------------------------------- real stores


@pytest.mark.slow
def test_weat_en_refuses_the_names_test_on_gnews(installed, capsys):
    installed("en-w2v-gnews")
    rc, out, err = cli(["weat", "--lang", "en", "--test", "career-family"], capsys)
    assert rc == 1 and out == "" and err.count("\n") == 1
    # career-family's names: 2 of 8 male and 1 of 8 female names are in en-w2v-gnews
    assert "75% of X (6 of 8 words) and 88% of Y (7 of 8 words)" in err, err
    rc, out, err = cli(["weat", "--lang", "en", "--json", "-n", "1000"], capsys)
    assert rc == 0, err  # the default, career-family-terms (gendered terms): the store has them
    assert json.loads(out)["result"]["test"] == "career-family-terms"


@pytest.mark.slow
def test_the_demo_mweat_is_not_refused(installed, capsys):
    installed("fr-spacy-md")
    rc, out, err = cli(["mweat", "--lang", "fr", "--json"], capsys)
    assert rc == 0, err
    res = json.loads(out)["result"]
    assert res["statistic"] == pytest.approx(2.09589, abs=5e-6) and res["p_value"] == pytest.approx(0.02418, abs=5e-6)  # as the code printed before the guard


# ------------------------------------------------------------------------------- intervals


def _unit_metrics():
    from geobias.evaluation.erasure import ENGLISH_METRICS, ERASURE_METRICS, metric_range

    keys = list(dict.fromkeys([*ERASURE_METRICS, *ENGLISH_METRICS]))
    return keys, metric_range


def test_p_values_over_seeds_are_median_and_range():
    from geobias.evaluation.erasure import seed_summary

    seeds = [0.178, 0.215, 0.0002, 0.0085, 0.0004]  # leace-keep-grammar's MWEAT p over five seeds
    s = seed_summary(seeds, "mweat_p_value")
    assert s["interval"] == "range" and s["center"] == s["median"] == 0.0085
    assert (s["ci_low"], s["ci_high"]) == (0.0002, 0.215)
    t = seed_summary([1.0, 2.0, 3.0], "sum_x_minus_sum_y")  # unbounded: mean ± t
    assert t["interval"] == "t" and t["ci_high"] - t["center"] == pytest.approx(2.4841, abs=1e-4)  # t_.975,2/√3


def test_no_interval_leaves_its_range():
    """Every quantity either table emits, on adversarial seeds (values at both ends of the range,
    and spreads wide enough that a t-interval crosses a bound), gets an interval inside its range
    and containing its centre."""
    from geobias.evaluation.erasure import seed_summary

    keys, metric_range = _unit_metrics()
    rng = np.random.default_rng(0)
    for key in keys:
        lo, hi = metric_range(key)
        assert lo < hi, key
        a = lo if np.isfinite(lo) else -10.0
        b = hi if np.isfinite(hi) else 10.0
        cases = [[a, a, a, b], [a, b], [a, a + (b - a) * 0.01, a], [b, b, b - (b - a) * 0.02], [a], [None, b]]
        cases += [list(rng.uniform(a, b, size=n)) for n in (2, 3, 5, 30)]
        for values in cases:
            s = seed_summary(values, key)
            assert lo <= s["ci_low"] <= s["center"] <= s["ci_high"] <= hi, (key, values, s)
    # the quantities known to be bounded are: a p-value is never summarised by a t-interval
    assert metric_range("mweat_p_value") == (0.0, 1.0) and metric_range("weat_math-arts_p_value") == (0.0, 1.0)
    assert metric_range("control_weat_effect_size") == (-2.0, 2.0)


def test_the_rendered_cells_follow_the_summary():
    from geobias.evaluation.erasure import seed_summary
    from geobias.report.erasure import _cell

    assert _cell(seed_summary([0.178, 0.215, 0.0002, 0.0085, 0.0004], "mweat_p_value"),
                 "mweat_p_value") == "0.0085 (0.0002–0.2150)"
    assert _cell(seed_summary([0.01, 0.02, 0.5], "mweat_statistic"), "mweat_statistic").startswith("0.177 [0.000, ")
    assert _cell(seed_summary([1.0, 2.0, 3.0], "sum_x_minus_sum_y"), "sum_x_minus_sum_y") == "2.000 ± 2.484"


# ------------------------------------------------------------------------------- work budget


def test_every_permutation_command_estimates_its_work():
    """A command whose parameters can make its work arbitrarily large (permutations) overrides
    ``Params.work``, so that every front door can refuse it before it starts."""
    from geobias.commands import Params, commands

    with_permutations = [c for c in commands() if "permutations" in c.params.model_fields]
    assert {c.name for c in with_permutations} >= {"mweat", "weat", "evaluate", "erasure"}
    for c in with_permutations:
        assert c.params.work is not Params.work, c.name
        assert "force" in c.params.model_fields, c.name


@pytest.mark.parametrize("argv, count", [
    (["evaluate", "--lang", "fr", "--dictionary", "absent.txt", "--test-dictionary", "absent.txt"],
     "12,000,000,000,000 permutations (6 methods × 2 MWEATs × 1,000,000,000,000 partitions)"),
    (["erasure", "--lang", "fr", "--dictionary", "absent.txt", "--test-dictionary", "absent.txt", "--seeds", "0,1"],
     "28,000,000,000,000 permutations (2 seeds × 7 methods × 2 tests × 1,000,000,000,000 partitions)"),
    # the default bootstrap (1,000 resamples of the 76 words) is counted beside the partitions, once per
    # pass MWEAT makes: three quantities (signed figure and both sums), each crossed (three passes)
    (["mweat", "--lang", "fr"], "1,000,000,684,000 permutations (1,000,000,000,000 partitions + 9 passes × "
                                "1,000 bootstrap resamples × 76 words) would take about"),
])
def test_over_budget_runs_are_refused_before_any_work(argv, count, capsys):
    # the dictionaries do not exist: a refusal naming the budget shows nothing was read or loaded
    rc, out, err = cli([*argv, "--permutations", "1000000000000"], capsys)
    assert rc == 1 and out == "" and err.count("\n") == 1, err
    assert count in err and "would take about" in err and "--force" in err and "100,000,000" in err


def test_the_budget_api_for_other_front_doors(store_dir):
    from geobias.commands import WorkBudgetError, check_budget, get, validate

    cmd = get("weat")
    params = validate(cmd, {"vectors": store_dir, "permutations": 50_000, "bootstrap": 0, **_sets()})  # partitions only
    est = cmd.work(params)
    # 16 targets: C(16, 8) = 12,870 partitions ≤ 50,000, so auto enumerates them exactly
    assert (est.units, est.unit, est.over) == (12_870, "permutations", False)
    assert check_budget(cmd, params) == est
    with pytest.raises(WorkBudgetError) as exc:  # a front door with a 10,000× smaller budget (a quick route)
        check_budget(cmd, params, factor=1e-4)
    assert exc.value.estimate.units == 12_870 and exc.value.estimate.limit == 10_000
    assert "weat: 12,870 permutations" in str(exc.value) and "`force`" in str(exc.value)
    forced = validate(cmd, {"vectors": store_dir, "permutations": 50_000, "bootstrap": 0, "force": True, **_sets()})
    assert check_budget(cmd, forced, factor=1e-4).units == 12_870  # force: estimated, never refused
    assert get("neighbors").work(validate("neighbors", {"word": "x0", "vectors": store_dir})) is None


def test_the_permutation_p_value_interval_stays_in_the_unit_interval():
    """The other interval the code emits: the Clopper–Pearson interval of a Monte-Carlo p-value
    (every WEAT/MWEAT result's ``p_value_ci``), at both extremes and in between."""
    from geobias.stats.permutation import permutation_test

    rng = np.random.default_rng(3)
    for shift in (-5.0, 0.0, 0.3, 5.0):  # p near 1, middling, small, at its floor 1/(B+1)
        scores = np.concatenate([rng.normal(shift, 1, 20), rng.normal(0, 1, 20)])
        for alternative in ("greater", "less", "two-sided"):
            for method, n in (("monte-carlo", 200), ("exact", 10)):
                s = scores if method == "monte-carlo" else scores[:10]
                r = permutation_test(s, len(s) // 2, n_permutations=n, method=method, alternative=alternative)
                lo, hi = r.p_value_ci
                assert 0.0 <= lo <= r.p_value <= hi <= 1.0, (shift, alternative, method, r.p_value_ci)


def test_permutation_loops_stop_when_cancelled(store_dir):
    from geobias.stats import Cancelled, cancellable

    calls = []

    def check():
        calls.append(1)
        return len(calls) >= 3  # e.g. the job was cancelled while the third chunk ran

    args = dict(vectors=store_dir, permutations=200_000, permutation_method="monte-carlo", **_sets())
    with cancellable(check), pytest.raises(Cancelled, match="after 30,000 of 200,000 partitions"):
        run_command("weat", **args)
    assert len(calls) == 3
    with cancellable(lambda: False):  # never cancelled: the same number as without the check
        kept = run_command("weat", **{**args, "permutations": 20_000})
    assert kept.p_value == run_command("weat", **{**args, "permutations": 20_000}).p_value


def test_a_job_runs_past_the_budget_when_its_front_door_says_so(store_dir, monkeypatch):
    """execute(budget=None) is a service job's call: over the budget, it runs (cancellable)."""
    from geobias.commands import WorkBudgetError, _permutations, execute

    monkeypatch.setattr(_permutations, "MAX_PERMUTATIONS", 1_000)  # a small budget, a quick run
    args = dict(vectors=store_dir, permutations=5_000, permutation_method="monte-carlo", **_sets())
    with pytest.raises(WorkBudgetError, match=r"89,000 permutations \(5,000 partitions \+ 3 passes × 1,000 bootstrap"):
        execute("weat", args)
    result, env = execute("weat", args, budget=None)
    assert result.n_permutations == 5_000 and env["command"] == "weat"


def test_the_audit_grid_estimates_its_cells(tmp_path, capsys):
    from _engine_grid import TESTS, write_grid

    config = write_grid(tmp_path, permutations=50_000_000)  # 3 stores × 3 tests × 50,000,000
    rc, out, err = cli(["audit", "--config", str(config)], capsys)
    n = 3 * len(TESTS)
    assert rc == 1 and out == "" and err.count("\n") == 1, err
    assert f"{n * 50_000_000:,} permutations ({n} cells × at most 50,000,000 partitions)" in err and "--force" in err
