"""Tokenising probe sentences and building their masked variants.

A probe sentence is a text with the character spans of its *target* (the word whose probability
is read, e.g. the person word) and, optionally, its *attribute* (e.g. the profession). Spans are
mapped to tokens through the fast tokenizer's offset mapping, so a determiner next to the target
is never touched ("My [MASK] is a nurse."), and a multi-token attribute is masked token by token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from geobias.errors import InputError, ModelError


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
    """

    input_ids: tuple[int, ...]
    target_index: int
    target_id: int
    attribute_indices: tuple[int, ...]

    def masked(self, mask_id: int, *, attribute: bool) -> tuple[int, ...]:
        """The ids with the target masked, and every attribute sub-token too if ``attribute``."""
        ids = list(self.input_ids)
        ids[self.target_index] = mask_id
        if attribute:
            for i in self.attribute_indices:
                ids[i] = mask_id
        return tuple(ids)


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
    spans = [sentence.target] + ([sentence.attribute] if sentence.attribute else [])
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
    if sentence.attribute:
        attr = tuple(located[1])
        if not attr:
            raise InputError(f"attribute of {sentence.text!r} maps to no token")
    ti = target_tokens[0]
    if tokenizer.unk_token_id is not None and ids[ti] == tokenizer.unk_token_id:
        raise ModelError(f"target word {word!r} is not a single token in model {model_name or '?'} (unknown token)")
    return EncodedProbe(tuple(ids), ti, ids[ti], attr)
