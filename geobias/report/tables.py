"""Rich tables for association and direction results. Library code returns renderables;
the CLI prints them."""

from __future__ import annotations

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text


def _p(result) -> str:
    lo, hi = result.p_value_ci
    kind = "exact" if result.exact else f"{result.n_permutations:,} permutations, seed {result.seed}"
    ci = "" if result.exact else f"  (95% CI {lo:.3g}–{hi:.3g})"
    return f"{result.p_value:.4g}{ci}  [{kind}, {result.alternative}]"


def _missing(words: list[str], limit: int = 12) -> str:
    if not words:
        return "none"
    shown = ", ".join(words[:limit])
    return f"{len(words)}: {shown}" + (f" … (+{len(words) - limit})" if len(words) > limit else "")


#: Widest value cell of a summary table (characters): piped output stays readable (~120 columns).
SUMMARY_WIDTH = 96


def _summary(title: str, rows: list[tuple[str, str]]) -> Table:
    t = Table(title=title, show_header=False, title_justify="left")
    t.add_column(style="bold")
    t.add_column(max_width=SUMMARY_WIDTH)  # a long note wraps; a p-value with its interval stays on one line
    for k, v in rows:
        t.add_row(Text(k), Text(v))  # Text: values are never read as rich markup
    return t


def _companion(result) -> list[tuple[str, str]]:
    """Our Σ_X s − Σ_Y s beside eq. 1, and a note when eq. 1 sits at its ceiling."""
    rows = []
    if getattr(result, "difference", None) is not None:
        p = result.difference_p_value
        es = "—" if result.effect_size is None else f"{result.effect_size:.4g}"
        rows.append(("Σ_X s − Σ_Y s (ours)", f"{result.difference:.6g}, p = {p:.4g}, effect size {es}"))
    if result.sum_masculine * result.sum_feminine <= 0:
        rows.append(("note", "the sums have opposite signs: eq. 1 is at its ceiling |Σ_X s + Σ_Y s| and "
                             "p is the share of re-partitions that also straddle 0 (ties counted)"))
    return rows


def _interval(result, key: str) -> str:
    """``"  [low, high] 95%"`` of one of MWEAT's sums, when the result has their bootstrap."""
    boot = (getattr(result, "bootstrap_sums", None) or {}).get(key)
    if boot is None or boot.low is None:
        return ""
    return f"  [{boot.low:.4g}, {boot.high:.4g}] {100 * boot.confidence:g}%"


def _signed(result) -> list[tuple[str, str]]:
    """MWEAT's signed ``|Σ_X s| − |Σ_Y s|`` with its interval: what the interval is of."""
    signed = getattr(result, "signed_statistic", None)
    if signed is None:
        return []
    boot = result.bootstrap
    shown = f"{signed:.6g}"
    if boot is not None and boot.low is not None and boot.quantity == "signed_statistic":
        holds = "holds 0" if boot.low <= 0 <= boot.high else "excludes 0"
        shown += f"  [{boot.low:.4g}, {boot.high:.4g}] {100 * boot.confidence:g}% over the words ({holds})"
    return [("|Σ_X s| − |Σ_Y s| (signed)", shown)]


def mweat_table(result, top: int = 10) -> Group:
    """Summary of an :class:`~geobias.metrics.MweatResult` and its ``top`` most biased pairs."""
    summary = _summary(
        "MWEAT (Zhou et al. 2019, eq. 1)",
        [
            ("statistic", f"{result.statistic:.6g}"),
            *_signed(result),
            ("p-value", _p(result)),
            ("Σ s(masculine)", f"{result.sum_masculine:.6g}" + _interval(result, "sum_masculine")),
            ("Σ s(feminine)", f"{result.sum_feminine:.6g}" + _interval(result, "sum_feminine")),
            *_companion(result),
            ("pairs", f"{result.n_pairs} (dropped: {len(result.dropped_pairs)})"),
            ("attribute words", f"{result.n_a} male, {result.n_b} female"),
            ("permutation", "within pairs (extension)" if result.paired else "union X∪Y (paper)"),
            ("similarity", result.similarity),
            ("missing words", _missing(result.missing)),
        ],
    )
    pairs = Table(title=f"Most biased pairs (top {min(top, len(result.per_word))})", title_justify="left")
    for col in ("masculine", "feminine", "english", "s(masc.)", "s(fem.)", "bias"):
        pairs.add_column(col, justify="right" if col.startswith(("s(", "bias")) else "left")
    ranked = sorted(result.per_word, key=lambda p: p.bias, reverse=True)[:top]
    for p in ranked:
        pairs.add_row(
            *map(Text, (p.masculine, p.feminine, p.english)),
            f"{p.s_masculine:+.4f}", f"{p.s_feminine:+.4f}", f"{p.bias:.4f}",
        )
    note = Text("s > 0: closer to the male attribute words; bias = ||s_m| − |s_f|| (|s| for a one-form noun).", style="dim")
    return Group(summary, pairs, note, *_bootstrap(result))


def _bootstrap(result) -> list:
    """The result's bootstrap table, when it has one (a ``BootstrapResult`` renders itself), else
    the note saying why it has none."""
    from geobias.stats.bootstrap import bootstrap_lines

    return bootstrap_lines(result)


def weat_table(result, top: int = 5) -> Group:
    """Summary of a :class:`~geobias.metrics.WeatResult` and the extreme target words."""
    es = "n/a" if result.effect_size is None else f"{result.effect_size:.4f}"
    es0 = "n/a" if result.effect_size_ddof0 is None else f"{result.effect_size_ddof0:.4f}"
    summary = _summary(
        f"WEAT{f' {result.test}' if result.test else ''} (Caliskan et al. 2017)",
        [
            ("statistic", f"{result.statistic:.6g}"),
            ("effect size", f"{es} (ddof={result.effect_size_ddof}; ddof=0: {es0})"),
            ("p-value", _p(result)),
            ("sizes", f"X {result.n_x}, Y {result.n_y}, A {result.n_a}, B {result.n_b}"),
            ("similarity", result.similarity),
            ("missing words", _missing(result.missing)),
        ],
    )
    ranked = sorted(result.per_word, key=lambda w: w.s, reverse=True)
    cut = len(ranked) > 2 * top
    shown = ranked[:top] + ranked[-top:] if cut else ranked
    which = (f": the {top} most and the {top} least associated of {len(ranked)} (--json, or --csv --items, for every word)"
             if cut else "")
    words = Table(title=f"Target words by association s(w, A, B){which}", title_justify="left")
    for col in ("set", "word", "s"):
        words.add_column(col, justify="right" if col == "s" else "left")
    for i, w in enumerate(shown):
        words.add_row(w.target, Text(w.word), f"{w.s:+.4f}", end_section=cut and i == top - 1)
    return Group(summary, words, *_bootstrap(result))


def _seat_p(result) -> list[tuple[str, str]]:
    """SEAT's default p (over the words, or a test file's sentences) and May et al.'s sentence test
    beside it when the default is over the words."""
    how = "exact" if result.exact else f"{result.n_permutations:,} permutations, seed {result.seed}"
    if result.exact:
        how += f", {result.n_permutations:,} partitions"
    rows = [("p-value", f"{result.p_value:.4g}  [over the {result.p_unit}: {how}; one-sided]")]
    if result.p_unit == "words" and result.sentence_p_value is not None:
        kind = "exact" if result.sentence_exact else "sampled"
        rows.append(("sentence test (May et al.)", f"{result.sentence_p_value:.4g}  [{kind}; treats the sentences of one "
                                                   "word as independent: not the default p]"))
    return rows


def seat_table(result) -> Group:
    """Summary of a :class:`~geobias.metrics.seat.SeatResult`; with several test files, one row per
    test after the first's summary."""
    n = result.n_sentences
    sets = f"X {n['X']}, Y {n['Y']}, A {n['A']}, B {n['B']}"
    cats = result.categories
    rows = [
        ("encoder", result.encoder),
        ("statistic", f"{result.statistic:.6g}"),
        ("effect size", "n/a" if result.effect_size is None else f"{result.effect_size:.4f} (ddof=1)"),
        *_seat_p(result),
        ("sentences", sets + ("" if result.source else f"; {result.n_gendered_words} words with their gender's articles")),
    ]
    if cats:
        rows.append(("categories", f"X {cats['X']}, Y {cats['Y']}; A {cats['A']}, B {cats['B']}"))
    if result.source:
        rows.append(("test file", result.source))
    if result.examples:
        rows.append(("examples (X)", " · ".join(result.examples[:4])))
    lang = f", {result.lang}" if result.lang else ""
    parts = [_summary(f"SEAT {result.test} (May et al. 2019{lang})", rows)]
    if result.more_tests:
        every = Table(title="Every test", title_justify="left")
        for col in ("test", "X vs Y; A vs B", "sentences", "effect size", "p", "over"):
            every.add_column(col, justify="right" if col in ("effect size", "p") else "left")
        for r in (result, *result.more_tests):
            c, k = r.n_sentences, r.categories
            es = "n/a" if r.effect_size is None else f"{r.effect_size:+.4f}"
            names = f"{k['X']} vs {k['Y']}; {k['A']} vs {k['B']}" if k else ""
            every.add_row(Text(r.test), Text(names), f"{c['X']}/{c['Y']}/{c['A']}/{c['B']}", es, f"{r.p_value:.4g}",
                          f"{r.p_unit}{' (exact)' if r.exact else ''}")
        parts.append(every)
    if result.sentences:
        for key in ("X", "Y", "A", "B"):
            listed = result.sentences.get(key) or []
            parts.append(Text(f"{key} ({len(listed)}): " + " · ".join(listed)))
    return Group(*parts, *_bootstrap(result))


def _lda_baselines(result) -> list[tuple[str, str]]:
    base = getattr(result, "lda_baselines", None)
    if not base:
        return []
    return [("LDA baseline: majority class", f"{base['majority']['accuracy']:.4f} (same folds)"),
            ("LDA baseline: spelling", f"{base['orthographic']['accuracy']:.4f} ({base['orthographic_model']})")]


def directions_table(result) -> Table:
    """Summary of a :class:`~geobias.directions.GenderDirections`."""
    evr = ", ".join(f"{v:.3f}" for v in result.explained_variance_ratio[:10])
    no_lda = "n/a (no masculine/feminine noun lists)" if getattr(result, "note", None) else "n/a (no grammatical gender)"
    acc = no_lda if result.lda_cv_accuracy is None else (
        f"{result.lda_cv_accuracy:.4f} (folds: {', '.join(f'{a:.3f}' for a in result.lda_cv_fold_accuracy)})"
    )
    cos_pg = "n/a" if result.cos_pca_grammatical is None else f"{result.cos_pca_grammatical:+.4f}"
    missing = result.missing
    return _summary(
        f"Gender directions ({result.lang or 'custom lists'}; Zhou et al. 2019 §3)",
        [
            ("definitional pairs used", str(result.n_pairs)),
            ("explained variance ratio", evr),
            ("LDA 5-fold CV accuracy" if len(result.lda_cv_fold_accuracy) == 5 else "LDA CV accuracy", acc),
            *_lda_baselines(result),
            ("nouns ({})".format("/".join(getattr(result, "classes", ("masculine", "feminine")))),
             " / ".join(str(v) for v in result.n_nouns.values())),
            ("LDA solver", result.lda_solver or "n/a"),
            ("cos(d_PCA, d_g)", cos_pg),
            ("cos(d_s, d_PCA)", f"{result.cos_semantic_pca:+.4f}"),
            ("missing pair words", _missing(missing.get("definitional_pairs", []))),
            ("missing nouns", str(len(missing.get("nouns", [])))),
            *([("note", result.note)] if getattr(result, "note", None) else []),
        ],
    )


def render(console: Console, renderable) -> None:
    console.print(renderable)


def render_evaluation(console, result, lang: str, permutations: int, seed: int) -> None:
    """Zhou et al. (2019) Tables 1–2 layout: metrics as rows, mitigation methods as columns.

    P@k are shown in percent; every other value as computed. Coverage is printed below.
    """
    from rich import box

    from geobias.evaluation.bilingual import (
        COUNT_METRICS,
        METHOD_KEYS,
        METRIC_LABELS,
        REVERSED_TEST_NOTE,
    )

    methods = [k for k in METHOD_KEYS if k in result.table] + [k for k in result.table if k not in METHOD_KEYS]
    tab = Table(
        title=f"Bias and utility, {lang.upper()}–EN bilingual space (Zhou et al. 2019, Tables 1–2)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    tab.add_column("metric", no_wrap=True)
    for k in methods:
        header = METHOD_KEYS[k].replace(" ", "\n", 1).replace("-", "-\n", 1)  # two-line headers fit 80 columns
        tab.add_column(header, justify="right", no_wrap=True, min_width=7)
    for key, label in METRIC_LABELS.items():
        values = [result.table[k].get(key) for k in methods]
        if all(v is None for v in values):
            continue
        pct = key.startswith("p_at_")
        count = key in COUNT_METRICS
        cells = ("—" if v is None else (f"{100 * v:.1f}" if pct else f"{v:,.0f}" if count else f"{v:.4f}")
                 for v in values)
        tab.add_row(label.replace("src", lang), *cells)
    console.print(tab)
    cov = result.coverage
    tr = cov.get("translation_src_tgt", {})
    reversed_pairs = "translation_tgt_src_reversed" in cov
    back = cov.get("translation_tgt_src_reversed" if reversed_pairs else "translation_tgt_src", {})
    an = cov.get("analogy", {})
    console.print(
        f"translation queries covered: {tr.get('queries')} of {tr.get('source_words')} "
        f"(en→{lang}: {back.get('queries')} of {back.get('source_words')}); MWEAT pairs: "
        f"{cov.get('mweat', {}).get('n_pairs')}; similarity pairs: "
        f"{cov.get('similarity', {}).get('covered')} of {cov.get('similarity', {}).get('pairs')}"
    )
    adjs = ", ".join(a[2] for a in an.get("adjectives", []))
    console.print(
        f"word-pair translation (§4.3): {an.get('occupations')} occupations × {len(an.get('adjectives', []))} "
        f"adjectives ({adjs}) = {an.get('queries_per_gender')} queries per gender; S_i excluded"
    )
    if reversed_pairs:
        console.print(REVERSED_TEST_NOTE.format(lang=lang, LANG=lang.upper()))
    inan = cov.get("inanimate_nouns", {})
    console.print(f"inanimate nouns (b_w = |s(w)|, eq. 2's neutralised set): {inan.get('in_vocabulary')} in "
                  f"vocabulary of {inan.get('listed')} listed")
    for k in methods:
        top = result.details.get(k, {}).get("most_biased_inanimate", [])
        if top:
            console.print(f"  most biased inanimate nouns, {METHOD_KEYS[k]}: "
                          + ", ".join(f"{w} {b:.3f}" for w, b in top))
    console.print(
        f"P@k in %; MWEAT (Table 1): {lang} occupations vs {lang} attribute words, "
        f"{permutations:,} permutations, seed {seed}. Rows marked (ours) are not in the paper: "
        "Σ_X s − Σ_Y s with its one-sided p and effect size, and MWEAT with the English attribute "
        "words in the shared space."
    )


def correlation_table(result, top: int | None = None) -> Group:
    """Per-occupation English WEAT association vs the signed MWEAT bias of the same occupation in
    the gendered language, then Spearman ρ, its p-value and n (Zhou et al. 2019 §4.4, Figure 4).

    Rows are sorted by the English association (most male-associated first); ``top`` keeps the
    first and last ``top // 2`` rows (``None``: every row).
    """
    rows = sorted(result.per_occupation, key=lambda r: r["weat_en"], reverse=True)
    if top is not None and len(rows) > top:
        rows = rows[: top // 2] + rows[-(top - top // 2):]
    t = Table(title="Per-occupation bias: English WEAT vs MWEAT (Zhou et al. 2019, Figure 4)", title_justify="left")
    for col in ("english", "masculine", "feminine", "s(E, A_en, B_en)", "|s(w_m)| − |s(w_f)|"):
        t.add_column(col, justify="right" if col.startswith(("s(", "|")) else "left")
    for r in rows:
        t.add_row(Text(r["english"]), Text(r["masculine"]), Text(r["feminine"]),
                  f"{r['weat_en']:+.4f}", f"{r['mweat_signed']:+.4f}")
    summary = _summary("Spearman correlation", [
        ("ρ", f"{result.spearman:.3f}"),
        ("p-value", f"{result.p_value:.3g} (two-sided, scipy.stats.spearmanr)"),
        ("n", f"{result.n_occupations} occupations"),
        ("missing words", _missing(result.missing)),
    ])
    return Group(t, summary)
