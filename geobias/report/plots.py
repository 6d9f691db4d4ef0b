"""PNG plots (matplotlib, Agg backend), written atomically."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geobias._io import atomic_write


def atomic_savefig(fig, path: str | os.PathLike, *, dpi: int = 150) -> Path:
    """Save ``fig`` as PNG to ``path`` atomically (:func:`geobias._io.atomic_write`).

    Raises
    ------
    InputError
        ``path`` is a directory, or its directory is missing or not writable.
    """
    with atomic_write(path, what="plot") as fh:
        fig.savefig(fh, format="png", dpi=dpi, bbox_inches="tight")
    return Path(path)


def choose_labels(x: np.ndarray, y: np.ndarray, max_labels: int, min_gap: float = 0.06) -> list[int]:
    """Indices of at most ``max_labels`` points to label: the farthest from the origin first
    (in units of each axis' range), skipping any within ``min_gap`` of a label already chosen."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size == 0:
        return []
    sx = max(float(np.ptp(x)), 1e-12)
    sy = max(float(np.ptp(y)), 1e-12)
    u, v = x / sx, y / sy
    chosen: list[int] = []
    for i in np.argsort(-(u**2 + v**2), kind="stable"):
        if len(chosen) >= max_labels:
            break
        if all((u[i] - u[j]) ** 2 + (v[i] - v[j]) ** 2 >= min_gap**2 for j in chosen):
            chosen.append(int(i))
    return chosen


def plot_gender_plane(
    path: str | os.PathLike,
    words: Sequence[str],
    semantic: np.ndarray,
    grammatical: np.ndarray,
    gender: Sequence[str],
    kind: Sequence[str],
    *,
    title: str = "",
    max_labels: int = 24,
) -> Path:
    """Scatter words on the semantic (x = <w, d_s>) × grammatical (y = <w, d_g>) plane.

    Parameters
    ----------
    path : path of the PNG to write (atomically)
    words : sequence of str, length n
    semantic, grammatical : ndarray of shape (n,)
        Projections of the unit word vectors on ``d_s`` and ``d_g``.
    gender : sequence of {"masculine", "feminine"}
        Colour (masculine blue, feminine orange).
    kind : sequence of {"occupation", "noun"}
        Marker (occupations: filled circles; inanimate nouns: crosses, labelled in grey italics).
    max_labels : int, default 24
        Words labelled: a chosen few (:func:`choose_labels`), the farthest from the origin first
        and none closer than 6% of the plot to another label, so dense clusters stay readable.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"masculine": "#1f77b4", "feminine": "#ff7f0e"}
    markers = {"occupation": "o", "noun": "x"}
    fig, ax = plt.subplots(figsize=(9, 7))
    try:
        x, y = np.asarray(semantic), np.asarray(grammatical)
        for g in ("masculine", "feminine"):
            for k in ("occupation", "noun"):
                sel = [i for i in range(len(words)) if gender[i] == g and kind[i] == k]
                if sel:
                    ax.scatter(x[sel], y[sel], c=colours[g], marker=markers[k], s=22, alpha=0.8,
                               label=f"{g} {'occupations' if k == 'occupation' else 'inanimate nouns'}")
        for i in choose_labels(x, y, max_labels):
            noun = kind[i] != "occupation"
            ax.annotate(words[i], (x[i], y[i]), fontsize=7, alpha=0.85, xytext=(3, 3), textcoords="offset points",
                        color="dimgrey" if noun else "black", style="italic" if noun else "normal")
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel("semantic gender ⟨w, d_s⟩  (masculine →)")
        ax.set_ylabel("grammatical gender ⟨w, d_g⟩  (masculine ↑)")
        if title:
            ax.set_title(title)
        ax.legend(loc="best", fontsize=8)
        return atomic_savefig(fig, path)
    finally:
        plt.close(fig)
