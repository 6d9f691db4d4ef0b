"""Pooled contextual vectors: a word's sub-token vectors averaged over many contexts → a store.

Every static metric (directions, WEAT, MWEAT, neighbours) then runs on a transformer's
representations unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias._progress import ProgressArg
from geobias.contextual.masking import span_token_indices
from geobias.errors import InputError
from geobias.languages import get_language
from geobias.results import Result
from geobias.store import VectorStore

#: Neutral default contexts ({} = the word); they fit nouns, names and adjectives alike.
DEFAULT_CONTEXTS: tuple[str, ...] = (
    "{}",
    "This is about {}.",
    "The word is {}.",
    "We talked about {} yesterday.",
    "I heard the word {} today.",
    "Everyone knows {}.",
    "Here is a sentence with {} in it.",
    "They wrote {} on the board.",
    "She said {} and left.",
    "He said {} and smiled.",
    "The story mentions {} twice.",
    "{} is what we discussed.",
    "A note about {} was found.",
    "Nobody expected {} here.",
    "Think of {} for a moment.",
    "The list included {}.",
)



@dataclass(frozen=True)
class PooledStoreFile(Result):
    """What ``geobias vectors pool`` saved.

    Attributes
    ----------
    model : str
    path : str
        The store directory (open it with ``--vectors PATH`` or by name).
    n_words, dim : int
        Shape of the pooled matrix (float32).
    layer : int or None
        Hidden-state index; ``None``: the mean of the last four layers.
    n_contexts : int or None
        Context templates given (``None``: the default contexts).
    """

    model: str
    path: str
    n_words: int
    dim: int
    layer: int | None
    n_contexts: int | None

def pool_vectors(
    encoder,
    words: Sequence[str],
    contexts: Sequence[str] | None = None,
    *,
    layer: int | None = None,
    batch_size: int = 32,
    lang: str | None = None,
    progress: ProgressArg = False,
) -> VectorStore:
    """Average each word's contextual vectors over contexts into a :class:`VectorStore`.

    Parameters
    ----------
    encoder : LoadedModel
        From :func:`geobias.models.load_encoder` (or a masked LM).
    words : sequence of str, length n_words
        Distinct words (duplicates are an error).
    contexts : sequence of str, optional
        Templates with one ``{}`` for the word; default :data:`DEFAULT_CONTEXTS`.
    layer : int, optional
        Hidden-state index (0 = embeddings, L = last layer; negative counts from the end).
        Default: the mean of the last four layers.
    batch_size : int, default 32
    lang : str, optional
        Language recorded in the store.
    progress : Progress, bool or None, default False
        Progress bar on stderr.

    Returns
    -------
    VectorStore of shape (n_words, hidden_size), float32
        Vector of word w = mean over contexts c of (mean over w's sub-tokens in c of h_layer).

    Raises
    ------
    InputError
        No words, duplicate words, a context without exactly one ``{}``, a layer out of range,
        an unknown ``lang``.
    """
    from geobias.engine.hidden import model_config, span_vectors

    words = list(words)
    if not words:
        raise InputError("no words to pool")
    if lang is not None:
        lang = get_language(lang).code
    contexts = list(DEFAULT_CONTEXTS if contexts is None else contexts)
    if not contexts:
        raise InputError("no contexts")
    for c in contexts:
        if c.count("{}") != 1:
            raise InputError(f"a context must contain exactly one '{{}}' placeholder: {c!r}")
    if batch_size < 1:
        raise InputError(f"batch size must be >= 1; got {batch_size}")
    config = model_config(encoder)
    n_hidden = int(config.num_hidden_layers) + 1
    if layer is not None and not -n_hidden <= layer < n_hidden:
        raise InputError(f"layer must be in [{-n_hidden}, {n_hidden - 1}] for this model; got {layer}")
    layers = [layer] if layer is not None else list(range(n_hidden - 4, n_hidden)) if n_hidden > 4 else list(range(n_hidden))

    items = []  # (word index, input ids, token indices of the word)
    for wi, w in enumerate(words):
        for c in contexts:
            start = c.index("{}")
            text = c.replace("{}", w)
            ids, (idx,) = span_token_indices(encoder.tokenizer, text, [(start, start + len(w))], encoder.name)
            if not idx:
                raise InputError(f"word {w!r} maps to no token of model {encoder.name}")
            items.append((wi, ids, idx))
    vecs = span_vectors(encoder, [(ids, idx) for _, ids, idx in items], layers,
                        batch_size=batch_size, progress=progress)
    sums = np.zeros((len(words), int(config.hidden_size)), dtype=np.float64)
    counts = np.zeros(len(words), dtype=np.int64)
    for (wi, _, _), v in zip(items, vecs, strict=True):
        sums[wi] += v
        counts[wi] += 1
    vectors = (sums / counts[:, None]).astype(np.float32)
    return VectorStore(
        words,
        vectors,
        lang=lang,
        provenance={
            "source": "pooled contextual vectors",
            "model": encoder.name,
            "layer": layer if layer is not None else f"mean of hidden states {layers}",
            "n_contexts": len(contexts),
            "subtokens": "mean",
        },
    )
