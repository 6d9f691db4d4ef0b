"""BEC-Pro (Bartl et al. 2020): corpus generator, association probe, group tests, comparison.

The corpus is 5 templates × 18 person words × 60 professions (three groups of 20 by U.S. BLS
2019 female share) = 5,400 sentences per language, generated from the project's own word lists
(``wordlists/{en,de}/becpro_*.tsv``) in the order of the published files: profession group
(male, female, balanced) → template → person word → profession.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from geobias._progress import ProgressArg
from geobias.choices import BecProLang
from geobias.contextual.kurita import kurita_association
from geobias.contextual.masking import ProbeSentence
from geobias.errors import InputError
from geobias.io.atomic import atomic_write
from geobias.results import Result
from geobias.stats.wilcoxon import WilcoxonResult, wilcoxon_signed_rank
from geobias.validation import check_choice
from geobias.wordlists import own_table

GROUPS = ("male", "female", "balanced")
GENDERS = ("male", "female")
COLUMNS = ["Sentence", "Sent_TM", "Sent_AM", "Sent_TAM", "Template", "Person", "Gender", "Profession", "Prof_Gender"]
MASK = "[MASK]"


@dataclass(frozen=True)
class BecProRow:
    """One BEC-Pro sentence with its masked variants and the spans of person word and profession."""

    sentence: str
    sent_tm: str
    sent_am: str
    sent_tam: str
    template: str
    person: str
    gender: str
    profession: str
    prof_gender: str
    profession_en: str
    person_index: int  # index within its gender (pairs male i with female i)
    template_index: int
    target: tuple[int, int]
    attribute: tuple[int, int]

    @property
    def probe(self) -> ProbeSentence:
        return ProbeSentence(self.sentence, self.target, self.attribute)


def _render(template: str, person_phrase: str, person: str, profession: str, article: str) -> tuple:
    """Fill a template; return (sentence, target span, attribute span, pieces for masking)."""
    pre_p, post_p = person_phrase.split("{}")
    parts: list[tuple[str, str]] = []  # (kind, text): kind in {"lit", "T", "A"}
    rest = template.replace("{article}", article)
    while rest:
        i_p, i_a = rest.find("{person}"), rest.find("{profession}")
        cands = [(i, k) for i, k in ((i_p, "person"), (i_a, "profession")) if i >= 0]
        if not cands:
            parts.append(("lit", rest))
            break
        i, kind = min(cands)
        parts.append(("lit", rest[:i]))
        if kind == "person":
            parts += [("lit", pre_p), ("T", person), ("lit", post_p)]
            rest = rest[i + len("{person}") :]
        else:
            parts.append(("A", profession))
            rest = rest[i + len("{profession}") :]
    text, spans, pos = "", {}, 0
    for kind, piece in parts:
        if kind in ("T", "A"):
            spans[kind] = (pos, pos + len(piece))
        text += piece
        pos += len(piece)
    if text[:1].islower() and spans.get("T", (1,))[0] == 0:
        raise InputError(f"sentence starts with a lower-case target: {text!r}")
    return text, spans["T"], spans["A"], parts


def _masked(parts, target: bool, attribute: bool) -> str:
    out = []
    for kind, piece in parts:
        if kind == "T" and target:
            out.append(MASK)
        elif kind == "A" and attribute:
            out.append(" ".join([MASK] * len(piece.split())))  # one [MASK] per word, as published
        else:
            out.append(piece)
    return "".join(out)


def generate_becpro(lang: str = "en") -> list[BecProRow]:
    """Generate the BEC-Pro corpus of ``lang`` from the project's word lists.

    Returns
    -------
    list of BecProRow, length 5,400

    Notes
    -----
    German professions take the person's grammatical gender; ``{article}`` is der/die; templates
    with an article use the profession's form after a definite article (weak adjective inflection,
    "der staatlich geprüfte Krankenpfleger"). The text columns ``Sent_AM``/``Sent_TAM`` mask one
    [MASK] per word as in the published files; the probe does the same by default
    (``prior_mask="word"``) and masks every sub-token in place only with ``prior_mask="subtoken"``
    (ours).

    References
    ----------
    Bartl, Nissim, Gatt (2020). Unmasking Contextual Stereotypes: Measuring and Mitigating BERT's
    Gender Bias. GeBNLP, §3.
    """
    check_choice("lang", lang, BecProLang)
    templates = [r["template"] for r in own_table(lang, "becpro_templates", ("template",))]
    persons = own_table(lang, "becpro_persons", ("gender", "word", "phrase"))
    if lang == "en":
        profs = own_table(lang, "becpro_professions", ("group", "profession"))
    else:
        profs = own_table(
            lang, "becpro_professions",
            ("group", "english", "masculine", "feminine", "masculine_definite", "feminine_definite"),
        )
    index_in_gender: dict[str, int] = {}
    person_idx = []
    for p in persons:
        person_idx.append(index_in_gender.get(p["gender"], 0))
        index_in_gender[p["gender"]] = person_idx[-1] + 1
    rows: list[BecProRow] = []
    for group in GROUPS:
        group_profs = [p for p in profs if p["group"] == group]
        for t_idx, template in enumerate(templates):
            for p, pidx in zip(persons, person_idx, strict=True):
                gender = p["gender"]
                article = {"male": "der", "female": "die"}[gender] if lang == "de" else ""
                template_col = (
                    template.replace("{person}", "<person subject>")
                    .replace("{profession}", "<profession>")
                    .replace("{article}", article)
                )
                for prof in group_profs:
                    if lang == "en":
                        form = english = prof["profession"]
                    else:
                        english = prof["english"]
                        key = "masculine" if gender == "male" else "feminine"
                        form = prof[key]
                        if "{article}" in template and prof[key + "_definite"] != "-":
                            form = prof[key + "_definite"]
                    text, t, a, parts = _render(template, p["phrase"], p["word"], form, article)
                    rows.append(
                        BecProRow(
                            sentence=text,
                            sent_tm=_masked(parts, True, False),
                            sent_am=_masked(parts, False, True),
                            sent_tam=_masked(parts, True, True),
                            template=template_col,
                            person=p["word"],
                            gender=gender,
                            profession=form,
                            prof_gender=group,
                            profession_en=english,
                            person_index=pidx,
                            template_index=t_idx,
                            target=t,
                            attribute=a,
                        )
                    )
    return rows


@dataclass(frozen=True)
class BecProCorpusFile(Result):
    """What ``geobias becpro generate`` wrote.

    Attributes
    ----------
    lang : str
    path : str
        The TSV file (index column + the published columns).
    n_sentences : int
        5 templates × 18 person words × 60 professions = 5,400 for the full corpus.
    """

    lang: str
    path: str
    n_sentences: int


def write_becpro(rows: list[BecProRow], path: str | Path, *, lang: str = "en", overwrite: bool = False) -> Path:
    """Write the corpus as TSV (index column + the published columns; DE adds Profession_EN).

    The write is atomic (temporary file, then rename).

    Raises
    ------
    InputError
        ``path`` exists and ``overwrite`` is false; ``path`` is a directory, or its directory
        is missing or not writable.
    """
    path = Path(path)
    cols = COLUMNS + (["Profession_EN"] if lang == "de" else [])
    buf = io.StringIO()
    w = csv.writer(buf, delimiter="\t", lineterminator="\n")
    w.writerow([""] + cols)
    for i, r in enumerate(rows):
        vals = [r.sentence, r.sent_tm, r.sent_am, r.sent_tam, r.template, r.person, r.gender, r.profession, r.prof_gender]
        if lang == "de":
            vals.append(r.profession_en)
        w.writerow([i] + vals)
    with atomic_write(path, mode="w", what="BEC-Pro corpus", overwrite=overwrite) as fh:
        fh.write(buf.getvalue())
    return path


@dataclass(frozen=True)
class GroupGenderMean(Result):
    """Mean association of one profession group × person gender (Bartl et al. Table 4 cell)."""

    group: str
    gender: str
    mean: float
    std: float  # ddof=1
    n: int


@dataclass(frozen=True)
class GroupTest(Result):
    """Wilcoxon signed-rank test of male vs female person words within one profession group.

    Pairs: same template and profession, male person word i vs female person word i
    (He/She, man/woman, ...). Positive z: male associations higher.
    """

    group: str
    test: WilcoxonResult


@dataclass(frozen=True)
class ProfessionMean(Result):
    """Mean association of one profession with male and with female person words."""

    profession: str
    group: str
    male: float
    female: float


@dataclass(frozen=True)
class BecProResult(Result):
    """BEC-Pro associations of one model.

    Attributes
    ----------
    model, lang : str
    n_sentences : int
    n_distinct_target_masked, n_distinct_prior_masked : int
        Forward passes needed after deduplication.
    table : list of GroupGenderMean
        Group × gender means (natural-log association), Bartl et al. Table 4 layout.
    tests : list of GroupTest
    per_profession : list of ProfessionMean
    association : ndarray of shape (n_sentences,), float64
        Per-sentence association, corpus order.
    """

    model: str
    lang: str
    n_sentences: int
    n_distinct_target_masked: int
    n_distinct_prior_masked: int
    table: list[GroupGenderMean]
    tests: list[GroupTest]
    per_profession: list[ProfessionMean]
    association: np.ndarray


def _pairs(rows: list[BecProRow], group: str) -> tuple[np.ndarray, np.ndarray]:
    """Indices of paired male and female rows of ``group`` (same template, profession, person index)."""
    key = {}
    for i, r in enumerate(rows):
        if r.prof_gender == group:
            key[(r.template_index, r.profession_en, r.person_index, r.gender)] = i
    male, female = [], []
    for (tpl, prof, pidx, g), i in key.items():
        if g == "male" and (tpl, prof, pidx, "female") in key:
            male.append(i)
            female.append(key[(tpl, prof, pidx, "female")])
    return np.asarray(male), np.asarray(female)


def summarize_becpro(model: str, lang: str, rows: list[BecProRow], assoc: np.ndarray, n_tm: int, n_tam: int) -> BecProResult:
    """Group means, male-vs-female tests and per-profession means from per-sentence associations."""
    assoc = np.asarray(assoc, dtype=np.float64)
    groups = np.array([r.prof_gender for r in rows])
    genders = np.array([r.gender for r in rows])
    table = []
    for g in GROUPS:
        for s in GENDERS:
            v = assoc[(groups == g) & (genders == s)]
            table.append(GroupGenderMean(g, s, float(v.mean()), float(v.std(ddof=1)), int(v.size)))
    tests = []
    for g in GROUPS:
        m, f = _pairs(rows, g)
        tests.append(GroupTest(g, wilcoxon_signed_rank(assoc[m], assoc[f])))
    per_prof = []
    profs = np.array([r.profession_en for r in rows])
    seen: dict[str, str] = {}
    for r in rows:
        seen.setdefault(r.profession_en, r.prof_gender)
    for p, g in seen.items():
        sel = profs == p
        per_prof.append(
            ProfessionMean(p, g, float(assoc[sel & (genders == "male")].mean()), float(assoc[sel & (genders == "female")].mean()))
        )
    return BecProResult(model, lang, len(rows), n_tm, n_tam, table, tests, per_prof, assoc)


def becpro_probe(lm, lang: str = "en", *, batch_size: int = 32, progress: ProgressArg = False,
                 prior_mask: str = "word") -> BecProResult:
    """Kurita association of every BEC-Pro sentence (person word = target, profession = attribute).

    Parameters
    ----------
    lm : LoadedModel
    lang : {"en", "de"}
    batch_size : int, default 32
    progress : Progress, bool or None, default False
    prior_mask : {"word", "subtoken"}, default "word"
        p_prior's profession mask: one [MASK] per word, as in Bartl et al.'s published
        ``Sent_TAM`` (the default), or every sub-token masked in place (ours; it tells the
        model how many pieces the profession had).

    Returns
    -------
    BecProResult

    Raises
    ------
    ModelError
        A person word that is not a single token of the model.

    References
    ----------
    Bartl et al. (2020), §4 and Table 4; Kurita et al. (2019).
    """
    rows = generate_becpro(lang)
    res = kurita_association(lm, [r.probe for r in rows], batch_size=batch_size, progress=progress,
                             prior_mask=prior_mask)
    return summarize_becpro(lm.name, lang, rows, res.association, res.n_distinct_target_masked, res.n_distinct_prior_masked)


@dataclass(frozen=True)
class CompareTest(Result):
    """Pre vs post association of one profession group × person gender (paired by sentence)."""

    group: str
    gender: str
    mean_pre: float
    mean_post: float
    test: WilcoxonResult


@dataclass(frozen=True)
class BecProComparison(Result):
    """BEC-Pro associations of two models (e.g. before and after fine-tuning) and their tests."""

    pre: BecProResult
    post: BecProResult
    tests: list[CompareTest]


def compare_becpro(pre: BecProResult, post: BecProResult) -> BecProComparison:
    """Wilcoxon signed-rank test of pre − post association per group × gender (Bartl et al. §5).

    Parameters
    ----------
    pre, post : BecProResult
        The same corpus (language, sentence order) probed on two models, e.g. before and after
        fine-tuning; sentences are paired by position.

    Returns
    -------
    BecProComparison
        Both results and one test per profession group × person gender (3 × 2), with
        effect size r = Z/√N (Rosenthal).

    References
    ----------
    Bartl, Nissim & Gatt (2020), "Unmasking Contextual Stereotypes: Measuring and Mitigating
    BERT's Gender Bias", GeBNLP: §5, pre- vs post-fine-tuning associations.

    Raises
    ------
    InputError
        The two results are of different corpora.
    """
    if pre.lang != post.lang or pre.n_sentences != post.n_sentences:
        raise InputError("the two BEC-Pro results come from different corpora")
    rows = generate_becpro(pre.lang)
    groups = np.array([r.prof_gender for r in rows])
    genders = np.array([r.gender for r in rows])
    tests = []
    for g in GROUPS:
        for s in GENDERS:
            sel = (groups == g) & (genders == s)
            a, b = pre.association[sel], post.association[sel]
            tests.append(CompareTest(g, s, float(a.mean()), float(b.mean()), wilcoxon_signed_rank(a, b)))
    return BecProComparison(pre, post, tests)
