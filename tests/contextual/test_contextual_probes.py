"""Contextual probes on small randomly initialised BERT models (built here, loaded by path)."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from _tiny_models import make_random_bert, vocabulary_for  # noqa: E402

from geobias.contextual.becpro import (  # noqa: E402
    becpro_probe,
    compare_becpro,
    generate_becpro,
)
from geobias.contextual.kurita import build_queries, kurita_association  # noqa: E402
from geobias.contextual.malor import malor_probe  # noqa: E402
from geobias.contextual.masking import ProbeSentence, encode_probe  # noqa: E402
from geobias.engine.masked import count_distinct, masked_log_probs, naive_masked_log_probs  # noqa: E402
from geobias.errors import InputError, ModelError  # noqa: E402
from geobias.models import load_masked_lm  # noqa: E402
from geobias.report.plots import plot_becpro, save_figure  # noqa: E402
from geobias.wordlists import own_table  # noqa: E402

# multi-token attributes: these words are covered only by two WordPiece pieces
SPLIT = ["phlebotomist", "paralegal", "roofer", "statistician"]


def _vocab() -> list[str]:
    texts = [r.sentence for r in generate_becpro("en")]
    texts += [r["template"].replace("{g}", " ").replace("{occ}", " ").replace("{a}", "a an")
              for r in own_table("en", "malor_templates")]
    texts += [r["occupation"] for r in own_table("en", "malor_occupations")]
    names = own_table("en", "malor_names")
    # leave two names out of the vocabulary: they must be reported, not silently dropped
    texts += [r["male"] for r in names[:-1]] + [r["female"] for r in names[:-2]]
    texts += ["he she his her nurse lawyer"]
    return vocabulary_for(texts, split=SPLIT)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    return make_random_bert(tmp_path_factory.mktemp("tiny-mlm"), _vocab(), seed=0)


@pytest.fixture(scope="session")
def tiny_model_dir_b(tmp_path_factory):
    return make_random_bert(tmp_path_factory.mktemp("tiny-mlm-b"), _vocab(), seed=1)


@pytest.fixture(scope="session")
def lm(tiny_model_dir):
    return load_masked_lm(str(tiny_model_dir), device="cpu")


def test_association_equals_hand_computation_from_logits(lm):
    s = ProbeSentence.from_words("My sister is a phlebotomist.", "sister", "phlebotomist")
    res = kurita_association(lm, [s], prior_mask="subtoken")
    res_word = kurita_association(lm, [s])  # default: Bartl et al.'s one [MASK] per word
    tok = lm.tokenizer
    ids = tok(s.text)["input_ids"]
    toks = tok.convert_ids_to_tokens(ids)
    # determiner "my" stays, the target is one token, the attribute has two pieces
    assert toks[1:3] == ["my", "sister"] and toks[5:7] == ["phlebo", "##tomist"]
    t_ids = list(ids)
    t_ids[2] = tok.mask_token_id
    p_ids = list(t_ids)
    p_ids[5] = p_ids[6] = tok.mask_token_id
    sister = tok.convert_tokens_to_ids("sister")
    with torch.no_grad():
        lt = lm.model(input_ids=torch.tensor([t_ids])).logits[0, 2].double()
        lp = lm.model(input_ids=torch.tensor([p_ids])).logits[0, 2].double()
    p_t = torch.softmax(lt, -1)[sister].item()
    p_prior = torch.softmax(lp, -1)[sister].item()
    # float32 forward vs float64 softmax of the same logits: agreement to 1e-5 in log space
    assert res.association[0] == pytest.approx(math.log(p_t / p_prior), abs=1e-5)
    assert res.log_p_target[0] == pytest.approx(math.log(p_t), abs=1e-5)
    w_ids = t_ids[:5] + [tok.mask_token_id] + t_ids[7:]
    with torch.no_grad():
        lw = lm.model(input_ids=torch.tensor([w_ids])).logits[0, 2].double()
    p_prior_w = torch.softmax(lw, -1)[sister].item()
    assert res_word.association[0] == pytest.approx(math.log(p_t / p_prior_w), abs=1e-5)
    assert res_word.prior_mask == "word" and res.prior_mask == "subtoken"


def test_masking_rules_keep_determiner_and_mask_every_attribute_piece(lm):
    s = ProbeSentence.from_words("My mother, the roofer, had a good day at work.", "mother", "roofer")
    enc = encode_probe(lm.tokenizer, s, "tiny")
    m = lm.mask_token_id
    tm = enc.masked(m, attribute=False)
    tam = enc.masked(m, attribute=True)
    toks_tm = lm.tokenizer.convert_ids_to_tokens(tm)
    toks_tam = lm.tokenizer.convert_ids_to_tokens(tam)
    assert toks_tm[1:3] == ["my", "[MASK]"]
    assert "roo" in toks_tm and "##fer" in toks_tm
    assert toks_tam.count("[MASK]") == 3  # target + both pieces of "roofer" (our "subtoken" prior)
    assert toks_tam[1] == "my" and toks_tam[4] == "the"
    ids_word, t = enc.masked_prior(m, "word")  # Bartl et al.: one [MASK] for the word "roofer"
    toks_word = lm.tokenizer.convert_ids_to_tokens(ids_word)
    assert toks_word.count("[MASK]") == 2 and len(ids_word) == len(tam) - 1
    assert t == 2 and toks_word[t] == "[MASK]"
    assert enc.masked_prior(m, "subtoken") == (tam, enc.target_index)


def test_word_prior_equals_bartl_sent_tam_tokenised(lm):
    """The default prior input is exactly the tokenised Sent_TAM text (one [MASK] per word),
    including multi-word professions and a profession before the person word."""
    from geobias.contextual.kurita import build_queries

    rows = generate_becpro("en")
    sample = [r for r in rows[::37]] + [r for r in rows if r.sentence.startswith("My father, the mobile equipment")][:2]
    _, tam = build_queries(lm, [r.probe for r in sample])
    n_multi = 0
    for r, q in zip(sample, tam, strict=True):
        expect = lm.tokenizer(r.sent_tam)["input_ids"]
        assert list(q.input_ids) == expect, r.sentence
        assert expect[q.position] == lm.mask_token_id
        n_multi += len(r.profession.split()) > 1
    assert n_multi >= 2
    _, tam_sub = build_queries(lm, [r.probe for r in sample], "subtoken")
    assert any(len(a.input_ids) != len(b.input_ids) for a, b in zip(tam, tam_sub, strict=True))
    with pytest.raises(InputError, match="prior_mask"):
        build_queries(lm, [sample[0].probe], "token")


def test_target_not_single_token_is_a_model_error(lm):
    s = ProbeSentence.from_words("The phlebotomist is a nurse.", "phlebotomist", "nurse")
    with pytest.raises(ModelError, match="not a single token"):
        kurita_association(lm, [s])


def test_missing_attribute_word_is_an_input_error():
    with pytest.raises(InputError, match="does not occur"):
        ProbeSentence.from_words("He is a nurse.", "He", "lawyer")


def test_dedup_batching_equals_naive_reference(lm):
    rows = generate_becpro("en")
    sample = [r.probe for r in rows[::54]]  # 100 sentences from all groups and templates
    fast = kurita_association(lm, sample, batch_size=7)
    naive = kurita_association(lm, sample, naive=True)
    # padded batches vs unpadded single passes differ only by float32 summation order
    np.testing.assert_allclose(fast.association, naive.association, atol=1e-6, rtol=0)
    np.testing.assert_allclose(fast.log_p_target, naive.log_p_target, atol=1e-6, rtol=0)
    tm, tam = build_queries(lm, sample)
    # batch size must not change anything either
    np.testing.assert_allclose(
        masked_log_probs(lm, tm, batch_size=3), masked_log_probs(lm, tm, batch_size=64), atol=1e-6, rtol=0
    )
    assert count_distinct(tam) < len(tam)


def test_padding_uses_pad_token_with_zero_attention(lm):
    # a short and a long input in one batch: the short one's result equals its solo pass
    rows = generate_becpro("en")
    short = [r.probe for r in rows if r.sentence == "He is a taper."]
    long_ = [r.probe for r in rows if r.sentence.startswith("My father, the mobile equipment")]
    tm, _ = build_queries(lm, short + long_[:1])
    together = masked_log_probs(lm, tm, batch_size=8)
    alone = naive_masked_log_probs(lm, tm)
    np.testing.assert_allclose(together, alone, atol=1e-6, rtol=0)


def test_becpro_probe_and_distinct_counts(lm, tmp_path):
    res = becpro_probe(lm, "en", batch_size=64)
    assert res.n_sentences == 5400
    # T-masked inputs: 3 subject forms (He/She, This [MASK], My [MASK]) x 5 templates x 60
    # professions = 900. The published file has 905 distinct T-masked texts only because its
    # string replacement also masked "man" inside "manager" in 5 rows.
    rows = generate_becpro("en")
    assert res.n_distinct_target_masked == len({r.sent_tm for r in rows}) == 900
    assert res.n_distinct_prior_masked < 200
    assert len(res.table) == 6 and {c.n for c in res.table} == {900}
    means = {(c.group, c.gender): c.mean for c in res.table}
    assoc = res.association
    male_rows = np.array([r.gender == "male" and r.prof_gender == "female" for r in rows])
    assert means[("female", "male")] == pytest.approx(assoc[male_rows].mean())
    assert [t.test.n + t.test.n_zero for t in res.tests] == [900, 900, 900]
    out = save_figure(plot_becpro(res), tmp_path / "bars.png", dpi=120)
    assert out.stat().st_size > 1000
    d = res.to_dict()
    assert set(d) >= {"table", "tests", "per_profession", "n_distinct_target_masked"}


def test_becpro_compare_two_models(lm, tiny_model_dir_b):
    other = load_masked_lm(str(tiny_model_dir_b), device="cpu")
    a = becpro_probe(lm, "en", batch_size=64)
    b = becpro_probe(other, "en", batch_size=64)
    cmp = compare_becpro(a, b)
    assert len(cmp.tests) == 6
    with pytest.raises(InputError, match="all paired differences are zero"):
        compare_becpro(a, a)
    t0 = cmp.tests[0]
    assert t0.mean_pre == pytest.approx(next(c.mean for c in a.table if (c.group, c.gender) == (t0.group, t0.gender)))


TEMPLATES_SUBJECT = [r["template"] for r in own_table("en", "malor_templates") if r["experiment"] == "subject"]


def test_malor_probe_runs_and_reports_missing(lm):
    res = malor_probe(lm, "he-she", batch_size=64)
    assert res.n_templates >= 50 and res.n_occupations >= 60
    assert res.malor >= 0
    per = np.array([o.log2_ratio for o in res.per_occupation])
    assert res.malor == pytest.approx(np.abs(per).mean())
    # the split occupations are not single tokens: reported and left out of the reverse probe
    assert res.missing_occupations == ["roofer"]
    assert next(o for o in res.per_occupation if o.occupation == "roofer").reverse_log2_ratio is None
    assert res.reverse_malor is not None
    occs = [o.occupation for o in res.per_occupation[:8]]
    names = malor_probe(lm, "names", occupations=occs, templates=TEMPLATES_SUBJECT[:8], batch_size=128)
    assert len(own_table("en", "malor_names")) >= 25
    assert set(names.missing_names) == {"Frank", "Amy", "Kathleen"}
    assert "Frank" not in names.male_terms
    his = malor_probe(lm, "his-her", batch_size=64)
    assert his.n_templates >= 50


def test_a_stored_malor_result_is_viewed_in_the_web_app(lm, tmp_path):
    """The service keeps a job's envelope and the web app rebuilds the result from it to draw its
    tables and plots (a result that does not rebuild is a 500 there)."""
    import json

    from _envelope import viewed

    res = malor_probe(lm, "he-she", occupations=["nurse", "lawyer"], templates=TEMPLATES_SUBJECT[:4], batch_size=64)
    envelope = {"command": "probe malor", "geobias_version": "test", "inputs": {"options": {}}, "result": res.to_dict()}
    html = viewed(json.dumps(envelope), tmp_path)
    assert "nurse" in html and "<img" in html


def test_model_errors(tmp_path):
    enc_dir = make_random_bert(tmp_path / "enc", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"], mlm_head=False)
    with pytest.raises(ModelError, match="has no masked-LM head"):
        load_masked_lm(str(enc_dir))
    with pytest.raises(ModelError, match="has no masked-LM head"):
        load_masked_lm("minilm-l6")
    with pytest.raises(ModelError, match="no config.json"):
        load_masked_lm(str(tmp_path))
    with pytest.raises(ModelError, match="cannot load"):
        load_masked_lm("not a valid//model id")
