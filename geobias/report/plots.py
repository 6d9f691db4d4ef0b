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


def plot_gender_plane(
    path: str | os.PathLike,
    words: Sequence[str],
    semantic: np.ndarray,
    grammatical: np.ndarray,
    gender: Sequence[str],
    kind: Sequence[str],
    *,
    title: str = "",
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
        Marker (occupations: circles, labelled; inanimate nouns: crosses).
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
        for i, w in enumerate(words):
            if kind[i] == "occupation":
                ax.annotate(w, (x[i], y[i]), fontsize=6, alpha=0.75, xytext=(2, 2), textcoords="offset points")
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
