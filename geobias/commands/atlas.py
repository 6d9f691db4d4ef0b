"""``atlas``: one battery of static-vector bias measures per language of a source family, and its report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from geobias._progress import ProgressArg, reporter
from geobias.choices import AtlasFamily, Engine
from geobias.commands._base import Estimate, Output, Params, command
from geobias.commands._fields import Count, Seed
from geobias.commands._guards import (
    LOST_VOCABULARY_THRESHOLD,
    LostVocabularyThreshold,
)
from geobias.commands._kinds import Force, RayAddress, Spec, capped, engine_setting, local
from geobias.errors import GeobiasError, InputError, ParameterError


def _langs(value: Any) -> Any:
    """A comma list (``"es,fr"``) or a list of language codes, each checked and lower-cased."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        from geobias.languages import get_language

        if not all(isinstance(v, str) for v in value):
            raise ParameterError("langs: each entry is a language code (a string)", "langs")
        codes = [get_language(v).code for v in value]
        if not codes:
            raise InputError("langs is empty; give language codes (es,fr) or leave it out for every language")
        if len(set(codes)) != len(codes):
            raise InputError(f"langs names a language twice: {', '.join(codes)}")
        return codes
    return value


class AtlasParams(Params):
    """Parameters of ``atlas``: the languages of one source family, each through the same battery."""

    family: Annotated[AtlasFamily, Spec(label="Store family")] = Field("use-m3", description=(
        "Source family: use-m3 (computed here from a PyPI encoder), fasttext-wiki or muse (downloads: "
        "install their stores first with `geobias vectors install`)."))
    langs: Annotated[list[str] | None, BeforeValidator(_langs), Spec(label="Languages")] = Field(None, description=(
        "Languages, a comma list (es,fr); default: every language the family covers."))
    engine: Annotated[Engine, engine_setting("local")] = Field("local", description="local (this process, one cell after another) or ray (one Ray task "
                                                "per language).")
    ray_address: RayAddress = Field("local", description="With engine ray: local (a private cluster, whatever RAY_ADDRESS "
                                                  "says), auto (the running cluster of `ray start`, or RAY_ADDRESS) "
                                                  "or HOST:PORT.")
    out: Path | None = Field(None, description="Write the report here (a directory: atlas.json, atlas.parquet, "
                                               "index.html).")
    force: Force = Field(False, description="Replace an existing report in `out`, and run above the work budget "
                                           "(100,000,000 permutation partitions over every cell).")
    vocab_size: Annotated[Count | None, local(None)] = Field(None, description=(
        "use-m3 only: a store that is not installed is installed first with this many wordfreq words (default "
        "50,000) plus the word lists."))
    permutations: Annotated[Count, capped("max_permutations")] = Field(10_000, description="Permutations of each WEAT and MWEAT test (exact when fewer "
                                                    "partitions exist).")
    bootstrap: Annotated[int, capped(1_000_000, minimum=0, label="Bootstrap resamples")] = Field(20_000, ge=0, le=100_000, description=(
        "Bootstrap resamples of each interval, over the figure's words and seed words (definitional pairs, "
        "attribute sets); enough that a verdict does not change with the seed (each bound states its Monte Carlo "
        "error). 0 turns the intervals off."))
    seed: Seed = 0
    max_per_class: Annotated[int | None, capped("max_words", label="Nouns per gender (cap)")] = Field(None, ge=2, description="Cap the nouns per gender of the LDA (default: all).")
    lost_vocabulary_threshold: LostVocabularyThreshold = Field(LOST_VOCABULARY_THRESHOLD, description=(
        "A WEAT or MWEAT whose word set lost more than this share to the store's vocabulary is reported as an "
        "error instead of a figure (WEFE's lost_vocabulary_threshold; per set; 1 turns the check off)."))

    @model_validator(mode="after")
    def _vocab_size(self):
        if self.vocab_size is not None and self.family != "use-m3":
            raise ParameterError(f"vocab_size applies to the use-m3 family only, not to {self.family}", "vocab_size")
        return self

    def work(self) -> Estimate:
        """Per language at most three WEATs and two MWEAT statistics, each ``permutations``
        partitions (fewer where the exact test is smaller); the bootstrap resamples (at most twenty
        intervals per language) count as partitions too."""
        from geobias.commands._permutations import MAX_PERMUTATIONS
        from geobias.evaluation.atlas import family_sources

        n = len(self.langs) if self.langs is not None else len(family_sources(self.family))
        return Estimate(n * (5 * self.permutations + 20 * self.bootstrap), "permutations",
                        f"{n} languages × (5 tests × at most {self.permutations:,} partitions + 20 intervals × "
                        f"{self.bootstrap:,} resamples)", None, MAX_PERMUTATIONS)


def atlas_cell(cell: dict):
    """One language's battery (a Ray task); the lost-vocabulary rule is each WordQuery's."""
    from geobias.evaluation.atlas import run_cell

    return run_cell(cell)


def _check_out(p: AtlasParams) -> None:
    """Refuse, before any work, a report directory that exists (without `force`) or cannot be written."""
    if p.out is None:
        return
    from geobias.report.atlas import check_report_dir

    check_report_dir(Path(p.out).expanduser(), force=p.force)


def _prepare_stores(p: AtlasParams, cells: list[dict], ui) -> None:
    """Install, one at a time and before the cells run, the family's stores that install here
    without a download (use-m3); refuse a family none of whose stores is installed or installable."""
    from geobias.sources import (
        _OPENER,  # a host with open stores (the service) installs nothing
        SOURCES,
        auto_install_enabled,
        install,
        installs_locally,
        is_installed,
    )

    if _OPENER.get() is not None:
        return
    names = list(dict.fromkeys([c["store"] for c in cells] + [c["en_store"] for c in cells if c["en_store"]]))
    missing = [n for n in names if not is_installed(n)]
    local = [n for n in missing if installs_locally(SOURCES[n])]
    if len(missing) == len(names) and not local:
        raise GeobiasError(f"no {p.family} store is installed ({', '.join(names)}): install them first with "
                           f"`geobias vectors install {names[0]}` (a download) or use --family use-m3")
    if local and (p.vocab_size is not None or auto_install_enabled()):
        for name in local:
            with ui.stage(f"installing {name} (first use)"):
                install(name, vocab_size=p.vocab_size, progress=False)


@command("atlas", AtlasParams, job=True, result="geobias.evaluation.atlas.AtlasResult",
         outputs=(Output("out", "report", "atlas", files=("index.html", "atlas.json", "atlas.parquet"),
                         title="the atlas report"),))
def atlas(p: AtlasParams, *, progress: ProgressArg = None):
    """The bias atlas: directions, WEAT, MWEAT, occupation bias and the correlation with English for every language.

    One cell per language of the family (a Ray task each with engine ray); a failing cell reports
    its error and the atlas goes on. With ``out``, writes atlas.json, atlas.parquet and a
    self-contained index.html there.

    Example: geobias atlas --family use-m3 --langs es,fr --out atlas/

    Returns a :class:`geobias.evaluation.atlas.AtlasResult`.
    """
    from geobias.commands.vectors import record_engine
    from geobias.engine import make_engine
    from geobias.evaluation.atlas import plan_atlas, run_atlas

    ui = reporter(progress)
    options = {"permutations": p.permutations, "bootstrap": p.bootstrap, "seed": p.seed, "max_per_class": p.max_per_class,
               "lost_vocabulary_threshold": p.lost_vocabulary_threshold}
    cells = plan_atlas(p.family, p.langs, options)
    _check_out(p)
    _prepare_stores(p, cells, ui)
    with make_engine(p.engine, ray_address=p.ray_address) as eng:
        record_engine(eng)
        with ui.bar(f"atlas: {len(cells)} languages on the {eng.kind} engine", len(cells)) as advance:
            def done(i: int, cell) -> None:
                advance(1)
                status = getattr(cell, "status", None)
                if status != "ok":
                    error = getattr(cell, "error", None) or (cell.get("error") if isinstance(cell, dict) else None)
                    ui.note(f"atlas: {cells[i]['lang']} failed: {error}")

            result = run_atlas(p.family, cells, eng, cell_fn=atlas_cell, on_done=done)
    if p.out is not None:
        from geobias.report.atlas import write_report

        with ui.stage("writing the report"):
            folder = write_report(result, Path(p.out).expanduser(), force=p.force)
        ui.note(f"atlas report written to {folder} (open {folder / 'index.html'})")
    return result


__all__ = ["AtlasParams", "atlas", "atlas_cell"]
