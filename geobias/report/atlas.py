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
    METRICS,
    OK,
    SCALES,
    AtlasResult,
    LanguageCell,
    Metric,
    OccupationRow,
)
from geobias.report.registry import table

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
    ("Intervals and significance", "Beside each association figure: a 95% percentile bootstrap interval over its "
     "words (each set resampled with replacement, occupation pairs as pairs; 1,000 resamples by default) and the "
     "sizes of its sets. The interval says how much the figure depends on which words were chosen; the permutation "
     "p tests no association for these words. A figure with p ≥ 0.05, or whose signed interval holds 0, is "
     "marked ° and hatched in the heatmap."),
    ("Colours", "Each column has its own scale: accuracies from their chance baseline (0.5) to 1, cosines and "
     "correlations diverging at 0 on −1..1, other signed figures diverging at 0 with a range symmetric over the "
     "column, magnitudes from 0 to the column's largest."),
    ("Not comparable across languages", "Each language uses its own translated word lists (different words, "
     "different sizes, some lists missing), and the encoder covers languages unequally (sub-word pieces, training "
     "data). Compare signs, intervals and significance rather than magnitudes, and a language with itself across "
     "sources."),
    ("Encoder alignment", "A multilingual encoder is trained to put translations together, so part of any "
     "correlation with English is that alignment; the control column gives the same correlation on random "
     "directions."),
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


def write_parquet(result: AtlasResult, path: Path) -> None:
    """One row per language × metric (:attr:`AtlasResult.rows`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("lang", pa.string()), ("language", pa.string()), ("metric", pa.string()),
                        ("label", pa.string()), ("grammatical_gender_aware", pa.bool_()), ("status", pa.string()),
                        ("value", pa.float64()), ("p_value", pa.float64()), ("n", pa.int64()),
                        ("reason", pa.string()), ("low", pa.float64()), ("high", pa.float64()),
                        ("standard_error", pa.float64()), ("baseline_majority", pa.float64()),
                        ("baseline_orthographic", pa.float64())])
    pq.write_table(pa.Table.from_pylist(result.rows, schema=schema), path)


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


def colour_positions(result: AtlasResult) -> np.ndarray:
    """Each value's position on its column's scale (:data:`~geobias.evaluation.atlas.SCALES`), in
    [-1, 1]: accuracies as ``(value − baseline) / (1 − baseline)`` with the cell's majority baseline
    (0.5 when it has none), cosines and correlations as they are, other signed figures as
    ``value / max |value|`` of the column, magnitudes as ``value / max value`` of the column; NaN
    where there is no value."""
    langs, keys, m = heatmap_values(result)
    pos = np.full_like(m, np.nan)
    for j, key in enumerate(keys):
        col = m[:, j]
        kind = SCALES.get(key, "signed")
        if kind == "accuracy":
            base = np.array([(c.metric(key).baselines or {}).get("majority", 0.5) for c in result.cells])
            pos[:, j] = np.clip((col - base) / np.maximum(1.0 - base, 1e-9), -1, 1)
        elif kind == "correlation":
            pos[:, j] = np.clip(col, -1, 1)
        else:
            top = np.nanmax(np.abs(col)) if np.isfinite(col).any() else 1.0
            pos[:, j] = col / (top if top > 0 else 1.0)
    return pos


def plot_heatmap(result: AtlasResult):
    """Language × metric heatmap, each column on its own scale (:func:`colour_positions`): signed
    figures diverging (blue–red), accuracies and magnitudes sequential (white–green). The value is
    printed in the cell; a non-significant figure is hatched and marked °; a missing one shows its
    status symbol (:data:`SYMBOLS`) on grey."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    langs, keys, m = heatmap_values(result)
    pos = colour_positions(result)
    labels = [label for _, label, _ in METRICS]
    fig = Figure(figsize=(1.0 + 0.8 * len(keys), 1.8 + 0.42 * len(langs)))
    ax = fig.subplots()
    diverging, sequential = colormaps["coolwarm"], colormaps["Greens"]
    for i, cell in enumerate(result.cells):
        for j, key in enumerate(keys):
            metric = cell.metric(key)
            if np.isnan(m[i, j]):
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#e4e4e4", edgecolor="white"))
                ax.text(j, i, SYMBOLS.get(metric.status, "—"), ha="center", va="center", fontsize=6.5,
                        color="#555555", style="italic")
                continue
            p = pos[i, j]
            colour = diverging((p + 1) / 2) if SCALES.get(key) in ("signed", "correlation") else sequential(0.1 + 0.8 * max(p, 0.0))
            weak = metric.significant is False
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=colour, edgecolor="white",
                                   hatch="///" if weak else None, alpha=0.55 if weak else 1.0))
            ax.text(j, i, f"{m[i, j]:.2f}" + ("°" if weak else ""), ha="center", va="center", fontsize=7)
    ax.set_xlim(-0.5, len(keys) - 0.5)
    ax.set_ylim(len(langs) - 0.5, -0.5)
    ax.set_xticks(range(len(keys)), labels, rotation=40, ha="right", fontsize=7)
    ax.set_yticks(range(len(langs)), langs, fontsize=8)
    ax.set_title(f"{result.family}: language × metric (each column on its own scale; ° hatched: p ≥ 0.05 or "
                 "interval holds 0; n/a not applicable, no list: not available)", fontsize=8)
    return fig


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


def _metric_cell(m: Metric) -> str:
    if m.status != OK:
        return (f'<td class="na {m.status.replace(" ", "-")}" title="{_e(m.reason)}">'
                f'{_e(SYMBOLS.get(m.status, m.status))}</td>')
    weak = m.significant is False
    p = "" if m.p_value is None else f' <span class="p">p={_fmt(m.p_value)}</span>'
    iv = interval_text(m)
    iv = f' <span class="ci">{_e(iv)}</span>' if iv else ""
    base = ""
    if m.baselines:
        base = (f' <span class="base">chance {m.baselines["majority"]:.2f}, spelling '
                f'{m.baselines["orthographic"]:.2f}</span>')
    mark = '<span class="ns" title="p ≥ 0.05 or the interval holds 0">°</span>' if weak else ""
    return (f'<td class="{"weak" if weak else "ok"}" title="{_e(_sizes(m))}">{_fmt(m.value)}{mark}{p}{iv}{base}'
            "</td>")


def _img(b64: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{b64}" alt="{_e(alt)}">'


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
td.na{color:#666;font-style:italic;background:#f0f0f0}td.error{color:#a00}td.weak{color:#777}
.p,.ci,.base{color:#666;font-size:0.85em;display:block}.ns{color:#a60}
img{max-width:100%;height:auto;display:block;margin:0.5em 0}
nav a{margin-right:0.8em}section{border-top:2px solid #ddd;margin-top:2em}
.error{color:#a00}dt{font-weight:bold;margin-top:0.5em}
"""


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
                 "<p>* grammatical-gender-aware. Brackets: 95% bootstrap interval over the words; ° p ≥ 0.05 or the "
                 "interval holds 0; hover a cell for its set sizes or its reason.</p>")
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
    out.append("<table><tr><th>metric</th><th>status</th><th>value</th><th>p</th><th>95% interval (SE)</th>"
               "<th>sets</th><th>baselines</th><th>note</th></tr>")
    for key, label, _ in METRICS:
        m = c.metric(key)
        iv = interval_text(m, 4)
        se = f" (SE {m.interval.standard_error:.3g})" if iv and m.interval.standard_error is not None else ""
        base = "" if not m.baselines else ", ".join(f"{k} {v:.3f}" for k, v in m.baselines.items())
        out.append(f"<tr><td>{_e(label)}</td><td>{_e(SYMBOLS.get(m.status, m.status))}</td>"
                   f"<td>{_e(_fmt(m.value))}</td><td>{_e(_fmt(m.p_value))}</td><td>{_e(iv + se)}</td>"
                   f"<td>{_e(_sizes(m) or _fmt(m.n))}</td><td>{_e(base)}</td><td>{_e(m.reason or '')}</td></tr>")
    out.append("</table>")
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
    """The headline figures per language: LDA accuracy with its spelling baseline, cos(d_PCA, d_g),
    MWEAT (or WEAT career-family) with p and interval, the Spearman correlation with English beside
    its control, and failed cells."""
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"geobias atlas: {result.family} ({result.n_ok} of {len(result.cells)} languages complete)",
              title_justify="left")
    for name in ("lang", "words", "d_PCA EV", "LDA acc", "spelling", "cos(d_PCA,d_g)", "MWEAT / WEAT", "p",
                 "95% interval", "ρ with en", "control ρ", "note"):
        t.add_column(name, justify="left" if name in ("lang", "MWEAT / WEAT", "95% interval", "note") else "right")
    for c in result.cells:
        if c.status != OK:
            t.add_row(Text(c.lang), *[""] * 10, Text(f"failed: {c.error}", style="red"))
            continue

        def val(key: str, digits: int = 3, c: LanguageCell = c) -> str:
            m = c.metric(key)
            return _fmt(m.value, digits) if m.status == OK else SYMBOLS.get(m.status, m.status)

        lda = c.metric("lda_cv_accuracy")
        spelling = _fmt(lda.baselines["orthographic"]) if lda.baselines else SYMBOLS.get(lda.status, "")
        key = "mweat" if c.metric("mweat").status == OK else "weat_career_family"
        m = c.metric(key)
        test = f"MWEAT {val('mweat', 4)}" if key == "mweat" else f"WEAT career-family d={val(key)}"
        notes = [f"{k}: {v.reason}" for k, v in c.metrics.items() if v.status == "error"]
        t.add_row(Text(c.lang), f"{c.shape[0]:,}", val("d_pca_explained_variance"), val("lda_cv_accuracy"), spelling,
                  val("cos_dpca_dg"), Text(test), _fmt(m.p_value), Text(interval_text(m)), val("corr_en_spearman"),
                  val("corr_en_control"), Text("; ".join(notes)))
    console.print(t)


__all__ = ["LEGEND", "REPORT_FILES", "SYMBOLS", "atlas_table", "check_report_dir", "colour_positions",
           "genders_label", "heatmap_values", "interval_text", "lda_caveat", "plot_heatmap", "plot_plane",
           "plot_top", "render_html", "write_parquet", "write_report"]
