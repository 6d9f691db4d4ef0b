"""PNG plots, written atomically.

Plots are drawn on a bare :class:`matplotlib.figure.Figure` (no pyplot): the library never
switches the caller's backend (a notebook keeps its own) and leaves no figure registered in
pyplot's global state."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from geobias.io.atomic import atomic_write


def atomic_savefig(fig, path: str | os.PathLike, *, dpi: int = 150) -> Path:
    """Save ``fig`` as PNG to ``path`` atomically (:func:`geobias.io.atomic.atomic_write`).

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

    from matplotlib.figure import Figure

    colours = {"masculine": "#1f77b4", "feminine": "#ff7f0e"}
    markers = {"occupation": "o", "noun": "x"}
    fig = Figure(figsize=(9, 7))
    ax = fig.subplots()
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


def plot_occupation_projections(
    path: str | os.PathLike,
    panels: Sequence[tuple[str, Sequence, Sequence, Sequence]],
    *,
    title: str = "",
) -> Path:
    """Occupation forms projected on d_s before and after mitigation (Zhou et al. 2019, Figure 2).

    Parameters
    ----------
    path : path of the PNG to write (atomically)
    panels : sequence of (method label, words, before, after)
        ``words``: (feminine, masculine, english) per occupation; ``before`` and ``after``:
        ``(⟨w_f, d_s⟩, ⟨w_m, d_s⟩)`` per occupation, on the method's d_s, in the original aligned
        space and in the mitigated one. One panel per method; each occupation is a row, its
        masculine form blue and feminine orange, before hollow and after filled.
    title : str

    Raises
    ------
    InputError
        ``panels`` is empty, or the output path cannot be written.
    """
    from geobias.errors import InputError

    if not panels:
        raise InputError("no method with a semantic direction d_s to plot (choose a Shift or Hybrid method)")

    from matplotlib.figure import Figure

    n_occ = max(len(p[1]) for p in panels)
    fig = Figure(figsize=(4.2 * len(panels), 0.22 * n_occ + 1.5))
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)
    for ax, (label, words, before, after) in zip(axes[0], panels, strict=True):
        b, a = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
        y = np.arange(len(words))
        for col, colour, name in ((1, "#1f77b4", "masculine"), (0, "#ff7f0e", "feminine")):
            ax.scatter(b[:, col], y, facecolors="none", edgecolors=colour, s=18, label=f"{name} before")
            ax.scatter(a[:, col], y, c=colour, s=18, label=f"{name} after")
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("⟨w, d_s⟩  (masculine →)")
        ax.set_yticks(y)
        ax.set_yticklabels([w[2] or w[1] for w in words], fontsize=6)
    axes[0][0].legend(loc="best", fontsize=6)
    if title:
        fig.suptitle(title, fontsize=10)
    return atomic_savefig(fig, path)


def plot_correlation(
    path: str | os.PathLike,
    labels: Sequence[str],
    weat_en: Sequence[float],
    mweat_signed: Sequence[float],
    *,
    rho: float,
    p_value: float,
    lang: str,
) -> Path:
    """Per-occupation WEAT(EN) against signed MWEAT of the gendered language, with Spearman ρ
    and p in the title (Zhou et al. 2019, Figure 4).

    Parameters
    ----------
    path : path of the PNG to write (atomically)
    labels : sequence of str, length n
        Occupation labels (the English word).
    weat_en, mweat_signed : sequence of float, length n
        x = s(E, A_en, B_en); y = |s(w_m)| − |s(w_f)| in ``lang``.
    rho, p_value : float
    lang : str

    Raises
    ------
    InputError
        The output path cannot be written.
    """

    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 6))
    ax = fig.subplots()
    x, y = np.asarray(weat_en, dtype=float), np.asarray(mweat_signed, dtype=float)
    ax.scatter(x, y, s=18, c="#1f77b4")
    for i, w in enumerate(labels):
        ax.annotate(w, (x[i], y[i]), fontsize=6, alpha=0.75, xytext=(2, 2), textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("WEAT(EN): s(E_o, A, B)")
    ax.set_ylabel(f"MWEAT({lang.upper()}): |s(w_m)| − |s(w_f)|")
    ax.set_title(f"Per-occupation bias, EN vs {lang.upper()}: Spearman ρ = {rho:.3f} (p = {p_value:.3g})",
                 fontsize=9)
    return atomic_savefig(fig, path)
