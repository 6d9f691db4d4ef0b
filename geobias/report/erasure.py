"""Rich tables of the erasure table (:class:`geobias.evaluation.erasure.ErasureTableResult`):
metrics as rows, methods as columns, each cell the mean over seeds ± the 95% half-width."""

from __future__ import annotations


def _metric_table(result, metrics: dict[str, str], title: str):
    """Metrics as rows, methods as columns, each cell ``mean ± 95% half-width`` (``–`` when the
    metric does not apply to the method)."""
    from rich.table import Table

    methods = list(result.table)
    seeds = ",".join(map(str, result.settings.get("seeds", [])))
    t = Table(title=f"{title} (mean ± 95% t-interval over seeds {seeds})")
    t.add_column("metric")
    for m in methods:
        t.add_column(m, justify="right")
    for key, label in metrics.items():
        cells = []
        for m in methods:
            c = result.table[m].get(key, {})
            if c.get("mean") is None:
                cells.append("–")
                continue
            half = (c["ci_high"] - c["ci_low"]) / 2
            fmt = "{:.0f}" if key == "rank_removed" else ("{:.4f}" if "p_value" in key else "{:.3f}")
            cells.append(fmt.format(c["mean"]) + (f" ± {half:.3f}" if half >= 5e-4 and key != "rank_removed" else ""))
        t.add_row(label, *cells)
    return t


def render_erasure(console, result) -> None:
    """Print the table: metrics as rows, methods as columns, ``mean ± half-width``."""
    from geobias.evaluation.erasure import ERASURE_METRICS

    console.print(_metric_table(result, ERASURE_METRICS, f"Erasure table ({result.lang})"))
    s = result.settings
    console.print(f"fit: {s.get('n_fit_pairs_per_seed')} of {s.get('n_fit_pairs_pool')} person pairs per seed; "
                  f"held out: {s.get('n_attribute_words')} attribute words, {s.get('n_occupations')} occupations; "
                  f"{s.get('nouns_per_gender')} nouns per gender split in half")


def render_english(console, result) -> None:
    """Print the English table (metrics as rows, methods as columns)."""
    from geobias.evaluation.erasure import ENGLISH_METRICS

    console.print(_metric_table(result, ENGLISH_METRICS, "Erasure on English"))
