"""Gonen & Goldberg's (2019) recovery tests by their notebook's logic, on
``tests/conformance/data/recovery_inputs.json``; outputs stored in
``tests/conformance/expected/gonen_goldberg.json``.

The authors' notebook (github:gonenhila/gender_bias_lipstick, ``source/remaining_bias_2016.ipynb``)
could not be read in full here (the fetched snapshot lacks its blob), so this script re-runs its
logic as written in the notebook's cells we could read (``limit_vocab``: the first ``limit`` words,
lower case, shorter than 20 characters, no digit, no punctuation except ``_`` between clean parts,
less the excluded words; ``compute_bias_by_projection``: b(w) = w·he − w·she in the original
space) and in the paper (§3: k-means with ``random_state=1`` on the ``n_biased`` most biased
words of each side; an RBF SVM, scikit-learn's 2019 default ``gamma='auto'``, trained on
``n_train / 2`` words of each side drawn from the ``n_classify`` most biased, tested on the rest;
Pearson r of b(w) with the male share of the k nearest neighbours), plainly, with loops, without
geobias. The training draw is the one geobias makes for seed 0 (numpy ``default_rng(0)``: a
permutation of the male block, then one of the female block), so both sides train on the same
words. Run under any interpreter with numpy, scipy and scikit-learn (e.g. the WEFE virtualenv):

    /tmp/venv-wefe/bin/python scripts/conformance/gonen_goldberg_outputs.py /path/to/gender_bias_lipstick

(the checkout is read only for its commit, recorded as provenance).
"""

from __future__ import annotations

import json
import string
import sys
from pathlib import Path

import numpy as np
from _common import DATA, EXPECTED, git_commit, write_json


def limit_vocab(vocab, exclude, limit):
    """The notebook's ``limit_vocab`` (frequency order kept)."""
    out = []
    for w in vocab[:limit]:
        if w.lower() != w or len(w) >= 20 or any(c in "0123456789" for c in w):
            continue
        if "_" in w:
            if not any(any(c in string.punctuation for c in sub) for sub in w.split("_")):
                out.append(w)
            continue
        if any(c in string.punctuation for c in w):
            continue
        out.append(w)
    return [w for w in out if w not in set(exclude)]


def main(repo: Path) -> None:
    import sklearn
    from scipy.stats import pearsonr
    from sklearn.cluster import KMeans
    from sklearn.svm import SVC

    data = json.loads((DATA / "recovery_inputs.json").read_text(encoding="utf-8"))
    size = data["sizes"]
    w2i = {w: i for i, w in enumerate(data["words"])}
    spaces = {"original": np.asarray(data["rows"], dtype=np.float64),
              "debiased": np.asarray(data["debiased"], dtype=np.float64)}
    for name in spaces:
        spaces[name] /= np.linalg.norm(spaces[name], axis=1, keepdims=True)
    vocab = limit_vocab(data["words"], data["exclude"], size["limit"])
    orig = spaces["original"]
    he, she = orig[w2i["he"]], orig[w2i["she"]]
    bias = {w: float(orig[w2i[w]] @ he - orig[w2i[w]] @ she) for w in vocab}
    sorted_g = sorted(bias.items(), key=lambda kv: kv[1])
    n, nc, half = size["n_biased"], size["n_classify"], size["n_train"] // 2
    female, male = [w for w, _ in sorted_g[:n]], [w for w, _ in sorted_g[-n:]]
    females, males = [w for w, _ in sorted_g[:nc]], [w for w, _ in sorted_g[-nc:]]
    rng = np.random.default_rng(0)
    male_train = set(rng.permutation(nc)[:half].tolist())
    female_train = set(rng.permutation(nc)[:half].tolist())
    out = {"n_vocabulary": len(vocab)}
    for name, wv in spaces.items():
        X = np.array([wv[w2i[w]] for w in male + female])
        y_true = [1] * n + [0] * n
        pred = KMeans(n_clusters=2, random_state=1, n_init=10).fit(X).predict(X)
        correct = [1 if a == b else 0 for a, b in zip(y_true, pred, strict=True)]
        cluster = max(sum(correct) / len(correct), 1 - sum(correct) / len(correct))

        def vec(w, wv=wv):
            return wv[w2i[w]]

        X_train = [vec(w) for i, w in enumerate(males) if i in male_train] + \
                  [vec(w) for i, w in enumerate(females) if i in female_train]
        y_train = [1] * half + [0] * half
        X_test = [vec(w) for i, w in enumerate(males) if i not in male_train] + \
                 [vec(w) for i, w in enumerate(females) if i not in female_train]
        y_test = [1] * (nc - half) + [0] * (nc - half)
        clf = SVC(gamma="auto").fit(X_train, y_train)
        svm = float(np.mean(clf.predict(X_test) == np.array(y_test)))

        limited = np.array([wv[w2i[w]] for w in vocab])
        shares = []
        for i in range(len(vocab)):
            sims = limited @ limited[i]
            sims[i] = -np.inf
            top = np.argsort(-sims, kind="stable")[:size["k"]]
            shares.append(sum(1 for j in top if bias[vocab[j]] > 0) / size["k"])
        b = [bias[w] for w in vocab]
        r_all = float(pearsonr(b, shares)[0])
        prof = [i for i, w in enumerate(vocab) if w in set(data["professions"])]
        r_prof = float(pearsonr([b[i] for i in prof], [shares[i] for i in prof])[0])
        out[name] = {"cluster_accuracy": cluster, "classifier_accuracy": svm, "neighbour_correlation": r_all,
                     "profession_correlation": r_prof, "n_professions": len(prof)}
    write_json(EXPECTED / "gonen_goldberg.json", {
        "provenance": {"repository": "github:gonenhila/gender_bias_lipstick",
                       "commit": git_commit(repo),
                       "file": "source/remaining_bias_2016.ipynb (logic re-run; see the script's docstring)",
                       "scikit-learn": sklearn.__version__, "inputs": "tests/conformance/data/recovery_inputs.json",
                       "script": "scripts/conformance/gonen_goldberg_outputs.py"},
        "outputs": out,
    })


if __name__ == "__main__":
    main(Path(sys.argv[1]))
