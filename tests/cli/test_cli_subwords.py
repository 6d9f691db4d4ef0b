"""`--subwords` (opt-in): fastText .bin models give out-of-vocabulary list words n-gram vectors."""


import pytest
from _envelope import result_of

from geobias import wordlists


def cli(capsys, *args):
    from geobias.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


@pytest.fixture(scope="module")
def ft_bin(tmp_path_factory):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sets = wordlists.weat_test("en", "career-family-terms")
    # half of each set in the training corpus; the other half only reachable through subwords
    seen = sets.X[::2] + sets.Y[::2] + sets.A[::2] + sets.B[::2]
    corpus = [seen[i : i + 5] for i in range(0, len(seen), 5)] * 30
    model = FastText(vector_size=16, window=3, min_count=1, epochs=3, seed=0, workers=1, bucket=2000)
    model.build_vocab(corpus)
    model.train(corpus, total_examples=len(corpus), epochs=3)
    path = tmp_path_factory.mktemp("ft") / "model.bin"
    save_facebook_model(model, str(path))
    return path, sets


def test_weat_subwords_opt_in(ft_bin, capsys):
    path, sets = ft_bin
    base = ("weat", "--lang", "en", "--test", "career-family-terms", "--vectors", str(path),
            "--permutations", "1000", "--json")
    code, out, err = cli(capsys, *base)
    assert code == 1 and "50% of X (4 of 8 words)" in err  # half of each set lost: refused by default
    code, out, err = cli(capsys, *base, "--lost-vocabulary-threshold", "1")
    assert code == 0, err
    missing = result_of(out)["missing"]
    assert set(missing) == set(sets.X[1::2] + sets.Y[1::2] + sets.A[1::2] + sets.B[1::2])
    code, out, err = cli(capsys, *base, "--subwords")
    assert code == 0, err
    res = result_of(out)
    assert res["missing"] == [] and res["n_x"] == len(sets.X)


def test_subwords_need_a_fasttext_bin(capsys):
    code, _, err = cli(capsys, "mweat", "--lang", "fr", "--vectors", "fr-spacy-md", "--subwords")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "--subwords needs a fastText .bin" in err


def test_directions_subwords_opt_in(tmp_path, capsys):
    """English directions on a fastText .bin that saw only some definitional words."""
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    pairs = wordlists.definitional_pairs("en")
    seen = [w for f, m in pairs[::2] for w in (f, m)]
    corpus = [seen[i : i + 4] for i in range(0, len(seen), 4)] * 30
    model = FastText(vector_size=16, window=3, min_count=1, epochs=3, seed=0, workers=1, bucket=2000)
    model.build_vocab(corpus)
    model.train(corpus, total_examples=len(corpus), epochs=3)
    path = tmp_path / "en.bin"
    save_facebook_model(model, str(path))
    base = ("directions", "--lang", "en", "--vectors", str(path), "--json")
    code, out, err = cli(capsys, *base)
    assert code == 0, err
    assert len(result_of(out)["missing"]["definitional_pairs"]) > 0
    code, out, err = cli(capsys, *base, "--subwords")
    assert code == 0, err
    assert result_of(out)["missing"]["definitional_pairs"] == []
