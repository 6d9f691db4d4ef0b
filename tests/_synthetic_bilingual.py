"""A tiny synthetic FR/EN pair with known gender geometry (for mitigation and evaluation tests)."""

from __future__ import annotations

import numpy as np
from scipy.stats import ortho_group

from geobias.alignment import Dictionary
from geobias.mitigation import GenderLexicon
from geobias.store import VectorStore

DIM = 24
EN_DEFS = [("woman", "man"), ("she", "he"), ("mother", "father"), ("girl", "boy"), ("queen", "king")]
FR_DEFS = [("femme", "homme"), ("elle", "il"), ("mère", "père"), ("fille", "garçon"), ("reine", "roi")]
OCC = [("infirmière", "infirmier", "nurse", -0.6), ("avocate", "avocat", "lawyer", 0.4),
       ("directrice", "directeur", "director", 0.7), ("serveuse", "serveur", "waiter", -0.3),
       ("chanteuse", "chanteur", "singer", -0.2), ("boulangère", "boulanger", "baker", 0.5),
       ("ingénieure", "ingénieur", "engineer", 0.8), ("coiffeuse", "coiffeur", "hairdresser", -0.7)]
FLOWERS = ["rose", "tulip", "lily", "daisy"]
INSECTS = ["ant", "wasp", "flea", "moth"]
PLEASANT = ["love", "peace", "joy", "gift"]
UNPLEASANT = ["hatred", "war", "agony", "filth"]


def make_pair(seed: int = 0, n_filler: int = 300, n_nouns: int = 400):
    """Return ``(fr_store, en_store, dictionary, fr_lexicon, en_lexicon, rotation)``.

    English: a gender direction g (axis 0) plus random content; French: the English concept
    rotated by a random orthogonal matrix, with a grammatical-gender direction (axes 1, 0 mix)
    added to gendered forms and nouns.
    """
    rng = np.random.default_rng(seed)
    g = np.zeros(DIM)
    g[0] = 1.0
    gram = np.zeros(DIM)
    gram[0], gram[1] = 0.4, np.sqrt(1 - 0.16)  # cos(g, gram) = 0.4
    concepts: dict[str, np.ndarray] = {}

    def concept(name, gender=0.0):
        v = rng.standard_normal(DIM) * 0.35
        v += gender * 0.5 * g
        concepts[name] = v
        return v

    en_words, en_vecs, fr_words, fr_vecs = [], [], [], []

    def add_en(w, v):
        en_words.append(w)
        en_vecs.append(v)

    def add_fr(w, v):
        fr_words.append(w)
        fr_vecs.append(v)

    for (ef, em), (ff, fm) in zip(EN_DEFS, FR_DEFS, strict=True):
        base = concept(em)
        add_en(ef, base - 0.5 * g)
        add_en(em, base + 0.5 * g)
        add_fr(ff, base - 0.5 * g - 0.4 * gram)
        add_fr(fm, base + 0.5 * g + 0.4 * gram)
    for f, m, e, bias in OCC:
        base = concept(e, bias)
        add_en(e, base)
        add_fr(f, base - 0.3 * g - 0.4 * gram)
        add_fr(m, base + 0.3 * g + 0.4 * gram)
    valence = np.zeros(DIM)
    valence[2] = 0.6  # flowers and pleasant words share a positive valence component
    for w in FLOWERS + INSECTS + PLEASANT + UNPLEASANT:
        base = concept(w) + (valence if w in FLOWERS + PLEASANT else -valence)
        add_en(w, base)
        add_fr("fr_" + w, base)
    masc, fem = [], []
    for i in range(n_nouns):
        base = concept(f"noun{i}")
        sign = 1 if i % 2 == 0 else -1
        add_en(f"noun{i}", base)
        add_fr(f"nom{i}", base + sign * 0.5 * gram + 0.05 * rng.standard_normal(DIM))
        (masc if sign > 0 else fem).append(f"nom{i}")
    for i in range(n_filler):
        base = concept(f"w{i}", rng.normal(0, 0.3))
        add_en(f"w{i}", base)
        add_fr(f"fr_w{i}", base + 0.05 * rng.standard_normal(DIM))
    rot = ortho_group.rvs(DIM, random_state=seed + 1)
    fr = VectorStore(fr_words, np.asarray(fr_vecs) @ rot.T, lang="fr")  # unaligned French
    en = VectorStore(en_words, np.asarray(en_vecs), lang="en")
    pairs = [(f"fr_w{i}", f"w{i}") for i in range(n_filler)] + [(f"nom{i}", f"noun{i}") for i in range(n_nouns)]
    pairs += [(ff, ef) for (ef, _), (ff, _) in zip(EN_DEFS, FR_DEFS, strict=True)]
    dico = Dictionary(pairs, "synthetic")
    fr_lex = GenderLexicon("fr", FR_DEFS, masc, fem, [(f, m, e) for f, m, e, _ in OCC])
    en_lex = GenderLexicon("en", EN_DEFS, gender_specific=[w for p in EN_DEFS for w in p],
                           equalize_pairs=EN_DEFS[:3])
    return fr, en, dico, fr_lex, en_lex, rot


def weat_effect(store: VectorStore, x, y, a, b) -> float:
    """Caliskan effect size (ddof=1) — a local check independent of geobias.metrics."""
    def s(w):
        u = store.lookup(w, unit=True).vectors
        return u @ store.lookup(a, unit=True).vectors.T.mean(axis=1) - u @ store.lookup(b, unit=True).vectors.T.mean(axis=1)

    sx, sy = s(x), s(y)
    return float((sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std(ddof=1))
