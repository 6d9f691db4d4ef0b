"""Mitigation: one contract suite over the registry, plus the geometric properties of each method."""

from __future__ import annotations

import numpy as np
import pytest
from _synthetic_bilingual import FLOWERS, INSECTS, OCC, PLEASANT, UNPLEASANT, make_pair, weat_effect

from geobias.errors import InputError, NotFittedError
from geobias.mitigation import (
    METHODS,
    BilingualMitigation,
    HardDebias,
    ShiftOri,
    direct_bias,
    get_method,
)


@pytest.fixture(scope="module")
def pair():
    return make_pair()


def _fit(cls, pair):
    """``cls`` fitted on the store its class attributes call for, with English where it uses it."""
    fr, en, dico, fr_lex, en_lex, _ = pair
    if cls.grammatical_gender == "never":  # hard debias: English lists
        return cls(lexicon=en_lex).fit(en), en
    if cls.needs_english == "never":  # the erasers: monolingual
        return cls(lexicon=fr_lex).fit(fr), fr
    return cls(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico), fr


# ---------------------------------------------------------------- the shared contract
@pytest.mark.parametrize("name", sorted(METHODS))
def test_contract(name, pair):
    cls = get_method(name)
    est = cls()
    assert not any(k.endswith("_") for k in vars(est)), "__init__ must only store parameters"
    assert set(vars(est)) == set(est.get_params())
    store = pair[1] if cls.grammatical_gender == "never" else pair[0]
    with pytest.raises(NotFittedError):
        est.transform(store)
    fitted, store = _fit(cls, pair)
    before = store.vectors.copy()
    out = fitted.transform(store)
    assert out is not store
    np.testing.assert_array_equal(store.vectors, before)  # input unchanged
    assert out.words == store.words and out.dim == store.dim  # vocabulary order kept
    assert not out.vectors.flags.writeable
    np.testing.assert_array_equal(fitted.transform(store).vectors, out.vectors)  # deterministic
    # idempotence (float32 storage: a second projection moves rows by ~1e-7). Bilingual methods
    # include an orthogonal alignment map, which is not idempotent; their mitigation step is.
    again = fitted.apply_shift(out) if isinstance(fitted, BilingualMitigation) else fitted.transform(out)
    np.testing.assert_allclose(again.vectors, out.vectors, atol=1e-6)
    if cls.changes_english:
        en = pair[1]
        en_out = fitted.transform(en)
        assert en_out.words == en.words and not np.allclose(en_out.vectors, en.unit_vectors)


def test_unknown_method():
    with pytest.raises(InputError, match="shift-ori"):
        get_method("nope")


# ---------------------------------------------------------------- Shift geometry
@pytest.mark.parametrize("name", ["shift-ori", "shift-en", "hybrid-ori", "hybrid-en"])
def test_shift_symmetry_and_neutralisation(name, pair):
    est, fr = _fit(get_method(name), pair)
    out = est.transform(fr)
    d = est.direction_
    proj = out.vectors.astype(np.float64) @ d
    idx = out.index
    assert len(est.shift_pairs_) == len(OCC)
    for f, m, a in est.shift_pairs_:
        # eq. 4: symmetric about the anchor; float32 rows of norm ~1 → error ~1e-7
        assert abs(proj[idx[m]] + proj[idx[f]] - 2 * a) < 1e-5
    if name.endswith("-en"):
        assert any(abs(a) > 1e-3 for _, _, a in est.shift_pairs_)  # English anchors are not the origin
    else:
        assert all(a == 0.0 for _, _, a in est.shift_pairs_)
    # eq. 2 on the inanimate nouns only: the 400 synthetic gendered nouns
    neutral = sorted(est.neutralized_)
    assert len(neutral) == 400 and est.report_.n_neutralized == 400
    assert all(w.startswith("nom") for w in neutral)
    assert np.max(np.abs(proj[[idx[w] for w in neutral]])) < 1e-6  # eq. 2 (float32 rounding ~1e-8)
    # definitional words keep their gender component; other words are left untouched
    assert abs(proj[idx["homme"]]) > 0.05
    base = est.aligner_.transform(fr)
    others = [w for w in out.words if w not in est.neutralized_ and w not in est.neutral_excluded_]
    assert len(others) > 300
    np.testing.assert_array_equal(out[others], base[others])


def test_shift_neutralises_inanimate_nouns_not_person_nouns(pair):
    fr, en, dico, fr_lex, en_lex, _ = pair
    from dataclasses import replace

    lex = replace(fr_lex, person_nouns=["nom0", "nom1"])
    est = ShiftOri(lexicon=lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    assert "nom0" not in est.neutralized_ and "nom2" in est.neutralized_
    assert est.report_.n_neutralized == 398
    out = est.transform(fr)
    base = est.aligner_.transform(fr)
    np.testing.assert_array_equal(out["nom0"], base["nom0"])  # a person noun keeps its vector
    # the explicit all-other mode (ours) neutralises every word but the pairs and definitional words
    wide = ShiftOri(lexicon=lex, en_lexicon=en_lex, neutralize="all-other").fit(fr, en=en, dictionary=dico)
    assert wide.report_.n_neutralized == len(fr) - len(wide.neutral_excluded_)
    proj = wide.transform(fr)[["nom0", "fr_w0"]].astype(np.float64) @ wide.direction_
    assert np.max(np.abs(proj)) < 1e-6
    with pytest.raises(InputError, match="neutralize"):
        ShiftOri(lexicon=lex, neutralize="everything").fit(fr)


def test_shift_moves_two_form_nouns_only_unless_asked_for_adjectives(pair):
    """Zhou et al. eq. 3-4 move "nouns with both gender forms"; adjective pairs (the word-pair
    translation seeds) stay put by default and are never neutralised."""
    from dataclasses import replace

    fr, en, dico, fr_lex, en_lex, _ = pair
    nouns, adjectives = fr_lex.two_form[:6], fr_lex.two_form[6:]  # two pairs play the adjectives
    lex = replace(fr_lex, two_form=nouns, two_form_adjectives=adjectives)
    default = ShiftOri(lexicon=lex).fit(fr)
    assert default.report_.n_pairs_shifted == 6
    assert {f for f, _, _ in default.shift_pairs_} == {f for f, _, _ in nouns}
    out = default.transform(fr)
    for f, m, _ in adjectives:  # unchanged rows: neither moved nor neutralised
        np.testing.assert_array_equal(out[f], fr[f])
        np.testing.assert_array_equal(out[m], fr[m])
        assert f not in default.neutralized_ and f not in lex.inanimate_nouns()
    d = default.direction_
    f, m, _ = nouns[0]
    moved = out[[f, m]].astype(np.float64) @ d
    assert moved.sum() == pytest.approx(0.0, abs=1e-5)  # a noun pair is centred on the origin (eq. 4)
    wide = ShiftOri(lexicon=lex, shift_adjectives=True).fit(fr)
    assert wide.report_.n_pairs_shifted == 8
    f, m, _ = adjectives[0]
    assert (wide.transform(fr)[[f, m]].astype(np.float64) @ wide.direction_).sum() == pytest.approx(0.0, abs=1e-5)
    assert abs(float((fr[[f, m]].astype(np.float64) @ wide.direction_).sum())) > 1e-3  # it did move


def test_project_lexicon_separates_occupations_from_adjectives():
    from geobias import wordlists
    from geobias.mitigation.lexicon import GenderLexicon

    lex = GenderLexicon.for_language("fr")
    assert lex.two_form == [(o.feminine, o.masculine, o.english) for o in wordlists.occupations("fr")]
    assert lex.two_form_adjectives == [(a.feminine, a.masculine, a.english) for a in wordlists.adjectives("fr")]
    assert not {w for t in lex.two_form_adjectives for w in t[:2]} & set(lex.inanimate_nouns())


def test_french_person_nouns_are_not_neutralised_and_number_forms_agree():
    """Person nouns found in the noun lists (gendre, moines, patriarche, vicomte were missed once)
    keep their semantic gender; a listed person noun's other number form is listed too."""
    from geobias import wordlists
    from geobias.mitigation.lexicon import GenderLexicon

    lex = GenderLexicon.for_language("fr")
    inanimate = set(lex.inanimate_nouns())
    assert not {"gendre", "moines", "patriarche", "vicomte", "moine", "vache", "poule", "coq"} & inanimate
    # célébrité means fame in fr-spacy-md (its neighbours: notoriété, gloire); célébrités, celebrities
    assert "célébrité" in inanimate and "célébrités" not in inanimate
    nouns = set().union(*wordlists.gendered_nouns("fr"))
    persons = set(lex.person_nouns)
    assert "cardinals" not in persons  # English, not a French form
    # since issue 43 the noun lists hold no person noun and no plural of a listed noun
    assert not persons & nouns
    assert not {w + "s" for w in nouns} & nouns


def test_bolukbasi_lists_and_paper_protocol():
    from geobias.mitigation.lexicon import GenderLexicon
    from geobias.wordlists import bolukbasi_lists

    try:
        theirs = bolukbasi_lists()
    except InputError as exc:
        pytest.skip(str(exc))
    assert theirs.definitional_pairs[:3] == [("woman", "man"), ("girl", "boy"), ("she", "he")]
    assert (len(theirs.definitional_pairs), len(theirs.gender_specific), len(theirs.equalize_pairs),
            len(theirs.professions)) == (10, 1441, 52, 320)
    lex = GenderLexicon.bolukbasi()
    assert lex.gender_specific == theirs.gender_specific and lex.equalize_pairs == theirs.equalize_pairs


def test_shift_ori_d_pca_is_monolingual(pair):
    fr, en, dico, fr_lex, en_lex, _ = pair
    mono = ShiftOri(lexicon=fr_lex).fit(fr)  # no English at all
    with_en = ShiftOri(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    assert with_en.report_.pca_languages == ["fr"]
    # same French pairs → the same d_PCA, carried into the shared space by the rotation
    carried = mono.d_pca_ @ with_en.aligner_.W_
    assert abs(abs(float(carried @ with_en.d_pca_)) - 1) < 1e-6
    hyb = get_method("shift-en")(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    assert hyb.report_.pca_languages == ["fr", "en"]


def test_shift_removes_occupation_bias_but_not_flowers_insects(pair):
    fr, en, dico, fr_lex, en_lex, _ = pair
    est = ShiftOri(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    base = est.aligner_.transform(fr)
    out = est.transform(fr)
    occ_f = [f for f, _, _, _ in OCC]
    occ_m = [m for _, m, _, _ in OCC]
    # the masculine-minus-feminine gap along d_s is gone after the shift
    d = est.direction_
    gap_before = np.abs(base[occ_m] @ d + base[occ_f] @ d).mean()
    gap_after = np.abs(out[occ_m] @ d + out[occ_f] @ d).mean()
    assert gap_before > 0.05 and gap_after < 1e-5
    fl = ["fr_" + w for w in FLOWERS]
    ins = ["fr_" + w for w in INSECTS]
    pl = ["fr_" + w for w in PLEASANT]
    un = ["fr_" + w for w in UNPLEASANT]
    before = weat_effect(base, fl, ins, pl, un)
    after = weat_effect(out, fl, ins, pl, un)
    assert abs(after - before) < 0.1  # control WEAT barely moves (effect sizes range over ±2)


def test_shift_ori_monolingual_without_english(pair):
    fr, _, _, fr_lex, _, _ = pair
    est = ShiftOri(lexicon=fr_lex).fit(fr)
    assert est.aligner_ is None
    out = est.transform(fr)
    proj = out.vectors.astype(np.float64) @ est.direction_
    for f, m, _ in est.shift_pairs_:
        assert abs(proj[out.index[f]] + proj[out.index[m]]) < 1e-5


def test_bilingual_methods_need_inputs(pair):
    fr, en, _, fr_lex, en_lex, _ = pair
    with pytest.raises(InputError, match="English"):
        get_method("shift-en")(lexicon=fr_lex).fit(fr)
    with pytest.raises(InputError, match="dictionary"):
        get_method("de-align")(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en)


def test_dealign_aligns_to_debiased_english(pair):
    fr, en, dico, fr_lex, en_lex, rot = pair
    est = get_method("de-align")(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    fr_out, en_out = est.transform_pair(fr, en)
    # French geometry is only rotated: within-language cosines are unchanged
    np.testing.assert_allclose(fr_out.unit_vectors @ fr_out.unit_vectors[:5].T,
                               fr.unit_vectors @ fr.unit_vectors[:5].T, atol=1e-5)
    # and French words land next to their English translations
    cos = np.sum(fr_out[[f"fr_w{i}" for i in range(50)]] * en_out.unit_vectors[[en_out.index[f"w{i}"] for i in range(50)]], axis=1)
    assert np.median(cos) > 0.8


# ---------------------------------------------------------------- hard debias
def test_hard_debias_neutralises_and_equalises(pair):
    _, en, _, _, en_lex, _ = pair
    hd = HardDebias(lexicon=en_lex).fit(en)
    out = hd.transform(en)
    g = hd.direction_
    neutral = [w for w in out.words if w not in hd.gender_specific_]
    proj = out.unit_vectors[[out.index[w] for w in neutral]].astype(np.float64) @ g
    assert np.max(np.abs(proj)) < 1e-6
    np.testing.assert_allclose(out.norms, 1.0, atol=1e-6)
    probe = out.unit_vectors[[out.index[w] for w in neutral]]
    for a, b in hd.equalize_pairs_:
        # equalised: every neutral word is equidistant from both words of the pair
        np.testing.assert_allclose(probe @ out[a], probe @ out[b], atol=1e-5)
    occupations = [e for _, _, e, _ in OCC]
    before = direct_bias(en, g, occupations)
    after = direct_bias(out, g, occupations)
    assert before.direct_bias > 0.2 and after.direct_bias < 1e-6
    assert after.n_words == len(occupations)


def test_precomputed_grammatical_direction_is_carried_by_the_alignment(pair):
    """LDA is rotation-equivariant: d_g fitted before alignment and mapped by W equals d_g fitted after."""
    from geobias.mitigation._directions import grammatical_direction

    fr, en, dico, fr_lex, en_lex, _ = pair
    fitted = get_method("shift-ori")(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico)
    d_g = grammatical_direction(fr, fr_lex.masculine_nouns, fr_lex.feminine_nouns)  # a GenderSubspace
    pre = get_method("shift-ori")(lexicon=fr_lex, en_lexicon=en_lex, grammatical=d_g).fit(fr, en=en, dictionary=dico)
    assert abs(pre.d_g_ @ fitted.d_g_) > 1 - 1e-6  # same direction (float32 inputs)
    np.testing.assert_allclose(pre.transform(fr).vectors, fitted.transform(fr).vectors, atol=1e-4)


def test_hard_debias_paper_protected_set_is_the_gender_specific_words(pair):
    """Bolukbasi et al.'s debias.py: only the gender-specific words escape neutralisation;
    definitional words are neutralised; ours ("extended") protects them too."""
    from dataclasses import replace

    _, en, _, _, en_lex, _ = pair
    lex = replace(en_lex, gender_specific=["he", "she"], equalize_pairs=[("woman", "man")])
    paper = HardDebias(lexicon=lex).fit(en)
    ext = HardDebias(lexicon=lex, protect="extended").fit(en)
    assert paper.gender_specific_ == {"he", "she"}
    assert {"king", "queen", "woman", "man"} <= ext.gender_specific_
    g = paper.direction_
    p_out, e_out = paper.transform(en), ext.transform(en)
    assert abs(float(p_out["king"].astype(np.float64) @ g)) < 1e-6  # neutralised under the paper's set
    assert abs(float(e_out["king"].astype(np.float64) @ g)) > 0.05  # kept under ours
    assert abs(float(p_out["he"].astype(np.float64) @ g)) > 0.05
    # equalised pair: symmetric about the neutral plane, unit rows
    assert float(p_out["woman"].astype(np.float64) @ g) == pytest.approx(-float(p_out["man"].astype(np.float64) @ g), abs=1e-6)
    with pytest.raises(InputError, match="protect"):
        HardDebias(lexicon=lex, protect="all").fit(en)


@pytest.mark.parametrize("name", ["shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en"])
def test_fit_transform_pair_equals_fit_then_transform_pair(name, pair):
    fr, en, dico, fr_lex, en_lex, _ = pair
    cls = get_method(name)
    s1, e1 = cls(lexicon=fr_lex, en_lexicon=en_lex).fit(fr, en=en, dictionary=dico).transform_pair(fr, en)
    s2, e2 = cls(lexicon=fr_lex, en_lexicon=en_lex).fit_transform_pair(fr, en=en, dictionary=dico)
    np.testing.assert_array_equal(s2.vectors, s1.vectors)
    np.testing.assert_array_equal(e2.vectors, e1.vectors)
    assert s2.words == s1.words and e2.words == e1.words
    assert s2.provenance == s1.provenance and e2.provenance == e1.provenance
    assert s2 is not fr and e2 is not en  # new stores, inputs untouched


def test_shared_fits_across_methods_give_the_unshared_results(pair):
    """evaluate's ``shared`` dict: one Procrustes fit and one English hard debias serve every
    method on the same inputs, and each method's output equals its unshared fit."""
    fr, en, dico, fr_lex, en_lex, _ = pair
    shared: dict = {}
    fitted = {}
    for name in ["shift-ori", "de-align", "hybrid-ori", "hybrid-en", "shift-en"]:
        cls = get_method(name)
        s1, e1 = cls(lexicon=fr_lex, en_lexicon=en_lex).fit_transform_pair(fr, en=en, dictionary=dico)
        est = fitted[name] = cls(lexicon=fr_lex, en_lexicon=en_lex)
        s2, e2 = est.fit_transform_pair(fr, en=en, dictionary=dico, shared=shared)
        np.testing.assert_array_equal(s2.vectors, s1.vectors)
        np.testing.assert_array_equal(e2.vectors, e1.vectors)
        assert s2.provenance == s1.provenance and e2.provenance == e1.provenance
    # two Procrustes fits (to the original English, to the debiased English), one hard debias
    assert sorted(k[0] for k in shared) == ["hard-debias", "procrustes", "procrustes"]
    assert fitted["de-align"].en_debiaser_ is fitted["hybrid-en"].en_debiaser_ is not None
    assert fitted["shift-ori"].aligner_ is fitted["shift-en"].aligner_ is not fitted["de-align"].aligner_
