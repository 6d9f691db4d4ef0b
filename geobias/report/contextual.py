"""Rich renderers for the contextual probes (association, BEC-Pro, MALoR, sentiment, CrowS-Pairs, StereoSet).

``render_*(console, result)`` prints a probe's result on a rich console; the CLI and the
service's result pages call the same function. rich is imported inside the functions.
"""

from __future__ import annotations

from pathlib import Path


def render_association(console, res) -> None:
    """Print a Kurita et al. (2019) association result: the first 50 sentences and the mean."""
    from rich.table import Table

    t = Table(title=f"Kurita association — {res.model}")
    for c in ("sentence", "ln p_T", "ln p_prior", "association"):
        t.add_column(c, justify="left" if c == "sentence" else "right")
    for s, a, b, c in zip(res.sentences[:50], res.log_p_target, res.log_p_prior, res.association, strict=False):
        t.add_row(s, f"{a:.4f}", f"{b:.4f}", f"{c:+.4f}")
    console.print(t)
    if len(res.sentences) > 50:
        console.print(f"(first 50 of {len(res.sentences)} sentences; --json prints all)")
    console.print(
        f"mean association {res.association.mean():+.4f} over {len(res.sentences)} sentences; "
        f"forward passes: {res.n_distinct_target_masked} target-masked + {res.n_distinct_prior_masked} prior inputs"
    )


def render_becpro(console, res) -> None:
    """Print a :class:`~geobias.contextual.becpro.BecProResult` (Bartl et al. 2020, Table 4, and the
    group tests), or both results and the pre/post Wilcoxon tests of a ``BecProComparison``."""
    from rich.table import Table

    from geobias.contextual.becpro import BecProComparison

    if isinstance(res, BecProComparison):
        render_becpro(console, res.pre)
        render_becpro(console, res.post)
        t = Table(title=f"pre ({res.pre.model}) vs post ({res.post.model}): Wilcoxon signed-rank")
        for c in ("professions", "person", "mean pre", "mean post", "W", "p", "z", "r = z/√N", "N"):
            t.add_column(c, justify="right")
        for c in res.tests:
            w = c.test
            t.add_row(c.group, c.gender, f"{c.mean_pre:+.4g}", f"{c.mean_post:+.4g}", f"{w.statistic:.0f}",
                      f"{w.p_value:.3g}", f"{w.z:+.2f}", f"{w.r:+.3f}", str(w.n))
        console.print(t)
        return
    t = Table(title=f"BEC-Pro {res.lang.upper()} — mean association ln(p_T/p_prior), {res.model}")
    t.add_column("professions")
    t.add_column("male person words", justify="right")
    t.add_column("female person words", justify="right")
    cells = {(c.group, c.gender): c for c in res.table}
    for g in ("male", "female", "balanced"):
        m, f = cells[(g, "male")], cells[(g, "female")]
        t.add_row(g, f"{m.mean:+.4g} (sd {m.std:.3g})", f"{f.mean:+.4g} (sd {f.std:.3g})")
    console.print(t)
    w = Table(title="male vs female person words, Wilcoxon signed-rank (paired by template, profession, person pair)")
    for c in ("professions", "W", "p", "z", "r = z/√N", "N pairs", "mean diff"):
        w.add_column(c, justify="right")
    for gt in res.tests:
        x = gt.test
        w.add_row(gt.group, f"{x.statistic:.0f}", f"{x.p_value:.3g}", f"{x.z:+.2f}", f"{x.r:+.3f}", str(x.n), f"{x.mean_difference:+.4g}")
    console.print(w)
    console.print(
        f"{res.n_sentences} sentences; forward passes: {res.n_distinct_target_masked} target-masked + "
        f"{res.n_distinct_prior_masked} prior inputs"
    )


def render_malor(console, res) -> None:
    """Print a MALoR result (Hossain et al. 2025): the score, the reverse probe and the most
    gender-skewed occupations."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text.assemble(f"MALoR ({res.pair}) of {res.model}: ", (f"{res.malor:.4f}", "bold"),
                                f" bits over {res.n_occupations} occupations x {res.n_templates} templates"))
    if res.reverse_malor is not None:
        console.print(f"reverse MALoR (occupation masked): {res.reverse_malor:.4f} bits")
    if res.missing_names:
        console.print(f"names not single tokens (left out): {', '.join(res.missing_names)}")
    if res.missing_occupations:
        console.print(f"occupations not single tokens (left out of the reverse probe): {', '.join(res.missing_occupations)}")
    t = Table(title="most gender-skewed occupations (log2 P(male)/P(female); + = male)")
    for c in ("occupation", "forward", "reverse"):
        t.add_column(c, justify="right")
    for o in sorted(res.per_occupation, key=lambda o: -abs(o.log2_ratio))[:15]:
        t.add_row(o.occupation, f"{o.log2_ratio:+.3f}", "-" if o.reverse_log2_ratio is None else f"{o.reverse_log2_ratio:+.3f}")
    console.print(t)


def _wide(console, width: int):
    """``console``, or, where it is a rich console printing to a pipe or a file, one at least ``width``
    columns wide on the same file (a wide table's rows would fold in a narrow pipe). A console that
    keeps what is printed (the service's :class:`~geobias.report.registry.Collector`) is returned as it is."""
    from rich.console import Console

    if not isinstance(console, Console) or console.is_terminal:
        return console
    return Console(file=console.file, width=max(console.width, width), soft_wrap=True, markup=False, emoji=False)


def _fmt(x, spec: str = "+.4f") -> str:
    return "–" if x is None or x != x else format(x, spec)


def render_sentiment(console, res) -> None:
    """Print a sentiment-difference result in the layout of Jentzsch & Turan (2022), Table 3."""
    from rich.table import Table

    t = Table(title=f"Sentiment-difference bias sent(M) − sent(F) (Jentzsch & Turan 2022, Table 3); "
              f"Wilcoxon zero_method={res.zero_method}, Bonferroni over {res.n_tests} tests")
    for c in ("scorer", "corpus", "terms", "N<0", "N=0", "N>0", "total (all)", "abs (all)", "std (all)",
              "total (≠0)", "abs (≠0)", "std (≠0)", "p Bonf. (all)", "sig", "p Bonf. (≠0)"):
        t.add_column(c, justify="left" if c in ("scorer", "corpus", "terms") else "right", no_wrap=True)
    for r in res.rows:
        a, z = r.all_samples, r.non_zero
        t.add_row(Path(r.scorer).name or r.scorer, r.corpus, r.terms, str(r.n_negative), str(r.n_zero), str(r.n_positive),
                  _fmt(a.total_bias), _fmt(a.absolute_bias, ".4f"), _fmt(a.std, ".4f"),
                  _fmt(z.total_bias), _fmt(z.absolute_bias, ".4f"), _fmt(z.std, ".4f"),
                  _fmt(r.p_bonferroni, ".3g"), r.significance, _fmt(r.p_bonferroni_non_zero, ".3g"))
    # the paper's layout is one wide table: never squeeze it into a narrow pipe
    console = _wide(console, 220)
    console.print(t)
    console.print("all = all samples, ≠0 = non-zero samples (Table 3 of Jentzsch & Turan 2022); "
                  "bias = sent(M) − sent(F), > 0: male versions rated more positive")
    kept = {}
    for r in res.rows:
        if r.terms in ("pro", "weat", "all"):
            kept.setdefault((r.corpus, r.terms), r.n_without_terms)
    counts = "; ".join(f"{c} {t}: {n} of {next(r.n_samples for r in res.rows if (r.corpus, r.terms) == (c, t))}"
                       for (c, t), n in kept.items())
    console.print(f"texts with no listed term, kept (bias 0, in N=0): {counts or 'none'}")
    console.print("stars on the Bonferroni-corrected p: * < 0.05, ** < 0.01, *** < 0.001")


def render_crows_pairs(console, res) -> None:
    """Print a CrowS-Pairs result (Nangia et al. 2020): the metric score overall and per bias type,
    the stereo / antistereo split, the neutral pairs, and (ours) the share of the non-neutral pairs
    preferring ``sent_more`` with its exact interval and sign test."""
    from rich.table import Table
    from rich.text import Text

    split = ", ".join(f"{name} {v:.2f}" for name, v in (("stereo", res.stereo_score), ("antistereo", res.antistereo_score))
                      if v is not None)
    pref = res.preference
    if pref is None or not res.n_ties:
        null = "50 = no preference"
    else:
        null = f"no preference: {pref.no_preference_score:.2f}, since {res.n_ties:,} neutral pairs never count"
    console.print(Text(f"CrowS-Pairs (Nangia et al. 2020) — {res.model}: metric score {res.metric_score:.2f} % of "
                       f"{res.n_pairs:,} pairs in which sent_more scores higher ({null})"
                       + (f"; {split}" if split else "")))
    if pref is not None:
        if pref.share is None:
            console.print(Text("every pair is neutral: no preference can be tested"))
        else:
            lo, hi = pref.share_ci
            console.print(Text(f"sent_more preferred in {pref.share:.2f} % of the {pref.n_for + pref.n_against:,} "
                               f"non-neutral pairs, {100 * pref.confidence:g} % interval [{lo:.2f}, {hi:.2f}] "
                               f"(Clopper–Pearson, exact; 50 = no preference); sign test of 50 %: "
                               f"p = {pref.p_value:.3g} (exact, two-sided)"))
        parts = [f"{name} pairs {p.share:.2f} % of {p.n_for + p.n_against:,} [{p.share_ci[0]:.2f}, {p.share_ci[1]:.2f}], "
                 f"p = {p.p_value:.3g}"
                 for name, p in (("stereo", res.stereo_preference), ("antistereo", res.antistereo_preference))
                 if p is not None and p.share is not None]
        if parts:
            console.print(Text("the same by direction (non-neutral pairs): " + "; ".join(parts)))
    t = Table(title="By bias type", title_justify="left")
    cols = ("bias type", "pairs", "metric score", "sent_more preferred (non-neutral) %", "95 % interval", "p", "q (BH)")
    for c in cols:
        t.add_column(c, justify="left" if c == "bias type" else "right")
    for kind, v in sorted(res.by_bias_type.items(), key=lambda kv: -kv[1]["n"]):
        ci = v.get("share_ci")
        t.add_row(Text(kind), f"{v['n']:,}", f"{v['metric_score']:.2f}", _fmt(v.get("share"), ".2f"),
                  "–" if ci is None or ci[0] is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]", _fmt(v.get("p_value"), ".3g"),
                  _fmt(v.get("q_value"), ".3g"))
    console.print(t)
    rule = "rounded as metric.py rounds them" if res.comparison == "metric-py" else "unrounded"
    console.print(Text(f"neutral pairs (equal scores, {rule}): {res.n_ties:,}; --json or --csv --items for "
                       "every pair's scores"))


def render_stereoset(console, res) -> None:
    """Print a StereoSet intrasentence result (Nadeem et al. 2021): LMS, SS and ICAT overall and
    per bias type, and (ours) their intervals over the target terms and the test of "no preference"."""
    from rich.table import Table
    from rich.text import Text

    from geobias.contextual.stereoset import PERMUTATIONS

    def with_ci(value: float, v) -> str:  # "84.12 [82.50, 85.70]"; a stored run from before the intervals: the value
        if not v:
            return f"{value:.2f}"
        return f"{value:.2f} [—]" if v[0] is None else f"{value:.2f} [{v[0]:.2f}, {v[1]:.2f}]"

    rows = [*res.by_bias_type.values(), {k: getattr(res, k) for k in ("lms_ci", "ss_ci", "icat_ci")}]
    missing = any((r.get(k) or [0])[0] is None for r in rows for k in ("lms_ci", "ss_ci", "icat_ci"))

    t = Table(title=f"StereoSet intrasentence (Nadeem et al. 2021) — {res.model}", title_justify="left")
    for c in ("bias type", "examples", "LMS [95 %]", "SS [95 %]", "ICAT [≥ 95 %]", "SS, no preference", "p", "q (BH)"):
        t.add_column(c, justify="left" if c == "bias type" else "right")
    for kind, v in sorted(res.by_bias_type.items(), key=lambda kv: -kv[1]["n"]):
        t.add_row(Text(kind), f"{v['n']:,}", with_ci(v["lms"], v.get("lms_ci")), with_ci(v["ss"], v.get("ss_ci")),
                  with_ci(v["icat"], v.get("icat_ci")), _fmt(v.get("ss_null"), ".2f"), _fmt(v.get("p_value"), ".3g"),
                  _fmt(v.get("q_value"), ".3g"))
    t.add_row(Text("overall"), f"{res.n_examples:,}", with_ci(res.lms, res.lms_ci), with_ci(res.ss, res.ss_ci),
              with_ci(res.icat, res.icat_ci), _fmt(res.ss_null, ".2f"), _fmt(res.p_value, ".3g"), "", style="bold")
    console = _wide(console, 160)  # a narrow pipe would fold the columns: keep one row per line
    console.print(t)
    console.print(Text(f"{res.n_targets:,} target terms; LMS: the meaningful word preferred (100 best), SS: the "
                       "stereotype preferred (50 = no preference when no example ties), ICAT = LMS · min(SS, 100 − SS) "
                       "/ 50 (100 best)"))
    if res.p_value is not None:
        exact = bool(res.p_value_ci) and res.p_value_ci[0] == res.p_value_ci[1]
        how = "every labelling enumerated" if exact else f"{res.n_permutations:,} draws, seed 0"
        console.print(Text(f"intervals: expanded percentile bootstrap over the target terms (Student's t with fewer "
                           f"than 6 terms; ICAT: the range of ICAT over LMS's and SS's 97.5 % intervals, at least "
                           f"95 %); p: sign-flip permutation "
                           f"test of no preference over the target terms, two-sided (overall: {how}; every labelling "
                           f"is enumerated where there are at most {PERMUTATIONS:,}, up to {PERMUTATIONS.bit_length() - 1} terms); q: "
                           "Benjamini–Hochberg across the bias types (ours; the paper reports no uncertainty)"))
    if missing:
        console.print(Text("[—]: no interval, where there are fewer than 2 target terms (ICAT: 3) or every term has "
                           "the same value (no spread to read one from)"))
