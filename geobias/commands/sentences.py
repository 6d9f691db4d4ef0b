"""Sentence-level commands: ``seat`` (May et al. 2019, sentence encoders, grammatical-gender
aware), ``crows-pairs`` (Nangia et al. 2020) and ``stereoset`` (Nadeem et al. 2021, intrasentence;
masked LMs)."""

from __future__ import annotations

import functools
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from geobias._progress import ProgressArg
from geobias.commands._base import command
from geobias.commands._bootstrap import BootstrapParams
from geobias.commands._fields import Lang, Seed, TextInput, read_text_input
from geobias.commands._kinds import MODEL, Device, Force, LocalFlag, Spec, capped, local
from geobias.commands.static import WeatQuery
from geobias.commands.vectors import EngineParams
from geobias.errors import InputError, ParameterError


def _test_files(value: Any, info: ValidationInfo) -> Any:
    """One test file or several: a list (the CLI's repeated ``--tests``), one path or inline text,
    or (CLI, Python) a comma list of paths, also inside a list's items."""
    from geobias.commands._base import front_of

    if value is None:
        return value
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if front_of(info) == "service":
        return items
    out = []
    for item in items:
        if isinstance(item, str) and "," in item:
            out += [v.strip() for v in item.split(",") if v.strip()]
        else:
            out.append(item)
    return out


#: SEAT test files: paths (CLI, Python: repeated ``--tests``, a list or a comma list) or their texts (service).
SeatTestFiles = Annotated[TextInput | list[TextInput] | None, BeforeValidator(_test_files)]


class SeatParams(BootstrapParams, WeatQuery):
    """Parameters of ``seat``: WEAT over template sentences (or a published test file's sentences)
    encoded by a sentence encoder."""

    DEFAULT_TEST: ClassVar[str] = "career-family-terms"
    KIND: ClassVar[str] = "SEAT"

    tests: Annotated[SeatTestFiles, Spec(label="Test file (the file's text)")] = Field(None, description=(
        "SEAT test files in May et al.'s JSON format (targ1, targ2, attr1, attr2, each with a category and "
        "examples), e.g. sent-bias's tests/sent-weat6.jsonl; several by repeating the option (--tests a.jsonl "
        "--tests b.jsonl) or as a comma list. In the service: the file's text, or a list of texts; one text may "
        "also hold several tests, one JSON object after another. Their sentences are encoded as written: no "
        "templates, no lang needed."), json_schema_extra={"cli": {"multiple": True}})
    lang: Lang | None = Field(None, description="Language of the words and templates (en, es, fr, de); needed "
                                                "unless tests are given.")
    encoder: str = Field("use-m3", description=(
        "use-m3 (the multilingual Universal Sentence Encoder v3, installed with geobias), minilm-l6, a Hugging Face "
        "id or a local encoder folder (mean pooling over its last layer)."))
    # sent-bias's n_samples default (geobias.metrics.seat.SENT_BIAS_SAMPLES; a literal here: the CLI's startup
    # imports no numpy), so that `seat` enumerates where weat.py does
    permutations: Annotated[int, capped("max_permutations")] = Field(100_000, ge=1, le=10_000_000, description=(
        "The permutation budget, as sent-bias's n_samples: every partition of the X and Y units is enumerated "
        "when there are at most this many (May et al.'s tests of eight sentences per set: 12,870), else this many "
        "Monte-Carlo permutations. The units are the words of a template test (p_value; each word brings its "
        "sentences) and the sentences of a test file (and sentence_p_value, May et al.'s test)."))
    seed: Seed = 0
    device: Device = Field("auto", description="auto (CUDA when available), cpu, cuda, cuda:N (Hugging Face encoders).")
    batch_size: Annotated[int, capped(1024)] = Field(32, ge=1, le=4096, description="Sentences per forward pass.")
    trust_pickle: LocalFlag = Field(False, description="Allow a local encoder folder with only pickled weights.")
    force: Force = Field(False, description="Run a permutation test above 100,000,000 partitions.")
    show_sentences: bool = Field(False, description="Put every sentence encoded into the result, for review "
                                                    "(template tests).")

    @model_validator(mode="after")
    def _files_or_words(self):
        if self.tests is not None and (self.test is not None or self.targets_x is not None):
            raise ParameterError("give tests (SEAT files) or a built-in test or your own sets, not both", "tests")
        if self.tests is not None and not self.tests:
            raise ParameterError("no SEAT test file given", "tests")
        if self.tests is not None and self.bootstrap:
            raise ParameterError(f"bootstrap: {self.no_bootstrap_reason()}", "bootstrap")
        if self.tests is not None:
            self.test_files()  # a file that is not the format fails here: before a job is queued
        return self

    def no_bootstrap_reason(self) -> str | None:
        """Test files have sentences only: the bootstrap resamples the words of a template test."""
        if self.tests is not None:
            return "it resamples the words of a template test; a test file has sentences only"
        return None

    def test_files(self) -> list:
        """The :class:`~geobias.metrics.seat.SeatTestFile` of each ``tests`` entry, in order.

        Raises
        ------
        InputError
            A file that cannot be read or is not a SEAT test (one line naming it)."""
        from geobias.commands._fields import Inline
        from geobias.metrics.seat import parse_seat_tests, read_seat_tests

        out = []
        for i, item in enumerate(self.tests or []):
            if isinstance(item, Inline):
                label = f"tests[{i}]" if len(self.tests) > 1 else "tests"
                out += parse_seat_tests(item.text, name=label, source=label)
            else:
                out += read_seat_tests(item)
        seen: dict[str, str] = {}
        for t in out:
            if t.name in seen:  # the files' content, not the command line: bad input (exit 1)
                raise InputError(f"two SEAT tests are named {t.name!r} ({seen[t.name]} and {t.source}): give "
                                 "files with different names")
            seen[t.name] = t.source
        return out

    def work(self):
        """One permutation test over the sentences of X ∪ Y (every template of every word); with
        test files, one per file, each counted as the largest."""
        from geobias.commands._permutations import permutation_work
        from geobias.metrics.seat import (
            noun_genders,
            read_templates,
            read_word_kinds,
            sentences_for,
        )

        if self.tests is not None:
            files = self.test_files()
            big = max(files, key=lambda t: len(t.sets[0]) + len(t.sets[1]))
            return permutation_work(len(big.sets[0]) + len(big.sets[1]), len(big.sets[0]), self.permutations,
                                    "auto", tests=len(files), what=f"{len(files)} tests × " if len(files) > 1 else "")
        if self.lang is None:  # the run says what is missing (a language is not a rule of the schema)
            return None
        templates, genders, kinds = read_templates(self.lang), noun_genders(self.lang), read_word_kinds(self.lang)
        X, Y, A, B, _ = self.sets()
        every = frozenset(w for group in (X, Y, A, B) for w in group)
        n_x = len(sentences_for(X, templates, genders, kinds, every))
        n_y = len(sentences_for(Y, templates, genders, kinds, every))
        n_ab = len(sentences_for(A, templates, genders, kinds, every)) + len(sentences_for(B, templates, genders,
                                                                                            kinds, every))
        return self.with_bootstrap(permutation_work(n_x + n_y, n_x, self.permutations, "auto"), n_x + n_y + n_ab)


@command("seat", SeatParams, result="geobias.metrics.seat.SeatResult")
def seat(p: SeatParams, *, progress: ProgressArg = None):
    """SEAT (May et al. 2019): WEAT over template sentences from a sentence encoder, articles agreeing."""
    import dataclasses

    from geobias.contextual.sentence_encoders import sentence_encoder
    from geobias.metrics.seat import seat as run_seat
    from geobias.metrics.seat import seat_sentences

    files = p.test_files() if p.tests is not None else None  # bad files fail before the encoder loads
    if files is None and p.lang is None:
        raise ParameterError("a template test needs its language: give --lang (en, es, fr or de), or SEAT test "
                             "files with --tests FILE", "lang")
    query = None if files is not None else p.word_query()
    encode = sentence_encoder(p.encoder, device=None if p.device == "auto" else p.device, batch_size=p.batch_size,
                              trust_pickle=p.trust_pickle)
    if files is not None:
        note = p.bootstrap_note()
        results = [dataclasses.replace(seat_sentences(encode, t, lang=p.lang or "en", encoder_name=p.encoder,
                                                      n_permutations=p.permutations, seed=p.seed),
                                       bootstrap_note=note) for t in files]
        return dataclasses.replace(results[0], more_tests=results[1:])
    return p.with_bootstrap_result(run_seat, encode, query, lang=p.lang, encoder_name=p.encoder, test=query.name,
                                   n_permutations=p.permutations, seed=p.seed, show_sentences=p.show_sentences)


class SentenceSetParams(EngineParams):
    """Parameters shared by the masked-LM benchmarks scored on a published file (CrowS-Pairs, StereoSet)."""

    model: Annotated[str, MODEL] = Field(description="Masked LM: a Hugging Face id or a local folder with an MLM head.")
    limit: Annotated[int | None, local(None)] = Field(None, ge=1, description="Score only the first N rows or examples.")
    trust_pickle: LocalFlag = Field(False, description="Allow a local model folder with only pickled weights.")


def _score_file(p: SentenceSetParams, progress: ProgressArg, read, score):
    """Read ``p.data`` with ``read(path, limit=)``, load the masked LM on the command's engine and
    return ``score(lm, items, model_name=, batch_size=, progress=)``."""
    from geobias.commands.vectors import record_engine

    items = read_text_input(p.data, "data", lambda path: read(path, limit=p.limit))
    with p.open_engine() as eng:
        record_engine(eng)
        lm = eng.load_masked_lm(p.model, p.device, trust_pickle=p.trust_pickle)
        return score(lm, items, model_name=p.model, batch_size=p.batch_size,
                     progress=progress is not None and progress.enabled)


class CrowsPairsParams(SentenceSetParams):
    """Parameters of ``crows-pairs``: a masked LM's preference for the more stereotypical sentence."""

    data: Annotated[TextInput, Spec(label="Data (the file's text)")] = Field(description="CrowS-Pairs CSV (columns sent_more, sent_less, stereo_antistereo, "
                                        "bias_type), e.g. crows_pairs_anonymized.csv or the French CrowS-Pairs (in the "
                                        "service: its text).")
    comparison: Literal["metric-py", "unrounded"] = Field("metric-py", description=(
        "'metric-py' (the authors' metric.py): sentence scores rounded to 3 decimals, a pair with equal rounded "
        "scores is neutral and leaves the stereotype/anti-stereotype denominators; 'unrounded' (ours): exact "
        "comparison, every pair in every denominator."))


@command("crows-pairs", CrowsPairsParams, result="geobias.contextual.crows_pairs.CrowsPairsResult")
def crows_pairs(p: CrowsPairsParams, *, progress: ProgressArg = None):
    """CrowS-Pairs (Nangia et al. 2020): % of pairs whose more stereotypical sentence a masked LM scores higher."""
    from geobias.contextual.crows_pairs import crows_pairs as score_pairs
    from geobias.contextual.crows_pairs import read_crows_pairs

    return _score_file(p, progress, read_crows_pairs, functools.partial(score_pairs, comparison=p.comparison))


class StereoSetParams(SentenceSetParams):
    """Parameters of ``stereoset``: a masked LM's choice between a stereotype, an anti-stereotype
    and an unrelated word for a blank (the intrasentence task)."""

    data: Annotated[TextInput, Spec(label="Data (the file's text)")] = Field(description="StereoSet JSON (dev.json or test.json: data.intrasentence; in the service: "
                                        "its text).")


@command("stereoset", StereoSetParams, result="geobias.contextual.stereoset.StereoSetResult")
def stereoset(p: StereoSetParams, *, progress: ProgressArg = None):
    """StereoSet intrasentence (Nadeem et al. 2021): LMS, SS and ICAT of a masked LM, per bias type."""
    from geobias.contextual.stereoset import read_stereoset
    from geobias.contextual.stereoset import stereoset as score

    return _score_file(p, progress, read_stereoset, score)
