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

Words are written in descending ``wordfreq`` frequency, at most ``--max-per-gender`` each.

Prerequisites
-------------
::

    apt-get update
    apt-get install -y lttoolbox apertium-eng-spa apertium-fr-es dict-freedict-deu-eng \
        hunspell hunspell-de-de apertium-cat-ita apertium-por-cat apertium-pol-szl apertium-afr-nld
    pip install wordfreq==3.1.1 pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142

Usage
-----
::

    python scripts/make_gendered_nouns.py            # es fr de, into wordlists/
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
#: Languages whose lists keep singular forms only (es/fr/de lists keep their published selection).
SINGULAR_ONLY = frozenset({"it", "pt"})

#: Languages whose person-noun lists (``person_nouns.txt``) are excluded from the generated lists. The
#: French list instead marks the person nouns left inside the committed fr lists (Shift skips them);
#: es/de have none.
PERSON_EXCLUDED = frozenset({"it", "pt", "pl", "nl"})

#: Words a dictionary gets wrong, dropped by hand, each with the reason.
SLIPS: dict[str, dict[str, str]] = {
    "ru": {"диас": "a surname (Díaz) the dictionary lists as a common noun"},
    "nl": {"steenkool": "a de-word (common gender); the analyser tags it neuter"},
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
) -> tuple[list[str], list[str], int]:
    """Apertium-based selection (rules in the module docstring); ``exclude``: lemmas to drop."""
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
    return masculine, feminine, len(words)


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
    names = ["definitional_pairs.tsv", "attributes_male.txt", "attributes_female.txt", "occupations.tsv"]
    if lang in PERSON_EXCLUDED:
        names += ["person_nouns.txt", "person_pairs.tsv"]
    for name in names:
        path = out / lang / name
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip() and not line.startswith("#"):
                    words.update(line.split("\t"))
    words |= set(SLIPS.get(lang, {}))
    return {w.strip() for w in words} | {w.strip().lower() for w in words}


def freedict_nouns(top: int) -> tuple[list[str], list[str], list[str], int]:
    package, path = FREEDICT
    if not Path(path).is_file():
        sys.exit(f"{path} not found: apt-get install -y {package}")
    genders: dict[str, set[str]] = defaultdict(set)
    # First translation line of each entry: a headword all of whose translations are capitalised
    # English words is a proper name (Bayern → Bavaria, Europa → Europe), used for neuter only.
    common_sense: set[str] = set()
    pending = None
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        for line in f:
            if pending is not None:
                gloss = re.sub(r"^(\s*\[[^]]*\])*\s*", "", line)
                if gloss[:1].islower():
                    common_sense.add(pending)
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
    return masculine, feminine, neuter, len(words)


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
            masculine, feminine, neuter, n = freedict_nouns(args.top)
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
                masculine, feminine, n = apertium_nouns(lang, args.top, args.allow_verb_homographs,
                                                        frozenset(own))
                classes = {"masculine": masculine, "feminine": feminine}
            package = APERTIUM[lang][0]
            source = (f"{package} {_deb_version(package)} + lttoolbox "
                      f"{_deb_version('lttoolbox')} (Debian), lt-proc {APERTIUM[lang][1]}")
        classes = {g: [w for w in words if w not in own] for g, words in classes.items()}
        command = (f"python scripts/make_gendered_nouns.py --lang {lang} --top {args.top} "
                   f"--max-per-gender {args.max_per_gender}"
                   + (" --allow-verb-homographs" if args.allow_verb_homographs else ""))
        rules = ("Rules: one unambiguous gender, noun readings only, two-form (animate) nouns and "
                 "our definitional/attribute/occupation words excluded; see the script's docstring.")
        if lang in SINGULAR_ONLY:
            rules = ("Rules: one unambiguous gender, noun readings only, singular forms only (no plural reading), "
                     "two-form (animate) nouns, our person nouns (person_nouns.txt) and our "
                     "definitional/attribute/occupation words excluded; see the script's docstring.")
        if lang == "ru":
            rules = ("Rules: one unambiguous gender, noun parses only, inanimate only, names excluded, "
                     "indeclinable nouns excluded, most likely parse a singular form of the word itself, "
                     "our definitional/attribute/occupation words and the slips excluded; see the script's "
                     "docstring.")
        elif lang == "pl":
            rules = ("Rules: one unambiguous gender, noun readings only, masculine inanimate (<mi>) only, "
                     "feminine person nouns (-ka/-ini/-yni of an animate masculine), our person nouns "
                     "(person_nouns.txt) and our definitional/attribute/occupation words excluded; see the "
                     "script's docstring.")
        elif lang == "nl":
            rules = ("Rules: one unambiguous gender class (common = de-words <m>/<f>/<mf>; neuter = het-words "
                     "<nt>), noun readings only, our person nouns (person_nouns.txt), the slips and our "
                     "definitional/attribute/occupation words excluded; see the script's docstring.")
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
