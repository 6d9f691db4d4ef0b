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
from geobias.evaluation.atlas import METRICS, OK, AtlasResult
from geobias.report.registry import table

REPORT_FILES = ("atlas.json", "atlas.parquet", "index.html")

#: The legend of the report and of ``docs/atlas.md``: what each figure is and what does not compare.
LEGEND = (
    ("Grammatical-gender-aware figures", "LDA CV accuracy, cos(d_PCA, d_g), neuter nouns on d_g, MWEAT and its "
     "effect size, the occupation bias of a language with grammatical gender (projection on d_s, d_PCA with d_g "
     "projected out, averaged over the two forms) and the correlations built on it. The others (d_PCA explained "
     "variance, WEAT) ignore grammatical gender."),
    ("Not comparable across languages", "Each language uses its own translated word lists (different words, "
     "different sizes, some lists missing), and the encoder covers languages unequally (sub-word pieces, training "
     "data). Compare signs and significance rather than magnitudes, and a language with itself across sources."),
    ("USE-m3 carries little grammatical gender", "The use-m3 family encodes each word alone with a sentence encoder: "
     "an LDA separates masculine from feminine nouns only modestly (about 0.63-0.69 on French and Spanish, against "
     "0.83-0.92 on fastText/MUSE in Zhou et al. 2019), so d_g, cos(d_PCA, d_g) and the MWEAT figures are weaker "
     "than on fastText vectors."),
    ("Status", "\"not available\": the language has no such word list; \"not applicable\": the measure does not "
     "apply (MWEAT without grammatical gender, the correlation of English with itself); \"error\": the measure "
     "failed on this store (its message is shown)."),
    ("Tests", "WEAT: Caliskan et al.'s effect size (ddof 1) and one-sided permutation p. MWEAT: Zhou et al.'s eq. 1 "
     "statistic and its one-sided permutation p; its effect size is ours (Caliskan's on the MWEAT sets, p of the "
     "difference statistic). Correlation with English: Pearson and Spearman over occupations sharing an English "
     "translation, of the occupation bias against <E, d_PCA(en)>; Figure 4 form: WEAT(en) s(E, A, B) against "
     "|s(w_m)| − |s(w_f)|."),
)


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
    """One row per language × metric (:meth:`AtlasResult.rows`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("lang", pa.string()), ("language", pa.string()), ("metric", pa.string()),
                        ("label", pa.string()), ("grammatical_gender_aware", pa.bool_()), ("status", pa.string()),
                        ("value", pa.float64()), ("p_value", pa.float64()), ("n", pa.int64()),
                        ("reason", pa.string())])
    pq.write_table(pa.Table.from_pylist(result.rows(), schema=schema), path)


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
    langs = [c["lang"] for c in result.cells]
    keys = [k for k, _, _ in METRICS]
    m = np.full((len(langs), len(keys)), np.nan)
    for i, cell in enumerate(result.cells):
        if cell["status"] != OK:
            continue
        for j, key in enumerate(keys):
            v = cell["metrics"][key]
            if v["status"] == OK and v["value"] is not None:
                m[i, j] = v["value"]
    return langs, keys, m


def plot_heatmap(result: AtlasResult):
    """Language × metric heatmap; each column coloured on its own scale (value / max |value| of the
    column), the value printed in the cell, grey where there is none."""
    from matplotlib.figure import Figure

    langs, keys, m = heatmap_values(result)
    labels = [label for _, label, _ in METRICS]
    scale = np.nanmax(np.abs(m), axis=0, initial=0.0, where=~np.isnan(m))
    scale[scale == 0] = 1.0
    shown = np.ma.masked_invalid(m / scale)
    fig = Figure(figsize=(1.0 + 0.75 * len(keys), 1.6 + 0.42 * len(langs)))
    ax = fig.subplots()
    ax.set_facecolor("#dddddd")
    ax.imshow(shown, cmap="coolwarm", vmin=-1, vmax=1, aspect="auto")
    for i in range(len(langs)):
        for j in range(len(keys)):
            ax.text(j, i, "n/a" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(keys)), labels, rotation=40, ha="right", fontsize=7)
    ax.set_yticks(range(len(langs)), langs, fontsize=8)
    ax.set_title(f"{result.family}: language × metric (colour: value / column max |value|)", fontsize=9)
    return fig


def plot_plane(cell: dict):
    """Occupation forms on the d_PCA (x) × d_g (y) plane; ``None`` without d_g."""
    from matplotlib.figure import Figure

    rows = [r for r in cell.get("occupations", []) if r["y_m"] is not None]
    if not rows:
        return None
    fig = Figure(figsize=(7, 5.5))
    ax = fig.subplots()
    for form, colour in (("m", "#1f77b4"), ("f", "#ff7f0e")):
        ax.scatter([r[f"x_{form}"] for r in rows], [r[f"y_{form}"] for r in rows], s=16, c=colour, alpha=0.8,
                   label={"m": "masculine forms", "f": "feminine forms"}[form])
    top = sorted(rows, key=lambda r: -abs(r["bias"]))[:12]
    for r in top:
        ax.annotate(_drawable(r["masculine"], r["english"]), (r["x_m"], r["y_m"]), fontsize=6, xytext=(2, 2),
                    textcoords="offset points")
    ax.axhline(0, color="grey", lw=0.5)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("semantic ⟨w, d_PCA⟩ (masculine →)")
    ax.set_ylabel("grammatical ⟨w, d_g⟩ (masculine ↑)")
    ax.set_title(f"{cell['language']}: occupations on the gender plane", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def plot_top(cell: dict, top: int = 15):
    """The ``top`` occupations with the largest |bias|, signed (masculine positive)."""
    from geobias.report.plots import plot_bars

    rows = most_biased(cell, top)
    if not rows:
        return None
    return plot_bars([_label(r) for r in rows], [r["bias"] for r in rows],
                     f"{cell['language']}: most biased occupations", "bias (masculine →)",
                     ["#1f77b4" if r["bias"] > 0 else "#ff7f0e" for r in rows])


def most_biased(cell: dict, top: int = 15) -> list[dict]:
    return sorted(cell.get("occupations", []), key=lambda r: -abs(r["bias"]))[:top]


def _label(r: dict) -> str:
    forms = r["masculine"] if r["masculine"] == r["feminine"] else f"{r['masculine']}/{r['feminine']}"
    forms = _drawable(forms, r["english"])
    return forms if r["english"] in ("", r["masculine"]) or forms.startswith("[") else f"{forms} ({r['english']})"


# ------------------------------------------------------------------------------------ HTML
def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _fmt(v: Any, digits: int = 3) -> str:
    return "—" if v is None else f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def _metric_cell(m: dict) -> str:
    if m["status"] != OK:
        return f'<td class="na" title="{_e(m["reason"])}">{_e(m["status"])}</td>'
    p = "" if m["p_value"] is None else f' <span class="p">p={_fmt(m["p_value"])}</span>'
    return f"<td>{_fmt(m['value'])}{p}</td>"


def _img(b64: str, alt: str) -> str:
    return f'<img src="data:image/png;base64,{b64}" alt="{_e(alt)}">'


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.85em}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
td.na{color:#888;font-style:italic}.p{color:#666;font-size:0.85em}
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
             f"{_e(result.engine.get('engine'))}; {result.options.get('permutations'):,} permutations, seed "
             f"{_e(result.options.get('seed'))}.</p>"]
    parts.append("<nav>" + "".join(f'<a href="#lang-{_e(c["lang"])}">{_e(c.get("language", c["lang"]))}</a>'
                                    for c in result.cells) + ' <a href="#legend">Legend</a></nav>')
    parts.append(_img(_png(plot_heatmap(result)), "language × metric heatmap"))
    head = "".join(f"<th>{_e(label)}{' *' if aware else ''}</th>" for _, label, aware in METRICS)
    rows = []
    for c in result.cells:
        name = f'<a href="#lang-{_e(c["lang"])}">{_e(c.get("language", c["lang"]))}</a>'
        if c["status"] != OK:
            rows.append(f'<tr><th>{name}</th><td class="error" colspan="{len(METRICS)}">{_e(c.get("error"))}</td></tr>')
        else:
            rows.append(f"<tr><th>{name}</th>" + "".join(_metric_cell(c["metrics"][k]) for k, _, _ in METRICS)
                        + "</tr>")
    parts.append(f"<table><tr><th>language</th>{head}</tr>{''.join(rows)}</table>"
                 "<p>* grammatical-gender-aware (see the legend). Hover a grey cell for its reason.</p>")
    for c in result.cells:
        parts.append(_language_section(c))
    parts.append('<section id="legend"><h2>Legend</h2><dl>'
                 + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in LEGEND) + "</dl></section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _language_section(c: dict) -> str:
    out = [f'<section id="lang-{_e(c["lang"])}"><h2>{_e(c.get("language", c["lang"]))} ({_e(c["lang"])})</h2>',
           f"<p>store {_e(c['store'])}"]
    if c["status"] != OK:
        out.append(f'</p><p class="error">failed: {_e(c.get("error"))}</p></section>')
        return "".join(out)
    out.append(f", {c['shape'][0]:,} words × {c['shape'][1]} d; grammatical gender: "
               f"{'yes' if c['grammatical_gender'] else 'no'}.</p>")
    out.append("<table><tr><th>metric</th><th>status</th><th>value</th><th>p</th><th>n</th><th>note</th></tr>")
    for key, label, _ in METRICS:
        m = c["metrics"][key]
        out.append(f"<tr><td>{_e(label)}</td><td>{_e(m['status'])}</td><td>{_e(_fmt(m['value']))}</td>"
                   f"<td>{_e(_fmt(m['p_value']))}</td><td>{_e(_fmt(m['n']))}</td><td>{_e(m['reason'] or '')}</td></tr>")
    out.append("</table>")
    if c.get("occupation_bias_method"):
        out.append(f"<p>Occupation bias: {_e(c['occupation_bias_method'])}.</p>")
    plane = plot_plane(c)
    if plane is not None:
        out.append(_img(_png(plane), f"{c.get('language')} gender plane"))
    else:
        out.append("<p>No gender-plane plot: no grammatical direction d_g for this language.</p>")
    bars = plot_top(c)
    if bars is not None:
        out.append(_img(_png(bars), f"{c.get('language')} most biased occupations"))
        out.append("<h3>Most biased occupations</h3><table><tr><th>occupation</th><th>English</th><th>bias</th></tr>"
                   + "".join(f"<tr><td>{_e(r['masculine'] if not r['two_form'] else r['masculine'] + ' / ' + r['feminine'])}"
                             f"</td><td>{_e(r['english'])}</td><td>{r['bias']:+.4f}</td></tr>" for r in most_biased(c))
                   + "</table>")
    out.append("<h3>Word lists</h3><table><tr><th>list</th><th>status</th><th>words</th><th>missing from the store"
               "</th></tr>")
    for name, rec in c["lists"].items():
        missing = rec["missing"]
        shown = ", ".join(missing[:40]) + (f" … (+{len(missing) - 40})" if len(missing) > 40 else "")
        out.append(f"<tr><td>{_e(name)}</td><td>{_e(rec['status'])}</td><td>{rec['words']}</td>"
                   f"<td>{_e(rec['reason'] or (f'{len(missing)}: {shown}' if missing else 'none'))}</td></tr>")
    out.append("</table></section>")
    return "".join(out)


# ------------------------------------------------------------------------------------ terminal
@table("geobias.evaluation.atlas.AtlasResult")
def atlas_table(console, result: AtlasResult) -> None:
    """The headline figures per language: LDA accuracy, cos(d_PCA, d_g), MWEAT (or WEAT career-family)
    with p, the Spearman correlation with English, and failed cells."""
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"geobias atlas: {result.family} ({result.n_ok} of {len(result.cells)} languages complete)",
              title_justify="left")
    for name in ("lang", "words", "d_PCA EV", "LDA acc", "cos(d_PCA,d_g)", "MWEAT / WEAT", "p", "ρ with en",
                 "note"):
        t.add_column(name, justify="left" if name in ("lang", "MWEAT / WEAT", "note") else "right")
    for c in result.cells:
        if c["status"] != OK:
            t.add_row(Text(c["lang"]), "", "", "", "", "", "", "", Text(f"failed: {c.get('error')}", style="red"))
            continue
        m = c["metrics"]

        def val(key: str, digits: int = 3, m: dict = m) -> str:
            return _fmt(m[key]["value"], digits) if m[key]["status"] == OK else m[key]["status"]

        test, p = (f"MWEAT {val('mweat', 4)}", m["mweat"]["p_value"]) if m["mweat"]["status"] == OK else \
            (f"WEAT career-family d={val('weat_career_family')}", m["weat_career_family"]["p_value"])
        notes = [f"{k}: {v['reason']}" for k, v in m.items() if v["status"] == "error"]
        t.add_row(Text(c["lang"]), f"{c['shape'][0]:,}", val("d_pca_explained_variance"), val("lda_cv_accuracy"),
                  val("cos_dpca_dg"), Text(test), _fmt(p), val("corr_en_spearman"), Text("; ".join(notes)))
    console.print(t)


__all__ = ["LEGEND", "REPORT_FILES", "atlas_table", "check_report_dir", "heatmap_values",
           "plot_heatmap", "plot_plane", "plot_top", "render_html", "write_parquet", "write_report"]
