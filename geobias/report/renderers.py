"""The table and figure renderers of every result type (see :mod:`geobias.report.registry`).

A renderer takes the console, the result, and the options it names: the command's parameters
(``lang``, ``permutations``, ``seed``, ...), ``inputs`` (the envelope's inputs: the stores a
run resolved) and presentation options such as ``top``.
"""

from __future__ import annotations

from rich.table import Table

from geobias.report import contextual, tables
from geobias.report.registry import figure, table


@table("geobias.metrics.mweat.MweatResult")
def mweat(console, result, top: int = 10) -> None:
    tables.render(console, tables.mweat_table(result, top=top))


@table("geobias.metrics.weat.WeatResult")
def weat(console, result) -> None:
    tables.render(console, tables.weat_table(result))


@table("geobias.metrics.seat.SeatResult")
def seat(console, result) -> None:
    tables.render(console, tables.seat_table(result))


@table("geobias.directions.GenderDirections")
def directions(console, result) -> None:
    tables.render(console, tables.directions_table(result))


@table("geobias.store.neighbors.NeighborsResult")
def neighbors(console, r) -> None:
    t = Table(title=f"nearest neighbours of {r.word!r} ({r.source})")
    t.add_column("#", justify="right")
    t.add_column("word")
    t.add_column("cosine", justify="right")
    for i, n in enumerate(r.neighbors, 1):
        t.add_row(str(i), n.word, f"{n.similarity:.4f}")
    console.print(t)


@table("geobias.alignment.procrustes.AlignmentResult")
def alignment(console, r, src: str = "?", tgt: str = "?", inputs: dict | None = None) -> None:
    shape = ((inputs or {}).get("src_vectors") or {}).get("shape")
    n = f"{shape[0]:,} " if shape else ""
    console.print(f"aligned {n}{src} words to {tgt}: {r.n_pairs_used:,} of {r.n_pairs:,} dictionary pairs "
                  f"used ({r.n_oov_pairs:,} with an out-of-vocabulary word)")
    if r.refinements:
        console.print(f"refinement dictionary sizes: {', '.join(map(str, r.refinements))}")


@table("geobias.alignment.translation.TranslateEvalResult")
def translate_eval(console, r) -> None:
    nn, cs = r.nn, r.csls
    tab = Table(title=f"Word translation {r.src} → {r.tgt}")
    tab.add_column("retrieval")
    for k in nn["precision"]:
        tab.add_column(k.replace("p_at_", "P@"), justify="right")
    for res in (nn, cs):
        tab.add_row(res["method"].upper(), *(f"{100 * v:.1f}" for v in res["precision"].values()))
    console.print(tab)
    console.print(f"queries covered: {nn['n_queries']:,} of {nn['n_source_words']:,} source words "
                  f"({100 * nn['coverage']:.1f}%); {nn['n_oov_pairs']:,} pairs with an out-of-vocabulary word")


@table("geobias.evaluation.bilingual.EvaluationResult")
def evaluation(console, result, lang: str = "src", permutations: int = 0, seed: int = 0) -> None:
    tables.render_evaluation(console, result, lang, permutations, seed)


@table("geobias.evaluation.erasure.ErasureTableResult")
def erasure(console, result) -> None:
    from geobias.report import erasure as er

    if result.lang == "en":
        er.render_english(console, result)
    else:
        er.render_erasure(console, result)


@table("geobias.evaluation.correlate.CorrelationResult")
def correlation(console, result) -> None:
    tables.render(console, tables.correlation_table(result))


@table("geobias.mitigation.runner.MitigateResult")
def mitigation(console, r) -> None:
    if r.report.get("n_pairs_shifted") is not None:
        console.print(f"{r.report['n_pairs_shifted']} two-form pairs shifted; cos(d_PCA, d_g) = "
                      f"{r.report.get('cos_pca_grammatical')}")
    if r.report.get("n_neutralized") is not None:
        console.print(f"{r.report['n_neutralized']:,} words neutralised by eq. 2 "
                      f"({r.report.get('neutralize')}; d_PCA from {', '.join(r.report.get('pca_languages') or [])})")


@table("geobias.mitigation.hard_debias.HardDebiasReport")
def hard_debias(console, r) -> None:
    console.print(f"DirectBias_1 over {r.n_neutral_words} held-out professions ({r.neutral_source}): "
                  f"{r.direct_bias_before:.4f} → {r.direct_bias_after:.6f} (protected set: {r.protect})")
    if r.held_out_excluded:
        console.print(f"left out (on a list that fits the method): {', '.join(r.held_out_excluded)}")
    console.print(f"{r.n_gender_specific} gender-specific words kept, {r.n_equalize_pairs} pairs equalised")
    if r.missing:
        console.print(f"not in vocabulary: {', '.join(r.missing[:10])}")


@table("geobias.sources.info.SourceList")
def source_list(console, result) -> None:
    t = Table(title=f"vector sources (installed under {result.vectors_dir})")
    t.add_column("name", no_wrap=True)
    t.add_column("lang")
    t.add_column("shape", no_wrap=True, justify="right")
    t.add_column("licence")
    t.add_column("installed")
    for r in result.sources:
        n, d = r.shape
        shape = f"{n:,} × {d}" if n else f"? × {d}"
        t.add_row(r.name, r.lang, shape, r.licence.split(" (")[0], "yes" if r.installed else "no")
    console.print(t)


@table("geobias.sources.registry.InstallResult")
def install(console, r) -> None:
    if r.already_installed:
        console.print(f"{r.name} is already installed at {r.path} ({r.n_words:,} × {r.dim}); --force rebuilds it")
        return
    check = {True: ", sha256 verified", False: ", sha256 MISMATCH", None: ""}[r.verified]
    console.print(f"installed {r.name}: {r.n_words:,} × {r.dim} at {r.path}{check} (from {r.origin})")


@table("geobias.sources.info.VectorsInfo")
def vectors_info(console, r) -> None:
    t = Table(show_header=False, title=r.name or r.path)
    rows = [("path", r.path), ("format", r.format)]
    if r.installed is not None:
        rows.append(("installed", "yes" if r.installed else "no (run `geobias vectors install " + str(r.name) + "`)"))
    rows += [("shape", f"{r.n_words} × {r.dim}"), ("lang", r.lang)]
    if r.mean_norm is not None:
        rows.append(("mean norm", f"{r.mean_norm:.4f}"))
    if r.sha256_vectors:
        rows.append(("sha256 vectors.npy", f"{r.sha256_vectors} ({'ok' if r.sha256_ok else 'MISMATCH'})"))
    if r.first_words:
        rows.append(("first words", " ".join(r.first_words)))
    for key in ("licence", "provenance", "url", "package"):
        if r.provenance.get(key):
            rows.append((key, str(r.provenance[key])))
    for k, v in rows:
        t.add_row(k, str(v))
    console.print(t)


@table("geobias.contextual.pooling.PooledStoreFile")
def pooled(console, r) -> None:
    """Nothing on stdout: the command's note names the store written."""


@table("geobias.evaluation.audit.AuditResult")
def audit(console, res) -> None:
    t = Table(title=f"audit {res.config}: {res.n_ok} ok, {res.n_failed} failed ({res.engine['engine']} engine)")
    for c in ("store", "test", "lang", "statistic", "effect size", "p", "n"):
        t.add_column(c, justify="left" if c in ("store", "test") else "right")
    failed = []
    for c in res.cells:
        if c["status"] == "ok":
            s = c["summary"]
            es = s.get("effect_size")
            t.add_row(c["store"], c["test"], c["lang"], f"{s['statistic']:+.4g}",
                      "-" if es is None else f"{es:+.3f}", f"{s['p_value']:.3g}", str(s["n"]))
        else:
            t.add_row(c["store"], c["test"], c["lang"], "failed", "", "", "")
            failed.append(c)
    console.print(t)
    for c in failed:
        console.print(f"failed {c['store']} x {c['test']} x {c['lang']}: {c['error']}", markup=False)
    for s in res.skipped:
        console.print(f"skipped {s['store']} x {s['lang']}: {s['reason']}")


@table("geobias.contextual.kurita.AssociationResult")
def association(console, res) -> None:
    contextual.render_association(console, res)


@table("geobias.contextual.becpro.BecProResult")
@table("geobias.contextual.becpro.BecProComparison")
def becpro(console, res) -> None:
    contextual.render_becpro(console, res)


@table("geobias.contextual.malor.MalorResult")
def malor(console, res) -> None:
    contextual.render_malor(console, res)


@table("geobias.contextual.sentiment.SentimentProbeResult")
def sentiment(console, res) -> None:
    contextual.render_sentiment(console, res)


@table("geobias.contextual.crows_pairs.CrowsPairsResult")
def crows_pairs(console, res) -> None:
    contextual.render_crows_pairs(console, res)


@table("geobias.contextual.stereoset.StereoSetResult")
def stereoset(console, res) -> None:
    contextual.render_stereoset(console, res)


@table("geobias.contextual.becpro.BecProCorpusFile")
def becpro_corpus(console, r) -> None:
    """Nothing on stdout: the command's note names the file written."""


@table("geobias.contextual.cda.CdaSummary")
def cda(console, res) -> None:
    what = "added" if res.mode == "cda" else "substituted"
    console.print(
        f"{res.mode.upper()}: {res.n_documents} documents in, {res.n_output} out "
        f"({res.n_counterfactual} counterfactuals {what}, {res.n_substitutions} words swapped) → {res.output}"
    )


@table("geobias.contextual.finetune.FinetuneResult")
def finetune(console, res) -> None:
    console.print(
        f"fine-tuned {res.model} for {res.steps} steps ({res.epochs} epoch(s), batch {res.batch_size}, lr {res.lr:g}) "
        f"on {res.n_sequences} sequences ({res.n_documents} documents, CDA mode {res.cda}) in {res.seconds:.1f} s on "
        f"{res.device}"
    )
    console.print(f"MLM loss on the fixed evaluation batch ({res.n_eval_sequences} sequences): "
                  f"{res.loss_before:.4f} → {res.loss_after:.4f}")


@table("geobias.contextual.sentiment_finetune.ClassifierFinetuneResult")
def finetune_classifier(console, res) -> None:
    mode = "head only, frozen encoder" if res.freeze_encoder else "full fine-tuning"
    console.print(
        f"trained {res.model} ({mode}) for {res.steps} steps ({res.epochs} epoch(s), batch {res.batch_size}, "
        f"lr {res.lr:g}) on {res.n_sequences} sequences: condition {res.condition}, terms {res.terms} "
        f"({res.n_with_terms} of {res.n_texts} texts hold a listed term), {res.seconds:.1f} s on {res.device}"
    )
    console.print(f"cross-entropy on the fixed evaluation batch: {res.loss_before:.4f} → {res.loss_after:.4f}")
    if res.test_accuracy is not None:
        console.print(f"held-out test ({res.n_test} texts): accuracy {res.test_accuracy:.4f}, F1 (positive) "
                      f"{res.test_f1:.4f}")


@table("geobias.store.verify.VerifyResult")
def verify(console, r) -> None:
    t = Table(title="stores re-hashed against their recorded sha256")
    t.add_column("store", no_wrap=True)
    t.add_column("files")
    t.add_column("MB", justify="right")
    t.add_column("MB/s", justify="right")
    t.add_column("result")
    for c in r.stores:
        rate = c.bytes / 1e6 / c.seconds if c.seconds > 0 else float("nan")
        t.add_row(c.name, ", ".join(c.files), f"{c.bytes / 1e6:,.1f}", f"{rate:,.0f}",
                  "changed: " + ", ".join(c.changed) if c.changed else "ok")
    console.print(t)


# ------------------------------------------------------------------------------ figures
# Drawn from the result, the same on every front door (the service's report pages, their PNG/SVG
# downloads). Each reads the result's JSON form, so that a stored envelope draws as a fresh run.
# A metric's figure (WEAT's, MWEAT's) is declared in its module instead (geobias.metrics.declaration).
def _data(result) -> dict:
    from geobias.results import jsonable

    data = jsonable(result)
    return data if isinstance(data, dict) else {}


@figure("geobias.evaluation.bilingual.EvaluationResult", title="per-method MWEAT bars")
def evaluation_bars(result):
    from geobias.report.plots import plot_bars

    data = _data(result)
    table = data["table"] if isinstance(data.get("table"), dict) else {k: v for k, v in data.items()
                                                                         if isinstance(v, dict)}
    methods = list(table)
    stats = [table[m].get("mweat_statistic") if isinstance(table[m], dict) else None for m in methods]
    if not any(s is not None for s in stats):
        return None
    return plot_bars(methods, [s or 0.0 for s in stats], "MWEAT statistic per method", "MWEAT statistic")


@figure("geobias.contextual.malor.MalorResult", title="per-occupation bars")
def malor_bars(result):
    from geobias.report.plots import plot_bars

    per_occupation = _data(result).get("per_occupation") or []
    if not per_occupation:
        return None
    occ = sorted(per_occupation, key=lambda o: -abs(o["log2_ratio"]))[:25]
    return plot_bars([o["occupation"] for o in occ], [o["log2_ratio"] for o in occ],
                     "log2 P(male)/P(female) per occupation (+ = male)", "log2 ratio")


def _interval(data: dict, key: str = "bootstrap") -> tuple[float | None, float | None]:
    b = data.get(key)
    return (b.get("low"), b.get("high")) if isinstance(b, dict) else (None, None)


@figure("geobias.metrics.weat.WeatResult", title="effect size and per-word associations")
def weat_effect(result):
    """WEAT's effect size with its bootstrap interval over the words (the line at 0 is "no bias"),
    above the per-word associations its metric declares."""
    from geobias.metrics.declaration import figure_of
    from geobias.report.plots import plot_effects

    data = _data(result)
    low, high = _interval(data)
    spec = figure_of(result)
    bars = spec.draw(data) if spec is not None else None
    label = data.get("test") or "X vs Y"
    return plot_effects([(label, data.get("effect_size"), low, high, data.get("p_value"))],
                        title="WEAT effect size d (ddof=1) with its bootstrap interval over the words",
                        xlabel="effect size d", bars=bars if hasattr(bars, "labels") else None)


@figure("geobias.contextual.crows_pairs.CrowsPairsResult", title="preference with its interval, per bias type")
def crows_pairs_preference(result):
    """The share of the non-neutral pairs preferring ``sent_more``, overall and per bias type, with
    its exact interval (the line at 50 % is "no preference")."""
    from geobias.report.plots import plot_effects

    data = _data(result)
    overall = data.get("preference") or {}
    rows = [("all pairs", overall.get("share"), *(overall.get("share_ci") or (None, None)), overall.get("p_value"))]
    for direction in ("stereo", "antistereo"):
        p = data.get(f"{direction}_preference") or {}
        if p.get("share") is not None:
            n = p.get("n_for", 0) + p.get("n_against", 0) + p.get("n_ties", 0)
            rows.append((f"{direction} pairs ({n:,})", p["share"], *p["share_ci"], p.get("p_value")))
    types = sorted((data.get("by_bias_type") or {}).items(), key=lambda kv: -kv[1].get("n", 0))
    rows += [(f"{kind} ({v.get('n', 0):,})", v.get("share"), *(v.get("share_ci") or (None, None)), v.get("p_value"))
             for kind, v in types]
    if not any(r[1] is not None for r in rows):
        return None
    return plot_effects(rows, title=f"CrowS-Pairs, {data.get('model') or 'model'}: sent_more preferred among the "
                                    "non-neutral pairs, with exact 95 % intervals", xlabel="% of non-neutral pairs",
                        null=50.0)


@figure("geobias.contextual.stereoset.StereoSetResult", title="SS with its interval, per bias type")
def stereoset_ss(result):
    """SS overall and per bias type with its interval over the target terms; the dashed line is "no
    preference" (50, or, where examples tie, SS less its no-preference value against 0)."""
    from geobias.report.plots import plot_effects

    data = _data(result)
    entries = [("all examples", data, data.get("n_examples"))]
    types = sorted((data.get("by_bias_type") or {}).items(), key=lambda kv: -kv[1].get("n", 0))
    entries += [(kind, v, v.get("n")) for kind, v in types]
    nulls = [e.get("ss_null") for _, e, _ in entries]
    shift = any(n is not None and n != 50.0 for n in nulls)  # ties: each row has its own no-preference value
    rows = []
    for (label, e, n), null in zip(entries, nulls, strict=True):
        low, high = e.get("ss_ci") or (None, None)
        off = (null if null is not None else 50.0) if shift else 0.0
        est = e.get("ss")
        rows.append((f"{label} ({n or 0:,})", None if est is None else est - off,
                     None if low is None else low - off, None if high is None else high - off, e.get("p_value")))
    if not any(r[1] is not None for r in rows):
        return None
    return plot_effects(rows, title=f"StereoSet, {data.get('model') or 'model'}: SS with its 95 % interval over the "
                                    "target terms", xlabel="SS − its no-preference value (ties)" if shift else "SS",
                        null=0.0 if shift else 50.0)


@figure("geobias.metrics.seat.SeatResult", title="effect sizes with their intervals")
def seat_effects(result):
    """SEAT's effect size of each test (the first, then ``more_tests``) with its bootstrap interval."""
    from geobias.report.plots import plot_effects

    data = _data(result)
    tests = [data, *(t for t in data.get("more_tests") or [] if isinstance(t, dict))]
    rows = [(t.get("test") or "SEAT", t.get("effect_size"), *_interval(t), t.get("p_value")) for t in tests]
    if not any(r[1] is not None for r in rows):
        return None
    return plot_effects(rows, title=f"SEAT effect sizes ({data.get('encoder') or 'encoder'}, {data.get('lang', '')}) "
                                    "with bootstrap intervals", xlabel="effect size d")


@figure("geobias.metrics.ripa.RipaResult", title="RIPA per word")
def ripa_bars(result):
    """RIPA of each target word (the 30 of largest |RIPA|), with its interval over the defining pairs."""
    from geobias.report.plots import plot_bars

    data = _data(result)
    words, values = data.get("words") or [], data.get("ripa") or []
    if not words:
        return None
    intervals = data.get("word_intervals") or [None] * len(words)
    order = sorted(range(len(words)), key=lambda i: -abs(values[i] or 0.0))[:30]
    colours = ["#1f77b4" if (values[i] or 0) > 0 else "#ff7f0e" for i in order]
    return plot_bars([words[i] for i in order], [values[i] or 0.0 for i in order],
                     f"RIPA per word ({len(order)} of {len(words)} by |RIPA|; blue: towards the first form of the pairs)",
                     "RIPA ⟨w, r⟩", colours, intervals=[intervals[i] for i in order])


@figure("geobias.evaluation.correlate.CorrelationResult", title="per-occupation scatter")
def correlation_scatter(result, lang: str = ""):
    """Per-occupation WEAT(EN) against signed MWEAT (Zhou et al. 2019, Figure 4): what ``--plot`` draws."""
    from geobias.report.plots import plot_correlation

    data = _data(result)
    rows = data.get("per_occupation") or []
    if not rows:
        return None
    return plot_correlation([r["english"] for r in rows], [r["weat_en"] for r in rows],
                            [r["mweat_signed"] for r in rows], rho=data["spearman"], p_value=data["p_value"],
                            lang=lang or data.get("lang") or "")


@figure("geobias.store.neighbors.NeighborsResult", title="neighbour similarities")
def neighbor_bars(result):
    from geobias.report.plots import plot_bars

    data = _data(result)
    found = data.get("neighbors") or []
    if not found:
        return None
    return plot_bars([n["word"] for n in found], [n["similarity"] for n in found],
                     f"nearest neighbours of {data.get('word', '')!r}", "cosine similarity")
