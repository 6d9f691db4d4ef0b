"""Tokenising probe sentences and building their masked variants.

A probe sentence is a text with the character spans of its *target* (the word whose probability
is read, e.g. the person word) and, optionally, its *attribute* (e.g. the profession). Spans are
mapped to tokens through the fast tokenizer's offset mapping, so a determiner next to the target
is never touched ("My [MASK] is a nurse.").

The prior's attribute mask (``prior_mask``): ``"word"`` (the default, Bartl et al. 2020's published
``Sent_TAM``: one [MASK] per attribute *word*, so "taxi driver" → "[MASK] [MASK]" whatever its
sub-tokens) or ``"subtoken"`` (ours: every sub-token of the attribute masked in place, so the
sequence keeps its length and the model sees how many pieces the attribute had).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from geobias.choices import PriorMask
from geobias.errors import InputError, ModelError

#: How the attribute is masked for p_prior (see the module docstring).


@dataclass(frozen=True)
class ProbeSentence:
    """A sentence with the character spans ``[start, end)`` of its target and attribute."""

    text: str
    target: tuple[int, int]
    attribute: tuple[int, int] | None = None

    @classmethod
    def from_words(cls, text: str, target: str, attribute: str | None = None) -> ProbeSentence:
        """Locate ``target`` and ``attribute`` as whole words (first occurrence, not overlapping).

        Raises
        ------
        InputError
            A word that does not occur in the sentence.
        """
        t = _find_word(text, target, None)
        if t is None:
            raise InputError(f"target {target!r} does not occur as a word in {text!r}")
        a = None
        if attribute:
            a = _find_word(text, attribute, t)
            if a is None:
                raise InputError(f"attribute {attribute!r} does not occur as a word in {text!r}")
        return cls(text, t, a)


def _find_word(text: str, word: str, avoid: tuple[int, int] | None) -> tuple[int, int] | None:
    for m in re.finditer(r"(?<!\w)" + re.escape(word) + r"(?!\w)", text):
        if avoid is None or m.end() <= avoid[0] or m.start() >= avoid[1]:
            return (m.start(), m.end())
    return None


@dataclass(frozen=True)
class EncodedProbe:
    """Token ids of a probe sentence (with special tokens) and where its target and attribute are.

    Attributes
    ----------
    input_ids : tuple of int
    target_index : int
        Token index of the (single-token) target.
    target_id : int
        Its token id (what the probability is read for).
    attribute_indices : tuple of int
        Token indices of every attribute sub-token (empty without attribute).
    attribute_words : tuple of tuple of int
        The same indices grouped by whitespace-separated word of the attribute (default: one
        group holding all of them).
    """

    input_ids: tuple[int, ...]
    target_index: int
    target_id: int
    attribute_indices: tuple[int, ...]
    attribute_words: tuple[tuple[int, ...], ...] = ()

    def masked(self, mask_id: int, *, attribute: bool) -> tuple[int, ...]:
        """The ids with the target masked, and every attribute sub-token too if ``attribute``
        (our ``"subtoken"`` prior; same length as the input)."""
        ids = list(self.input_ids)
        ids[self.target_index] = mask_id
        if attribute:
            for i in self.attribute_indices:
                ids[i] = mask_id
        return tuple(ids)

    def masked_prior(self, mask_id: int, prior_mask: PriorMask = "word") -> tuple[tuple[int, ...], int]:
        """The prior's input: target masked, attribute masked per ``prior_mask``.

        Parameters
        ----------
        mask_id : int
        prior_mask : {"word", "subtoken"}, default "word"
            ``"word"``: each attribute word's sub-tokens collapse into one [MASK] (Bartl et al.
            2020); ``"subtoken"``: every sub-token is masked in place (ours).

        Returns
        -------
        ids : tuple of int
        target_index : int
            Index of the target in ``ids`` (moves left when a multi-piece word before it
            collapses).
        """
        if prior_mask == "subtoken":
            return self.masked(mask_id, attribute=True), self.target_index
        groups = self.attribute_words or ((self.attribute_indices,) if self.attribute_indices else ())
        first = {g[0]: g for g in groups if g}
        drop = {i for g in groups for i in g[1:]}
        ids, target = [], self.target_index
        for i, tok in enumerate(self.input_ids):
            if i in drop:
                if i < self.target_index:
                    target -= 1
                continue
            ids.append(mask_id if i in first or i == self.target_index else tok)
        return tuple(ids), target


def span_token_indices(tokenizer, text: str, spans: list[tuple[int, int]], model_name: str = ""):
    """Tokenise ``text`` once; return ``(input_ids, [token indices overlapping each span])``.

    Raises
    ------
    ModelError
        The tokenizer gives no offset mapping (not a "fast" tokenizer).
    """
    try:
        enc = tokenizer(
            text, return_offsets_mapping=True, return_special_tokens_mask=True, truncation=True
        )
    except NotImplementedError:
        raise ModelError(
            f"model {model_name}: its tokenizer has no offset mapping (a fast tokenizer is needed)"
        ) from None
    ids = list(enc["input_ids"])
    offsets = enc["offset_mapping"]
    special = enc["special_tokens_mask"]
    out = []
    for start, end in spans:
        out.append(
            [
                i
                for i, (s, e) in enumerate(offsets)
                if not special[i] and e > s and s < end and e > start
            ]
        )
    return ids, out


def encode_probe(tokenizer, sentence: ProbeSentence, model_name: str = "") -> EncodedProbe:
    """Tokenise a probe sentence and locate its target and attribute tokens.

    Raises
    ------
    ModelError
        The target is not exactly one token ("target word X is not a single token").
    InputError
        The attribute maps to no token.
    """
    word_spans: list[tuple[int, int]] = []
    if sentence.attribute:
        a0, a1 = sentence.attribute
        word_spans = [(a0 + m.start(), a0 + m.end()) for m in re.finditer(r"\S+", sentence.text[a0:a1])]
    spans = [sentence.target] + ([sentence.attribute] if sentence.attribute else []) + word_spans
    ids, located = span_token_indices(tokenizer, sentence.text, spans, model_name)
    target_tokens = located[0]
    word = sentence.text[sentence.target[0] : sentence.target[1]]
    if len(target_tokens) != 1:
        pieces = tokenizer.convert_ids_to_tokens([ids[i] for i in target_tokens])
        raise ModelError(
            f"target word {word!r} is not a single token in model {model_name or '?'} "
            f"(tokens: {' '.join(pieces) or 'none'})"
        )
    attr: tuple[int, ...] = ()
    words: tuple[tuple[int, ...], ...] = ()
    if sentence.attribute:
        attr = tuple(located[1])
        if not attr:
            raise InputError(f"attribute of {sentence.text!r} maps to no token")
        seen: set[int] = set()
        groups = []
        for toks in located[2:]:
            g = tuple(i for i in toks if i not in seen)
            seen.update(g)
            if g:
                groups.append(g)
        words = tuple(groups)
    ti = target_tokens[0]
    if tokenizer.unk_token_id is not None and ids[ti] == tokenizer.unk_token_id:
        raise ModelError(f"target word {word!r} is not a single token in model {model_name or '?'} (unknown token)")
    return EncodedProbe(tuple(ids), ti, ids[ti], attr, words)
