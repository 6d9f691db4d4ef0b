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

from geobias.commands import Command, Params, dump, execute, get, validate
from geobias.commands._base import refuse_outputs
from geobias.commands._fields import Inline
from geobias.errors import InputError, ParameterError
from geobias.service.config import ServiceConfig, check_name
from geobias.service.limits import DICTIONARY_FIELDS, dictionary_pattern

_HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")

#: Engine settings a client may not change: jobs run in the service's own process tree.
_ENGINE_FIXED = {"engine": "local", "ray_address": "local", "threads": None, "actors": None}


def check_cap(value: int, cap: int, what: str, *, minimum: int = 1) -> None:
    if value < minimum:
        raise ParameterError(f"{what} must be at least {minimum}; got {value}", what)
    if value > cap:
        raise ParameterError(f"{what} is capped at {cap:,} by this service; got {value:,}", what)


def check_caps(config: ServiceConfig, params: Params) -> None:
    """This service's limits on any command's parameters (the model checked everything else).

    Raises
    ------
    ParameterError
        Permutations, k, a word list, an inline text or a batch above its cap; engine options.
    """
    fields = dict(params)
    if "permutations" in fields:
        check_cap(fields["permutations"], config.max_permutations, "permutations")
    if "k" in fields:
        check_cap(fields["k"], config.max_k, "k")
    if "batch_size" in fields:
        check_cap(fields["batch_size"], 1024, "batch_size")
    if "max_per_class" in fields and fields["max_per_class"] is not None:
        check_cap(fields["max_per_class"], config.max_words, "max_per_class")
    for name, value in fields.items():
        if isinstance(value, list) and len(value) > config.max_words:
            raise ParameterError(f"{name}: {len(value):,} entries, more than this service's cap of "
                                 f"{config.max_words:,}", name)
        if isinstance(value, Inline):
            lines = value.text.count("\n") + 1
            if lines > config.max_words * 10:
                raise ParameterError(f"{name}: {lines:,} lines, more than this service's cap of "
                                     f"{config.max_words * 10:,}", name)
            if name in DICTIONARY_FIELDS and not re.fullmatch(dictionary_pattern(type(params), name), value.text):
                raise ParameterError(f"{name}: not a dictionary of two words per line, as this service's "
                                     "schema states", name)
        if name in _ENGINE_FIXED and value != _ENGINE_FIXED[name]:
            raise ParameterError(f"{name} is fixed by this service", name)


def within_caps(config: ServiceConfig, params: Params) -> Params:
    """``params`` checked against this service's caps; a permutation test within them runs
    (``force``: the service's ``max_permutations`` is its budget, not the command line's)."""
    check_caps(config, params)
    if "force" in type(params).model_fields:
        params = params.model_copy(update={"force": True})
    return params


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


def run_quick(config: ServiceConfig, stores, name: str, body: dict[str, Any], progress=None) -> dict[str, Any]:
    """Validate ``body`` for the quick command ``name``, run it on the open stores, return its
    envelope; ``progress`` (a :class:`geobias._progress.CancelFlag`) can stop it."""
    from geobias.sources import use_opener

    cmd = get(name)
    params = within_caps(config, validate(cmd, body, front="service"))
    with use_opener(opener(stores)):
        _, envelope = execute(cmd, params, progress=progress)
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
        output store name that exists, or a store that does not.
    """
    cmd = get(kind)
    if not cmd.job:
        raise ParameterError(f"{kind} is not a job kind; POST /{kind} answers it directly", "kind")
    refuse_outputs(cmd, body)
    extra = _outputs(cmd, body, job_dir / "artifacts")
    params = within_caps(config, validate(cmd, {**body, **extra}, front="service", outputs_given=True))
    for field in ("vectors", "en_vectors", "src_vectors", "tgt_vectors"):
        value = getattr(params, field, None)
        if value is not None:
            stores._path(value)  # an existing store (404 otherwise)
    extra = {}
    for field in ("model", "compare"):
        value = getattr(params, field, None)
        if value is not None:
            extra[field] = check_model(config, value)
    if cmd.publishes is not None:
        _new_store(config, getattr(params, cmd.publishes.field))
    if "device" in dict(params):
        extra["device"] = "cpu"
    return cmd, {**dump(params), **extra}


def job_kinds() -> list[str]:
    """The kinds ``POST /jobs`` accepts: every command that runs as a job."""
    from geobias.commands import commands

    return [c.kind for c in commands() if c.job]


__all__ = ["check_caps", "check_model", "job_kinds", "opener", "prepare_job", "run_quick"]
