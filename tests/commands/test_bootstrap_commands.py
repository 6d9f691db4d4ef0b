"""``--bootstrap N`` on every association command: the result carries the interval the library
computes on the same resolved query, in JSON and in the tables (``--csv``); it is on by default
(1,000 resamples, RNSB 200) and ``0`` turns it off; bad counts and explicit counts on sets too small to
resample are one usage line, while the default there gives the figure and says why it has no
interval; the work budget counts the resamples, the default ones included."""

from __future__ import annotations

import csv
import io
import json

import pytest

from geobias.commands import get, run
from geobias.errors import ParameterError

pytestmark = pytest.mark.commands


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    from _server import small_french_store

    from geobias.store import save_store

    folder = tmp_path_factory.mktemp("boot-vectors")
    save_store(small_french_store(), folder / "small-fr")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GEOBIAS_VECTORS_DIR", str(folder))
        yield folder


COMMANDS = {
    "weat": {"test": "career-family-terms", "permutations": 200},
    "mweat": {"permutations": 200},
    "ripa": {"variant": "english"},  # the grammatical variant (fr's default) has no bootstrap: see below
    "rnd": {"permutations": 200},
    "rnsb": {},
    "ect": {},
    "mac": {},
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_association_command_reports_its_bootstrap(vectors, name):
    n = 40 if name == "rnsb" else 400
    r = run(name, lang="fr", vectors="small-fr", bootstrap=n, bootstrap_seed=3, **COMMANDS[name])
    b = r.bootstrap
    assert b.n_resamples == n and b.seed == 3 and b.low <= b.high and b.standard_error > 0
    assert b.estimate is not None
    assert json.loads(r.to_json())["bootstrap"]["high"] == pytest.approx(b.high)
    again = run(name, lang="fr", vectors="small-fr", bootstrap=n, bootstrap_seed=3, **COMMANDS[name])
    assert again.bootstrap == b
    default = run(name, lang="fr", vectors="small-fr", **COMMANDS[name])
    resamples = 200 if name == "rnsb" else 1000  # RNSB retrains a classifier per resample: fewer by default
    assert default.bootstrap.n_resamples == resamples and default.bootstrap_note is None
    assert default.bootstrap.seed == 0  # the command's seed (0)
    off = run(name, lang="fr", vectors="small-fr", bootstrap=0, **COMMANDS[name])
    assert off.bootstrap is None and off.bootstrap_note == "no bootstrap: 0 resamples asked for"
    assert off.bootstrap_note in str(off.to_dict()["bootstrap_note"])
    # the figure itself does not depend on the bootstrap
    figure = {"weat": "effect_size", "mweat": "signed_statistic", "ripa": "mean", "rnd": "rnd", "rnsb": "rnsb",
              "ect": "ect", "mac": "mac"}[name]
    assert getattr(off, figure) == getattr(default, figure) == pytest.approx(default.bootstrap.estimate)


def test_the_bootstrap_seed_defaults_to_the_seed(vectors):
    a = run("mweat", lang="fr", vectors="small-fr", permutations=100, seed=7, bootstrap=200)
    b = run("mweat", lang="fr", vectors="small-fr", permutations=100, seed=7, bootstrap=200, bootstrap_seed=7)
    assert a.bootstrap == b.bootstrap and a.bootstrap.seed == 7
    assert a.bootstrap.paired == [["X", "Y"]] and a.bootstrap.estimate == pytest.approx(a.signed_statistic)


@pytest.mark.parametrize("count", [-1, -4, 10**12])
def test_bad_counts_are_usage_errors(vectors, count):
    with pytest.raises(ParameterError) as info:
        run("weat", lang="fr", vectors="small-fr", bootstrap=count)
    assert info.value.field == "bootstrap" and "\n" not in str(info.value)


def test_a_set_too_small_to_resample_is_a_usage_error_when_asked_for(vectors, monkeypatch):
    from geobias import wordlists

    male, female = wordlists.attribute_words("fr")
    occ = wordlists.occupations("fr")
    sets = dict(targets_x=[occ[0].masculine], targets_y=[o.feminine for o in occ[:4]], attributes_a=male,
                attributes_b=female)
    with pytest.raises(ParameterError, match="bootstrap: word set X has 1 word") as info:
        run("weat", lang="fr", vectors="small-fr", permutations=10, bootstrap=100, **sets)
    assert info.value.field == "bootstrap"
    # by default: the figure and its p-value, no interval, and the reason
    r = run("weat", lang="fr", vectors="small-fr", permutations=10, **sets)
    assert r.bootstrap is None and r.n_x == 1 and r.p_value is not None
    assert r.bootstrap_note == "no bootstrap by default: word set X has 1 word(s); the bootstrap needs at least 2 to resample"
    assert r.effect_size == run("weat", lang="fr", vectors="small-fr", permutations=10, bootstrap=0, **sets).effect_size
    # and the figure is computed once, not again without the bootstrap
    import geobias.metrics

    calls = []
    real = geobias.metrics.weat
    monkeypatch.setattr(geobias.metrics, "weat", lambda *a, **k: calls.append(k["bootstrap"]) or real(*a, **k))
    assert run("weat", lang="fr", vectors="small-fr", permutations=10, **sets).bootstrap_note == r.bootstrap_note
    assert calls == [1000]


def test_cli_prints_one_line_and_exits_2(vectors, capsys):
    from geobias.cli import main

    for value in ("-1", "-3", "5000000"):
        with pytest.raises(SystemExit) as info:
            main(["mweat", "--lang", "fr", "--vectors", "small-fr", "--bootstrap", value])
        err = capsys.readouterr().err.strip().splitlines()
        assert info.value.code == 2 and len(err) == 1 and "--bootstrap" in err[0]


def test_cli_json_and_csv_carry_the_interval(vectors, capsys):
    from geobias.cli import main

    with pytest.raises(SystemExit) as info:
        main(["mweat", "--lang", "fr", "--vectors", "small-fr", "--permutations", "100", "--bootstrap", "300",
              "--json"])
    assert info.value.code == 0
    boot = json.loads(capsys.readouterr().out)["result"]["bootstrap"]
    assert boot["n_resamples"] == 300 and boot["low"] <= boot["high"] and boot["quantity"] == "signed_statistic"
    with pytest.raises(SystemExit) as info:
        main(["ect", "--lang", "fr", "--vectors", "small-fr", "--bootstrap", "300", "--csv"])
    text = capsys.readouterr().out
    assert info.value.code == 0
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows and float(rows[0]["bootstrap_low"]) <= float(rows[0]["bootstrap_high"])
    assert rows[0]["bootstrap_n_resamples"] == "300" and float(rows[0]["bootstrap_standard_error"]) > 0


def test_the_work_budget_counts_resamples(vectors):
    params = get("weat").params
    base = params(lang="fr", vectors="small-fr", permutations=1000, bootstrap=0).work()
    more = params(lang="fr", vectors="small-fr", permutations=1000, bootstrap=1000).work()
    X, Y, A, B, _ = params(lang="fr", permutations=1000).sets()
    assert more.units - base.units == 1000 * (len(X) + len(Y) + len(A) + len(B))
    assert "bootstrap resamples" in more.detail
    ect = get("ect").params(lang="fr", bootstrap=500_000).work()
    assert ect.units >= 500_000 and ect.over == (ect.units > ect.limit)
    huge = get("mweat").params(lang="fr", permutations=100, bootstrap=1_000_000).work()
    assert huge.units > 1_000_000 * 50
    # the default resamples are counted; 0 counts none
    default = params(lang="fr", vectors="small-fr", permutations=1000).work()
    assert default == more
    assert "bootstrap" not in base.detail
    rnsb = get("rnsb").params(lang="fr").work()
    X, Y, A, B = get("rnsb").params(lang="fr").query()[:4]
    # the bootstrap's 200 resamples of every word, and the null band's 1,000 directions over the targets
    assert rnsb.units == 200 * sum(len(s or ()) for s in (X, Y, A, B)) + 1000 * (len(X) + len(Y or ()))


@pytest.mark.parametrize("name, params", [
    ("mweat", {}), ("weat", {"test": "career-family"}), ("rnd", {}), ("ect", {}), ("mac", {}),
])
def test_the_work_estimate_counts_every_pass_the_run_makes(vectors, monkeypatch, name, params):
    """A command's estimate counts the bootstrap once per pass its run really makes: one per quantity
    bootstrapped, three for a crossed one (MWEAT: nine; WEAT and ECT: three; RND and MAC: one)."""
    import geobias.metrics.bootstrap as mb

    passes = []
    real = mb.bootstrap

    def counting(*args, **kwargs):
        passes.append(3 if kwargs.get("crossed") else 1)
        return real(*args, **kwargs)

    monkeypatch.setattr(mb, "bootstrap", counting)
    cmd = get(name)
    p = cmd.params(lang="fr", vectors="small-fr", bootstrap=50, **params)
    one, every = p.work(), cmd.work(p)
    run(name, lang="fr", vectors="small-fr", bootstrap=50, **params)
    assert sum(passes) >= 1 and every.resamples == 50 * sum(passes), (passes, every)
    assert every.units - one.units == (sum(passes) - 1) * 50 * one.resample_words


def test_the_cli_runs_the_default_bootstrap_and_0_turns_it_off(vectors, capsys):
    from geobias.cli import main

    for extra, resamples in (([], 1000), (["--bootstrap", "0"], None)):
        with pytest.raises(SystemExit) as info:
            main(["mweat", "--lang", "fr", "--vectors", "small-fr", "--permutations", "100", "--json", *extra])
        assert info.value.code == 0
        result = json.loads(capsys.readouterr().out)["result"]
        assert (result["bootstrap"] or {}).get("n_resamples") == resamples


def test_the_grammatical_ripa_bootstraps_its_seed_words(vectors):
    """French RIPA defaults to the gender-aware variant: its interval resamples the definitional pairs
    (d_s re-fitted), the reference adjectives and the targets, and says which sets it resampled."""
    r = run("ripa", lang="fr", vectors="small-fr")
    assert r.variant == "grammatical" and r.bootstrap is not None and r.bootstrap.n_resamples == 1000
    assert set(r.bootstrap.set_sizes) == {"targets", "definitional", "reference"}
    assert len(r.word_intervals) == len(r.words)
    assert all(lo <= v <= hi for v, (lo, hi) in zip(r.ripa, r.word_intervals, strict=True))
    assert run("ripa", lang="fr", vectors="small-fr", bootstrap=100).bootstrap.n_resamples == 100
    assert run("ripa", lang="fr", vectors="small-fr", bootstrap=0).ripa == r.ripa
