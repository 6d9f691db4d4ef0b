"""The atlas report: ``atlas.json``, ``atlas.parquet`` and one self-contained ``index.html``.

:func:`write_report` writes the three files into a temporary sibling of the report directory and
moves it into place only when all three are complete (:func:`geobias.io.atomic.atomic_directory`):
a reader never sees half a report, and an existing report is replaced only with ``force``.

The HTML page needs nothing from the network: its style is inline and its images are PNGs
(matplotlib) inlined as base64 ``data:`` URIs. Every word and message it shows is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from geobias.errors import InputError
from geobias.evaluation.atlas import (
    ALPHA,
    METRICS,
    OK,
    SCALE_RANGES,
    SCALES,
    AtlasResult,
    LanguageCell,
    Metric,
    OccupationRow,
)
from geobias.report.registry import figure, table

REPORT_FILES = ("atlas.json", "atlas.parquet", "index.html")

#: How the report writes a figure that is missing, by its status (distinct on purpose).
SYMBOLS = {"not applicable": "n/a", "not available": "no list", "error": "failed"}

#: The legend of the report and of ``docs/atlas.md`` beside the column definitions
#: (:data:`geobias.evaluation.atlas.DEFINITIONS`).
LEGEND = (
    ("Status", "\"n/a\" (not applicable): the measure cannot exist for this kind of language (the reason is "
     "given: MWEAT without grammatical gender, the correlation of English with itself); \"no list\" (not "
     "available): the language lacks the word list; \"failed\": the measure failed on this store (its message "
     "is shown)."),
    ("Each figure against its null", "Every column that can be compared with what it would show by chance carries "
     "that null beside it: the LDA accuracy against the suffix baseline, the explained variance against random word "
     "pairs, the neuter nouns against the masculine/feminine midpoint, occupation lean against person nouns (and "
     "nouns of the same frequency band), the correlations with English against the alignment control, WEAT and "
     "MWEAT against their permutation nulls. The table shows the figure, the null, their difference (Δ) with its "
     "95% interval, and q."),
    ("Intervals", "Hierarchical bootstrap: the seed words (the definitional pairs that define d_PCA and d_s, the "
     "attribute sets) are resampled together with the targets (each set with replacement, occupation forms as "
     "pairs). Each interval states the Monte Carlo error of its bounds (the bound's standard error over resampling "
     "seeds); a verdict is stable when its bound nearest 0 is more than 3 such errors away."),
    ("Significance and multiplicity", f"A cell differs from its null when its Benjamini–Hochberg adjusted p (q) is "
     f"below {ALPHA}; the correction runs over every language × column of the atlas that has a p against its null "
     "(scipy.stats.false_discovery_control). Such cells are hatched in the map and marked ‡ in the table. A p from "
     "permutations or resamples has a Monte Carlo range (99.9% Clopper–Pearson, about 3.3 standard errors, "
     "widened by any null the resamples share): a cell is hatched only when q < 0.05 at every p within the "
     "ranges, left plain only when at none, and otherwise marked ? (undecided at this run's draws), so that "
     "another seed cannot hatch what this one leaves plain."),
    ("Colours", "Each coloured cell shows its difference from its null on one diverging scale centred on that "
     "null (white: no difference; red: above, blue: below), one range shared by the columns that measure the same "
     "quantity (effect sizes −2..2, correlations −1..1, projections on a direction symmetric over their columns), "
     "with a colour bar for each. Controls and diagnostics are grey."),
    ("Not comparable across languages", "Each language uses its own translated word lists (different words, "
     "different sizes, some lists missing), and the encoder covers languages unequally (sub-word pieces, training "
     "data). Compare signs, intervals and significance rather than magnitudes, and a language with itself across "
     "sources. A language whose d_s is not comparable with the English direction (cos below the stated threshold) "
     "is marked ≠ on its correlations with English: read its shared-direction column."),
    ("Encoder alignment", "A multilingual encoder is trained to put translations together, so part of any "
     "correlation with English is that alignment; the control column gives the same correlation on random "
     "directions, and the correlations are read as their excess over it."),
)


def _span(values: list[float]) -> str:
    lo, hi = f"{min(values):.3f}", f"{max(values):.3f}"
    return lo if lo == hi else f"{lo}–{hi}"


def lda_caveat(result: AtlasResult) -> str | None:
    """One sentence on the LDA accuracies of this run, from the data (the same text in every place):
    their range, the majority baselines and the spelling baselines."""
    acc, major, ortho = [], [], []
    for c in result.cells:
        m = c.metric("lda_cv_accuracy")
        if m.status == OK and m.value is not None:
            acc.append((m.value, c.lang))
            if m.baselines:
                major.append(m.baselines["majority"])
                ortho.append(m.baselines["orthographic"])
    if not acc:
        return None
    lo, hi = min(acc), max(acc)
    text = (f"LDA CV accuracy of d_g ranges from {lo[0]:.3f} ({lo[1]}) to {hi[0]:.3f} ({hi[1]}) over "
            f"{len(acc)} languages")
    if major:
        text += (f"; chance (majority class) is {_span(major)} and a logistic regression on the nouns' last "
                 f"letters reaches {_span(ortho)} on the same nouns and folds")
    return text + "."


# ------------------------------------------------------------------------------------ the files
def check_report_dir(path: Path, *, force: bool) -> Path:
    """Check, before any work, that a report can be written to ``path``.

    A missing or empty directory is written; an existing atlas report (a directory holding
    ``atlas.json``) is replaced only with ``force``; any other existing path is refused.

    Raises
    ------
    InputError
        As above, or ``path``'s parent is missing or not writable.
    """
    from geobias.io.atomic import check_output_path

    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise InputError(f"{path} is a file; give a directory for the atlas report (`out`)")
        entries = list(path.iterdir())
        if entries and not (path / "atlas.json").is_file():
            raise InputError(f"{path} is a directory that holds no atlas report; give a new or empty directory "
                             "for `out`")
        if entries and not force:
            raise InputError(f"{path} already holds an atlas report; pass `force` to replace it (or choose another "
                             "`out`)")
    return check_output_path(path, what="atlas report", directory=True)


def write_report(result: AtlasResult, path: Path, *, force: bool = False) -> Path:
    """Write ``atlas.json``, ``atlas.parquet`` and ``index.html`` into the directory ``path``, atomically.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        See :func:`check_report_dir`; the directory was written by another process meanwhile.
    """
    from geobias.io.atomic import atomic_directory

    path = check_report_dir(Path(path), force=force)
    replace = path.exists() and any(path.iterdir())
    if path.exists() and not replace:
        path.rmdir()  # an empty directory: the new one takes its place
    with atomic_directory(path, what="atlas report", overwrite=replace) as tmp:
        (tmp / "atlas.json").write_text(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n",
                                        encoding="utf-8")
        write_parquet(result, tmp / "atlas.parquet")
        (tmp / "index.html").write_text(render_html(result), encoding="utf-8")
    return path


#: What the atlas's own columns mean, beside :data:`geobias.report.tidy.COLUMNS` (whose ``low``,
#: ``high``, ``q_value``... the atlas shares): ``{column: (description, unit)}``.
ATLAS_COLUMNS: dict[str, tuple[str, str]] = {
    "language": ("the language's English name", ""),
    "grammatical_gender_aware": ("whether the metric separates grammatical from semantic gender", ""),
    "status": ("ok, not available, not applicable or error (reason says why)", ""),
    "n": ("items the figure rests on (words, pairs, occupations, nouns)", "count"),
    "reason": ("why the metric has no figure in this language (status not ok)", ""),
    "baseline_majority": ("the LDA accuracy's chance baseline (always the larger class)", "probability"),
    "baseline_orthographic": ("the LDA accuracy's suffix baseline (the words' last 1-3 letters)", "probability"),
    "null": ("what the figure is compared with, one line (a control, a baseline, a permutation band)", ""),
    "null_value": ("the null's value (empty where the null is a permutation distribution)", "the estimate's"),
    "difference": ("the figure minus its null", "the estimate's"),
    "difference_low": ("lower end of the difference's 95 % interval", "the estimate's"),
    "difference_high": ("upper end of the difference's 95 % interval", "the estimate's"),
    "p_null": ("p-value of the difference from the null", "probability"),
    "mc_error": ("Monte Carlo standard error of the difference's interval bounds (over resampling seeds)",
                 "the estimate's"),
    "significant": ("whether the figure differs from its null after the correction (empty: undecided)", ""),
    "verdict": ("differs, does not differ, or undecided (read against the Monte Carlo error)", ""),
}


def write_parquet(result: AtlasResult, path: Path) -> None:
    """One row per language × metric (:attr:`AtlasResult.rows`), with the key-value metadata every
    geobias Parquet file carries (:func:`geobias.report.tidy.write_parquet`): ``geobias.table``
    (``"rows"``), ``geobias.columns`` (per column its description and unit), ``geobias.command``
    (``"atlas"``) and ``geobias.version``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from geobias._version import __version__
    from geobias.report.tidy import column_metadata

    schema = pa.schema([("lang", pa.string()), ("language", pa.string()), ("store", pa.string()), ("metric", pa.string()),
                        ("label", pa.string()), ("grammatical_gender_aware", pa.bool_()), ("status", pa.string()),
                        ("value", pa.float64()), ("p_value", pa.float64()), ("n", pa.int64()),
                        ("reason", pa.string()), ("low", pa.float64()), ("high", pa.float64()),
                        ("standard_error", pa.float64()), ("baseline_majority", pa.float64()),
                        ("baseline_orthographic", pa.float64()), ("null", pa.string()), ("null_value", pa.float64()),
                        ("difference", pa.float64()), ("difference_low", pa.float64()),
                        ("difference_high", pa.float64()), ("p_null", pa.float64()), ("q_value", pa.float64()),
                        ("mc_error", pa.float64()), ("significant", pa.bool_()), ("verdict", pa.string())])
    columns = column_metadata(schema.names)
    for name, (description, unit) in ATLAS_COLUMNS.items():
        columns[name] = {"description": description, "unit": unit}
    metadata = {"geobias.table": "rows", "geobias.columns": json.dumps(columns, ensure_ascii=False),
                "geobias.command": "atlas", "geobias.version": __version__}
    pq.write_table(pa.Table.from_pylist(result.rows, schema=schema.with_metadata(metadata)), path)


# ------------------------------------------------------------------------------------ figures
def _png(fig) -> str:
    import warnings

    buf = io.BytesIO()
    with warnings.catch_warnings():  # a glyph the font lacks: _drawable chose the label already
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _charmap() -> set[int]:
    """Code points of matplotlib's default font (DejaVu Sans has no CJK, Thai or Korean glyphs)."""
    global _CHARMAP
    if _CHARMAP is None:
        try:
            from matplotlib import font_manager, ft2font

            _CHARMAP = set(ft2font.FT2Font(font_manager.findfont(font_manager.FontProperties())).get_charmap())
        except Exception:  # noqa: BLE001 - no font information: draw words as they are
            _CHARMAP = set()
    return _CHARMAP


_CHARMAP: set[int] | None = None


def _drawable(word: str, english: str) -> str:
    """``word`` if the plot's font can draw it (and it is not in a right-to-left script, which
    matplotlib draws unshaped), else its English translation in brackets (the HTML tables, drawn by
    the browser's fonts, always show the word itself)."""
    chars = _charmap()
    rtl = any(0x0590 <= ord(ch) <= 0x08FF or 0xFB1D <= ord(ch) <= 0xFEFF for ch in word)  # drawn unshaped, reversed
    if not rtl and (not chars or all(ord(ch) in chars for ch in word)):
        return word
    return f"[{english}]" if english else "[?]"


def heatmap_values(result: AtlasResult) -> tuple[list[str], list[str], np.ndarray]:
    """Languages, metric keys and the ``(languages, metrics)`` matrix of values (NaN where none)."""
    langs = [c.lang for c in result.cells]
    keys = [k for k, _, _ in METRICS]
    m = np.full((len(langs), len(keys)), np.nan)
    for i, cell in enumerate(result.cells):
        for j, key in enumerate(keys):
            v = cell.metric(key)
            if v.status == OK and v.value is not None:
                m[i, j] = v.value
    return langs, keys, m


def heatmap_differences(result: AtlasResult) -> np.ndarray:
    """The ``(languages, metrics)`` matrix of each figure's difference from its null (NaN where a figure
    has none: a missing figure, a neutral column)."""
    keys = [k for k, _, _ in METRICS]
    d = np.full((len(result.cells), len(keys)), np.nan)
    for i, cell in enumerate(result.cells):
        for j, key in enumerate(keys):
            v = cell.metric(key)
            if v.status == OK and v.versus is not None and v.versus.difference is not None:
                d[i, j] = v.versus.difference
    return d


def scale_ranges(result: AtlasResult) -> dict[str, float]:
    """The half-range of each colour scale (:data:`~geobias.evaluation.atlas.SCALES`): fixed where the
    quantity has one (:data:`~geobias.evaluation.atlas.SCALE_RANGES`), else the largest |difference|
    over the columns that share the scale."""
    keys = [k for k, _, _ in METRICS]
    diff = heatmap_differences(result)
    out = {}
    for scale in dict.fromkeys(SCALES.values()):
        if scale == "neutral":
            continue
        cols = [j for j, k in enumerate(keys) if SCALES.get(k) == scale]
        vals = diff[:, cols]
        top = float(np.nanmax(np.abs(vals))) if np.isfinite(vals).any() else 0.0
        out[scale] = SCALE_RANGES.get(scale, top if top > 0 else 1.0)
    return out


def colour_positions(result: AtlasResult) -> np.ndarray:
    """Each figure's position on its column's diverging scale, in [-1, 1]: its difference from its
    null divided by the half-range of the scale it shares (:func:`scale_ranges`), so 0 is the null;
    NaN for neutral columns and missing figures."""
    keys = [k for k, _, _ in METRICS]
    diff = heatmap_differences(result)
    ranges = scale_ranges(result)
    pos = np.full_like(diff, np.nan)
    for j, key in enumerate(keys):
        scale = SCALES.get(key, "neutral")
        if scale != "neutral":
            pos[:, j] = np.clip(diff[:, j] / ranges[scale], -1, 1)
    return pos


def _neutral_position(key: str, value: float, column: np.ndarray) -> float:
    """Where a neutral column's value sits in [0, 1] on the grey scale (cosines and correlations on −1..1,
    others from 0 to the column's largest)."""
    if key in ("cos_ds_en", "corr_en_control"):
        return (float(np.clip(value, -1, 1)) + 1) / 2
    top = np.nanmax(np.abs(column)) if np.isfinite(column).any() else 1.0
    return float(np.clip(abs(value) / (top if top > 0 else 1.0), 0, 1))


#: The diverging map of every coloured column and the grey map of the neutral ones.
DIVERGING, NEUTRAL = "RdBu_r", "Greys"


def plot_heatmap(result: AtlasResult):
    """Language × metric map: each figure's difference from its null on a diverging scale centred on
    that null, one range per quantity (:func:`scale_ranges`) with a colour bar each; neutral columns
    (controls, diagnostics) in grey; hatched where the figure differs from its null after the
    Benjamini–Hochberg correction; ≠ where a language's direction is not comparable with English's;
    a missing figure shows its status symbol (:data:`SYMBOLS`)."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    langs, keys, m = heatmap_values(result)
    pos = colour_positions(result)
    diff = heatmap_differences(result)
    ranges = scale_ranges(result)
    import textwrap

    labels = [label for _, label, _ in METRICS]
    # the layout in inches: title, map, rotated column labels, then the colour bars two to a row
    width = 1.2 + 0.85 * len(keys)
    title_h, map_h, ticks_h, bar_row_h = 0.45, 0.42 * len(langs), 2.0, 0.95
    bar_rows = (len(ranges) + 1) // 2
    height = title_h + map_h + ticks_h + bar_rows * bar_row_h + 0.1
    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((0.9 / width, 1 - (title_h + map_h) / height, 1 - 1.1 / width, map_h / height))
    diverging, neutral = colormaps[DIVERGING], colormaps[NEUTRAL]
    for i, cell in enumerate(result.cells):
        for j, key in enumerate(keys):
            metric = cell.metric(key)
            if np.isnan(m[i, j]):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#f4f4f4", edgecolor="white"))
                ax.text(j, i, SYMBOLS.get(metric.status, "—"), ha="center", va="center", fontsize=6.5,
                        color="#555555", style="italic")
                continue
            if np.isnan(pos[i, j]):
                colour = neutral(0.1 + 0.5 * _neutral_position(key, m[i, j], m[:, j]))
            else:
                colour = diverging((pos[i, j] + 1) / 2)
            sig = metric.significant is True
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=colour, edgecolor="#333333" if sig else "white",
                                   hatch="///" if sig else None, linewidth=0.6))
            text = f"{m[i, j]:.2f}"
            if np.isfinite(diff[i, j]) and metric.versus is not None and metric.versus.null_value not in (None, 0.0):
                text += f"\nΔ{diff[i, j]:+.2f}"
            if metric.details.get("note", "").startswith(f"{cell.language}'s d_s is not comparable"):
                text += " ≠"
            if metric.versus is not None and metric.versus.undecided:
                text += " ?"
            dark = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2] < 0.45
            ax.text(j, i, text, ha="center", va="center", fontsize=6, color="white" if dark and not sig else "black",
                    bbox={"facecolor": "white", "alpha": 0.7, "pad": 0.6, "edgecolor": "none"} if sig else None)
    ax.set_xlim(-0.5, len(keys) - 0.5)
    ax.set_ylim(len(langs) - 0.5, -0.5)
    ax.set_xticks(range(len(keys)), labels, rotation=40, ha="right", fontsize=7)
    ax.set_yticks(range(len(langs)), langs, fontsize=8)
    corr = result.correction or {}
    ax.set_title(f"{result.family}: each figure's difference from its null (white = the null); hatched: differs "
                 f"from its null, Benjamini–Hochberg q < {corr.get('alpha', ALPHA)} over {corr.get('tests', 0)} "
                 "cells; grey: controls and diagnostics; ≠: direction not comparable with English", fontsize=7.5)
    # one colour bar per quantity, beneath the map, two to a row
    for n, (scale, half) in enumerate(ranges.items()):
        row, col = divmod(n, 2)
        top = title_h + map_h + ticks_h + row * bar_row_h  # inches from the top of the figure
        cax = fig.add_axes((0.06 + 0.5 * col, 1 - (top + 0.17) / height, 0.38, 0.17 / height))
        bar = fig.colorbar(ScalarMappable(Normalize(-half, half), diverging), cax=cax, orientation="horizontal")
        bar.ax.tick_params(labelsize=6)
        cols = "; ".join(label for k, label, _ in METRICS if SCALES.get(k) == scale)
        bar.set_label(textwrap.fill(f"{scale}, figure − its null: {cols}", 95), fontsize=6)
    return fig


@figure("geobias.evaluation.atlas.AtlasResult", title="the atlas map")
def atlas_map(result: AtlasResult):
    """The atlas's map of languages × metrics (:func:`plot_heatmap`), the report page's first figure;
    ``None`` when no language was computed."""
    if not any(c.status == OK for c in result.cells):
        return None
    return plot_heatmap(result)


def plot_plane(cell: LanguageCell):
    """Occupation forms on the d_PCA (x) × d_g (y) plane; ``None`` without d_g."""
    from matplotlib.figure import Figure

    rows = [r for r in cell.occupations if r.y_m is not None]
    if not rows:
        return None
    classes = cell.metric("lda_cv_accuracy").details.get("classes") or ["masculine", "feminine"]
    fig = Figure(figsize=(7, 5.5))
    ax = fig.subplots()
    for form, colour in (("m", "#1f77b4"), ("f", "#ff7f0e")):
        ax.scatter([getattr(r, f"x_{form}") for r in rows], [getattr(r, f"y_{form}") for r in rows], s=16, c=colour,
                   alpha=0.8, label={"m": "masculine forms", "f": "feminine forms"}[form])
    for r in sorted(rows, key=lambda r: -abs(r.bias))[:12]:
        ax.annotate(_drawable(r.masculine, r.english), (r.x_m, r.y_m), fontsize=6, xytext=(2, 2),
                    textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("semantic ⟨w, d_PCA⟩ (masculine →)")
    ax.set_ylabel(f"grammatical ⟨w, d_g⟩ ({classes[0]} ↑, {classes[1]} ↓)")
    ax.set_title(f"{cell.language}: occupations on the gender plane", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def plot_top(cell: LanguageCell, top: int = 15):
    """The ``top`` occupations with the largest |bias|, signed (masculine positive)."""
    from geobias.report.plots import plot_bars

    rows = most_biased(cell, top)
    if not rows:
        return None
    return plot_bars([_label(r) for r in rows], [r.bias for r in rows],
                     f"{cell.language}: most biased occupations (centred)", "bias (masculine →)",
                     ["#1f77b4" if r.bias > 0 else "#ff7f0e" for r in rows])


def most_biased(cell: LanguageCell, top: int = 15) -> list[OccupationRow]:
    return sorted(cell.occupations, key=lambda r: -abs(r.bias))[:top]


def _label(r: OccupationRow) -> str:
    forms = r.masculine if r.masculine == r.feminine else f"{r.masculine}/{r.feminine}"
    forms = _drawable(forms, r.english)
    return forms if r.english in ("", r.masculine) or forms.startswith("[") else f"{forms} ({r.english})"


def genders_label(cell: LanguageCell) -> str:
    """``"grammatical gender: masculine, feminine"``, or ``"no grammatical gender"``."""
    if not cell.grammatical_gender:
        return "no grammatical gender"
    return f"grammatical gender: {', '.join(cell.genders) or 'yes'}"


# ------------------------------------------------------------------------------------ HTML
def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _fmt(v: Any, digits: int = 3) -> str:
    return "—" if v is None else f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def interval_text(m: Metric, digits: int = 3) -> str:
    """``"[low, high]"`` of the metric's bootstrap interval, or ``""``."""
    iv = m.interval
    if iv is None or iv.low is None:
        return ""
    return f"[{iv.low:.{digits}g}, {iv.high:.{digits}g}]"


def _sizes(m: Metric) -> str:
    return ", ".join(f"{k} {v}" for k, v in (m.set_sizes or {}).items())


def versus_text(m: Metric, digits: int = 3) -> str:
    """``"null 0.12 (person nouns …); Δ +0.03 [0.01, 0.05], q 0.004"`` of the metric's null, or ``""``."""
    vs = m.versus
    if vs is None:
        return ""
    parts = [f"null {'' if vs.null_value is None else _fmt(vs.null_value, digits) + ' '}({vs.null})"]
    if vs.difference is not None:
        iv = "" if vs.low is None else f" [{vs.low:.{digits}g}, {vs.high:.{digits}g}]"
        parts.append(f"Δ {vs.difference:+.{digits}g}{iv}")
    if vs.p_value is not None:
        parts.append(f"p {_fmt(vs.p_value)}" + ("" if vs.q_value is None else f", q {_fmt(vs.q_value)}"))
    return "; ".join(parts)


def _metric_cell(m: Metric) -> str:
    if m.status != OK:
        return (f'<td class="na {m.status.replace(" ", "-")}" title="{_e(m.reason)}">'
                f'{_e(SYMBOLS.get(m.status, m.status))}</td>')
    sig = m.significant is True
    vs = m.versus
    null = ""
    if vs is not None:
        null = f' <span class="null">vs {_e(vs.null)}{"" if vs.null_value is None else " " + _fmt(vs.null_value)}</span>'
        if vs.difference is not None:
            iv = "" if vs.low is None else f" [{vs.low:.3g}, {vs.high:.3g}]"
            null += f' <span class="ci">Δ {vs.difference:+.3g}{_e(iv)}</span>'
        if vs.p_value is not None:
            null += (f' <span class="p">p={_fmt(vs.p_value)}'
                     + ("" if vs.q_value is None else f", q={_fmt(vs.q_value)}") + "</span>")
    base = ""
    if m.baselines:
        base = f' <span class="base">chance {m.baselines["majority"]:.2f}</span>'
    note = m.details.get("note") or ""
    mark = '<span class="sig" title="differs from its null after the correction">‡</span>' if sig else ""
    mark += '<span class="nc" title="not comparable with the English direction">≠</span>' \
        if "not comparable" in note else ""
    mark += '<span class="sig" title="undecided at this run\'s draws">?</span>' \
        if vs is not None and vs.undecided else ""
    return (f'<td class="{"sig" if sig else "ok"}" title="{_e(_sizes(m))}">{_fmt(m.value)}{mark}{null}{base}'
            "</td>")


def _img(b64: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{b64}" alt="{_e(alt)}">'


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
td.na{color:#666;font-style:italic;background:#f0f0f0}td.error{color:#a00}
td.sig{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 6px)}
.p,.ci,.base,.null{color:#555;font-size:0.85em;display:block}.sig,.nc{color:#a40;font-weight:bold}
img{max-width:100%;height:auto;display:block;margin:0.5em 0}
nav a{margin-right:0.8em}section{border-top:2px solid #ddd;margin-top:2em}
.error{color:#a00}dt{font-weight:bold;margin-top:0.5em}
"""


def correction_text(result: AtlasResult) -> str:
    """The page's statement of the multiplicity correction, from the run."""
    c = result.correction or {}
    if not c:
        return "No correction for multiplicity was recorded for this run."
    return (f"Significance is decided against each column's null and corrected for multiplicity: "
            f"Benjamini–Hochberg over the {c.get('tests', 0)} cells of this atlas that have a p against their null "
            f"(false-discovery rate {c.get('alpha', ALPHA)}); {c.get('significant', 0)} of them differ from their "
            f"null" + (f", and {len(und)} {'is' if len(und) == 1 else 'are'} undecided at this run's draws "
                       f"({', '.join(und)}: q crosses {c.get('alpha', ALPHA)} within their p-values' Monte Carlo "
                       "ranges)" if (und := c.get("undecided")) else "") + ". Intervals resample the seed words with the targets "
            f"({result.options.get('bootstrap', 0):,} resamples, seed {result.options.get('seed')}); "
            + (f"{len(near)} interval bound{'s' if len(near) != 1 else ''} lie within 3 Monte Carlo errors of 0 "
               f"({', '.join(near)})." if (near := c.get("bounds_within_3_mc_errors_of_0"))
               else "no interval bound lies within 3 Monte Carlo errors of 0."))


def coverage_text(result: AtlasResult) -> str:
    """Which languages this run covers (and which failed)."""
    ok = [c.lang for c in result.cells if c.status == OK]
    failed = [c.lang for c in result.cells if c.status != OK]
    text = f"This run covers {len(ok)} language{'s' if len(ok) != 1 else ''}: {', '.join(ok) or 'none'}"
    return text + (f"; failed: {', '.join(failed)}." if failed else ".")


def render_html(result: AtlasResult) -> str:
    """The report page: heatmap, summary table, one section per language, legend (self-contained)."""
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>geobias atlas: "
             f"{_e(result.family)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>geobias bias atlas: {_e(result.family)}</h1>",
             f"<p>{len(result.cells)} languages ({result.n_ok} complete, {result.n_failed} failed); engine "
             f"{_e(result.engine.get('engine'))}; {result.options.get('permutations'):,} permutations, "
             f"{result.options.get('bootstrap', 0):,} bootstrap resamples, seed {_e(result.options.get('seed'))}.</p>"]
    caveat = lda_caveat(result)
    if caveat:
        parts.append(f'<p class="caveat">{_e(caveat)}</p>')
    parts.append(f'<p class="correction">{_e(correction_text(result))}</p>')
    parts.append(f'<p class="coverage">{_e(coverage_text(result))}</p>')
    parts.append("<nav>" + "".join(f'<a href="#lang-{_e(c.lang)}">{_e(c.language)}</a>' for c in result.cells)
                 + ' <a href="#legend">Legend</a></nav>')
    parts.append(_img(_png(plot_heatmap(result)), "language × metric heatmap"))
    head = "".join(f'<th title="{_e(result.definitions.get(k, ""))}">{_e(label)}{" *" if aware else ""}</th>'
                   for k, label, aware in METRICS)
    rows = []
    for c in result.cells:
        name = f'<a href="#lang-{_e(c.lang)}">{_e(c.language)}</a>'
        if c.status != OK:
            rows.append(f'<tr><th>{name}</th><td class="error" colspan="{len(METRICS)}">failed: {_e(c.error)}</td></tr>')
        else:
            rows.append(f"<tr><th>{name}</th>" + "".join(_metric_cell(c.metric(k)) for k, _, _ in METRICS) + "</tr>")
    parts.append(f"<table><tr><th>language</th>{head}</tr>{''.join(rows)}</table>"
                 "<p>* grammatical-gender-aware. Each figure is followed by its null (vs …), the difference Δ with "
                 "its 95% hierarchical bootstrap interval, p against the null and q after the Benjamini–Hochberg "
                 "correction; ‡ differs from its null (q < 0.05 within the Monte Carlo range of every p); ? undecided "
                 "at this run's draws; ≠ direction not comparable with English's; hover a "
                 "cell for its set sizes or its reason.</p>")
    for c in result.cells:
        parts.append(_language_section(c))
    parts.append('<section id="legend"><h2>Legend</h2><h3>Columns</h3><dl>'
                 + "".join(f"<dt>{_e(label)}</dt><dd>{_e(result.definitions.get(k, ''))}</dd>"
                           for k, label, _ in METRICS)
                 + "</dl><h3>Reading the figures</h3><dl>"
                 + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in LEGEND)
                 + (f"<dt>LDA accuracy in this run</dt><dd>{_e(caveat)}</dd>" if caveat else "")
                 + "</dl></section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _language_section(c: LanguageCell) -> str:
    out = [f'<section id="lang-{_e(c.lang)}"><h2>{_e(c.language)} ({_e(c.lang)})</h2>', f"<p>store {_e(c.store)}"]
    if c.status != OK:
        out.append(f'</p><p class="error">failed: {_e(c.error)}</p></section>')
        return "".join(out)
    out.append(f", {c.shape[0]:,} words × {c.shape[1]} d; {_e(genders_label(c))}.</p>")
    if c.comparable is False:
        out.append(f'<p class="error">{_e(c.language)}\'s gender direction is not comparable with the English one '
                   f'(cos(d_s, English d_PCA) {c.metric("cos_ds_en").value:.2f}): read its correlation with English '
                   "on the shared direction.</p>")
    out.append("<table><tr><th>metric</th><th>status</th><th>value</th><th>95% interval (SE)</th><th>null</th>"
               "<th>Δ [95% interval] (MC error)</th><th>p vs null</th><th>q</th><th>sets</th><th>note</th></tr>")
    for key, label, _ in METRICS:
        m = c.metric(key)
        iv = interval_text(m, 4)
        se = f" (SE {m.interval.standard_error:.3g})" if iv and m.interval.standard_error is not None else ""
        vs = m.versus
        null = diff = pv = qv = ""
        if vs is not None:
            null = vs.null + ("" if vs.null_value is None else f": {vs.null_value:.4g}")
            if vs.difference is not None:
                diff = f"{vs.difference:+.4g}" + ("" if vs.low is None else f" [{vs.low:.4g}, {vs.high:.4g}]") \
                    + ("" if vs.mc_error is None else f" (±{vs.mc_error:.2g})")
            pv, qv = _fmt(vs.p_value), _fmt(vs.q_value)
        note = m.reason or m.details.get("note") or ""
        if m.baselines:
            note = (note + "; " if note else "") + ", ".join(f"{k} {v:.3f}" for k, v in m.baselines.items())
        out.append(f"<tr><td>{_e(label)}</td><td>{_e(SYMBOLS.get(m.status, m.status))}</td>"
                   f"<td>{_e(_fmt(m.value))}</td><td>{_e(iv + se)}</td><td>{_e(null)}</td><td>{_e(diff)}</td>"
                   f"<td>{_e(pv)}</td><td>{_e(qv)}</td><td>{_e(_sizes(m) or _fmt(m.n))}</td><td>{_e(note)}</td></tr>")
    out.append("</table>")
    occ = c.metric("occupation_bias")
    if occ.status == OK and occ.details.get("nulls"):
        out.append("<p>Occupation lean against its nulls: " + _e("; ".join(
            f"{name}: lean {v.get('null_value') if v.get('null_value') is None else format(v['null_value'], '+.4f')}, "
            f"Δ {v['difference']:+.4f}" + ("" if v.get("low") is None else f" [{v['low']:+.4f}, {v['high']:+.4f}]")
            for name, v in occ.details["nulls"].items())) + ".</p>")
    if c.occupation_bias_method:
        out.append(f"<p>Occupation bias: {_e(c.occupation_bias_method)}; the vocabulary's mean projection here is "
                   f"{c.vocabulary_offset:+.4f}.</p>")
    plane = plot_plane(c)
    if plane is not None:
        out.append(_img(_png(plane), f"{c.language} gender plane"))
    else:
        out.append("<p>No gender-plane plot: no grammatical direction d_g for this language.</p>")
    bars = plot_top(c)
    if bars is not None:
        out.append(_img(_png(bars), f"{c.language} most biased occupations"))
        out.append("<h3>Most biased occupations</h3><table><tr><th>occupation</th><th>English</th><th>bias</th></tr>"
                   + "".join(f"<tr><td>{_e(r.masculine if not r.two_form else r.masculine + ' / ' + r.feminine)}"
                             f"</td><td>{_e(r.english)}</td><td>{r.bias:+.4f}</td></tr>" for r in most_biased(c))
                   + "</table>")
    out.append("<h3>Word lists</h3><table><tr><th>list</th><th>status</th><th>words</th><th>missing from the store"
               "</th></tr>")
    for name, rec in c.lists.items():
        missing = rec.missing
        shown = ", ".join(missing[:40]) + (f" … (+{len(missing) - 40})" if len(missing) > 40 else "")
        out.append(f"<tr><td>{_e(name)}</td><td>{_e(rec.status)}</td><td>{rec.words}</td>"
                   f"<td>{_e(rec.reason or (f'{len(missing)}: {shown}' if missing else 'none'))}</td></tr>")
    out.append("</table></section>")
    return "".join(out)


# ------------------------------------------------------------------------------------ terminal
@table("geobias.evaluation.atlas.AtlasResult")
def atlas_table(console, result: AtlasResult) -> None:
    """The headline figures per language, each against its null: LDA accuracy − the suffix baseline,
    occupation lean − person nouns, MWEAT (or WEAT career-family) with its q, the Spearman correlation
    with English and its excess over the alignment control (own and shared direction), the direction's
    comparability, and failed cells."""
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"geobias atlas: {result.family} ({result.n_ok} of {len(result.cells)} languages complete)",
              title_justify="left")
    for name in ("lang", "words", "LDA − suffix", "occ. lean − persons", "MWEAT / WEAT", "p", "ρ with en",
                 "ρ − control", "ρ shared − control", "cos(d_s, en)", "note"):
        t.add_column(name, justify="left" if name in ("lang", "MWEAT / WEAT", "note") else "right")
    for c in result.cells:
        if c.status != OK:
            t.add_row(Text(c.lang), *[""] * 9, Text(f"failed: {c.error}", style="red"))
            continue

        def val(key: str, digits: int = 3, c: LanguageCell = c) -> str:
            m = c.metric(key)
            return _fmt(m.value, digits) if m.status == OK else SYMBOLS.get(m.status, m.status)

        def delta(key: str, c: LanguageCell = c) -> Text:
            m = c.metric(key)
            if m.status != OK:
                return Text(SYMBOLS.get(m.status, m.status))
            vs = m.versus
            if vs is None or vs.difference is None:
                return Text("—")
            iv = "" if vs.low is None else f" [{vs.low:+.3f}, {vs.high:+.3f}]"
            return Text(f"{vs.difference:+.3f}{iv}" + (" ‡" if m.significant else " ?" if vs.undecided else ""),
                        style="bold" if m.significant else "")

        key = "mweat" if c.metric("mweat").status == OK else "weat_career_family"
        m = c.metric(key)
        test = f"MWEAT {val('mweat', 4)}" if key == "mweat" else f"WEAT career-family d={val(key)}"
        notes = [f"{k}: {v.reason}" for k, v in c.metrics.items() if v.status == "error"]
        if c.comparable is False:
            notes.insert(0, "direction not comparable with English (≠)")
        q = m.versus.q_value if m.versus is not None else None
        t.add_row(Text(c.lang), f"{c.shape[0]:,}", delta("lda_cv_accuracy"), delta("occupation_bias"), Text(test),
                  _fmt(q if q is not None else m.p_value), val("corr_en_spearman"), delta("corr_en_spearman"),
                  delta("corr_en_shared_spearman"), val("cos_ds_en"), Text("; ".join(notes)))
    corr = result.correction or {}
    if corr:
        t.caption = (f"Δ: figure − its null [95% interval]; ‡ differs from its null after Benjamini–Hochberg over "
                     f"{corr.get('tests', 0)} cells (q < {corr.get('alpha', ALPHA)}); ? undecided at this run's "
                     "draws; p column: q of the test shown")
    console.print(t)


__all__ = ["DIVERGING", "LEGEND", "NEUTRAL", "REPORT_FILES", "SYMBOLS", "atlas_table", "check_report_dir",
           "colour_positions", "correction_text", "coverage_text", "genders_label", "heatmap_differences",
           "heatmap_values", "interval_text", "lda_caveat", "plot_heatmap", "plot_plane", "plot_top", "render_html",
           "scale_ranges", "versus_text", "write_parquet", "write_report"]
