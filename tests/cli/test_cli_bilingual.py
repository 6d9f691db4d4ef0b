"""The bilingual CLI: align, translate-eval, hard-debias, mitigate (every export format round-trips
through gensim), correlate — on small vector files built from the project's word lists."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _envelope import result_of
from _word_list_pair import write_word_list_pair
from gensim.models import KeyedVectors

from geobias import wordlists

pytest.importorskip("geobias.sources")

FORMATS = {"w2v-text": "txt", "w2v-bin": "bin", "vec": "vec", "kv": "kv", "npz": "npz"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """French and English word2vec text files over the project's own word lists (see
    :func:`_word_list_pair.write_word_list_pair`)."""
    return write_word_list_pair(tmp_path_factory.mktemp("vec"))


def cli(capsys, *args):
    """Run through geobias.cli.main (the real error handling); return (exit code, stdout, stderr)."""
    from geobias.cli import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_align_then_translate_eval(files, tmp_path, capsys):
    out = tmp_path / "aligned"
    code, stdout, err = cli(capsys, "align", "--src", "fr", "--tgt", "en", "--dictionary", str(files / "dico.txt"),
                            "--out", str(out), "--src-vectors", str(files / "fr.txt"),
                            "--tgt-vectors", str(files / "en.txt"), "--json")
    assert code == 0, err
    assert result_of(stdout)["n_pairs_used"] == 202  # 200 fillers + et/and + pour/for
    code, stdout, err = cli(capsys, "translate-eval", "--src", "fr", "--tgt", "en", "--dictionary",
                            str(files / "test.txt"), "--src-vectors", str(out), "--tgt-vectors",
                            str(files / "en.txt"), "--json")
    assert code == 0, err
    res = result_of(stdout)
    assert res["csls"]["precision"]["p_at_1"] > 0.9 and res["nn"]["n_queries"] == 50
    # the aligned store already exists: refused, one line
    code, _, err = cli(capsys, "align", "--src", "fr", "--tgt", "en", "--dictionary", str(files / "dico.txt"),
                       "--out", str(out), "--src-vectors", str(files / "fr.txt"), "--tgt-vectors", str(files / "en.txt"))
    assert code == 1 and "already exists" in err and len(err.strip().splitlines()) == 1


def test_translate_eval_warns_on_unaligned_and_aligns_on_request(files, capsys):
    common = ("translate-eval", "--src", "fr", "--tgt", "en", "--dictionary", str(files / "test.txt"),
              "--src-vectors", str(files / "fr.txt"), "--tgt-vectors", str(files / "en.txt"), "--json")
    code, stdout, err = cli(capsys, *common)
    assert code == 0 and "do not look aligned" in err and "--train-dictionary" in err
    code, stdout, err = cli(capsys, *common, "--train-dictionary", str(files / "dico.txt"))
    assert code == 0 and "do not look aligned" not in err, err
    assert result_of(stdout)["csls"]["precision"]["p_at_1"] > 0.9


def test_bad_dictionary_is_one_line(files, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("frmot1 enword1\nfrmot2\n", encoding="utf-8")
    code, _, err = cli(capsys, "translate-eval", "--src", "fr", "--tgt", "en", "--dictionary", str(bad),
                       "--src-vectors", str(files / "fr.txt"), "--tgt-vectors", str(files / "en.txt"))
    assert code == 1 and "line 2" in err and len(err.strip().splitlines()) == 1


def test_hard_debias_report(files, capsys):
    code, stdout, err = cli(capsys, "hard-debias", "--vectors", str(files / "en.txt"), "--json")
    assert code == 0, err
    rep = result_of(stdout)
    assert rep["direct_bias_after"] < 1e-6 < rep["direct_bias_before"]
    assert rep["n_neutral_words"] > 10


def _load(path, fmt):
    if fmt in ("w2v-text", "vec"):
        return KeyedVectors.load_word2vec_format(str(path), binary=False)
    if fmt == "w2v-bin":
        return KeyedVectors.load_word2vec_format(str(path), binary=True)
    if fmt == "kv":
        return KeyedVectors.load(str(path))
    z = np.load(path)
    kv = KeyedVectors(z["vectors"].shape[1])
    kv.add_vectors(list(z["words"]), z["vectors"])
    return kv


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_mitigate_exports_round_trip(files, tmp_path, capsys, fmt):
    from geobias.mitigation import HybridOri
    from geobias.sources import read_vectors

    out = tmp_path / "out"
    before = (files / "fr.txt").read_bytes()
    code, stdout, err = cli(capsys, "mitigate", "--method", "hybrid-ori", "--lang", "fr", "--vectors",
                            str(files / "fr.txt"), "--en-vectors", str(files / "en.txt"), "--dictionary",
                            str(files / "dico.txt"), "--out", str(out), "--format", fmt, "--json")
    assert code == 0, err
    res = result_of(stdout)
    assert set(res["files"]) == {"fr", "en"}  # Hybrid changes both sides
    assert (files / "fr.txt").read_bytes() == before  # input untouched
    # expected rows: the library on the same input
    fr = read_vectors(files / "fr.txt")
    en = read_vectors(files / "en.txt")
    fr.lang, en.lang = "fr", "en"
    est = HybridOri().fit(fr, en=en, dictionary=str(files / "dico.txt"))
    for side, store in (("fr", est.transform(fr)), ("en", est.transform(en))):
        kv = _load(out / f"{side}.{FORMATS[fmt]}", fmt)
        assert list(kv.index_to_key) == store.words  # original vocabulary order
        assert kv.vectors.shape == (len(store), store.dim)  # header agrees with the rows
        tol = 1e-6 if fmt in ("w2v-text", "vec") else 0  # text: 9 significant digits
        np.testing.assert_allclose(kv.vectors, store.vectors, atol=tol)
    assert json.loads((out / "mitigation.json").read_text())["method"] == "hybrid-ori"
    # a second run into the same non-empty directory is refused and writes nothing
    code, _, err = cli(capsys, "mitigate", "--method", "hybrid-ori", "--lang", "fr", "--vectors",
                       str(files / "fr.txt"), "--en-vectors", str(files / "en.txt"), "--dictionary",
                       str(files / "dico.txt"), "--out", str(out), "--format", fmt)
    assert code == 1 and "already exists" in err


def test_mitigate_shift_writes_only_the_gendered_side(files, tmp_path, capsys):
    out = tmp_path / "s"
    code, stdout, err = cli(capsys, "mitigate", "--method", "shift-ori", "--lang", "fr", "--vectors",
                            str(files / "fr.txt"), "--out", str(out), "--json")
    assert code == 0, err
    assert set(result_of(stdout)["files"]) == {"fr"}


def test_mitigate_unknown_method(files, tmp_path, capsys):
    code, _, err = cli(capsys, "mitigate", "--method", "nope", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                       "--out", str(tmp_path / "x"))
    assert code == 2 and "'--method': 'nope' is not one of" in err and "shift-ori" in err  # a usage error


def test_correlate_cli(files, capsys):
    code, stdout, err = cli(capsys, "correlate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                            "--en-vectors", str(files / "en.txt"), "--json")
    assert code == 0, err
    res = result_of(stdout)
    assert res["n_occupations"] >= 10 and -1 <= res["spearman"] <= 1
    # the table view says what is correlated with what: one row per occupation, then ρ, p and n
    code, stdout, err = cli(capsys, "correlate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                            "--en-vectors", str(files / "en.txt"))
    assert code == 0, err
    assert "English WEAT vs MWEAT" in stdout and "s(E, A_en, B_en)" in stdout
    assert f"{res['spearman']:.3f}" in stdout and f"{res['n_occupations']} occupations" in stdout
    for row in res["per_occupation"]:
        assert f"{row['weat_en']:+.4f}" in stdout and f"{row['mweat_signed']:+.4f}" in stdout


def test_mitigate_whitespace_words(tmp_path, capsys):
    """A word with a thin space (as in spaCy's French vocabulary) cannot go into word2vec text:
    refused with a hint, or dropped and listed with --drop-whitespace-words."""
    rng = np.random.default_rng(0)
    words = [w for p in wordlists.definitional_pairs("en") for w in p] + ["nurse", "doctor", "a\u2009b"]
    np.savez(tmp_path / "en.npz", words=np.array(words), vectors=rng.standard_normal((len(words), 8)).astype(np.float32))
    code, _, err = cli(capsys, "mitigate", "--method", "hard-debias", "--lang", "en", "--vectors",
                       str(tmp_path / "en.npz"), "--out", str(tmp_path / "o1"))
    assert code == 1 and "--drop-whitespace-words" in err and not (tmp_path / "o1").exists()
    code, stdout, err = cli(capsys, "mitigate", "--method", "hard-debias", "--lang", "en", "--vectors",
                            str(tmp_path / "en.npz"), "--out", str(tmp_path / "o2"), "--drop-whitespace-words", "--json")
    assert code == 0, err
    assert result_of(stdout)["report"]["dropped_whitespace_words"] == {"en": ["a\u2009b"]}
    kv = KeyedVectors.load_word2vec_format(str(tmp_path / "o2" / "en.txt"))
    assert list(kv.index_to_key) == words[:-1]


def test_figure_plots(files, tmp_path, capsys):
    """Figure 4 (correlate --plot) and Figure 2 (evaluate --plot) are written as PNG files."""
    fig4 = tmp_path / "fig4.png"
    code, _, err = cli(capsys, "correlate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                       "--en-vectors", str(files / "en.txt"), "--plot", str(fig4))
    assert code == 0, err
    assert fig4.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig2 = tmp_path / "fig2.png"
    code, stdout, err = cli(capsys, "evaluate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                            "--en-vectors", str(files / "en.txt"), "--dictionary", str(files / "dico.txt"),
                            "--test-dictionary", str(files / "test.txt"), "--methods", "original,shift_ori",
                            "--permutations", "200", "--plot", str(fig2))
    assert code == 0, err
    assert fig2.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Neutralised words" in stdout and "§4.3" in stdout
    code, _, err = cli(capsys, "evaluate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                       "--en-vectors", str(files / "en.txt"), "--dictionary", str(files / "dico.txt"),
                       "--test-dictionary", str(files / "test.txt"), "--methods", "original",
                       "--plot", str(tmp_path / "none.png"))
    assert code == 1 and err.startswith("geobias: error:") and "d_s" in err
    code, _, err = cli(capsys, "evaluate", "--lang", "fr", "--vectors", str(files / "fr.txt"),
                       "--en-vectors", str(files / "en.txt"), "--dictionary", str(files / "dico.txt"),
                       "--test-dictionary", str(files / "test.txt"), "--neutralize", "everything")
    assert code == 2 and "'--neutralize': 'everything' is not one of 'inanimate', 'all-other'" in err
