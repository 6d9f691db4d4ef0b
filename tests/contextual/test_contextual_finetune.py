"""Continued MLM pre-training on a tiny random BERT: loss goes down, the model saves and reloads,
and `geobias probe becpro --compare` runs on the pair (original, fine-tuned)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch  # noqa: E402
from _envelope import result_of
from _tiny_models import make_random_bert, vocabulary_for  # noqa: E402

from geobias.contextual.becpro import generate_becpro  # noqa: E402
from geobias.contextual.finetune import finetune_mlm  # noqa: E402
from geobias.errors import InputError  # noqa: E402
from geobias.models import load_masked_lm  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CORPUS = [
    "he is a nurse and his sister is a doctor .",
    "she works as an engineer with her brother .",
    "my father is a carpenter .",
    "the secretary thanked her mother .",
]


def run(*args):
    return subprocess.run([sys.executable, str(REPO / "cli.py"), *args], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "HOME": "/tmp"})


@pytest.fixture(scope="module")
def vocab() -> list[str]:
    # BEC-Pro EN (for the --compare probe) + the corpus and its counterfactuals (for training)
    extra = CORPUS + ["she is a nurse and her brother is a doctor .", "he works as an engineer with his sister .",
                      "my mother is a carpenter .", "the secretary thanked his father ."]
    return vocabulary_for([r.sentence for r in generate_becpro("en")] + extra)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, vocab) -> Path:
    return make_random_bert(tmp_path_factory.mktemp("ft-orig"), vocab, hidden_size=16, seed=3)


def test_finetune_lowers_loss_saves_and_reloads(model_dir, vocab, tmp_path):
    out = tmp_path / "ft"
    res = finetune_mlm(str(model_dir), CORPUS, out, cda="cda", batch_size=8, lr=1e-2, max_steps=20, seed=0, device="cpu")
    print(f"\nMLM loss on the fixed evaluation batch: {res.loss_before:.4f} -> {res.loss_after:.4f} "
          f"({res.steps} steps, first/last step loss {res.losses[0]:.3f}/{res.losses[-1]:.3f})")
    assert res.n_documents == 4 and res.n_sequences == 8  # CDA: original + counterfactual
    assert res.steps == len(res.losses) == 20 and res.epochs == 20  # 8 sequences = 1 batch per epoch
    assert all(math.isfinite(x) for x in res.losses)
    # a random model predicts nearly uniformly: cross-entropy ≈ ln |V| (within 10 %)
    assert abs(res.loss_before - math.log(len(vocab))) < 0.1 * math.log(len(vocab))
    # 20 steps at lr 1e-2 on 8 sentences: the loss falls by far more than masking noise (>1 nat)
    assert res.loss_after < res.loss_before - 1.0
    assert res.losses[-1] < res.losses[0]

    saved = json.loads((out / "geobias_finetune.json").read_text(encoding="utf-8"))
    assert saved["loss_after"] == pytest.approx(res.loss_after) and saved["cda"] == "cda"
    assert not list(tmp_path.glob(".ft.*"))  # the temporary directory was renamed, nothing left
    orig, tuned = load_masked_lm(str(model_dir), "cpu"), load_masked_lm(str(out), "cpu")
    assert tuned.tokenizer.get_vocab() == orig.tokenizer.get_vocab()
    a, b = orig.model.state_dict(), tuned.model.state_dict()
    assert a.keys() == b.keys()
    moved = [k for k in a if not torch.equal(a[k], b[k])]
    assert "bert.embeddings.word_embeddings.weight" in moved and len(moved) > len(a) // 2


def test_same_seed_same_training(model_dir, tmp_path):
    r1 = finetune_mlm(str(model_dir), CORPUS, tmp_path / "a", cda="cds", batch_size=2, max_steps=3, seed=5, device="cpu")
    r2 = finetune_mlm(str(model_dir), CORPUS, tmp_path / "b", cda="cds", batch_size=2, max_steps=3, seed=5, device="cpu")
    assert r1.losses == r2.losses and r1.loss_before == r2.loss_before and r1.loss_after == r2.loss_after
    assert r1.epochs == 2 and r1.n_sequences == 4  # CDS keeps the corpus size; 3 steps of 2 = 1.5 epochs


def test_output_directory_rules(model_dir, tmp_path):
    out = tmp_path / "ft"
    out.mkdir()
    (out / "keep.txt").write_text("x", encoding="utf-8")
    # checked before the model is loaded: a bad model name does not get reported first
    with pytest.raises(InputError, match="exists .*--overwrite"):
        finetune_mlm("no/such-model", CORPUS, out)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="is a file"):
        finetune_mlm(str(model_dir), CORPUS, tmp_path / "file")
    finetune_mlm(str(model_dir), CORPUS, out, cda="none", max_steps=1, device="cpu", overwrite=True)
    assert (out / "config.json").is_file() and not (out / "keep.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "ft"]  # no .tmp/.old left


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"cda": "swap"}, "cda must be one of"), ({"max_steps": 0}, "max_steps"), ({"mlm_probability": 1.5}, "mlm_probability"),
     ({"batch_size": 0}, "batch_size"), ({"lr": 0.0}, "lr must be positive")],
)
def test_bad_options(model_dir, tmp_path, kwargs, message):
    with pytest.raises(InputError, match=message):
        finetune_mlm(str(model_dir), CORPUS, tmp_path / "x", **kwargs)


def test_empty_corpus(model_dir, tmp_path):
    with pytest.raises(InputError, match="no documents"):
        finetune_mlm(str(model_dir), ["", "  "], tmp_path / "x")


@pytest.mark.slow  # fine-tunes a model through the CLI (training, ~40 s loaded)
def test_cli_finetune_then_compare(model_dir, tmp_path):
    corpus = tmp_path / "gap.tsv"
    corpus.write_text("ID\tText\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(CORPUS)), encoding="utf-8")
    out = tmp_path / "ft"
    r = run("finetune", "--model", str(model_dir), "--corpus", str(corpus), "--column", "Text", "--cda", "cda",
            "--max-steps", "10", "--batch-size", "8", "--lr", "1e-2", "--device", "cpu", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr
    res = result_of(r.stdout)
    assert res["steps"] == 10 and res["n_sequences"] == 8 and res["loss_after"] < res["loss_before"]
    r = run("finetune", "--model", str(model_dir), "--corpus", str(corpus), "--column", "Text", "--out", str(out))
    assert r.returncode == 1 and "exists" in r.stderr and "Traceback" not in r.stderr

    r = run("probe", "becpro", "--model", str(model_dir), "--compare", str(out), "--batch-size", "256", "--json")
    assert r.returncode == 0, r.stderr
    cmp = result_of(r.stdout)
    assert cmp["pre"]["model"] == str(model_dir) and cmp["post"]["model"] == str(out)
    assert len(cmp["tests"]) == 6
    # associations of a random model are tiny (|ln p_T/p_prior| ~ 1e-4), but training on the
    # person words moved them: the paired test detects it (p ~ 1e-20 measured for 10 steps)
    pre, post = cmp["pre"]["association"], cmp["post"]["association"]
    assert len(pre) == len(post) == 5400 and pre != post
    assert min(t["test"]["p_value"] for t in cmp["tests"]) < 1e-6
    assert all(t["test"]["n"] == 900 for t in cmp["tests"])  # 5 templates x 9 persons x 20 professions
