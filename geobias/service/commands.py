"""The service's side of the command layer: its limits, its open stores, and job preparation.

A request's parameters are validated by the command's own parameter model with
``front="service"`` (no server paths, no output locations), then checked against this service's
caps (:func:`check_caps`). A quick route runs the command in a quick worker process
(:mod:`geobias.service.quick`; a thread of the server with ``--quick-threads``) on that process's
open, memory-mapped stores (:func:`run_quick`); a job's parameters get their output locations inside
the job's folder (:func:`prepare_job`) and run in a forked process (:mod:`geobias.service.worker`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from geobias._progress import ProgressArg
from geobias.commands import Command, Params, check_budget, dump, execute, get, validate
from geobias.commands._base import refuse_outputs
from geobias.commands._fields import Inline
from geobias.commands._kinds import FIXED, SET, Kind, fields_of, spec_of
from geobias.errors import InputError, ParameterError
from geobias.service.config import ServiceConfig, check_name
from geobias.service.limits import cap_of, check_rules, text_pattern, word_set_keys

_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


def check_cap(value: int, cap: int, what: str, *, minimum: int = 1) -> None:
    if value < minimum:
        raise ParameterError(f"{what} must be at least {minimum}; got {value}", what)
    if value > cap:
        raise ParameterError(f"{what} is capped at {cap:,} by this service; got {value:,}", what)


def check_caps(config: ServiceConfig, params: Params) -> None:
    """This service's limits on any command's parameters (the model checked everything else).

    Each field is read by its kind (:mod:`geobias.commands._kinds`): a capped count, a text with a
    pattern, an engine setting the service fixes.

    Raises
    ------
    ParameterError
        A capped count (permutations, k, a batch) above its cap, a word list or an inline text above
        the service's sizes, a text not of its kind's form, an engine setting changed.
    """
    model = type(params)
    fields = dict(params)
    for name, value in fields.items():
        spec = spec_of(model, name)
        if spec.cap is not None and value is not None:
            check_cap(value, cap_of(config, spec), name, minimum=spec.minimum)
        if isinstance(value, list) and len(value) > config.max_words:
            raise ParameterError(f"{name}: {len(value):,} entries, more than this service's cap of "
                                 f"{config.max_words:,}", name)
        if isinstance(value, Inline):
            lines = value.text.count("\n") + 1
            if lines > config.max_words * 10:
                raise ParameterError(f"{name}: {lines:,} lines, more than this service's cap of "
                                     f"{config.max_words * 10:,}", name)
            pattern = text_pattern(model, name)
            if pattern is not None and not re.fullmatch(pattern, value.text):
                raise ParameterError(f"{name}: not {spec.kind.value if spec.kind else 'of the form'}, as this "
                                     "service's schema states", name)
        if spec.service is FIXED and value != spec.value:
            raise ParameterError(f"{name} is fixed by this service", name)


def within_caps(config: ServiceConfig, params: Params) -> Params:
    """``params`` checked against this service's caps, with the values the service sets itself
    (:data:`~geobias.commands._kinds.SET`: a permutation test within the caps runs, ``force``: the
    service's ``max_permutations`` is its budget, not the command line's)."""
    check_caps(config, params)
    model = type(params)
    update = {f: spec_of(model, f).value for f in fields_of(model, service=SET) if spec_of(model, f).kind is Kind.BUDGET}
    return params.model_copy(update=update) if update else params


def opener(stores):
    """The store opener (see :func:`geobias.sources.use_opener`) over the service's open stores."""

    def open_store(lang: str | None, name: str | None, option: str):
        from geobias.sources.registry import SOURCES

        if name is None:
            if lang is None:
                raise InputError("pass lang or store")
            name = stores.default_for(lang)
        if lang is not None and name in SOURCES and SOURCES[name].lang != lang:
            raise InputError(f"store {name} holds {SOURCES[name].lang!r} vectors but lang is {lang!r}")
        return stores.get(name)

    return open_store


#: Bootstrap lookups (one target word against one attribute word, in a vectorised resample) that
#: cost as much as one word re-summed in a permutation partition (measured about 100 in
#: ``benchmarks/bench_abuse.py``, section 8: 4 × 1,000 words, 1,000 resamples, 2·10⁴ and 2·10⁵
#: partitions).
RESAMPLE_LOOKUPS_PER_UNIT = 100


def words_in(model, body: dict[str, Any]) -> int:
    """The words ``body`` gives ``model``'s word-set fields (a list's entries, a comma list's items)."""
    n = 0
    for key in word_set_keys(model):
        value = body.get(key)
        if isinstance(value, list):
            n += len(value)
        elif isinstance(value, str) and value.strip():
            n += value.count(",") + 1
    return n


def check_quick_cost(config: ServiceConfig, cmd: Command, params: Params, body: dict[str, Any]) -> None:
    """Refuse a quick analysis whose estimated cost is above ``config.quick_budget``.

    The cost is in units of one word re-summed in one permutation partition: each partition
    re-sums the scores of every word the request sends in its word sets (``W`` words: partitions ×
    ``W``); each bootstrap resample recomputes its resampled targets' associations with its
    resampled attributes, about ``(W / 2)²`` lookups done in one vectorised step, which
    :data:`RESAMPLE_LOOKUPS_PER_UNIT` of count as one unit. The partitions and resamples come from
    the command's work estimate (:meth:`~geobias.commands.Command.work`), every pass of the
    bootstrap counted (MWEAT makes nine: three quantities, each with the crossed design's three). Measured by
    ``benchmarks/bench_abuse.py`` (section 8) on a shared 2-core machine: about 1.2·10⁸ units a
    second, so the default budget of 10⁹ is under 10 s of work; 4 × 5,000 words at 10⁶
    permutations cost 2.1·10¹⁰. A job has no quick budget.

    Raises
    ------
    WorkBudgetError
        One line with the estimate and a pointer to ``POST /jobs`` (HTTP 422).
    """
    from geobias.commands import WorkBudgetError

    estimate = cmd.work(params)
    if estimate is None:
        return
    words = max(1, words_in(type(params), body))
    n_resamples = estimate.resamples  # every pass of the bootstrap (Estimate.with_passes)
    partitions = max(estimate.units - n_resamples * estimate.resample_words, 0)
    cost = partitions * words + n_resamples * (words / 2) ** 2 / RESAMPLE_LOOKUPS_PER_UNIT
    if cost > config.quick_budget:
        raise WorkBudgetError(
            f"{cmd.name}: {partitions:,} partitions and {n_resamples:,} resamples over {words:,} words are a cost "
            f"of {cost:.3g}, above "
            f"this service's quick budget of {config.quick_budget:.3g}; submit it as a job (POST /jobs with "
            f"kind {cmd.kind!r}) or ask for fewer", estimate)


def quick_params(config: ServiceConfig, name: str, body: dict[str, Any]) -> tuple[Command, Params, float | None]:
    """The quick command ``name``, ``body`` validated for it (the model, this service's caps, the
    schema's rules across fields, the quick budget) and the work budget its run checks (``None``
    where the service's caps set ``force``; its own budget was checked here).

    Checked once per body: the parameters are a pure function of the body and the service's
    configuration, and frozen (:class:`~geobias.commands.Params`), so a body seen before gets the
    parameters it got then (:class:`_Checked`); a body that is refused is checked again each time.

    Raises
    ------
    ParameterError, InputError, WorkBudgetError
        As :func:`geobias.commands.validate`, :func:`within_caps`, :func:`check_rules` and
        :func:`check_quick_cost`.
    """
    return _CHECKED.get(config, name, body)


def _check(config: ServiceConfig, name: str, body: dict[str, Any]) -> tuple[Command, Params, float | None]:
    cmd = get(name)
    params = within_caps(config, validate(cmd, body, front="service"))
    check_rules(body, cmd.params)  # what the schema states across fields, after the model's own checks
    check_quick_cost(config, cmd, params, body)
    # the service's caps set the budget switch (`force`; its own budget was checked above): the
    # command layer's budget check would then only estimate the work again, and pass
    forced = any(getattr(params, f) for f in fields_of(type(params), kind=Kind.BUDGET))
    return cmd, params, None if forced else 1.0


class _Checked:
    """The checked parameters of the latest :data:`SIZE` distinct quick bodies, per configuration
    (its identity: the configuration is held, so the identity is not reused) and command, keyed by
    the body's canonical JSON (sorted keys; ``1`` and ``1.0``, ``true`` and ``1`` stay apart).
    A body whose JSON is longer than :data:`LONGEST` characters (a long word list) is checked
    every time and not held. Validating, capping and costing a body was a third of a cheap
    ``/neighbors`` request's overhead in its worker."""

    SIZE = 256
    LONGEST = 4096

    def __init__(self):
        import threading

        self._held: dict[tuple[int, str, str], tuple[ServiceConfig, tuple]] = {}
        self._lock = threading.Lock()  # threads of the server (--quick-threads) share it

    def get(self, config: ServiceConfig, name: str, body: dict[str, Any]) -> tuple[Command, Params, float | None]:
        import json

        try:
            text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):  # not a JSON value (a caller's own dict): checked, not held
            return _check(config, name, body)
        if len(text) > self.LONGEST:
            return _check(config, name, body)
        key = (id(config), name, text)
        held = self._held.get(key)
        if held is not None and held[0] is config:
            return held[1]
        checked = _check(config, name, body)
        with self._lock:
            if len(self._held) >= self.SIZE:
                self._held.pop(next(iter(self._held)))  # the oldest first
            self._held[key] = (config, checked)
        return checked

    def clear(self) -> None:
        with self._lock:
            self._held.clear()


_CHECKED = _Checked()


def run_quick(config: ServiceConfig, stores, name: str, body: dict[str, Any], progress: ProgressArg = None) -> dict[str, Any]:
    """Validate ``body`` for the quick command ``name`` (:func:`quick_params`), run it on the open
    stores, return its envelope; ``progress`` (a :class:`geobias._progress.CancelFlag`) can stop it."""
    from geobias.sources import use_opener

    cmd, params, budget = quick_params(config, name, body)
    with use_opener(opener(stores)):
        _, envelope = execute(cmd, params, progress=progress, budget=budget)
    return envelope


def check_model(config: ServiceConfig, name: str) -> str:
    """A model the service may load: a registry name, a folder in its models directory, or a hub id."""
    from geobias.models import REGISTRY

    if name in REGISTRY:
        return name
    if re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$", name) and ".." not in name:
        local = config.models_dir / name
        if local.is_dir():
            return str(local)
    if _HF_ID.match(name) and ".." not in name:
        return name
    raise InputError(
        f"unknown model {name!r}: use a model registry name ({', '.join(REGISTRY)}), a model directory "
        f"placed in the service's models directory, or a Hugging Face id 'org/name'")


def _new_store(config: ServiceConfig, name: str) -> str:
    from geobias.service.stores import StoreExists
    from geobias.sources.registry import SOURCES

    check_name(name, "output store name")
    if name in SOURCES or (config.vectors_dir / name).exists():
        raise StoreExists(f"a store named {name!r} already exists; choose another out")
    return name


def _outputs(cmd: Command, body: dict[str, Any], artifacts: Path) -> dict[str, Any]:
    """Where a job's outputs go: each declared output with a service path, inside ``artifacts``
    (see :class:`geobias.commands.Output`), where the run can write it (:meth:`Params.produces`)."""
    return {o.field: str(artifacts / o.path) for o in cmd.outputs
            if o.in_service and o.kind != "store" and cmd.params.produces(o.field, body)}


def prepare_job(config: ServiceConfig, stores, kind: str, body: dict[str, Any], job_dir: Path) -> tuple[Command, dict]:
    """Validate a job's parameters and fill in its output locations.

    Returns the command and the parameters the job's process runs with (JSON-able).

    Raises
    ------
    ParameterError, InputError
        As :func:`geobias.commands.validate` and :func:`check_caps`, for an unknown model, an
        output store name that exists, a store that does not, or what the run would refuse before
        any work (a built-in list without ``lang``).
    WorkBudgetError
        The run's estimated work is above its budget without ``force``
        (:func:`geobias.commands.check_budget`, as the run itself checks).
    """
    cmd = get(kind)
    if not cmd.job:
        raise ParameterError(f"{kind} is not a job kind; POST /{kind} answers it directly", "kind")
    refuse_outputs(cmd, body)
    extra = _outputs(cmd, body, job_dir / "artifacts")
    params = within_caps(config, validate(cmd, {**body, **extra}, front="service", outputs_given=True))
    model = type(params)
    for field in fields_of(model, kind=Kind.STORE):
        value = getattr(params, field)
        if value is not None:
            stores.get(value)  # an existing store (404 otherwise), not one found changed (4xx)
    check_rules(body, model)  # what the schema states across fields, after the model's own checks
    check_budget(cmd, params)  # what the run checks first (a built-in list needs lang, the work budget): now, not queued
    extra = {}
    for field in fields_of(model, kind=Kind.MODEL):
        value = getattr(params, field)
        if value is not None:
            extra[field] = check_model(config, value)
    if cmd.publishes is not None:
        _new_store(config, getattr(params, cmd.publishes.field))
    for field in fields_of(model, service=SET):  # e.g. a job's forward passes run on the CPU
        if spec_of(model, field).kind is not Kind.BUDGET:
            extra[field] = spec_of(model, field).value
    return cmd, {**dump(params), **extra}


def stores_of(kind: str, params: dict[str, Any]) -> list[str]:
    """The stores a job's recorded parameters name (its fields of kind
    :attr:`~geobias.commands._kinds.Kind.STORE` that are set)."""
    model = get(kind).params
    return [params[f] for f in fields_of(model, kind=Kind.STORE) if isinstance(params.get(f), str)]


def job_kinds() -> list[str]:
    """The kinds ``POST /jobs`` accepts: every command that runs as a job."""
    from geobias.commands import commands

    return [c.kind for c in commands() if c.job]


__all__ = ["check_caps", "check_model", "job_kinds", "opener", "prepare_job", "quick_params", "run_quick", "stores_of"]
