"""Commands on the registry of vector sources: ``vectors list``, ``vectors install``,
``vectors info``, ``vectors pool``; and ``audit`` (stores × tests × languages)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationInfo, model_validator

from geobias._progress import ProgressArg, reporter
from geobias.choices import Engine
from geobias.commands._base import Output, Params, command, front_of
from geobias.commands._fields import Count, Lang, Limit, StoreRef, TextInput, read_text_input
from geobias.commands._kinds import (
    ARGUMENT,
    MODEL,
    OUTPUT,
    Device,
    EngineCount,
    Force,
    LocalFlag,
    RayAddress,
    Spec,
    capped,
    engine_setting,
)


class ListParams(Params):
    """``vectors list`` takes no parameters."""


@command("vectors list", ListParams, example="--json", job=False, result="geobias.sources.info.SourceList")
def vectors_list(p: ListParams, *, progress: ProgressArg = None):
    """List the named vector sources: language, shape, licence, and whether they are installed."""
    from geobias.sources.info import list_sources

    return list_sources()


def _one_or_many(value: Any) -> Any:
    """A single name given where a list is expected (Python, JSON) is a list of one."""
    return [value] if isinstance(value, str) else value


class InstallParams(Params):
    """Parameters of ``vectors install``."""

    names: Annotated[list[str], ARGUMENT, BeforeValidator(_one_or_many)] = Field(
        min_length=1, description="Registry names, one or several (see `geobias vectors list`).")
    from_path: Annotated[Path | None, Spec(name="--from")] = Field(None, description="Build from this local file (or spaCy package directory) "
                                                     "instead of downloading (one name only).")
    force: bool = Field(False, description="Rebuild even if already installed.")
    vocab_size: Count | None = Field(None, description="use-m3-* only: encode the top-N wordfreq words "
                                                           "(default 50,000) plus our word lists.")
    words: Path | None = Field(None, description="use-m3-* only: also encode the words of this file.")

    @model_validator(mode="after")
    def _from_one(self) -> InstallParams:
        if self.from_path is not None and len(self.names) > 1:
            raise ValueError(f"--from builds one store; got {len(self.names)} names ({', '.join(map(repr, self.names))})")
        return self


@command("vectors install", InstallParams, example="use-m3-es use-m3-fr", job=False,
         result="geobias.sources.registry.InstallResults")
def vectors_install(p: InstallParams, *, progress: ProgressArg = None):
    """Materialise named sources, one after another, as fast cached stores under vectors/NAME/."""
    from geobias.sources.registry import SOURCES, InstallResults, install
    from geobias.wordlists import read_word_file

    ui = reporter(progress)
    extra = read_word_file(p.words) if p.words is not None else None
    options = {"vocab_size": p.vocab_size, "extra_words": extra}
    done = []
    for name in dict.fromkeys(p.names):
        if p.from_path is None and name in SOURCES and SOURCES[name].kind in ("url", "encoder"):
            # these show their own bar (the download's, the encoder's batches)
            done.append(install(name, from_path=p.from_path, force=p.force, progress=ui.enabled, **options))
            continue
        with ui.stage(f"installing {name}"):
            done.append(install(name, from_path=p.from_path, force=p.force, progress=False, **options))
    return InstallResults(done)


class DataParams(Params):
    """A dataset part (see ``geobias data install --help``)."""

    name: Annotated[str, ARGUMENT] = Field(description="Dataset: muse-dictionary or gap.")
    part: Annotated[str | None, ARGUMENT] = Field(None, description="muse-dictionary: a language pair (fr-en); gap: "
                                                                    "development (default), validation or test.")


class DataInstallParams(Params):
    """Parameters of ``data install``."""

    name: Annotated[str, ARGUMENT] = Field(description="Dataset: muse-dictionary or gap.")
    parts: Annotated[list[str], ARGUMENT, BeforeValidator(_one_or_many)] = Field(
        [], description="One or several parts: muse-dictionary: language pairs (fr-en es-en); gap: development "
                        "(default), validation, test.")
    from_path: Annotated[list[Path] | None, Spec(name="--from")] = Field(None, description=(
        "Your own copy instead of a download: a file named as the dataset's (fr-en.0-5000.txt) or a folder "
        "holding them (comma list for several)."))


@command("data install", DataInstallParams, example="muse-dictionary fr-en es-en", job=False,
         result="geobias.sources.datasets.DatasetInstalls")
def data_install(p: DataInstallParams, *, progress: ProgressArg = None):
    """Fetch dataset parts once (MUSE dictionaries, GAP) into the datasets folder, sha256 recorded."""
    from geobias.sources.datasets import DatasetInstalls, install_dataset

    ui = reporter(progress)
    return DatasetInstalls([install_dataset(p.name, part, from_paths=p.from_path, progress=ui.enabled)
                            for part in (dict.fromkeys(p.parts) or [None])])


@command("data path", DataParams, job=False, result="geobias.sources.datasets.DatasetFiles")
def data_path(p: DataParams, *, progress: ProgressArg = None):
    """Where an installed dataset part's files are (for scripts: the folder and each file)."""
    from geobias.sources.datasets import dataset_path

    return dataset_path(p.name, p.part)


class InfoParams(Params):
    """Parameters of ``vectors info``."""

    target: Annotated[str, ARGUMENT] = Field(description="Registry name, store directory or vector file.")
    limit: Limit = None
    trust_pickle: LocalFlag = False
    verify: bool = Field(False, description="Re-hash a store's vectors.npy against its meta.json (and the registry).")


@command("vectors info", InfoParams, example="fr-spacy-md --verify", job=False, result="geobias.sources.info.VectorsInfo")
def vectors_info(p: InfoParams, *, progress: ProgressArg = None):
    """Describe a registry source (and verify its installed checksum) or a vector file."""
    from geobias.sources.info import describe

    info = describe(p.target, limit=p.limit, trust_pickle=p.trust_pickle, verify=p.verify)
    if info.sha256_ok is False:
        reporter(progress).note("warning: the installed vectors do not match their checksum; reinstall with --force")
    return info


class VerifyParams(Params):
    """Parameters of ``vectors verify``."""

    names: Annotated[list[str], ARGUMENT] = Field([], description="Store names or folders (default: every installed store).")


@command("vectors verify", VerifyParams, example="fr-spacy-md", job=False, result="geobias.store.verify.VerifyResult")
def vectors_verify(p: VerifyParams, *, progress: ProgressArg = None):
    """Re-hash stores in full against the sha256 recorded when they were saved; exit 1 naming a changed file."""
    from geobias.sources.registry import vectors_dir
    from geobias.store.verify import verify_stores

    with reporter(progress).stage("verifying stores"):
        return verify_stores(p.names or None, vectors_dir())


class EngineParams(Params):
    """Where model batches run: this process or a Ray cluster."""

    engine: Annotated[Engine, engine_setting("local")] = Field("local", description="local (this process) or ray (a Ray cluster).")
    ray_address: RayAddress = Field("local", description="With engine ray: local (a private cluster), auto (the running "
                                                  "cluster of `ray start`) or HOST:PORT.")
    threads: EngineCount = Field(None, description="torch threads in this process (local) or per Ray actor.")
    actors: EngineCount = Field(None, description="Ray model replicas (default: one per GPU, else cluster "
                                                       "CPUs / threads).")
    device: Device = Field("auto", description="auto (CUDA when available), cpu, cuda, cuda:N.")
    batch_size: Annotated[int, capped(1024)] = Field(32, ge=1, le=4096, description="Distinct inputs per forward pass.")
    trust_pickle: LocalFlag = Field(False, description=(
        "Allow a local model folder with only pickled weights (pytorch_model.bin; unpickling can run code). "
        "Safetensors are loaded by default."))

    def open_engine(self):
        """The engine (a context manager); what it is goes into the result envelope."""
        from geobias.engine import make_engine

        return make_engine(self.engine, ray_address=self.ray_address, threads=self.threads, actors=self.actors)


def record_engine(eng) -> None:
    from geobias.results import record_input

    record_input("engine", eng.describe())


def _pool_words(value: Any, info: ValidationInfo) -> Any:
    """A word file (one word, or tab-separated words, per line), a comma list, or a list."""
    if isinstance(value, (str, Path)) and front_of(info) != "service":
        from geobias.wordlists import read_words

        path = Path(value).expanduser()
        if isinstance(value, Path) or "," not in value or path.exists():
            return read_words(path)
    if isinstance(value, str):
        value = [w for w in (x.strip() for x in value.split(",")) if w]
    return value


class PoolParams(EngineParams):
    """Parameters of ``vectors pool``: pooled contextual vectors saved as a store."""

    model: Annotated[str, MODEL] = Field(description="Hugging Face id, local directory or registry name (minilm-l6).")
    words: Annotated[list[str], BeforeValidator(_pool_words)] = Field(
        description="Words: a file (one word, or tab-separated words, per line) or a list.")
    out: Annotated[str, OUTPUT] = Field(description="Store name (under the vectors directory) or, outside the service, a path.")
    contexts: list[str] | TextInput | None = Field(None, description="Context templates, one per line, '{}' marks "
                                                                     "the word.")
    layer: int | None = Field(None, description="Hidden-state index (0 = embeddings); default: mean of the last four.")
    lang: Lang | None = None
    overwrite: bool = Field(False, description="Replace an existing store.")


@command("vectors pool", PoolParams, example="--model minilm-l6 --words words.txt --out minilm-pooled", result="geobias.contextual.pooling.PooledStoreFile",
         outputs=(Output("out", "store", title="the pooled store"),))
def vectors_pool(p: PoolParams, *, progress: ProgressArg = None):
    """Average each word's sub-token vectors over many contexts into a store for the static metrics.

    Returns a :class:`geobias.contextual.pooling.PooledStoreFile`.
    """
    from geobias.contextual.pooling import PooledStoreFile, pool_vectors
    from geobias.io.atomic import check_output_path
    from geobias.sources import store_path
    from geobias.store import save_store
    from geobias.wordlists import read_lines

    ctx = p.contexts
    if ctx is not None and not isinstance(ctx, list):
        ctx = read_text_input(ctx, "contexts", lambda path: read_lines(path, what="contexts"))
    target = check_output_path(store_path(p.out), what="store", overwrite=p.overwrite, directory=True)
    with p.open_engine() as eng:
        store = pool_vectors(eng.load_encoder(p.model, p.device, trust_pickle=p.trust_pickle), list(p.words), ctx,
                             layer=p.layer, batch_size=p.batch_size, lang=p.lang,
                             progress=progress if progress is not None and progress.enabled else False)
    save_store(store, target, overwrite=p.overwrite)
    res = PooledStoreFile(p.model, str(target), len(store), store.dim, p.layer, None if ctx is None else len(ctx))
    reporter(progress).note(f"pooled {res.n_words} words x {res.dim} d from {res.model} into {res.path}")
    return res


class AuditParams(EngineParams):
    """Parameters of ``audit``: a grid of stores × tests × languages from a TOML config."""

    config: Annotated[Path, Spec(short="-c")] = Field(description="Audit config (TOML): stores, languages, tests, "
                                                                 "[options]; see docs/ray.md.")
    out: Annotated[Path | None, OUTPUT] = Field(None, description="Write the JSON report (the --json envelope) to "
                                                                  "this file, once every cell has finished.")
    overwrite: bool = Field(False, description="Replace an existing report.")
    force: Force = Field(False, description="Run even when the estimated work exceeds the budget (100,000,000 "
                                           "permutation partitions over every cell).")

    def work(self):
        """Every cell is one permutation test of at most ``permutations`` partitions (auto enumerates
        exactly only when there are fewer)."""
        from geobias.commands._base import Estimate
        from geobias.commands._permutations import MAX_PERMUTATIONS
        from geobias.evaluation.audit import plan_cells, read_config

        config = read_config(self.config)
        cells, _ = plan_cells(config)
        n = config.options["permutations"]
        return Estimate(len(cells) * n, "permutations", f"{len(cells)} cells × at most {n:,} partitions", None,
                        MAX_PERMUTATIONS)


@command("audit", AuditParams, example="--config audit.toml --out report.json", job=False, result="geobias.evaluation.audit.AuditResult",
         outputs=(Output("out", "envelope", title="the JSON report"),))
def audit(p: AuditParams, *, progress: ProgressArg = None):
    """Run every store x test x language cell (a Ray task each with engine ray); a failing cell reports its error.

    Returns a :class:`geobias.evaluation.audit.AuditResult`.
    """
    from geobias.evaluation.audit import read_config, run_audit
    from geobias.io.atomic import check_output_path

    if p.out is not None:
        check_output_path(p.out, what="report", overwrite=p.overwrite)  # fail before the grid runs
    cfg = read_config(p.config)
    with p.open_engine() as eng:
        record_engine(eng)
        return run_audit(cfg, eng, progress=bool(progress is not None and progress.enabled))


__all__ = ["EngineParams", "StoreRef", "record_engine"]
