"""Job kinds: each turns validated parameters into the ``geobias`` command line that runs it.

A job runs the same command a user would type, with ``--json``, in a worker process: its
``result`` is then the command's envelope byte for byte, and a job can be cancelled (the
process is killed) without leaving the server in a half state. Inline texts (dictionaries,
sentences, word lists) are written into the job's ``inputs/`` directory first; named stores are
passed by name (``GEOBIAS_VECTORS_DIR`` is the service's vectors directory); outputs go to the
job's ``artifacts/`` directory or, for ``align``/``vectors-pool``, to a new named store.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from geobias.errors import InputError
from geobias.service.config import ServiceConfig, check_name

_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EvaluateParams(_P):
    lang: str
    dictionary: str = Field(description="Training dictionary LANG→en, 'src tgt' per line.")
    test_dictionary: str = Field(description="Test dictionary LANG→en.")
    similarity: str | None = Field(None, description="Word-similarity text of LANG (w1 w2 score per line).")
    store: str | None = None
    en_store: str | None = None
    methods: str = "all"
    permutations: int = 10_000
    seed: int = 0


class MitigateParams(_P):
    method: Literal["shift-ori", "shift-en", "de-align", "hybrid-ori", "hybrid-en", "hard-debias"]
    lang: str
    store: str | None = None
    en_store: str | None = None
    dictionary: str | None = Field(None, description="Dictionary text LANG→en, or 'identical'.")
    format: Literal["w2v-text", "w2v-bin", "vec", "npz"] = "w2v-text"
    refine: int = 0
    drop_whitespace_words: bool = False


class AlignParams(_P):
    src: str
    tgt: str
    dictionary: str = Field(description="Dictionary text 'src tgt' per line, or 'identical'.")
    out: str = Field(description="Name of the new store.")
    refine: int = 0
    center: bool = False
    src_store: str | None = None
    tgt_store: str | None = None


class BecproParams(_P):
    model: str
    lang: Literal["en", "de"] = "en"
    compare: str | None = None
    batch_size: int = 32


class MalorParams(_P):
    model: str
    pair: Literal["he-she", "his-her", "names"] = "he-she"
    batch_size: int = 32


class AssociationParams(_P):
    model: str
    sentences: str = Field(description="TSV text with columns sentence, target, attribute.")
    batch_size: int = 32


class PoolParams(_P):
    model: str
    words: list[str]
    out: str
    contexts: list[str] | None = None
    layer: int | None = None
    lang: str | None = None
    batch_size: int = 32


class MweatParams(_P):
    lang: str | None = None
    store: str | None = None
    targets: list[list[str]] | None = None
    male: list[str] | None = None
    female: list[str] | None = None
    permutations: int = 100_000
    seed: int = 0
    similarity: Literal["cosine", "dot"] = "cosine"
    paired: bool = False
    oov: Literal["ignore", "raise"] = "ignore"


class WeatParams(_P):
    lang: str
    test: str = "career-family"
    store: str | None = None
    permutations: int = 100_000
    seed: int = 0
    similarity: Literal["cosine", "dot"] = "cosine"
    alternative: Literal["greater", "less", "two-sided"] = "greater"
    oov: Literal["ignore", "raise"] = "ignore"


class DirectionsParams(_P):
    lang: str
    store: str | None = None
    seed: int = 0
    cv: int = 5
    max_per_class: int | None = None
    oov: Literal["ignore", "raise"] = "ignore"


PARAMS: dict[str, type[_P]] = {
    "evaluate": EvaluateParams, "mitigate": MitigateParams, "align": AlignParams,
    "probe-becpro": BecproParams, "probe-malor": MalorParams, "probe-association": AssociationParams,
    "vectors-pool": PoolParams, "mweat": MweatParams, "weat": WeatParams, "directions": DirectionsParams,
}

# The CLI command each kind runs (recorded as the envelope's ``command``).
COMMANDS = {"evaluate": "evaluate", "mitigate": "mitigate", "align": "align", "probe-becpro": "probe becpro",
            "probe-malor": "probe malor", "probe-association": "probe association", "vectors-pool": "vectors pool",
            "mweat": "mweat", "weat": "weat", "directions": "directions"}


class Builder:
    """Builds the argument list of one job; writes its inline inputs under ``job_dir/inputs``."""

    def __init__(self, config: ServiceConfig, stores, job_dir: Path):
        self.config, self.stores, self.job_dir = config, stores, job_dir

    # -- helpers ------------------------------------------------------------------------
    def cap(self, value: int, cap: int, what: str, minimum: int = 1) -> None:
        from geobias.service.analyses import check_cap

        check_cap(value, cap, what, minimum=minimum)

    def text(self, name: str, text: str) -> str:
        lines = text.count("\n") + 1
        if lines > self.config.max_words * 10:
            raise InputError(f"{name}: {lines:,} lines, more than this service's cap of {self.config.max_words * 10:,}")
        d = self.job_dir / "inputs"
        d.mkdir(parents=True, exist_ok=True)
        path = d / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def lines(self, name: str, words: list[str]) -> str:
        if len(words) > self.config.max_words:
            raise InputError(f"{name}: {len(words):,} entries, more than this service's cap of {self.config.max_words:,}")
        if any("\n" in w or "\r" in w for w in words):
            raise InputError(f"{name}: an entry contains a line break")
        return self.text(name, "\n".join(words) + "\n")

    def store(self, name: str | None, option: str = "--vectors") -> list[str]:
        if name is None:
            return []
        self.stores._path(name)  # validated name of an existing store (404 otherwise)
        return [option, name]

    def new_store(self, name: str) -> str:
        from geobias.sources.registry import SOURCES

        check_name(name, "output store name")
        if name in SOURCES or (self.config.vectors_dir / name).exists():
            from geobias.service.stores import StoreExists

            raise StoreExists(f"a store named {name!r} already exists; choose another out")
        return name

    def model(self, name: str) -> str:
        from geobias.models import REGISTRY

        if name in REGISTRY:
            return name
        if re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$", name) and ".." not in name:
            local = self.config.models_dir / name
            if local.is_dir():
                return str(local)
        if _HF_ID.match(name) and ".." not in name:
            return name
        raise InputError(
            f"unknown model {name!r}: use a model registry name ({', '.join(REGISTRY)}), a model directory "
            f"placed in the service's models directory, or a Hugging Face id 'org/name'")

    # -- kinds --------------------------------------------------------------------------
    def build(self, kind: str, p) -> list[str]:
        return getattr(self, "_" + kind.replace("-", "_"))(p)

    def _mweat(self, p: MweatParams) -> list[str]:
        self.cap(p.permutations, self.config.max_permutations, "permutations")
        argv = ["mweat", *(["--lang", p.lang] if p.lang else []), *self.store(p.store)]
        if p.targets is not None:
            rows = []
            for t in p.targets:
                if len(t) not in (2, 3) or any(not w.strip() or "\t" in w for w in t):
                    raise InputError(f"targets: each entry is [feminine, masculine] or [feminine, masculine, english]; got {t!r}")
                rows.append("\t".join(t))
            argv += ["--targets", self.lines("targets.tsv", rows)]
        if (p.male is None) != (p.female is None):
            raise InputError("give both male and female attribute words, or neither")
        if p.male is not None:
            n = max(len(p.male), len(p.female))
            rows = [f"{p.male[i] if i < len(p.male) else '-'}\t{p.female[i] if i < len(p.female) else '-'}" for i in range(n)]
            argv += ["--attributes", self.lines("attributes.tsv", rows)]
        argv += ["--permutations", str(p.permutations), "--seed", str(p.seed), "--similarity", p.similarity,
                 "--oov", p.oov, *(["--paired"] if p.paired else []),
                 "--force"]  # the service's own cap (max_permutations) was checked above
        return argv

    def _weat(self, p: WeatParams) -> list[str]:
        self.cap(p.permutations, self.config.max_permutations, "permutations")
        return ["weat", "--lang", p.lang, "--test", p.test, *self.store(p.store), "--permutations", str(p.permutations),
                "--seed", str(p.seed), "--similarity", p.similarity, "--alternative", p.alternative, "--oov", p.oov,
                "--force"]  # the service's own cap (max_permutations) was checked above

    def _directions(self, p: DirectionsParams) -> list[str]:
        from geobias.languages import get_language

        self.cap(p.cv, 20, "cv", minimum=2)
        argv = ["directions", "--lang", p.lang, *self.store(p.store), "--seed", str(p.seed), "--cv", str(p.cv),
                "--oov", p.oov]
        if p.max_per_class is not None:
            self.cap(p.max_per_class, self.config.max_words, "max_per_class")
            argv += ["--max-per-class", str(p.max_per_class)]
        if get_language(p.lang).grammatical_gender:
            argv += ["--plot", str(self.job_dir / "artifacts" / "gender-plane.png")]
        return argv

    def _evaluate(self, p: EvaluateParams) -> list[str]:
        self.cap(p.permutations, self.config.max_permutations, "permutations")
        argv = ["evaluate", "--lang", p.lang, "--dictionary", self.text("dictionary.txt", p.dictionary),
                "--test-dictionary", self.text("test-dictionary.txt", p.test_dictionary),
                *self.store(p.store), *self.store(p.en_store, "--en-vectors"), "--methods", p.methods,
                "--permutations", str(p.permutations), "--seed", str(p.seed)]
        if p.similarity is not None:
            argv += ["--similarity", self.text("similarity.txt", p.similarity)]
        return argv

    def _mitigate(self, p: MitigateParams) -> list[str]:
        self.cap(p.refine, 20, "refine", minimum=0)
        argv = ["mitigate", "--method", p.method, "--lang", p.lang, "--out", str(self.job_dir / "artifacts"),
                *self.store(p.store), *self.store(p.en_store, "--en-vectors"), "--format", p.format,
                "--refine", str(p.refine), *(["--drop-whitespace-words"] if p.drop_whitespace_words else [])]
        if p.dictionary is not None:
            argv += ["--dictionary", "identical" if p.dictionary == "identical" else self.text("dictionary.txt", p.dictionary)]
        return argv

    def _align(self, p: AlignParams) -> list[str]:
        self.cap(p.refine, 20, "refine", minimum=0)
        dico = "identical" if p.dictionary == "identical" else self.text("dictionary.txt", p.dictionary)
        return ["align", "--src", p.src, "--tgt", p.tgt, "--dictionary", dico, "--out", self.new_store(p.out),
                "--refine", str(p.refine), *(["--center"] if p.center else []),
                *self.store(p.src_store, "--src-vectors"), *self.store(p.tgt_store, "--tgt-vectors")]

    def _probe_becpro(self, p: BecproParams) -> list[str]:
        self.cap(p.batch_size, 1024, "batch_size")
        argv = ["probe", "becpro", "--model", self.model(p.model), "--lang", p.lang, "--batch-size", str(p.batch_size),
                "--device", "cpu", "--plot", str(self.job_dir / "artifacts" / "becpro.png")]
        if p.compare is not None:
            argv += ["--compare", self.model(p.compare)]
        return argv

    def _probe_malor(self, p: MalorParams) -> list[str]:
        self.cap(p.batch_size, 1024, "batch_size")
        return ["probe", "malor", "--model", self.model(p.model), "--pair", p.pair, "--batch-size", str(p.batch_size),
                "--device", "cpu"]

    def _probe_association(self, p: AssociationParams) -> list[str]:
        self.cap(p.batch_size, 1024, "batch_size")
        return ["probe", "association", "--model", self.model(p.model), "--sentences",
                self.text("sentences.tsv", p.sentences), "--batch-size", str(p.batch_size), "--device", "cpu"]

    def _vectors_pool(self, p: PoolParams) -> list[str]:
        self.cap(p.batch_size, 1024, "batch_size")
        argv = ["vectors", "pool", "--model", self.model(p.model), "--words", self.lines("words.txt", p.words),
                "--out", self.new_store(p.out), "--batch-size", str(p.batch_size), "--device", "cpu"]
        if p.contexts is not None:
            argv += ["--contexts", self.lines("contexts.txt", p.contexts)]
        if p.layer is not None:
            argv += ["--layer", str(p.layer)]
        if p.lang is not None:
            argv += ["--lang", p.lang]
        return argv


def json_flag(kind: str) -> list[str]:
    """``vectors pool`` has no ``--json`` (it prints one line); every other command does."""
    return [] if kind == "vectors-pool" else ["--json"]
