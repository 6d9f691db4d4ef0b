"""Male and female versions of a text, and term removal (Jentzsch & Turan 2022, §2.1 and §2.3).

For the sentiment-difference probe every text gets a *male version* M, in which every listed
gender term is turned into its male form, and a *female version* F, in which every listed term is
turned into its female form, whatever gender the term had in the text. The pairs come from
``wordlists/en/sentiment_terms.tsv`` (columns male, female, set, direction):

- term sets are nested: ``pro`` (pronouns) ⊂ ``weat`` (pro + 17 person/family noun pairs) ⊂
  ``all`` (≈290 pairs);
- ``direction`` says which way a pair is used: ``both``; ``to_male`` (only female → male, in M:
  "lesbian" → "gay", but "gay" stays in F); ``to_female`` (only male → female, in F: "lord" →
  "lady", while "lady" → "gentleman" in M);
- every word is the source of at most one mapping per direction — a table where one word maps to
  two targets is refused (the authors' notebook built Python dict literals with duplicate keys, so
  the later entry silently won). The one exception is the female "her", whose male form is
  "his" or "him" by context: the rule of :mod:`geobias.contextual.cda` ("him" before a function
  word, punctuation or the end of the text, "his" otherwise);
- the matching and the case rule are those of the CDA swapper (:mod:`geobias.contextual.cda`):
  whole words only (a match touches no letter, digit or underscore, so "her." "him," "(she)"
  "he's" are found — the authors' notebook split on spaces and missed words next to
  punctuation), case kept (``he → she``, ``He → She``, ``HE → SHE``).

References
----------
Jentzsch, Turan (2022), *Gender Bias in BERT — Measuring and Analysing Biases through Sentiment
Rating in a Realistic Downstream Classification Task*, GeBNLP, §2.1 (mitigation conditions),
§2.3 (term sets, male and female versions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from geobias.choices import TermSet as TermSetName
from geobias.contextual.cda import _NEXT_TOKEN, OBJECT_FOLLOWERS, _match_case
from geobias.errors import InputError
from geobias.validation import check_choice
from geobias.wordlists import own_table

Direction = Literal["both", "to_male", "to_female"]
_LEVEL = {"pro": 0, "weat": 1, "all": 2}


@dataclass(frozen=True)
class TermPair:
    """One row of the term table: (male, female) forms, the smallest set holding it, direction."""

    male: str
    female: str
    set: str
    direction: str


def read_term_pairs(lang: str = "en") -> list[TermPair]:
    """Every row of ``wordlists/<lang>/sentiment_terms.tsv``.

    Raises
    ------
    InputError
        No such list; a bad ``set`` or ``direction`` value (the message names the pair).
    """
    rows = own_table(lang, "sentiment_terms", ("male", "female", "set", "direction"))
    out = []
    for r in rows:
        pair = TermPair(r["male"].lower(), r["female"].lower(), r["set"], r["direction"])
        if pair.set not in _LEVEL:
            raise InputError(f"term pair {pair.male}/{pair.female}: set must be pro, weat or all; got {pair.set!r}")
        if pair.direction not in ("both", "to_male", "to_female"):
            raise InputError(f"term pair {pair.male}/{pair.female}: unknown direction {pair.direction!r}")
        out.append(pair)
    return out


def _pattern(words) -> re.Pattern:
    words = sorted(words, key=len, reverse=True)  # longest first: "himself" before "him"
    return re.compile(r"(?<!\w)(?i:" + "|".join(map(re.escape, words)) + r")(?!\w)")


class GenderRewriter:
    """Turn every listed term of a text into its male (:meth:`male`) or female (:meth:`female`) form.

    Parameters
    ----------
    pairs : sequence of TermPair or (male, female[, direction])
        The pairs of one term set. Matching is case-insensitive; the text's case is kept.

    Raises
    ------
    InputError
        No pairs; an empty word, a word paired with itself or containing whitespace; a word that
        is the source of two different mappings in one direction (a duplicate key), except
        female "her" → {"his", "him"} (decided by context).

    Attributes
    ----------
    to_male : dict of str to str
        female form → male form (used in M). "her" maps to ``"his|him"``.
    to_female : dict of str to str
        male form → female form (used in F).
    """

    def __init__(self, pairs: Sequence):
        norm: list[tuple[str, str, str]] = []
        for p in pairs:
            if isinstance(p, TermPair):
                m, f, d = p.male, p.female, p.direction
            else:
                m, f, d = (*p, "both") if len(p) == 2 else p
            m, f = m.strip().lower(), f.strip().lower()
            if not m or not f:
                raise InputError(f"empty word in term pair ({m!r}, {f!r})")
            if m == f:
                raise InputError(f"term pair ({m!r}, {f!r}) pairs a word with itself")
            if any(ch.isspace() for ch in m + f):
                raise InputError(f"term pair ({m!r}, {f!r}): multi-word terms are not supported")
            check_choice("direction", d, Direction)
            norm.append((m, f, d))
        if not norm:
            raise InputError("no gender term pairs given")
        self.pairs = norm
        to_male: dict[str, set[str]] = {}
        to_female: dict[str, set[str]] = {}
        for m, f, d in norm:
            if d in ("both", "to_male"):
                to_male.setdefault(f, set()).add(m)
            if d in ("both", "to_female"):
                to_female.setdefault(m, set()).add(f)
        self.to_male = self._single(to_male, "female", ambiguous={"her": {"his", "him"}})
        self.to_female = self._single(to_female, "male", ambiguous={})
        self.terms = frozenset(w for m, f, _ in norm for w in (m, f))
        self._male_re = _pattern(self.to_male) if self.to_male else None
        self._female_re = _pattern(self.to_female) if self.to_female else None
        self._any_re = _pattern(self.terms)

    @staticmethod
    def _single(mapping: dict[str, set[str]], gender: str, ambiguous: dict[str, set[str]]) -> dict[str, str]:
        out = {}
        for src, targets in mapping.items():
            if len(targets) == 1:
                out[src] = next(iter(targets))
            elif src in ambiguous and targets <= ambiguous[src]:
                out[src] = "|".join(sorted(targets))
            else:
                raise InputError(
                    f"{gender} term {src!r} maps to {len(targets)} words ({', '.join(sorted(targets))}): "
                    "a duplicate key; keep one mapping and mark the others one-way"
                )
        return out

    def _rewrite(self, text: str, pattern: re.Pattern | None, mapping: dict[str, str]) -> tuple[str, int]:
        if pattern is None:
            return text, 0
        n = 0

        def repl(match: re.Match) -> str:
            nonlocal n
            src = match.group(0)
            target = mapping[src.lower()]
            if target == "him|his":  # female "her": object or possessive (cda.py rule)
                nxt = _NEXT_TOKEN.match(text, match.end()).group(1)
                obj = nxt is None or not nxt[0].isalnum() or nxt.lower() in OBJECT_FOLLOWERS
                target = "him" if obj else "his"
            n += 1
            return _match_case(src, target)

        return pattern.sub(repl, text), n

    def male(self, text: str) -> str:
        """The male version M of ``text``: every listed female term turned into its male form."""
        return self._rewrite(text, self._male_re, self.to_male)[0]

    def female(self, text: str) -> str:
        """The female version F of ``text``: every listed male term turned into its female form."""
        return self._rewrite(text, self._female_re, self.to_female)[0]

    def count(self, text: str) -> int:
        """Number of listed terms (either gender) in ``text``."""
        return len(self._any_re.findall(text))

    def remove(self, text: str) -> str:
        """``text`` with every listed term (either gender) deleted; runs of spaces left by a
        deletion are collapsed and a space before punctuation removed (§2.1 "removed")."""
        out, n = self._any_re.subn("", text)
        if n == 0:
            return text
        out = re.sub(r"[ \t]{2,}", " ", out)
        out = re.sub(r" +([,.;:!?)])", r"\1", out)
        return out.strip()

    def __repr__(self) -> str:
        return f"GenderRewriter({len(self.pairs)} pairs)"


def load_terms(terms: str = "all", lang: str = "en") -> GenderRewriter:
    """The rewriter of one of the project's term sets.

    Parameters
    ----------
    terms : {"pro", "weat", "all"}, default "all"
        Nested sets (pro ⊂ weat ⊂ all).
    lang : str, default "en"

    Raises
    ------
    InputError
        An unknown term set (listing the valid ones) or language.
    """
    check_choice("terms", terms, TermSetName)
    level = _LEVEL[terms]
    return GenderRewriter([p for p in read_term_pairs(lang) if _LEVEL[p.set] <= level])
