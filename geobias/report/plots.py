"""Every plot of geobias: functions that draw a result and return a matplotlib ``Figure``.

Plots are drawn on a bare :class:`matplotlib.figure.Figure` (no pyplot, no
``matplotlib.use``): the library never switches the caller's backend (a notebook keeps its own
and shows the returned figure) and leaves no figure registered in pyplot's global state. No
plot function writes a file: saving is the caller's choice, e.g. :func:`save_figure` (PNG,
written atomically), as the CLI's ``--plot`` does.

>>> fig = plot_correlation(labels, weat_en, mweat_signed, rho=0.5, p_value=0.01, lang="fr")  # doctest: +SKIP
>>> save_figure(fig, "fig4.png")                                                              # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from geobias.io.atomic import atomic_write

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from geobias.contextual.becpro import BecProResult
    from geobias.contextual.sentiment import SentimentProbeResult
    from geobias.evaluation.erasure import ErasurePlane


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: int = 150, bbox_inches: str | None = "tight",
                overwrite: bool = True) -> Path:
    """Save ``fig`` as PNG to ``path`` atomically (:func:`geobias.io.atomic.atomic_write`).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or path-like
        The PNG to write; a reader never sees a half-written file, and a failure leaves
        neither the file nor a temporary behind.
    dpi : int, default 150
    bbox_inches : "tight" or None, default "tight"
        Passed to :meth:`matplotlib.figure.Figure.savefig`.
    overwrite : bool, default True
        Whether an existing file may be replaced (the command line passes its ``--force``); with
        False, a file that appeared meanwhile is never replaced either.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        ``path`` is a directory, or its directory is missing or not writable; ``path`` exists and
        ``overwrite`` is False.
    """
    with atomic_write(path, what="plot", overwrite=overwrite) as fh:
        fig.savefig(fh, format="png", dpi=dpi, bbox_inches=bbox_inches)
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
    words: Sequence[str],
    semantic: np.ndarray,
    grammatical: np.ndarray,
    gender: Sequence[str],
    kind: Sequence[str],
    *,
    title: str = "",
    max_labels: int = 24,
) -> Figure:
    """Scatter words on the semantic (x = <w, d_s>) × grammatical (y = <w, d_g>) plane.

    Parameters
    ----------
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

    Returns
    -------
    matplotlib.figure.Figure
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
    return fig


def plot_occupation_projections(
    panels: Sequence[tuple[str, Sequence, Sequence, Sequence]],
    *,
    title: str = "",
) -> Figure:
    """TwoFormWord forms projected on d_s before and after mitigation (Zhou et al. 2019, Figure 2).

    Parameters
    ----------
    panels : sequence of (method label, words, before, after)
        ``words``: (feminine, masculine, english) per occupation; ``before`` and ``after``:
        ``(⟨w_f, d_s⟩, ⟨w_m, d_s⟩)`` per occupation, on the method's d_s, in the original aligned
        space and in the mitigated one. One panel per method; each occupation is a row, its
        masculine form blue and feminine orange, before hollow and after filled.
    title : str

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InputError
        ``panels`` is empty.
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
    return fig


def plot_correlation(
    labels: Sequence[str],
    weat_en: Sequence[float],
    mweat_signed: Sequence[float],
    *,
    rho: float,
    p_value: float,
    lang: str,
) -> Figure:
    """Per-occupation WEAT(EN) against signed MWEAT of the gendered language, with Spearman ρ
    and p in the title (Zhou et al. 2019, Figure 4).

    Parameters
    ----------
    labels : sequence of str, length n
        TwoFormWord labels (the English word).
    weat_en, mweat_signed : sequence of float, length n
        x = s(E, A_en, B_en); y = |s(w_m)| − |s(w_f)| in ``lang``.
    rho, p_value : float
    lang : str

    Returns
    -------
    matplotlib.figure.Figure
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
    return fig


def plot_bars(labels: Sequence[str], values: Sequence[float], title: str, xlabel: str,
              colours: Sequence[str] | str | None = None,
              intervals: Sequence[tuple[float | None, float | None]] | None = None) -> Figure:
    """Horizontal bars, the first label on top (the service's per-pair, per-word and
    per-method views of a result).

    Parameters
    ----------
    labels : sequence of str, length n
    values : sequence of float, length n
    title, xlabel : str
    colours : colour or sequence of n colours, optional
        Default: one blue.
    intervals : sequence of n (low, high), optional
        An interval per bar, drawn as a black error bar (``None`` ends: none for that bar).

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, max(2.5, 0.28 * len(labels) + 1)))
    ax = fig.subplots()
    y = list(range(len(labels)))[::-1]
    ax.barh(y, values, color=colours or "#1f77b4")
    if intervals is not None:
        v = np.asarray(values, dtype=float)
        lo = np.array([np.nan if i is None or i[0] is None else i[0] for i in intervals], dtype=float)
        hi = np.array([np.nan if i is None or i[1] is None else i[1] for i in intervals], dtype=float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        if ok.any():
            ax.errorbar(v[ok], np.asarray(y)[ok], xerr=[v[ok] - lo[ok], hi[ok] - v[ok]], fmt="none",
                        ecolor="black", elinewidth=0.8, capsize=2)
    ax.set_yticks(y, labels, fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    return fig


def plot_becpro(result: BecProResult) -> Figure:
    """Per-profession bars: mean association with male and with female person words (BEC-Pro,
    Bartl et al. 2020), the three profession groups separated.

    Parameters
    ----------
    result : BecProResult

    Returns
    -------
    matplotlib.figure.Figure
        Saved by the CLI at ``dpi=120``.
    """
    from matplotlib.figure import Figure

    from geobias.contextual.becpro import GROUPS

    pp = result.per_profession
    x = np.arange(len(pp))
    fig = Figure(figsize=(max(10, len(pp) * 0.28), 5))
    ax = fig.subplots()
    ax.bar(x - 0.2, [p.male for p in pp], 0.4, label="male person words", color="#1f77b4")
    ax.bar(x + 0.2, [p.female for p in pp], 0.4, label="female person words", color="#d62728")
    ax.set_xticks(x)
    ax.set_xticklabels([p.profession for p in pp], rotation=90, fontsize=7)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel("mean association ln(p_T / p_prior)")
    ax.set_title(f"BEC-Pro {result.lang.upper()} — {result.model}")
    for i, g in enumerate(GROUPS):
        ax.axvline(i * 20 - 0.5, color="grey", linewidth=0.4)
        ax.text(i * 20 + 9.5, ax.get_ylim()[1], f"{g} professions", ha="center", va="bottom", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_sentiment(res: SentimentProbeResult) -> Figure:
    """Box plots of the non-zero per-sample biases of each condition, one panel per corpus, with
    the total bias (mean over all samples) marked and the stars above (after Jentzsch & Turan
    2022, Fig. 3).

    Parameters
    ----------
    res : SentimentProbeResult

    Returns
    -------
    matplotlib.figure.Figure
        Saved by the CLI at ``dpi=120`` without ``bbox_inches="tight"`` (the layout is tight).

    Raises
    ------
    InputError
        No condition has per-sample differences to plot.
    """
    from matplotlib.figure import Figure

    from geobias.contextual.sentiment import row_key
    from geobias.errors import InputError

    corpora = list(dict.fromkeys(r.corpus for r in res.rows if row_key(r) in res.differences))
    if not corpora:
        raise InputError("nothing to plot")
    per = max(sum(r.corpus == c and row_key(r) in res.differences for r in res.rows) for c in corpora)
    fig = Figure(figsize=(max(6.0, 2.0 + 0.42 * per), 3.8 * len(corpora)))
    axes = fig.subplots(len(corpora), 1, squeeze=False)
    for ax, corpus in zip(axes[:, 0], corpora, strict=True):
        rows = [r for r in res.rows if r.corpus == corpus and row_key(r) in res.differences]
        data = []
        for r in rows:
            d = np.asarray(res.differences[row_key(r)])
            data.append(d[d != 0] if (d != 0).any() else np.zeros(1))
        ax.boxplot(data, showfliers=False)
        ax.scatter(range(1, len(rows) + 1), [r.all_samples.total_bias for r in rows], marker="D", s=14, color="C3",
                   zorder=3, label="total bias (all samples)")
        for i, r in enumerate(rows, start=1):
            ax.annotate(r.significance, (i, 1.0), xycoords=("data", "axes fraction"), ha="center", va="bottom",
                        fontsize=7)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(1, len(rows) + 1), [f"{Path(r.scorer).name} {r.terms}" for r in rows], rotation=70,
                      ha="right", fontsize=7)
        ax.set_title(corpus, pad=12, fontsize=10)
        ax.set_ylabel("sent(M) − sent(F)\n(non-zero samples)", fontsize=8)
    axes[0][0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def plot_erasure_plane(plane: ErasurePlane) -> Figure:
    """Projection plane before/after erasure: one panel per method
    (:func:`geobias.evaluation.erasure.erasure_plane` computes the points).

    x = ⟨w, d_s⟩, y = ⟨w, d_g⟩, both fixed from the original aligned space so the panels are
    comparable. Inanimate nouns are crosses, person words circles; masculine blue, feminine
    orange. The arrow marks d_PCA (the semantic direction before orthogonalisation).

    Parameters
    ----------
    plane : ErasurePlane

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    colours = {"masculine": "#1f77b4", "feminine": "#ff7f0e"}
    methods = list(plane.points)
    fig = Figure(figsize=(4.6 * len(methods), 4.6))
    axes = fig.subplots(1, len(methods), sharex=True, sharey=True, squeeze=False)
    dx, dy = plane.d_pca
    for ax, name in zip(axes[0], methods, strict=True):
        for marker, label in (("x", "inanimate nouns"), ("o", "person words")):
            for g in ("masculine", "feminine"):
                x, y = plane.points[name][label][g]
                ax.scatter(x, y, c=colours[g], marker=marker, s=14 if marker == "x" else 22,
                           alpha=0.6 if marker == "x" else 0.9, label=f"{g} {label}")
        ax.axhline(0, color="grey", lw=0.5)
        ax.axvline(0, color="grey", lw=0.5)
        scale = 0.25
        ax.annotate("", xy=(scale * dx, scale * dy), xytext=(0, 0),
                    arrowprops={"arrowstyle": "->", "color": "black", "lw": 1.2})
        ax.text(scale * dx, scale * dy, " d_PCA", fontsize=8)
        ax.set_title(name)
        ax.set_xlabel("semantic ⟨w, d_s⟩ (masculine →)")
    axes[0][0].set_ylabel("grammatical ⟨w, d_g⟩ (masculine ↑)")
    axes[0][-1].legend(loc="lower right", fontsize=7)
    fig.suptitle(f"{plane.lang}: held-out words on the semantic × grammatical plane, before/after erasure "
                 f"(seed {plane.seed})")
    return fig


def plot_effects(rows: Sequence[tuple[str, float | None, float | None, float | None, float | None]], *,
                 title: str, xlabel: str, null: float = 0.0, bars=None) -> Figure:
    """Estimates with their intervals, one row per test (a forest plot): WEAT's and SEAT's effect
    sizes with their bootstrap intervals over the words.

    Parameters
    ----------
    rows : sequence of (label, estimate, low, high, p_value)
        ``low``/``high`` ``None``: no interval (a point only); ``p_value`` is written beside the
        label when given.
    title, xlabel : str
    null : float, default 0.0
        The value of "no bias", drawn as a vertical line (an interval that crosses it cannot tell
        a bias from none).
    bars : geobias.metrics.declaration.Bars, optional
        Per-item bars drawn under the estimates (WEAT's per-word associations), as
        :func:`plot_bars` draws them.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InputError
        ``rows`` is empty or has no finite estimate.
    """
    from matplotlib.figure import Figure

    from geobias.errors import InputError

    rows = [r for r in rows if r[1] is not None and np.isfinite(r[1])]
    if not rows:
        raise InputError("nothing to plot: no finite estimate")
    top = max(1.8, 0.45 * len(rows) + 1.2)
    below = 0.0 if bars is None or not bars.labels else max(2.0, 0.28 * len(bars.labels) + 1)
    fig = Figure(figsize=(8, top + below), layout="constrained")
    if below:
        ax, ax_bars = fig.subplots(2, 1, height_ratios=[top, below])
        yb = list(range(len(bars.labels)))[::-1]
        ax_bars.barh(yb, bars.values, color=bars.colours or "#1f77b4")
        ax_bars.set_yticks(yb, bars.labels, fontsize=8)
        ax_bars.axvline(0, color="grey", lw=0.5)
        ax_bars.set_xlabel(bars.axis)
        ax_bars.set_title(bars.title, fontsize=9)
    else:
        ax = fig.subplots()
    y = np.arange(len(rows))[::-1]
    for yi, (_label, est, low, high, _p) in zip(y, rows, strict=True):
        if low is not None and high is not None:
            ax.plot([low, high], [yi, yi], color="#1f77b4", lw=2)
        ax.plot([est], [yi], "o", color="#1f77b4")
    ax.axvline(null, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [label if p is None else f"{label}  (p = {p:.3g})" for label, _e, _l, _h, p in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    return fig

