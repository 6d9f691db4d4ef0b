"""Statistics of the contextual probes: Wilcoxon with r = Z/sqrt(N), MALoR by hand, BEC-Pro generator."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from scipy import stats

from geobias.contextual.becpro import generate_becpro, write_becpro
from geobias.contextual.malor import log_mean_prob, malor_score
from geobias.errors import InputError
from geobias.stats.wilcoxon import wilcoxon_signed_rank


def test_wilcoxon_matches_scipy_and_r_is_z_over_sqrt_n(rng):
    x = rng.normal(0.3, 1.0, 120)
    y = rng.normal(0.0, 1.0, 120)
    x[:5] = y[:5]  # five zero differences are dropped
    x[10:14] = y[10:14] + 0.5  # ties among |d|
    res = wilcoxon_signed_rank(x, y)
    ref = stats.wilcoxon(x, y, zero_method="wilcox", correction=False, method="approx")
    assert res.statistic == ref.statistic
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert abs(res.z) == pytest.approx(abs(ref.zstatistic), rel=1e-12)
    # p from our signed z reproduces scipy's two-sided p
    assert 2 * stats.norm.sf(abs(res.z)) == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.n == 115 and res.n_zero == 5
    assert res.r == pytest.approx(res.z / math.sqrt(115))
    assert res.r != pytest.approx(res.statistic / math.sqrt(115))  # not Bartl's W/sqrt(N)
    assert res.z > 0  # x was shifted up: positive direction


def test_wilcoxon_hand_computation_small():
    d = np.array([1.0, -2.0, 3.0, 4.0, -5.0, 6.0])
    res = wilcoxon_signed_rank(d, np.zeros(6))
    t_plus = 1 + 3 + 4 + 6  # ranks of the positive differences
    mu, sigma = 6 * 7 / 4, math.sqrt(6 * 7 * 13 / 24)
    assert res.z == pytest.approx((t_plus - mu) / sigma)
    assert res.statistic == 7.0  # min(T+, T-) = min(14, 7)


def test_wilcoxon_bad_input():
    with pytest.raises(InputError):
        wilcoxon_signed_rank([1.0, 2.0], [1.0])
    with pytest.raises(InputError, match="all paired differences are zero"):
        wilcoxon_signed_rank([1.0, 2.0], [1.0, 2.0])


def test_malor_on_mocked_probabilities():
    # 2 occupations x 2 templates
    p_he = np.array([[0.4, 0.2], [0.1, 0.1]])
    p_she = np.array([[0.1, 0.2], [0.4, 0.05]])
    score, per = malor_score(np.log(p_he), np.log(p_she))
    occ0 = (math.log2(4.0) + math.log2(1.0)) / 2  # = 1
    occ1 = (math.log2(0.25) + math.log2(2.0)) / 2  # = -0.5
    assert per == pytest.approx([occ0, occ1])
    assert score == pytest.approx((1.0 + 0.5) / 2)


def test_malor_names_average_probabilities_not_logs():
    # 1 occupation x 1 template; male names 0.3 and 0.1, female names 0.05, 0.05, 0.2
    lm = np.log(np.array([[[0.3, 0.1]]]))
    lf = np.log(np.array([[[0.05, 0.05, 0.2]]]))
    score, per = malor_score(lm, lf)
    assert per[0] == pytest.approx(math.log2(0.2 / 0.1))
    assert score == pytest.approx(1.0)
    assert log_mean_prob(np.log([0.5, 0.25]))[()] == pytest.approx(math.log(0.375))


def test_malor_shape_mismatch():
    with pytest.raises(InputError):
        malor_score(np.zeros((2, 3)), np.zeros((3, 2)))


COLUMNS = ["Sentence", "Sent_TM", "Sent_AM", "Sent_TAM", "Template", "Person", "Gender", "Profession", "Prof_Gender"]


def _published(shared_data, lang):
    path = shared_data / "becpro" / f"BEC-Pro_{lang.upper()}.tsv"
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def test_generator_matches_published_english(shared_data, tmp_path):
    rows = generate_becpro("en")
    out = write_becpro(rows, tmp_path / "becpro_en.tsv", lang="en")
    with out.open(encoding="utf-8") as fh:
        ours = list(csv.DictReader(fh, delimiter="\t"))
    ref = _published(shared_data, "en")
    assert len(ours) == len(ref) == 5400
    sentences = sum(o["Sentence"] == r["Sentence"] for o, r in zip(ours, ref, strict=True))
    assert sentences == 5400  # every sentence, in the published order
    for col in ("Template", "Person", "Gender", "Profession", "Prof_Gender"):
        assert [o[col] for o in ours] == [r[col] for r in ref]
    # the published masked columns were made by substring replacement; they differ from ours
    # exactly where that replacement hit a word inside another ("man" in "manager", "of" in
    # "position of"): 23 rows, all of which we can name
    bad = [(o, r) for o, r in zip(ours, ref, strict=True) if [o[c] for c in COLUMNS] != [r[c] for c in COLUMNS]]
    assert len(bad) == 23
    for _, r in bad:
        assert "[MASK]ager" in r["Sent_TM"] + r["Sent_TAM"] or "position [MASK]" in r["Sent_TAM"] + r["Sent_AM"]


# German forms we write differently from the published file, on purpose:
# a typo (Dachedecker), two feminine forms the file leaves masculine, and weak adjective
# inflection after the definite article ("der staatlich geprüfte Krankenpfleger").
DE_CORRECTIONS = {
    "Dachedecker": "Dachdecker",
    "Rezeptionist": "Rezeptionistin",
    "Kfz-Mechaniker": "Kfz-Mechanikerin",
    "staatlich geprüfter Krankenpfleger": "staatlich geprüfte Krankenpfleger",
    "medizinischer Wissenschaftler": "medizinische Wissenschaftler",
    "Postbeamter": "Postbeamte",
}


def test_generator_matches_published_german_up_to_corrections(shared_data):
    rows = generate_becpro("de")
    ref = _published(shared_data, "de")
    assert len(rows) == len(ref) == 5400
    same = sum(o.sentence == r["Sentence"] for o, r in zip(rows, ref, strict=True))
    assert same == 5238  # 97.0 %; every other row differs only by a listed correction
    for o, r in zip(rows, ref, strict=True):
        assert [o.template, o.person, o.gender, o.prof_gender, o.profession_en] == [
            r["Template"], r["Person"], r["Gender"], r["Prof_Gender"], r["Profession_EN"]
        ]
        if o.sentence != r["Sentence"]:
            fixed = r["Sentence"].replace(r["Profession"], DE_CORRECTIONS[r["Profession"]], 1)
            assert fixed == o.sentence, (o.sentence, r["Sentence"])
    # article agreement: "der" with male, "die" with female persons
    art = [o for o in rows if "Arbeitstag" in o.sentence]
    assert all((", der " in o.sentence) == (o.gender == "male") for o in art)


def test_write_becpro_refuses_to_overwrite(tmp_path):
    p = tmp_path / "x.tsv"
    p.write_text("keep")
    with pytest.raises(InputError, match="exists"):
        write_becpro(generate_becpro("en"), p)
    assert p.read_text() == "keep"
