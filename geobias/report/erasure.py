"""Rich tables of the erasure table (:class:`geobias.evaluation.erasure.ErasureTableResult`):
metrics as rows, methods as columns; a quantity in [0, 1] (p-values, accuracies, P@1) as the median
and range (min–max) over seeds, any other as the mean ± the 95% t half-width (an interval cut at the
quantity's range is shown as [low, high])."""

from __future__ import annotations


def _metric_table(result, metrics: dict[str, str], title: str):
    """Metrics as rows, methods as columns; each cell ``median (min–max)``, ``mean ± 95% half-width`` or
    ``mean [low, high]`` (see :func:`geobias.evaluation.erasure.seed_summary`; ``–`` when the metric
    does not apply to the method)."""
    from rich.table import Table

    methods = list(result.table)
    seeds = ",".join(map(str, result.settings.get("seeds", [])))
    t = Table(title=f"{title} over seeds {seeds}: median (min–max) for p-values, accuracies and P@1; "
                    "mean ± 95% t-interval otherwise")
    t.add_column("metric")
    for m in methods:
        t.add_column(m, justify="right")
    for key, label in metrics.items():
        if not any(key in result.table[m] for m in methods):
            continue  # a row the run did not ask for (the recovery tests)
        cells = []
        for m in methods:
            c = result.table[m].get(key, {})
            if c.get("mean") is None:
                cells.append("–")
                continue
            cells.append(_cell(c, key))
        t.add_row(label, *cells)
    return t


def _cell(c: dict, key: str) -> str:
    """One cell: ``median (min–max)``, ``mean ± half`` or ``mean [low, high]`` (a cut interval)."""
    fmt = "{:.0f}" if key == "rank_removed" else ("{:.4f}" if "p_value" in key else "{:.3f}")
    center = c.get("center", c["mean"])
    lo, hi = c["ci_low"], c["ci_high"]
    if key == "rank_removed" or hi - lo < 5e-4:
        return fmt.format(center)
    if c.get("interval") == "range":
        return f"{fmt.format(center)} ({fmt.format(lo)}–{fmt.format(hi)})"
    if c.get("clipped"):
        return f"{fmt.format(center)} [{fmt.format(lo)}, {fmt.format(hi)}]"
    return f"{fmt.format(center)} ± {(hi - lo) / 2:.3f}"


def render_erasure(console, result) -> None:
    """Print the table: metrics as rows, methods as columns (cells as in :func:`_cell`)."""
    from geobias.evaluation.erasure import ERASURE_METRICS
    from geobias.evaluation.recovery import RECOVERY_METRICS

    console.print(_metric_table(result, {**ERASURE_METRICS, **RECOVERY_METRICS}, f"Erasure table ({result.lang})"))
    control = result.coverage.get("control_weat", {})
    if control.get("not_available"):
        console.print(f"Control WEAT (flowers/insects): {control['not_available']}")
    s = result.settings
    console.print(f"fit: {s.get('n_fit_pairs_per_seed')} of {s.get('n_fit_pairs_pool')} person pairs per seed; "
                  f"held out: {s.get('n_attribute_words')} attribute words, {s.get('n_occupations')} occupations; "
                  f"{s.get('nouns_per_gender')} nouns per gender split in half")


def render_english(console, result) -> None:
    """Print the English table (metrics as rows, methods as columns)."""
    from geobias.evaluation.erasure import ENGLISH_METRICS, ENGLISH_WEATS
    from geobias.evaluation.recovery import RECOVERY_METRICS

    console.print(_metric_table(result, {**ENGLISH_METRICS, **RECOVERY_METRICS}, "Erasure on English"))
    for t in ENGLISH_WEATS:  # in the table's row order
        reason = result.coverage.get(f"weat_{t}", {}).get("not_available")
        if reason:
            console.print(f"WEAT {t}: {reason}")
