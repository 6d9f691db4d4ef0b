"""PNG plots (matplotlib, Agg backend), written atomically."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geobias.errors import InputError


def atomic_savefig(fig, path: str | os.PathLike) -> Path:
    """Save ``fig`` as PNG to ``path`` through a temporary sibling file and a rename."""
    dest = Path(path)
    if dest.is_dir():
        raise InputError(f"{dest} is a directory; give a file name for the plot")
    if not dest.parent.exists():
        raise InputError(f"directory {dest.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fig.savefig(fh, format="png", dpi=150, bbox_inches="tight")
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return dest


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
