"""The two policies every model loader shares: offline first (a hub id that is neither installed
nor reachable fails at once, before the hub client is asked), and safetensors by default (a
pickle-only checkpoint needs --trust-pickle on every command that loads models)."""

from __future__ import annotations

import contextlib

import pytest

from geobias.errors import ModelError

pytest.importorskip("transformers")


@pytest.fixture
def no_hub(monkeypatch):
    """A hub that refuses connections; the hub client must never be reached."""
    import socket

    import transformers

    calls = []

    def refuse(address, timeout=None, *args, **kwargs):
        calls.append((address, timeout))
        raise ConnectionRefusedError("refused")

    def never(*args, **kwargs):
        raise AssertionError("the hub client was called for a model that cannot be fetched")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(socket, "create_connection", refuse)
    for cls in ("AutoModelForMaskedLM", "AutoModel", "AutoModelForSequenceClassification", "AutoTokenizer"):
        monkeypatch.setattr(getattr(transformers, cls), "from_pretrained", never)
    return calls


def test_an_uninstalled_model_with_no_hub_fails_in_one_line(no_hub):
    from geobias.models import HUB_TIMEOUT, load_masked_lm, resolve_model

    with pytest.raises(ModelError) as exc:
        resolve_model("geobias-tests/not-installed")
    msg = str(exc.value)
    assert msg.startswith("model geobias-tests/not-installed is not installed and the hub is unreachable")
    assert "`hf download geobias-tests/not-installed`" in msg and "local folder" in msg and "\n" not in msg
    assert no_hub == [(("127.0.0.1", 9), HUB_TIMEOUT)]  # one short connect to HF_ENDPOINT, no retries
    with pytest.raises(ModelError, match="hub is unreachable"):
        load_masked_lm("geobias-tests/not-installed", "cpu")  # the loaders go through the same check
    from geobias.contextual.sentiment_scorers import load_classifier

    with pytest.raises(ModelError, match="hub is unreachable"):
        load_classifier("geobias-tests/not-installed", "cpu")


def test_hf_hub_offline_means_unreachable_without_a_connection(no_hub, monkeypatch):
    from geobias.models import hub_reachable, resolve_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub_reachable() is False and no_hub == []
    with pytest.raises(ModelError, match="hub is unreachable"):
        resolve_model("org/model")


def test_a_reachable_hub_is_left_to_the_hub_client(monkeypatch):
    import socket

    from geobias.models import resolve_model

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: contextlib.nullcontext())
    assert resolve_model("org/not-cached-model") == ("org/not-cached-model", False, None)


def test_cli_names_the_model_and_the_hub(no_hub, capsys, tmp_path):
    from geobias.cli import main

    sentences = tmp_path / "s.tsv"
    sentences.write_text("sentence\ttarget\tattribute\nhe is a nurse\the\tnurse\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["probe", "association", "--model", "org/absent", "--sentences", str(sentences), "--device", "cpu"])
    out, err = capsys.readouterr()
    assert exc.value.code == 1 and out == "" and err.count("\n") == 1
    assert "model org/absent is not installed and the hub is unreachable" in err


# ------------------------------------------------------------------------------- pickles


@pytest.fixture(scope="module")
def pickle_only_classifier(tmp_path_factory):
    from _tiny_models import make_random_bert, vocabulary_for
    from transformers import BertConfig, BertForSequenceClassification

    path = make_random_bert(tmp_path_factory.mktemp("clf") / "clf", vocabulary_for(["he she is kind"]),
                            hidden_size=16, num_hidden_layers=1, intermediate_size=32, mlm_head=False)
    config = BertConfig.from_pretrained(path, num_labels=2, id2label={0: "neg", 1: "pos"}, label2id={"neg": 0, "pos": 1})
    import torch
    from safetensors.torch import load_file

    BertForSequenceClassification(config).save_pretrained(path)  # transformers writes safetensors only
    torch.save(load_file(str(path / "model.safetensors")), path / "pytorch_model.bin")
    (path / "model.safetensors").unlink()
    assert (path / "pytorch_model.bin").is_file()
    return path


def test_a_pickle_only_classifier_needs_the_opt_in(pickle_only_classifier):
    from geobias.contextual.sentiment_scorers import load_classifier
    from geobias.models import trusting_pickle

    with pytest.raises(ModelError, match="only pickled weights"):
        load_classifier(str(pickle_only_classifier), "cpu")
    assert load_classifier(str(pickle_only_classifier), "cpu", trust_pickle=True).labels == ["neg", "pos"]
    with trusting_pickle():  # what a command's --trust-pickle sets around its run
        assert load_classifier(str(pickle_only_classifier), "cpu").positive_index == 1
    with pytest.raises(ModelError, match="only pickled weights"):  # and only around it
        load_classifier(str(pickle_only_classifier), "cpu")


def test_every_command_that_loads_a_model_has_trust_pickle():
    from geobias.commands import commands

    loading = [c for c in commands() if "model" in c.params.model_fields]
    assert {c.name for c in loading} >= {"probe association", "probe becpro", "probe malor", "probe sentiment",
                                         "finetune", "finetune-classifier", "vectors pool"}
    for c in loading:
        assert "trust_pickle" in c.params.model_fields, c.name


def test_probe_sentiment_cli_refuses_then_accepts_the_pickle(pickle_only_classifier, tmp_path, capsys):
    from geobias.cli import main

    corpus = tmp_path / "texts.txt"
    corpus.write_text("he is kind\nshe is kind\n", encoding="utf-8")
    argv = ["probe", "sentiment", "--model", str(pickle_only_classifier), "--corpus", str(corpus), "--device", "cpu",
            "--json"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    assert exc.value.code == 1 and "only pickled weights" in err and "--trust-pickle" in err and out == ""
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--trust-pickle"])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, err
