#!/usr/bin/env python3
"""Generate ``wordlists/<lang>/nouns_<gender>.txt`` for es, fr, de, it, pt, pl, ru and nl.

These are the grammatically masculine and feminine *inanimate-by-construction* nouns from
which the grammatical gender direction (LDA, Zhou et al. 2019 §2) is fitted. Candidates are
the most frequent words of the language (``wordfreq.top_n_list``); each is kept only when a
morphological dictionary gives it one unambiguous grammatical gender.

Sources (Debian bookworm packages and one PyPI package, read locally; nothing is downloaded
from elsewhere):

- **es**: Apertium morphological analyser ``spa-eng.automorf.bin`` of ``apertium-eng-spa``,
  run through ``lt-proc`` (package ``lttoolbox``).
- **fr**: Apertium analyser ``fr-es.automorf.bin`` of ``apertium-fr-es`` through ``lt-proc``.
- **it**: Apertium analyser ``ita-cat.automorf.bin`` of ``apertium-cat-ita``.
- **pt**: Apertium analyser ``por-cat.automorf.bin`` of ``apertium-por-cat``.
- **pl**: Apertium analyser ``pol-szl.automorf.bin`` of ``apertium-pol-szl`` (masculine split
  into ``<mi>`` inanimate, ``<ma>`` animate, ``<mp>`` personal; feminine ``<f>``, neuter ``<nt>``):
  writes masculine (inanimate ``<mi>`` only), feminine and neuter lists.
- **nl**: Apertium analyser ``nld-afr.automorf.bin`` of ``apertium-afr-nld`` (``<m>``, ``<f>``,
  ``<mf>``, ``<nt>``): writes *common* (de-words: ``<m>``, ``<f>``, ``<mf>``) and *neuter*
  (het-words) lists, standard Dutch's two genders.
- **ru**: PyPI ``pymorphy3`` with ``pymorphy3-dicts-ru`` (OpenCorpora dictionary): writes
  masculine, feminine and neuter lists of inanimate (``inan``) nouns.
- **de**: FreeDict German-English dictionary (``dict-freedict-deu-eng``), whose headwords carry
  ``<masc, n, sg>`` / ``<fem, n, sg>`` grammar tags.
- **ar**: none. The FreeDict Arabic-English dictionary carries no gender tags and Debian has no
  Arabic Apertium analyser, so no Arabic lists are generated.

Selection rules
---------------
Apertium (es, fr) — a word is kept when

1. at least one analysis is a common noun (``<n>``) and every noun analysis has the same
   gender, ``<m>`` or ``<f>`` (``<mf>`` common-gender nouns such as *estudiante* are dropped);
2. every analysis is a common noun: words that are also a verb form, adjective, determiner,
   pronoun, proper noun... are dropped (*era*, *sommes*, *bajo*, *grand*, *Madrid*, *le*;
   this also drops some good nouns such as *casa*, which is also a form of *casar*; pass
   ``--allow-verb-homographs`` to keep nouns whose only other readings are finite verb forms,
   not infinitives or participles: keeps *place*, *compte*, drops *savoir*, *fait*; the
   committed French lists use it, because the 20,000-word French vectors need the extra
   frequent nouns to reach ~2,000 per gender);
3. the capitalised word has no proper-noun reading (``wordfreq`` lower-cases *Paris*, *Jean*);
4. its noun lemma is not a two-form (animate) lemma: a lemma seen with both ``<m>`` and ``<f>``
   noun analyses (``profesora`` → ``profesor<n><f>``) marks an occupation/person noun whose
   gender is semantic, and all its forms are dropped.

Apertium (pl, nl) — a word is kept when every reading is a common noun (no verb, adjective,
proper-noun... reading, and the capitalised word has no proper-noun reading), all its readings
have one gender class, and at least one reading is a nominative singular (pl; Dutch nouns have no
case) and, for nl, every reading is singular (Dutch gender shows only in the singular; this also
drops genitive/compound analyses). pl: masculine means ``<mi>`` only (animate ``<ma>`` and personal ``<mp>`` nouns are
dropped); a feminine noun is dropped when removing its feminine suffix (*-ka*, *-ini*, *-yni*)
gives a masculine animate or personal noun (*nauczycielka* → *nauczyciel*). nl: Dutch gender
does not mark animacy; person nouns are not filtered beyond our own lists.

pymorphy3 (ru) — a word is kept when the dictionary knows it, every parse is a noun, every noun
parse is inanimate (``inan``), of one gender (``masc``/``femn``/``neut``; ``ms-f`` common-gender
nouns dropped), not a name, surname, patronymic, place or organisation, not indeclinable
(``Fixd``: *евро*, *бентли*, *го*, whose dictionary gender is a convention), one parse is the
nominative singular, and a most likely parse (pymorphy's score) is a singular form of the word
itself (*лет* is mostly the genitive plural of *год*).

Person nouns and slips — for it, pt, pl and nl the words of our ``person_nouns.txt`` (nouns that
denote people, written by reading the generated lists) are excluded, and :data:`SLIPS` lists the
words a dictionary gets wrong (each with the reason). it and pt keep singular forms only: a word
with a plural noun reading is dropped (invariable nouns, tagged ``<sp>``, stay).

FreeDict (de) — a headword is kept when it is a single capitalised token, every noun entry
for it has the same gender (``masc``, ``fem`` or ``neut``), and it is not a
*-in/-innen* feminine of a masculine headword (or that masculine headword), the German
two-form person nouns (*Lehrerin*/*Lehrer*). Because ``wordfreq`` lower-cases German, a
candidate is also dropped when German hunspell (``hunspell-de-de``) accepts its lower-case
form, since German capitalises every noun, that form is some other part of speech
(*oder*, *habe*, *würde*, *macht*, *morgen*; also *zeit*, *platz*, so a few nouns are lost).
Neuter nouns (``nouns_neuter.txt``) follow the same rules, minus lower-cased forms shared with a
masculine or feminine headword, and minus proper names: headwords none of whose English
translations starts with a lower-case letter (*Bayern*, *Europa*, *Russland*; most country
names are neuter). The masculine and feminine selection is unchanged by the neuter list.

All languages — the project's own definitional, attribute and occupation words
(``wordlists/<lang>/definitional_pairs.tsv``, ``attributes_*.txt``, ``occupations.tsv``) are
excluded: their gender
is semantic (*femme*, *homme*), not only grammatical.

Issue 43 cleaning (every language) — singular forms only for es and fr as for it and pt; every word
of the language's ``person_nouns.txt``, ``person_pairs.tsv``, occupation, definitional and attribute
lists dropped; a word that is a regular plural (:data:`PLURAL_RULES`) of another listed word dropped;
es, fr, it, pt: a noun one of whose English translations (Apertium bilingual dictionaries,
:data:`TO_ENGLISH`) is an English person noun (:func:`english_person_words`) dropped; de: names (no
lower-case English gloss), movierte feminines and their masculines that hunspell accepts, *-mann*/
*-frau* nouns, nouns glossed as an English person noun, and the slips read in the lists dropped.
Each language's ``wordlists/<lang>/PROVENANCE.md`` says what was done and the counts.

Words are written in descending ``wordfreq`` frequency, at most ``--max-per-gender`` each.

Prerequisites
-------------
::

    apt-get update
    apt-get install -y lttoolbox apertium-eng-spa apertium-fr-es dict-freedict-deu-eng \
        hunspell hunspell-de-de apertium-cat-ita apertium-por-cat apertium-pol-szl apertium-afr-nld \
        apertium-eng-cat
    pip install wordfreq==3.1.1 pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142

Usage
-----
::

    python scripts/make_gendered_nouns.py --lang es de it pt pl nl ru   # into wordlists/
    python scripts/make_gendered_nouns.py --lang fr --allow-verb-homographs
    python scripts/make_gendered_nouns.py --lang it pt pl nl ru
    python scripts/make_gendered_nouns.py --lang fr --top 50000 --max-per-gender 5000

The script is deterministic for fixed package versions; it records them in each file's header.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gzip
import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

APERTIUM = {
    "es": ("apertium-eng-spa", "/usr/share/apertium/apertium-eng-spa/spa-eng.automorf.bin"),
    "fr": ("apertium-fr-es", "/usr/share/apertium/apertium-fr-es/fr-es.automorf.bin"),
    "it": ("apertium-cat-ita", "/usr/share/apertium/apertium-cat-ita/ita-cat.automorf.bin"),
    "pt": ("apertium-por-cat", "/usr/share/apertium/apertium-por-cat/por-cat.automorf.bin"),
    "pl": ("apertium-pol-szl", "/usr/share/apertium/apertium-pol-szl/pol-szl.automorf.bin"),
    "nl": ("apertium-afr-nld", "/usr/share/apertium/apertium-afr-nld/nld-afr.automorf.bin"),
}
#: Languages whose Apertium selection keeps singular forms only (a word with a plural noun reading is
#: dropped; invariable ``<sp>`` nouns stay). Every language's lists also go through
#: :func:`drop_regular_plurals`.
SINGULAR_ONLY = frozenset({"es", "fr", "it", "pt"})

#: Where a bilingual Apertium dictionary leads from the language to English (each step a
#: ``<package>, <autobil.bin>`` pair): a noun any of whose English translations is an English person
#: noun (:func:`english_person_words`) is dropped. de reads FreeDict's English glosses instead.
TO_ENGLISH: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (("apertium-eng-spa", "/usr/share/apertium/apertium-eng-spa/spa-eng.autobil.bin"),),
    "fr": (("apertium-fr-es", "/usr/share/apertium/apertium-fr-es/fr-es.autobil.bin"),
           ("apertium-eng-spa", "/usr/share/apertium/apertium-eng-spa/spa-eng.autobil.bin")),
    "it": (("apertium-cat-ita", "/usr/share/apertium/apertium-cat-ita/ita-cat.autobil.bin"),
           ("apertium-eng-cat", "/usr/share/apertium/apertium-eng-cat/cat-eng.autobil.bin")),
    "pt": (("apertium-por-cat", "/usr/share/apertium/apertium-por-cat/por-cat.autobil.bin"),
           ("apertium-eng-cat", "/usr/share/apertium/apertium-eng-cat/cat-eng.autobil.bin")),
}

#: Generic English words for people that no project list holds (the lists name roles, kin and
#: occupations): a noun translated by one of these is a person noun too.
GENERIC_PERSONS = frozenset({
    "person", "persons", "human", "humans", "individual", "child", "children", "kid", "baby",
    "infant", "adult", "teenager", "citizen", "inhabitant", "resident", "native", "neighbour",
    "neighbor", "friend", "enemy", "guest", "host", "owner", "member", "partner", "colleague", "companion",
    "fellow", "stranger", "foreigner", "patient", "victim", "hero", "heroine", "leader", "chief",
    "master", "servant", "slave", "prisoner", "soldier", "officer", "student", "author",
    "writer", "artist", "player", "client", "customer", "user", "worker", "employee", "employer",
    "candidate", "winner", "loser", "spouse", "ancestor", "descendant", "orphan", "widow", "widower",
    "saint", "god", "goddess", "king", "queen", "prince", "princess", "lord", "lady", "gentleman",
    "sir", "madam", "mister", "miss", "bride", "groom", "twin", "cousin", "relative", "sibling",
})

#: Words a dictionary gets wrong, dropped by hand, each with the reason.
SLIPS: dict[str, dict[str, str]] = {
    "ru": {"диас": "a surname (Díaz) the dictionary lists as a common noun"},
    "nl": {"steenkool": "a de-word (common gender); the analyser tags it neuter"},
    # read in the 700 most frequent entries of each German list after the rules above
    "de": dict.fromkeys(['Johannes', 'Fan', 'Prof', 'Horst', 'Wagner', 'Louis', 'Profi', 'Türken', 'Hurensohn', 'DJ', 'Bob', 'Konrad', 'Axel', 'Dietrich', 'Flüchtling', 'Jude', 'Meier', 'Homo', 'Kardinal', 'Grimm', 'Steven', 'Pater', 'Benedikt', 'Walker', 'Beamter', 'Liebling', 'Einwanderer', 'Moses', 'Vogt', 'Franzose', 'Wanderer', 'Trottel', 'Götze', 'Depp', 'Premier', 'Vize', 'Gesetzgeber', 'Marie', 'Jean', 'Lee', 'Dirk', 'Schlampe', 'Elternteil', 'Vorstandsmitglied', 'Ehepaar', 'Pärchen', 'Todesopfer', 'Engel', 'Teddy', 'Tenor', 'Henkel'],
                        "a person noun or a name that the rules miss (read in the list)"),
}

#: Each language's selection, one line (the files' header and PROVENANCE.md).
_COMMON = ("our person nouns (person_nouns.txt, person_pairs.tsv), definitional, attribute and occupation words "
           "excluded; regular plurals of listed words dropped")
RULES = {
    "es": "one unambiguous gender, noun readings only, singular forms only, names and two-form (animate) nouns "
          "excluded, nouns translated (apertium-eng-spa) as an English person noun excluded, " + _COMMON,
    "fr": "one unambiguous gender, noun readings only (finite verb homographs allowed), singular forms only, "
          "names and two-form (animate) nouns excluded, nouns translated (apertium-fr-es, apertium-eng-spa) as an "
          "English person noun excluded, " + _COMMON,
    "it": "one unambiguous gender, noun readings only, singular forms only, names and two-form (animate) nouns "
          "excluded, nouns translated (apertium-cat-ita, apertium-eng-cat) as an English person noun excluded, "
          + _COMMON,
    "pt": "one unambiguous gender, noun readings only, singular forms only, names and two-form (animate) nouns "
          "excluded, nouns translated (apertium-por-cat, apertium-eng-cat) as an English person noun excluded, "
          + _COMMON,
    "de": "one unambiguous gender (FreeDict headword tags), no other part of speech (hunspell), names (no "
          "lower-case English gloss) excluded, person nouns excluded (movierte -in feminines and their masculines, "
          "-mann/-frau, an English gloss that is an English person noun), " + _COMMON,
    "pl": "one unambiguous gender, noun readings only, nominative singular, masculine inanimate (<mi>) only, "
          "feminine person nouns (-ka/-ini/-yni of an animate masculine) excluded, " + _COMMON,
    "nl": "one unambiguous gender class (common = de-words <m>/<f>/<mf>; neuter = het-words <nt>), noun "
          "readings only, singular only, the slips excluded, " + _COMMON,
    "ru": "one unambiguous gender, noun parses only, inanimate only, names and indeclinable nouns excluded, most "
          "likely parse a singular form of the word itself, the slips excluded, " + _COMMON,
}

#: Genders written for each language (file nouns_<gender>.txt), in output order.
GENDERS = {"es": ("masculine", "feminine"), "fr": ("masculine", "feminine"),
           "de": ("masculine", "feminine", "neuter"),
           "it": ("masculine", "feminine"), "pt": ("masculine", "feminine"),
           "pl": ("masculine", "feminine", "neuter"), "ru": ("masculine", "feminine", "neuter"),
           "nl": ("common", "neuter")}
FREEDICT = ("dict-freedict-deu-eng", "/usr/share/dictd/freedict-deu-eng.dict.dz")

_ANALYSIS = re.compile(r"\^([^/]*)/(.*?)\$")
_TAGS = re.compile(r"<([^>]+)>")


def _deb_version(package: str) -> str:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True
    )
    if out.returncode != 0 or not out.stdout:
        sys.exit(f"Debian package {package!r} is not installed; see this script's docstring")
    return out.stdout


def _candidates(lang: str, top: int) -> list[str]:
    import wordfreq

    return [w for w in wordfreq.top_n_list(lang, top) if w.isalpha() and len(w) > 1]


def _analyse(words: list[str], automorf: str) -> dict[str, list[tuple[str, list[str]]]]:
    """Run lt-proc once over all words → {surface: [(lemma, tags), ...]}."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write("\n".join(words) + "\n")
        name = f.name
    try:
        with open(name, encoding="utf-8") as fin:
            out = subprocess.run(
                ["lt-proc", automorf], stdin=fin, capture_output=True, text=True, check=True
            ).stdout
    finally:
        os.unlink(name)
    result: dict[str, list[tuple[str, list[str]]]] = {}
    for m in _ANALYSIS.finditer(out):
        surface, rest = m.group(1), m.group(2)
        readings = []
        for reading in rest.split("/"):
            if reading.startswith("*"):  # unknown word
                continue
            lemma = reading.split("<", 1)[0]
            readings.append((lemma, _TAGS.findall(reading)))
        result[surface] = readings
    return result


def _finite_verb(tags: list[str]) -> bool:
    """A finite form of a lexical verb (not être/avoir/modals, infinitives, participles)."""
    return tags[:1] == ["vblex"] and not (
        {"inf", "pp", "ger", "pprs", "ppres"} & set(tags))


def _counterparts(lang: str, word: str) -> list[str]:
    """Regular other-gender forms of ``word`` (candidates only; the analyser decides)."""
    out = [word + "a", word[:-1] + "a", word + "e", word[:-1] + "o", word[:-1]]
    pairs = {"it": (("tore", "trice"), ("e", "essa"), ("a", "essa")),
             "pt": (("or", "ora"), ("ão", "ã"), ("ão", "ona"), ("ês", "esa"))}.get(lang, ())
    for m, f in pairs:
        if word.endswith(m):
            out.append(word[: -len(m)] + f)
        if word.endswith(f):
            out.append(word[: -len(f)] + m)
    if lang == "fr":
        for m, f in (("eur", "euse"), ("eur", "rice"), ("ien", "ienne"), ("ier", "ière"),
                     ("er", "ère"), ("if", "ive"), ("on", "onne"), ("an", "anne")):
            if word.endswith(m):
                out.append(word[: -len(m)] + f)
            if word.endswith(f):
                out.append(word[: -len(f)] + m)
    return [w for w in out if w and w != word]


def apertium_nouns(
    lang: str, top: int, allow_verbs: bool = False, exclude: frozenset[str] = frozenset()
) -> tuple[list[str], list[str], int, dict]:
    """Apertium-based selection (rules in the module docstring); ``exclude``: lemmas to drop.
    Also returns the analyses (``{surface: [(lemma, tags), ...]}``)."""
    package, automorf = APERTIUM[lang]
    if not Path(automorf).is_file():
        sys.exit(f"{automorf} not found: apt-get install -y lttoolbox {package}")
    words = _candidates(lang, top)
    # Also analyse the would-be feminine/masculine counterparts of every candidate
    # (profesor → profesora, chanteur → chanteuse ...) so that a two-form lemma is recognised
    # even when its other form is not among the frequent words.
    counterparts = sorted({c for w in words for c in _counterparts(lang, w)} - set(words))
    capitalised = [w.capitalize() for w in words]
    analyses = _analyse(words + counterparts + capitalised, automorf)
    # wordfreq lower-cases everything: "paris", "jean", "chile" are usually names.
    names = {w for w, c in zip(words, capitalised, strict=True)
             if any(tags[:1] == ["np"] for _, tags in analyses.get(c, []))}
    # First pass: which noun lemmas occur with both genders (two-form, animate nouns)?
    lemma_genders: dict[str, set[str]] = defaultdict(set)
    for readings in analyses.values():
        for lemma, tags in readings:
            if tags[:1] == ["n"]:
                lemma_genders[lemma].update(t for t in tags if t in ("m", "f", "mf"))
    two_form = {lemma for lemma, g in lemma_genders.items() if len(g) > 1 or "mf" in g}
    masculine, feminine = [], []
    for word in words:  # frequency order
        readings = analyses.get(word, [])
        if word in names or any(lemma in exclude for lemma, _ in readings):
            continue
        nouns = [(lemma, tags) for lemma, tags in readings if tags[:1] == ["n"]]
        if not nouns:
            continue
        if any(tags[:1] != ["n"] and not (allow_verbs and _finite_verb(tags))
               for _, tags in readings):
            continue
        genders = {t for _, tags in nouns for t in tags if t in ("m", "f", "mf")}
        if len(genders) != 1 or any(lemma in two_form for lemma, _ in nouns):
            continue
        # it/pt: singular forms only (a reading tagged plural drops the word; invariable <sp> stays)
        if lang in SINGULAR_ONLY and any("pl" in tags for _, tags in nouns):
            continue
        (masculine if genders == {"m"} else feminine if genders == {"f"} else []).append(word)
    return masculine, feminine, len(words), analyses


_PL_GENDER = {"mi": "masculine", "f": "feminine", "nt": "neuter"}
_NL_GENDER = {"m": "common", "f": "common", "mf": "common", "nt": "neuter"}


def apertium_classes(lang: str, top: int, exclude: frozenset[str] = frozenset()
                     ) -> tuple[dict[str, list[str]], int]:
    """pl/nl selection (rules in the module docstring) → {gender: words in frequency order}."""
    package, automorf = APERTIUM[lang]
    if not Path(automorf).is_file():
        sys.exit(f"{automorf} not found: apt-get install -y lttoolbox {package}")
    words = _candidates(lang, top)
    capitalised = [w.capitalize() for w in words]
    fem_bases = sorted({b for w in words for b in (w[:-2], w[:-2] + "z", w[:-3], w[:-3] + "ca", w[:-3] + "a")
                        if lang == "pl" and w.endswith(("ka", "ini", "yni")) and len(b) > 1})
    analyses = _analyse(words + capitalised + fem_bases, automorf)
    names = {w for w, c in zip(words, capitalised, strict=True)
             if any(tags[:1] == ["np"] for _, tags in analyses.get(c, []))}
    animate = {w for w in fem_bases
               if any(tags[:1] == ["n"] and ({"ma", "mp"} & set(tags)) for _, tags in analyses.get(w, []))}
    table = _PL_GENDER if lang == "pl" else _NL_GENDER
    out: dict[str, list[str]] = {g: [] for g in GENDERS[lang]}
    for word in words:
        readings = analyses.get(word, [])
        if not readings or word in names or word in exclude:
            continue
        if any(tags[:1] != ["n"] for _, tags in readings):
            continue
        if any(lemma in exclude for lemma, _ in readings):
            continue
        tagsets = [set(tags) for _, tags in readings]
        if lang == "pl" and not any({"sg", "nom"} <= t for t in tagsets):
            continue
        # Dutch gender shows only in the singular (every plural takes "de"): singular readings only,
        # and no genitive/compound analyses (jongens → jong<n><nt><pl>+s<gen>).
        if lang == "nl" and any({"pl", "gen"} & t for t in tagsets):
            continue
        genders = set()
        for t in tagsets:
            found = [table[g] for g in table if g in t]
            genders.add(found[0] if len(found) == 1 else None)
            if lang == "pl" and {"ma", "mp"} & t:
                genders.add("animate")
        if len(genders) != 1 or None in genders or "animate" in genders:
            continue
        gender = genders.pop()
        if lang == "pl" and gender == "feminine" and word.endswith(("ka", "ini", "yni")):
            bases = {word[:-2], word[:-2] + "z", word[:-3], word[:-3] + "ca", word[:-3] + "a"}
            if bases & animate:
                continue
        out[gender].append(word)
    return out, len(words)


_RU_GENDER = {"masc": "masculine", "femn": "feminine", "neut": "neuter"}
_RU_SKIP = {"Name", "Surn", "Patr", "Geox", "Orgn", "Trad", "Abbr", "Init"}


def pymorphy_nouns(top: int, exclude: frozenset[str] = frozenset()) -> tuple[dict[str, list[str]], int]:
    """ru selection with pymorphy3 (rules in the module docstring)."""
    try:
        import pymorphy3
    except ImportError:
        sys.exit("pymorphy3 not installed: pip install pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142")
    morph = pymorphy3.MorphAnalyzer(lang="ru")
    words = _candidates("ru", top)
    out: dict[str, list[str]] = {g: [] for g in GENDERS["ru"]}
    for word in words:
        if word in exclude or not morph.word_is_known(word):
            continue
        parses = morph.parse(word)
        if not parses or any(p.tag.POS != "NOUN" for p in parses):
            continue
        if any(p.normal_form in exclude for p in parses):
            continue
        if any(_RU_SKIP & set(p.tag.grammemes) for p in parses):
            continue
        if any(p.tag.animacy != "inan" for p in parses):
            continue
        # indeclinable nouns show no gender in their forms, and the dictionary's gender for them is a
        # convention (евро: masculine in the norm, neuter here; го, бентли): left out
        if any("Fixd" in p.tag.grammemes for p in parses):
            continue
        # the word's most likely reading must be a singular form of itself (лет is mostly the
        # genitive plural of год, not the rare лёт; год itself is as likely accusative as nominative)
        top = max(p.score for p in parses)
        if not any(p.score >= top - 1e-9 and "sing" in p.tag.grammemes
                   and p.normal_form.replace("ё", "е") == word.replace("ё", "е") for p in parses):
            continue
        genders = {p.tag.gender for p in parses}
        if len(genders) != 1 or next(iter(genders)) not in _RU_GENDER:
            continue
        if not any({"nomn", "sing"} <= set(p.tag.grammemes) for p in parses):
            continue
        out[_RU_GENDER[genders.pop()]].append(word)
    return out, len(words)


def english_person_words(out: Path) -> set[str]:
    """English words for people: every word of the project's English person lists (gender-specific
    words, definitional and CDA pairs, attribute words, occupations, professions, BEC-Pro persons,
    MALoR occupations), the English column of every language's ``occupations.tsv``, and
    :data:`GENERIC_PERSONS`; lower-cased."""
    words = set(GENERIC_PERSONS)
    en = out / "en"
    for name in ("gender_specific.txt", "definitional_pairs.tsv", "cda_pairs.tsv", "attributes_male.txt",
                 "attributes_female.txt", "occupations.tsv", "professions.txt", "malor_occupations.tsv",
                 "equalize_pairs.tsv"):
        path = en / name
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    words.update(line.split("\t"))
    for name in ("becpro_persons.tsv", "becpro_professions.tsv"):  # the word is the second column
        path = en / name
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.startswith("#") and line.count("\t") >= 1:
                    words.add(line.split("\t")[1])
    for path in out.glob("*/occupations.tsv"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#") and line.count("\t") >= 2:
                words.add(line.split("\t")[2])
    words -= NOT_PERSONS
    return {w.strip().lower() for w in words if w.strip()}


def _translate(readings: dict[str, list[tuple[str, list[str]]]], steps: tuple[tuple[str, str], ...]
               ) -> dict[str, set[str]]:
    """English lemmas of each word's noun readings, through the bilingual dictionaries ``steps``."""
    current = {w: {f"^{lemma}<{'><'.join(tags)}>$" for lemma, tags in r if tags[:1] == ["n"]}
               for w, r in readings.items()}
    for package, autobil in steps:
        if not Path(autobil).is_file():
            sys.exit(f"{autobil} not found: apt-get install -y {package}")
        units = sorted({u for us in current.values() for u in us})
        out = subprocess.run(["lt-proc", "-b", autobil], input="\n".join(units) + "\n", capture_output=True,
                             text=True, check=True).stdout.split("\n")
        mapping = {}
        for unit, line in zip(units, out, strict=False):
            m = _ANALYSIS.match(line.strip())
            if not m:
                continue
            mapping[unit] = {f"^{t.split('<', 1)[0]}<{'><'.join(_TAGS.findall(t))}>$"
                             for t in m.group(2).split("/") if t and not t.startswith(("@", "*", "#"))}
        current = {w: {v for u in us for v in mapping.get(u, ())} for w, us in current.items()}
    return {w: {u[1:].split("<", 1)[0].lower() for u in us} for w, us in current.items()}


def person_nouns_by_translation(lang: str, words: list[str], readings, persons: set[str]) -> dict[str, str]:
    """``{word: English translation}`` of the ``words`` one of whose English translations (through
    :data:`TO_ENGLISH`) is an English person word."""
    english = _translate({w: readings.get(w, []) for w in words}, TO_ENGLISH[lang])
    out = {}
    for w in words:
        hit = sorted(english.get(w, set()) & persons)
        if hit:
            out[w] = hit[0]
    return out


#: Words of those lists that do not denote people: column headers and the biological and abstract
#: terms of ``gender_specific.txt`` (Bolukbasi et al.'s sense of "gender-specific").
NOT_PERSONS = frozenset({
    "english", "occupation", "profession", "group", "word", "gender", "phrase", "feminine", "masculine",
    "testosterone", "estrogen", "prostate", "ovarian", "uterus", "pregnancy", "pregnant", "menstruation", "beard",
    "mustache", "paternal", "maternal", "paternity", "maternity", "fatherhood", "motherhood", "brotherhood",
    "sisterhood", "manhood", "womanhood", "boyhood", "girlhood", "fraternity", "sorority",
})

#: Nouns the person rules flag that are not person nouns (read in the 120 most frequent flagged German
#: nouns; an English gloss such as "driver", "agent" or "host" names a thing too): kept as nouns.
NOT_PERSON_NOUNS: dict[str, frozenset[str]] = {
    "de": frozenset({"Schutz", "Termin", "Penis", "Ur", "Car", "Anker", "Auslöser", "Stecker", "Erreger", "Lenker",
                     "Treiber", "Wirkstoff", "Schwarm", "Keim", "Brenner", "Client", "Sender", "Fernseher",
                     "Datenschutz", "Bass", "Verfassungsschutz"}),
}

#: Regular plural endings per language: ``(singular ending, plural ending)``; a listed word that is
#: a listed word's regular plural is dropped (:func:`drop_regular_plurals`). The same rules are
#: the test's definition (tests/store/test_noun_lists.py).
PLURAL_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "es": (("", "s"), ("", "es"), ("z", "ces"), ("ión", "iones"), ("én", "enes"), ("án", "anes"), ("ón", "ones")),
    "fr": (("", "s"), ("", "x"), ("al", "aux"), ("ail", "aux")),
    "it": (("o", "i"), ("e", "i"), ("a", "e"), ("a", "i"), ("co", "chi"), ("go", "ghi"), ("ca", "che"),
           ("ga", "ghe"), ("io", "i")),
    "pt": (("", "s"), ("", "es"), ("ão", "ões"), ("ão", "ães"), ("al", "ais"), ("el", "éis"), ("ol", "óis"),
           ("ul", "uis"), ("il", "is"), ("m", "ns")),
    "de": (("", "e"), ("", "en"), ("", "n"), ("", "s"), ("", "nen"), ("", "er")),
    "nl": (("", "en"), ("", "s"), ("", "'s")),
    "pl": (("a", "y"), ("a", "i"), ("o", "a"), ("", "y"), ("", "i"), ("", "e"), ("", "ów")),
    "ru": (("а", "ы"), ("а", "и"), ("я", "и"), ("о", "а"), ("е", "я"), ("ь", "и"), ("", "ы"), ("", "и"),
           ("", "а")),
}
_UMLAUT = str.maketrans("aouAOU", "äöüÄÖÜ")


def regular_plurals(lang: str, word: str) -> set[str]:
    """The regular plural forms of ``word`` by :data:`PLURAL_RULES` (German also with the last
    a/o/u umlauted, plus *-e*/*-er*)."""
    out = {word[: len(word) - len(s)] + p for s, p in PLURAL_RULES.get(lang, ()) if word.endswith(s)}
    if lang == "de":
        for i in range(len(word) - 1, -1, -1):
            if word[i] in "aouAOU":
                u = word[:i] + word[i].translate(_UMLAUT) + word[i + 1:]
                out |= {u, u + "e", u + "er"}
                break
    out.discard(word)
    return out


def drop_regular_plurals(lang: str, classes: dict[str, list[str]]) -> tuple[dict[str, list[str]], list[str]]:
    """``classes`` without every word that is a regular plural (:func:`regular_plurals`) of a word
    listed in any class, and the dropped words."""
    listed = {w for words in classes.values() for w in words}
    plural = {p for w in listed for p in regular_plurals(lang, w)} & listed
    return {g: [w for w in words if w not in plural] for g, words in classes.items()}, sorted(plural)


_FD_HEAD = re.compile(r"^(\S+) /[^/]*/ <([^>]*)>")


def _hunspell_lowercase_ok(words: list[str]) -> set[str]:
    """The lower-case ``words`` that German hunspell accepts as spelled (so: not only nouns)."""
    out = subprocess.run(["hunspell", "-d", "de_DE", "-G"], input="\n".join(words) + "\n",
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def _own_words(out: Path, lang: str) -> set[str]:
    """The project's definitional, attribute, occupation and person words for ``lang`` (semantic
    gender or animate: never in an inanimate noun list), and the dictionary slips (:data:`SLIPS`)."""
    words: set[str] = set()
    names = ["definitional_pairs.tsv", "attributes_male.txt", "attributes_female.txt", "occupations.tsv",
             "person_nouns.txt", "person_pairs.tsv"]
    for name in names:
        path = out / lang / name
        if path.is_file() and "Generated by: python scripts/make_gendered_nouns.py" in path.read_text(encoding="utf-8"):
            continue  # this script's own person list: regenerated from the rules, not an input
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    words.update(line.split("\t"))
    words |= set(SLIPS.get(lang, {}))
    return {w.strip() for w in words} | {w.strip().lower() for w in words}


def freedict_nouns(top: int) -> tuple[list[str], list[str], list[str], int, list[str]]:
    package, path = FREEDICT
    if not Path(path).is_file():
        sys.exit(f"{path} not found: apt-get install -y {package}")
    genders: dict[str, set[str]] = defaultdict(set)
    # First translation line of each entry: a headword all of whose translations are capitalised
    # English words is a proper name (Bayern → Bavaria, Europa → Europe; also the months).
    common_sense: set[str] = set()
    glosses: dict[str, set[str]] = defaultdict(set)
    pending = None
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if pending is not None:
                gloss = re.sub(r"^(\s*\[[^]]*\])*\s*", "", line)
                if gloss[:1].islower():
                    common_sense.add(pending)
                for g in re.split(r"[;,]", gloss):
                    g = re.sub(r"<[^>]*>|\([^)]*\)|\[[^]]*\]", "", g).strip().lower()
                    g = re.sub(r"^(a|an|the|to)\s+", "", g)
                    if g:
                        glosses[pending].add(g)
                pending = None
            m = _FD_HEAD.match(line)
            if not m:
                continue
            word, tags = m.group(1), {t.strip() for t in m.group(2).split(",")}
            if "n" not in tags or not word[:1].isupper() or not word.isalpha():
                continue
            genders[word].update(tags & {"masc", "fem", "neut"})
            pending = word
    masc = {w for w, g in genders.items() if g == {"masc"}}
    fem = {w for w, g in genders.items() if g == {"fem"}}
    # German two-form person nouns: Lehrerin/Lehrerinnen (fem) ↔ Lehrer (masc).
    deumlaut = str.maketrans("äöüÄÖÜ", "aouAOU")
    movable_fem = {w for w in fem if w.endswith("in")
                   and (w[:-2] in masc or w[:-2].translate(deumlaut) in masc)}
    movable_masc = {w[:-2] for w in movable_fem} | {w[:-2].translate(deumlaut) for w in movable_fem}
    fem -= movable_fem
    fem = {w for w in fem if not (w.endswith("innen") and w[:-5] in masc)}
    masc -= movable_masc
    by_lower: dict[str, str] = {}
    for w in sorted(masc | fem):  # sorted: a set's order changes between runs (PIN/Pin)
        by_lower.setdefault(w.lower(), w)
    # A lower-cased form shared by a masculine and a feminine headword is ambiguous.
    ambiguous = {w.lower() for w in masc} & {w.lower() for w in fem}
    # Neuter: headwords tagged neuter only, whose lower-cased form is no headword with another
    # gender (the masculine/feminine selection above is left exactly as it was).
    neut = {w for w, g in genders.items() if g == {"neut"} and w in common_sense}
    gendered_lower = {w.lower() for w, g in genders.items() if g & {"masc", "fem"}}
    neut_by_lower: dict[str, str] = {}
    for w in sorted(neut):
        neut_by_lower.setdefault(w.lower(), w)
    words = _candidates("de", top)
    lowercase_ok = _hunspell_lowercase_ok(words)
    masculine, feminine, neuter = [], [], []
    for low in words:
        if low in lowercase_ok:
            continue
        if low in neut_by_lower and low not in gendered_lower:
            neuter.append(neut_by_lower[low])
        if low in ambiguous or low not in by_lower:
            continue
        w = by_lower[low]
        (masculine if w in masc else feminine).append(w)
    persons = german_person_nouns(masculine + feminine + neuter, masc, glosses, english_person_words(REPO / "wordlists"))
    for w in NOT_PERSON_NOUNS["de"]:  # read in the list: the rules' false alarms, inanimate nouns after all
        persons.pop(w, None)
    names = {w for w in masculine + feminine if w not in common_sense}
    drop = set(persons) | names
    # the person-noun list (the atlas's null) keeps the sure ones: an English person gloss, a person
    # suffix, or a movierte pair both of whose forms are FreeDict headwords (hunspell's compounding
    # also accepts forms such as Terminin, fine for dropping a noun, not for naming a person)
    headwords = {w for w, g in genders.items() if g & {"masc", "fem"}}

    def sure(w: str, why: str) -> bool:
        if why.startswith(("translates as", "a person suffix")):
            return True
        return why.rsplit(" ", 1)[-1] in headwords

    person_words = [w for w in masculine + feminine + neuter if w in persons and w not in names
                    and w not in SLIPS.get("de", {}) and sure(w, persons[w])]
    return ([w for w in masculine if w not in drop], [w for w in feminine if w not in drop],
            [w for w in neuter if w not in drop], len(words), person_words)


#: German suffixes of person nouns (*Kaufmann*, *Putzfrau*, *Dienstmädchen*).
_DE_PERSON_SUFFIXES = ("mann", "männer", "frau", "frauen", "mädchen", "leute")


def german_person_nouns(words: list[str], masc_headwords: set[str], glosses: dict[str, set[str]],
                        persons: set[str]) -> dict[str, str]:
    """``{word: why}`` of the German ``words`` that denote people: a masculine whose movierte
    feminine (*-in*, also with umlaut or for *-e*: *Herrscherin*, *Köchin*, *Russin*) German
    hunspell accepts, a feminine in *-in* of a masculine (FreeDict headword or hunspell word), a
    person suffix (:data:`_DE_PERSON_SUFFIXES`), or an English gloss that is an English person
    word (:func:`english_person_words`)."""
    def umlaut(w: str) -> str:
        for i in range(len(w) - 1, -1, -1):
            if w[i] in "aouAOU":
                return w[:i] + w[i].translate(_UMLAUT) + w[i + 1:]
        return w

    deumlaut = str.maketrans("äöüÄÖÜ", "aouAOU")
    out: dict[str, str] = {}
    for w in words:
        if w.lower().endswith(_DE_PERSON_SUFFIXES):
            out.setdefault(w, "a person suffix")
        hit = sorted(glosses.get(w, set()) & persons)
        if hit:
            out.setdefault(w, f"translates as {hit[0]}")
    movable = {}
    for w in words:
        forms = {w + "in", umlaut(w) + "in"} | ({w[:-1] + "in"} if w.endswith("e") else set())
        for f in forms - {w}:
            movable.setdefault(f, w)
    bases = {}
    for w in words:
        if w.endswith("in") and len(w) > 4:
            b = w[:-2]
            for cand in (b, b + "e", b.translate(deumlaut), b.translate(deumlaut) + "e"):
                bases.setdefault(cand, w)
    accepted = _hunspell_lowercase_ok(sorted(set(movable) | set(bases)))
    for f, w in movable.items():
        if f in accepted:
            out.setdefault(w, f"its feminine is {f}")
    for b, w in bases.items():
        if b in masc_headwords or b in accepted:
            out.setdefault(w, f"the feminine of {b}")
    return out


def package_of(lang: str) -> str:
    return APERTIUM[lang][0]


def _write_person_nouns(out: Path, lang: str, words: list[str], how: str) -> None:
    """Write ``<lang>/person_nouns.txt`` from the person nouns the rules found, unless the language
    has a hand-written list (one whose header does not say it was generated here)."""
    path = out / lang / "person_nouns.txt"
    if path.is_file() and "Generated by: python scripts/make_gendered_nouns.py" not in path.read_text(encoding="utf-8"):
        return
    header = [f"Person nouns ({lang}) that are not occupations or definitional words, most frequent first: the null "
              "of the atlas's occupation lean, and nouns Shift keeps (they are not in nouns_*.txt).",
              f"Generated by: python scripts/make_gendered_nouns.py --lang {lang}",
              f"How: {how}; see wordlists/{lang}/PROVENANCE.md."]
    _write(path, list(dict.fromkeys(words)), header)
    print(f"{lang} person nouns: {len(words)} written to {path.name}", file=sys.stderr)


def _write(path: Path, words: list[str], header: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(f"# {h}\n" for h in header) + "".join(w + "\n" for w in words),
                   encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", nargs="+", default=["es", "fr", "de"],
                        choices=list(GENDERS))
    parser.add_argument("--top", type=int, default=50_000,
                        help="candidates: the N most frequent wordfreq words (default 50000)")
    parser.add_argument("--max-per-gender", type=int, default=5_000)
    parser.add_argument("--allow-verb-homographs", action="store_true",
                        help="es/fr/it/pt: keep nouns whose other readings are verb forms (casa)")
    parser.add_argument("--out", type=Path, default=REPO / "wordlists")
    args = parser.parse_args(argv)
    wf = importlib.metadata.version("wordfreq")
    today = _dt.date.today().isoformat()
    for lang in args.lang:
        own = _own_words(args.out, lang)
        if lang == "de":
            masculine, feminine, neuter, n, persons_found = freedict_nouns(args.top)
            _write_person_nouns(args.out, lang, [w for w in persons_found if w not in own], "FreeDict deu-eng "
                                "headwords that the German rules mark as person nouns (movierte -in forms and their "
                                "masculines, -mann/-frau, an English gloss that is an English person noun)")
            classes = {"masculine": masculine, "feminine": feminine, "neuter": neuter}
            package = FREEDICT[0]
            source = (f"{package} {_deb_version(package)} + hunspell-de-de "
                      f"{_deb_version('hunspell-de-de')} (Debian), {FREEDICT[1]}")
        elif lang == "ru":
            classes, n = pymorphy_nouns(args.top, frozenset(own))
            source = (f"pymorphy3 {importlib.metadata.version('pymorphy3')} + pymorphy3-dicts-ru "
                      f"{importlib.metadata.version('pymorphy3-dicts-ru')} (PyPI; OpenCorpora dictionary)")
        else:
            if lang in ("pl", "nl"):
                classes, n = apertium_classes(lang, args.top, frozenset(own))
            else:
                masculine, feminine, n, readings = apertium_nouns(lang, args.top, args.allow_verb_homographs,
                                                                  frozenset(own))
                classes = {"masculine": masculine, "feminine": feminine}
                if lang in TO_ENGLISH:
                    persons = person_nouns_by_translation(lang, masculine + feminine, readings,
                                                          english_person_words(args.out))
                    classes = {g: [w for w in ws if w not in persons] for g, ws in classes.items()}
                    _write_person_nouns(args.out, lang, [w for w in persons if w not in own],
                                        f"{package_of(lang)} nouns whose English translation "
                                        f"({', '.join(p for p, _ in TO_ENGLISH[lang])}) is an English person noun")
                    print(f"{lang}: {len(persons)} person nouns by their English translation dropped: "
                          + ", ".join(f"{w} ({e})" for w, e in list(persons.items())[:30]), file=sys.stderr)
            package = APERTIUM[lang][0]
            source = (f"{package} {_deb_version(package)} + lttoolbox "
                      f"{_deb_version('lttoolbox')} (Debian), lt-proc {APERTIUM[lang][1]}")
        classes = {g: [w for w in words if w not in own] for g, words in classes.items()}
        classes, plurals = drop_regular_plurals(lang, classes)
        print(f"{lang}: {len(plurals)} regular plurals of listed words dropped: {', '.join(plurals[:20])}",
              file=sys.stderr)
        command = (f"python scripts/make_gendered_nouns.py --lang {lang} --top {args.top} "
                   f"--max-per-gender {args.max_per_gender}"
                   + (" --allow-verb-homographs" if args.allow_verb_homographs else ""))
        rules = "Rules: " + RULES[lang] + "; see the script's docstring and wordlists/" + lang + "/PROVENANCE.md."
        for gender in GENDERS[lang]:
            found = classes[gender]
            words = found[: args.max_per_gender]
            header = [
                f"Grammatically {gender} nouns ({lang}), one per line, most frequent first.",
                "Used for the grammatical gender direction (LDA; Zhou et al. 2019).",
                f"Generated by: {command}",
                f"Source: {source}; candidates wordfreq {wf} top_n_list({lang!r}, {args.top}) "
                f"({n} alphabetic words).",
                rules,
                f"Date: {today}",
            ]
            _write(args.out / lang / f"nouns_{gender}.txt", words, header)
            print(f"{lang} {gender}: {len(words)} written ({len(found)} found)")


if __name__ == "__main__":
    main()
