"""Sentiment-difference bias (Jentzsch & Turan 2022): statistics cross-checked against numpy/scipy,
scorers and training conditions on tiny random classifiers, the CLI and its bad-input errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import wilcoxon

from geobias.contextual.sentiment_corpora import eec_pairs, read_corpus
from geobias.contextual.sentiment_stats import BiasStats, bias_row, bonferroni, stars
from geobias.errors import InputError

REPO = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *args], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "HOME": "/tmp",
                               "OMP_NUM_THREADS": "1"})


def inproc(capsys, *args):
    """Run the CLI in this process (faster than a subprocess): (exit code, stdout, stderr)."""
    from geobias.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


# ------------------------------------------------------------------------------------------
# statistics


def test_bias_row_matches_numpy_and_scipy():
    rng = np.random.default_rng(1)
    m = rng.random(40)
    f = m.copy()
    f[:25] = rng.random(25)  # 15 zero differences
    d = m - f
    for zm in ("wilcox", "pratt", "zsplit"):
        r = bias_row(m, f, zero_method=zm)
        ref = wilcoxon(m, f, zero_method=zm)
        assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)
        assert r.wilcoxon_statistic == pytest.approx(ref.statistic)
    assert (r.n_negative, r.n_zero, r.n_positive) == (int((d < 0).sum()), 15, int((d > 0).sum()))
    assert r.n_negative + r.n_zero + r.n_positive == 40
    assert r.all_samples == BiasStats(40, pytest.approx(d.mean()), pytest.approx(np.abs(d).mean()), pytest.approx(d.std(ddof=1)))
    nz = d[d != 0]
    assert r.non_zero.n == 25
    assert r.non_zero.total_bias == pytest.approx(nz.mean()) and r.non_zero.std == pytest.approx(nz.std(ddof=1))
    # the non-zero mean is the all-samples mean scaled by N / N_nonzero
    assert r.non_zero.total_bias == pytest.approx(r.all_samples.total_bias * 40 / 25)
    # the "non-zero samples" test; with the default zero handling the zeros are dropped, yet scipy's
    # method="auto" takes the normal approximation when zeros are present and the exact
    # distribution without them (n = 25 <= 50), so the two p-values differ
    r = bias_row(m, f)
    assert r.p_value_non_zero == pytest.approx(wilcoxon(m[d != 0], f[d != 0]).pvalue, rel=1e-12)
    assert r.p_value == pytest.approx(wilcoxon(m, f, method="approx").pvalue, rel=1e-12)
    assert r.p_value != pytest.approx(r.p_value_non_zero, rel=1e-3)


def test_all_zero_differences_have_no_test():
    r = bias_row(np.full(5, 0.3), np.full(5, 0.3))
    assert r.p_value is None and r.significance == "" and r.n_zero == 5
    assert r.all_samples.total_bias == 0.0 and r.non_zero.n == 0
    assert r.to_dict()["non_zero"]["total_bias"] is None  # NaN -> null in JSON


def test_bonferroni_and_stars():
    rng = np.random.default_rng(2)
    rows = []
    for shift in (0.0, 0.02, 0.2):
        m = rng.random(60)
        rows.append(bias_row(m, np.clip(m - shift + rng.normal(0, 0.05, 60), 0, 1)))
    rows.append(bias_row(np.ones(3) * 0.5, np.ones(3) * 0.5))  # no test: not counted
    adj = bonferroni(rows)
    for r, a in zip(rows[:3], adj[:3], strict=True):
        assert a.p_bonferroni == pytest.approx(min(1.0, r.p_value * 3))
        assert a.p_bonferroni_non_zero == pytest.approx(min(1.0, r.p_value_non_zero * 3))
        assert a.significance == stars(a.p_bonferroni)
    assert adj[3].p_bonferroni is None
    assert [stars(p) for p in (0.2, 0.04, 0.005, 0.0001, None)] == ["", "*", "**", "***", ""]


def test_bias_row_bad_input():
    with pytest.raises(InputError, match="no samples"):
        bias_row(np.array([]), np.array([]))
    with pytest.raises(InputError, match="shape"):
        bias_row(np.ones(3), np.ones(4))
    with pytest.raises(InputError, match="zero_method"):
        bias_row(np.ones(3), np.zeros(3), zero_method="drop")


# ------------------------------------------------------------------------------------------
# VADER baseline


def test_vader_cannot_see_pronouns():
    pytest.importorskip("vaderSentiment")
    from geobias.contextual.sentiment import sentiment_probe
    from geobias.contextual.sentiment_scorers import VaderScorer

    texts = ["She is a wonderful friend.", "He hates his awful job!", "Her brother was kind to him.", "no term, great day"]
    res = sentiment_probe([VaderScorer()], [("t", texts)], ("pro", "weat", "all"))
    by = {r.terms: r for r in res.rows}
    assert by["pro"].n_zero == by["weat"].n_zero == 4 and by["pro"].p_value is None
    assert by["pro"].n_without_terms == 1
    res = sentiment_probe([VaderScorer()], [("t", ["a true hero", "my god"])], ("all",))
    assert res.rows[0].n_zero < 2  # hero/heroine, god/goddess are in VADER's lexicon


# ------------------------------------------------------------------------------------------
# tiny classifiers

pytest.importorskip("torch")
pytest.importorskip("transformers")

from _tiny_models import make_random_bert, vocabulary_for  # noqa: E402

from geobias.contextual.sentiment import sentiment_probe  # noqa: E402
from geobias.contextual.sentiment_finetune import condition_texts, finetune_classifier  # noqa: E402
from geobias.contextual.sentiment_scorers import ClassifierScorer, load_classifier  # noqa: E402
from geobias.errors import ModelError  # noqa: E402

TRAIN = [
    ("she loves her wonderful brother .", 1), ("he hates his awful job .", 0), ("a great day with my mother .", 1),
    ("the king was terrible to him .", 0), ("her sister is kind and happy .", 1), ("my uncle is a sad man .", 0),
    ("what a lovely day .", 1), ("this is bad .", 0),
]
TEXTS = [t for t, _ in TRAIN]
LABELS = [lab for _, lab in TRAIN]


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory) -> Path:
    from geobias.contextual.sentiment_terms import load_terms

    rw = load_terms("all")
    words = TEXTS + [rw.male(t) for t in TEXTS] + [rw.female(t) for t in TEXTS] + [rw.remove(t) for t in TEXTS]
    return make_random_bert(tmp_path_factory.mktemp("enc"), vocabulary_for(words + ["no listed word here ."]), hidden_size=16, mlm_head=False, seed=5)


@pytest.fixture(scope="module")
def classifier_dir(tmp_path_factory, encoder_dir) -> Path:
    out = tmp_path_factory.mktemp("clf") / "c"
    finetune_classifier(str(encoder_dir), TEXTS, LABELS, out, epochs=3, batch_size=4, lr=1e-3, seed=0, device="cpu")
    return out


def test_conditions_change_the_training_texts():
    t, lab, n_with = condition_texts(TEXTS, LABELS, "original", "pro")
    assert t == TEXTS and n_with == 4  # she/her, he/his, him, her
    t, lab, _ = condition_texts(TEXTS, LABELS, "removed", "all")
    assert t[0] == "loves wonderful." and t[6] == TEXTS[6] and len(t) == 8
    t, lab, _ = condition_texts(TEXTS, LABELS, "mixed", "all")
    assert len(t) == 16 and lab == [x for x in LABELS for _ in (0, 1)]
    assert t[0:2] == ["he loves his wonderful brother .", "she loves her wonderful sister ."]
    with pytest.raises(InputError, match="condition"):
        condition_texts(TEXTS, LABELS, "balanced", "all")


@pytest.mark.parametrize("condition", ["original", "removed", "mixed"])
def test_three_conditions_train_save_and_reload(encoder_dir, tmp_path, condition):
    out = tmp_path / "clf"
    res = finetune_classifier(str(encoder_dir), TEXTS, LABELS, out, condition=condition, terms="all", epochs=3,
                              batch_size=4, lr=5e-3, seed=0, device="cpu", test_texts=TEXTS[:4], test_labels=LABELS[:4])
    assert res.n_sequences == (16 if condition == "mixed" else 8) and res.n_with_terms == 6
    assert res.steps == len(res.losses) == 3 * (4 if condition == "mixed" else 2)
    assert res.loss_after < res.loss_before  # training happened (fixed training batch)
    assert 0.0 <= res.test_accuracy <= 1.0 and res.n_test == 4
    clf = load_classifier(str(out), "cpu")
    assert clf.labels == ["negative", "positive"] and clf.positive_index == 1
    assert (out / "geobias_finetune.json").is_file()


def test_frozen_encoder_trains_the_head_only_and_is_seeded(encoder_dir, tmp_path):
    import torch

    # full batch (16 sequences), small steps: logistic regression on fixed features, the loss falls
    kw = dict(condition="mixed", terms="pro", freeze_encoder=True, epochs=40, batch_size=16, lr=0.02, seed=0, device="cpu")
    res = finetune_classifier(str(encoder_dir), TEXTS, LABELS, tmp_path / "a", **kw)
    assert res.loss_after < res.loss_before
    again = finetune_classifier(str(encoder_dir), TEXTS, LABELS, tmp_path / "b", **kw)
    assert again.losses == res.losses  # same seed, same head
    from transformers import AutoModel

    a = load_classifier(str(tmp_path / "a"), "cpu").model

    base = AutoModel.from_pretrained(str(encoder_dir))
    # the encoder is unchanged: only the classifier layer was trained
    for k, v in base.state_dict().items():
        assert torch.equal(a.bert.state_dict()[k], v), k


def test_finetune_refuses_to_overwrite(encoder_dir, classifier_dir, tmp_path):
    with pytest.raises(InputError, match="exists"):
        finetune_classifier(str(encoder_dir), TEXTS, LABELS, classifier_dir, device="cpu")
    with pytest.raises(InputError, match="is the model being fine-tuned"):
        finetune_classifier(str(classifier_dir), TEXTS, LABELS, classifier_dir, device="cpu", overwrite=True)
    with pytest.raises(InputError, match="terms must be one of"):
        finetune_classifier(str(encoder_dir), TEXTS, LABELS, tmp_path / "x", terms="names", device="cpu")
    assert not (tmp_path / "x").exists()


def test_frozen_head_features_equal_the_full_model(encoder_dir, tmp_path):
    from geobias.contextual.sentiment_finetune import _features

    out = tmp_path / "frozen"
    finetune_classifier(str(encoder_dir), TEXTS, LABELS, out, freeze_encoder=True, epochs=5, batch_size=4, lr=5e-2, device="cpu")
    clf = load_classifier(str(out), "cpu")
    import torch

    X = torch.from_numpy(_features(clf.model, clf.tokenizer, TEXTS, torch.device("cpu"), 128, 3, None, False))
    p_head = torch.softmax(clf.model.classifier(X).double(), -1)[:, 1].detach().numpy()
    p_full = ClassifierScorer(clf).score(TEXTS)
    assert np.allclose(p_head, p_full, atol=1e-6)  # float32 forward passes, batch padding differs


def test_scorer_deduplicates_and_is_batch_invariant(classifier_dir):
    clf = load_classifier(str(classifier_dir), "cpu")
    texts = TEXTS + TEXTS[:3]
    a = ClassifierScorer(clf, batch_size=32).score(texts)
    b = ClassifierScorer(clf, batch_size=1).score(texts)
    assert a.shape == (11,) and ((a >= 0) & (a <= 1)).all()
    assert np.array_equal(a[8:], a[:3])  # a repeated text is scored once and read back
    assert np.allclose(a, b, atol=1e-6)  # padding to the batch's longest text does not change a score


def test_probe_mechanics_on_a_tiny_classifier(classifier_dir):
    clf = load_classifier(str(classifier_dir), "cpu")
    texts = TEXTS + ["no listed word here ."]
    res = sentiment_probe([ClassifierScorer(clf)], [("tiny", texts)], ("pro", "all"))
    assert res.n_tests == 2 and [r.terms for r in res.rows] == ["pro", "all"]
    pro, full = res.rows
    assert pro.n_without_terms == 5 and full.n_without_terms == 3  # kept, counted
    assert pro.n_zero >= 5 and full.n_zero >= 3  # unchanged texts have bias exactly 0
    # texts with M = F are not scored; scoring every version gives the same row
    from geobias.contextual.sentiment import versions
    from geobias.contextual.sentiment_terms import load_terms

    m, f, _ = versions(texts, load_terms("all"))
    s = ClassifierScorer(clf).score(m + f)
    ref = bias_row(s[:9], s[9:])
    assert full.p_value == pytest.approx(ref.p_value) and full.n_zero == ref.n_zero
    assert full.all_samples.total_bias == pytest.approx(ref.all_samples.total_bias)
    d = np.asarray(res.differences[f"{clf.name} | tiny | all"])
    assert full.all_samples.total_bias == pytest.approx(d.mean())
    assert full.p_bonferroni == pytest.approx(min(1.0, 2 * wilcoxon(d[d != 0]).pvalue))


def test_load_classifier_errors(encoder_dir, classifier_dir):
    with pytest.raises(ModelError, match="no sequence-classification head"):
        load_classifier(str(encoder_dir), "cpu")
    with pytest.raises(ModelError, match="no sequence-classification head"):
        load_classifier("minilm-l6", "cpu")
    with pytest.raises(ModelError, match="no class 'joy'"):
        load_classifier(str(classifier_dir), "cpu", positive="joy")
    assert load_classifier(str(classifier_dir), "cpu", positive="negative").positive_index == 0
    assert load_classifier(str(classifier_dir), "cpu", positive="0").positive_index == 0


# ------------------------------------------------------------------------------------------
# CLI


def test_cli_probe_json_table_and_plot(classifier_dir, tmp_path, capsys):
    from _envelope import result_of

    corpus = tmp_path / "c.tsv"
    corpus.write_text("id\tText\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(TEXTS)), encoding="utf-8")
    plot = tmp_path / "p.png"
    code, out, err = inproc(capsys, "probe", "sentiment", "--model", str(classifier_dir), "--corpus", str(corpus), "--column",
                            "Text", "--terms", "pro", "--terms", "all", "--vader", "--device", "cpu", "--plot", str(plot), "--json")
    assert code == 0, err
    res = result_of(out)
    assert len(res["rows"]) == 4 and res["n_tests"] <= 4 and "differences" not in res
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = run("probe", "sentiment", "--model", str(classifier_dir), "--corpus", str(corpus), "--column", "Text", "--device", "cpu")
    assert r.returncode == 0, r.stderr  # a real process, output piped (not a terminal): the table is not squeezed
    header = next(line for line in r.stdout.splitlines() if "N<0" in line)
    for col in ("N=0", "N>0", "total (all)", "abs (all)", "std (all)", "total (≠0)", "abs (≠0)", "std (≠0)", "p Bonf. (all)"):
        assert col in header


def test_cli_bad_input_one_line_exit_1_nothing_written(classifier_dir, encoder_dir, tmp_path, capsys):
    good = tmp_path / "c.tsv"
    good.write_text("Text\nshe is happy\n", encoding="utf-8")
    empty = tmp_path / "e.txt"
    empty.write_text("", encoding="utf-8")
    plot = tmp_path / "p.png"
    base = ["probe", "sentiment", "--device", "cpu", "--plot", str(plot)]
    cases = [
        ([*base, "--model", str(classifier_dir), "--corpus", str(empty)], "no documents"),
        ([*base, "--model", str(classifier_dir), "--corpus", str(good), "--column", "Sentence"], "no column 'Sentence'"),
        ([*base, "--model", str(encoder_dir), "--corpus", str(good), "--column", "Text"], "no sequence-classification head"),
        ([*base, "--corpus", str(good), "--column", "Text"], "no scorer given"),
    ]
    for args, msg in cases:
        code, _, err = inproc(capsys, *args)
        assert code == 1, (args, err)
        assert err.count("\n") == 1 and err.startswith("geobias: error: ") and msg in err, err
        assert not plot.exists()
    # a value outside a CLI choice is a usage error: one line, exit 2
    code, _, err = inproc(capsys, *base, "--model", str(classifier_dir), "--corpus", str(good), "--column", "Text",
                          "--terms", "names")
    assert code == 2 and err.count("\n") == 1 and err.startswith("geobias: error: ")
    assert "'--terms': 'names' is not one of 'pro', 'weat', 'all'" in err, err
    assert not plot.exists()


def test_cli_finetune_label_errors(encoder_dir, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("sentiment,text\nneutral,meh\npos,\"she is great, really\"\nneg,he is bad\n", encoding="utf-8")
    out = tmp_path / "out"
    code, _, err = inproc(capsys, "finetune-classifier", "--model", str(encoder_dir), "--train", str(data), "--out", str(out),
                          "--text-column", "text", "--label-column", "sentiment", "--device", "cpu")
    assert code == 1 and "cannot be mapped" in err and err.count("\n") == 1
    assert not out.exists()
    code, stdout, err = inproc(capsys, "finetune-classifier", "--model", str(encoder_dir), "--train", str(data), "--out", str(out),
                               "--text-column", "text", "--label-column", "sentiment", "--positive-label", "pos",
                               "--negative-label", "neg", "--condition", "mixed", "--terms", "pro", "--test-size", "0",
                               "--epochs", "2", "--device", "cpu")
    assert code == 0, err
    assert "neutral 1" in err  # dropped and counted
    assert "on 4 sequences: condition mixed, terms pro" in stdout
    # a value outside a CLI choice (--terms, --condition) is a usage error: exit 2
    for args, msg, rc in (((("--text-column", "txt")), "no column 'txt'", 1),
                          (("--terms", "names"), "'--terms': 'names' is not one of 'pro', 'weat', 'all'", 2),
                          (("--condition", "balanced"), "'--condition': 'balanced' is not one of 'original'", 2)):
        code, _, err = inproc(capsys, "finetune-classifier", "--model", str(encoder_dir), "--train", str(data), "--out",
                              str(tmp_path / "o2"), "--label-column", "sentiment", "--text-column", "text", *args)
        assert code == rc and msg in err and err.count("\n") == 1, err
        assert not (tmp_path / "o2").exists()


def _write_aclimdb(root: Path) -> None:
    """A 12-review sample in the aclImdb layout (our own sentences, not IMDB's)."""
    reviews = {
        ("train", "pos"): ["She loved it!<br /><br />A wonderful film.", "He is great, really great.", "Great acting."],
        ("train", "neg"): ["He hated it.", "A bad, bad film<br />for her.", "Bad plot."],
        ("test", "pos"): ["Wonderful, she says.", "He loves it."],
        ("test", "neg"): ["Bad; his worst.", "She is bad."],
        ("train", "unsup"): ["not read"],
    }
    for (split, label), texts in reviews.items():
        (root / split / label).mkdir(parents=True)
        for i, t in enumerate(texts):
            (root / split / label / f"{i}_{8 if label == 'pos' else 2}.txt").write_text(t, encoding="utf-8")


def test_aclimdb_layout_is_read_and_cleaned(tmp_path):
    from geobias.contextual.sentiment_finetune import aclimdb_root, clean_review, read_aclimdb

    _write_aclimdb(tmp_path / "aclImdb")
    assert aclimdb_root(tmp_path) == tmp_path / "aclImdb" == aclimdb_root(tmp_path / "aclImdb")
    train = read_aclimdb(tmp_path, "train")
    assert train.labels == [1, 1, 1, 0, 0, 0] and train.n_rows == 6  # unsup/ is not read
    assert train.texts[0] == "She loved it!<br /><br />A wonderful film."
    assert [clean_review(t) for t in train.texts[:2]] == ["she loved it a wonderful film", "he is great really great"]
    assert read_aclimdb(tmp_path, "test").labels == [1, 1, 0, 0]
    (tmp_path / "x" / "train").mkdir(parents=True)
    assert aclimdb_root(tmp_path / "x") is None
    with pytest.raises(InputError, match="not the IMDB review corpus"):
        read_aclimdb(tmp_path / "x", "train")


def test_cli_finetune_reads_aclimdb_train_and_holds_out_test(encoder_dir, tmp_path, capsys):
    _write_aclimdb(tmp_path / "aclImdb")
    out = tmp_path / "clf"
    code, stdout, err = inproc(capsys, "finetune-classifier", "--model", str(encoder_dir), "--train",
                               str(tmp_path / "aclImdb"), "--out", str(out), "--clean-text", "--epochs", "2",
                               "--device", "cpu", "--json")
    assert code == 0, err
    res = json.loads(stdout)["result"]
    assert res["n_sequences"] == 6 and res["n_test"] == 4  # train/ trains, test/ is held out
    assert (out / "geobias_finetune.json").is_file()


# ------------------------------------------------------------------------------------------
# real data


def test_eec_pairs(shared_data):
    male, female, keys = eec_pairs(shared_data / "eec" / "Equity-Evaluation-Corpus.csv")
    # 9 noun-phrase pairs x 144 + he/she 82 + 20 name pairs x 144
    assert len(male) == len(female) == 9 * 144 + 82 + 20 * 144
    i = keys.index("<person subject> feels <emotion word>. | angry | this man/this woman")
    assert (male[i], female[i]) == ("This man feels angry.", "This woman feels angry.")
    assert len(read_corpus(shared_data / "eec" / "Equity-Evaluation-Corpus.csv", "Sentence")) == 8640


def test_vader_on_eec_and_gap(shared_data):
    pytest.importorskip("vaderSentiment")
    from geobias.contextual.sentiment_scorers import VaderScorer

    eec = read_corpus(shared_data / "eec" / "Equity-Evaluation-Corpus.csv", "Sentence")
    res = sentiment_probe([VaderScorer()], [("eec", eec[::8])], ("pro", "weat"))
    assert all(r.n_zero == r.n_samples for r in res.rows)  # no pronoun or kinship word in VADER's lexicon
