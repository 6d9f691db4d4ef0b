"""The registry of commands, the base of their parameter models, and :func:`execute`.

A command is three things written once: a parameter model (a :class:`Params` subclass), a
``run(params, *, progress=None)`` that returns a result object, and a name. Front doors look a
command up with :func:`get`, validate their input with :func:`validate` and call
:func:`execute`, which also builds the result envelope.

Untrusted input (the service) is validated with ``front="service"``: a string where a file may
be given is then read as inline text or an inline comma list, never as a path on the server, and
fields that name output files (:attr:`Command.outputs`, declared :class:`Output` objects) are
refused (the service fills them in).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from geobias._progress import ProgressArg
from geobias.errors import Cancelled, GeobiasError, InputError, ParameterError

Front = Literal["python", "cli", "service"]


class Params(BaseModel):
    """Base of every parameter model: unknown fields are refused, instances are frozen.

    Validate with :func:`validate` (or ``Model.model_validate(data, context={"front": ...})``);
    plain ``Model(**kwargs)`` is the trusted Python form (``front="python"``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    def work(self) -> Estimate | None:
        """The work this run will do, estimated before it starts (``None``: bounded by its inputs).

        Commands with permutations (or other work a parameter can make arbitrarily large) override
        it; :func:`check_budget` compares it with the budget before :func:`execute` runs anything.
        """
        return None

    @classmethod
    def produces(cls, field: str, data: dict[str, Any]) -> bool:
        """Whether a run with the (not yet validated) parameters ``data`` can write the output named
        by ``field`` (see :class:`Output`): a service job sets only those. Default: every declared one."""
        return True


def present(field: str) -> dict[str, Any]:
    """JSON Schema: ``field`` is present and not null (for a model's rules across fields, which
    it states in its schema's ``allOf``).

    >>> present("lang")
    {'required': ['lang'], 'properties': {'lang': {'not': {'type': 'null'}}}}
    """
    return {"required": [field], "properties": {field: {"not": {"type": "null"}}}}


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The work a run will do, estimated before it starts (see :meth:`Params.work`).

    Attributes
    ----------
    units : int
        How much work, in ``unit``: for permutation tests, the partitions evaluated summed over
        every test the run makes.
    unit : str
        ``"permutations"`` (partitions of a permutation test).
    detail : str
        How ``units`` is made up (``"6 methods × 1,000,000 MWEAT permutations"``).
    seconds : float or None
        Estimated time here, where the unit has a calibration (``None`` otherwise).
    limit : int
        Largest ``units`` a run may do without ``force``.
    resamples : int, default 0
        The bootstrap's resamples counted in ``units``, each pass of a bootstrap counted (see
        :meth:`with_passes`).
    resample_words : int, default 0
        Words each resample is counted for: ``units`` holds ``resamples × resample_words`` of them.

    Examples
    --------
    >>> Estimate(6_000, "permutations", "6 tests × 1,000 permutations", None, 100).over
    True
    """

    units: int
    unit: str
    detail: str
    seconds: float | None
    limit: int
    resamples: int = 0
    resample_words: int = 0

    @property
    def over(self) -> bool:
        """Whether the run exceeds :attr:`limit`."""
        return self.units > self.limit

    def with_passes(self, passes: int) -> Estimate:
        """The estimate with its bootstrap counted ``passes`` times (a metric that bootstraps several
        quantities, or a crossed design's three passes: :attr:`geobias.metrics.Metric.bootstrap_passes`).

        >>> e = Estimate(1_076_000, "permutations", "1,000,000 partitions + 1,000 bootstrap resamples × 76 words",
        ...              None, 10**8, resamples=1_000, resample_words=76)
        >>> e.with_passes(9).describe()
        '1,684,000 permutations (1,000,000 partitions + 9 passes × 1,000 bootstrap resamples × 76 words)'
        """
        if passes <= 1 or not self.resamples:
            return self
        one = f"{self.resamples:,} bootstrap resamples × {self.resample_words} words"
        return dataclasses.replace(
            self, units=self.units + (passes - 1) * self.resamples * self.resample_words,
            detail=self.detail.replace(one, f"{passes} passes × {one}"), resamples=self.resamples * passes)

    def scaled(self, factor: float) -> Estimate:
        """The same estimate against ``factor`` × the limit (a front door with a smaller budget)."""
        return dataclasses.replace(self, limit=int(self.limit * factor))

    def describe(self) -> str:
        """``"6,000,000 permutations (6 methods × 1,000,000 partitions) would take about 4.0 s here"``."""
        text = f"{self.units:,} {self.unit}"
        if self.detail:
            text += f" ({self.detail})"
        if self.seconds is not None:
            text += f" would take about {duration(self.seconds)} here"
        return text

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def duration(seconds: float) -> str:
    """``"3.2 s"``, ``"4.5 minutes"``, ``"2.0 days"``."""
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.1f} s"


class WorkBudgetError(InputError):
    """A run's estimated work exceeds the budget and ``force`` was not given.

    The CLI prints it on one line and exits 1; the service answers a quick route with 422 ("submit
    it as a job").

    Attributes
    ----------
    estimate : Estimate
    """

    def __init__(self, message: str, estimate: Estimate):
        super().__init__(message)
        self.estimate = estimate


def front_of(info) -> Front:
    """The front door a validator runs for (``info`` is pydantic's ``ValidationInfo``)."""
    context = getattr(info, "context", None) or {}
    return context.get("front", "python")


OutputKind = Literal["file", "folder", "plot", "report", "store", "envelope"]


@dataclasses.dataclass(frozen=True)
class Output:
    """A file or folder a command writes, declared on its registration (see :func:`command`).

    Front doors read these declarations instead of knowing commands by name: the service refuses
    a client's value for ``field`` and, where ``path`` is set, points the field into the job's
    artefacts folder; a ``report`` output's ``files`` are served at ``/jobs/{id}/{path}/{file}``;
    a ``store`` output is a new store the job publishes once done.

    Attributes
    ----------
    field : str
        The parameter naming the output (``"plot"``, ``"out"``).
    kind : {"file", "folder", "plot", "report", "store"}, default "file"
    path : str or None, default None
        Where a service job writes it, relative to the job's artefacts folder (``""``: the folder
        itself); ``None``: a service job does not write it (the field stays unset), except a
        ``store``, whose name the client gives.
    files : tuple of str
        A ``report`` folder's files a client may download (``index.html`` is shown as a page).
    title : str
        How a report names the output.

    Examples
    --------
    >>> Output("plot", "plot", "gender-plane.png").in_service
    True
    """

    field: str
    kind: OutputKind = "file"
    path: str | None = None
    files: tuple[str, ...] = ()
    title: str = ""

    @property
    def in_service(self) -> bool:
        """Whether a service job writes this output (into its artefacts folder)."""
        return self.path is not None


@dataclasses.dataclass(frozen=True)
class Command:
    """One registered command.

    Attributes
    ----------
    name : str
        As typed after ``geobias`` (``"mweat"``, ``"probe becpro"``, ``"vectors pool"``).
    params : type of Params
    run : callable ``(params, *, progress=None) -> result``
    summary : str
        One line for listings (the first line of ``run``'s docstring).
    quick : bool
        Answered synchronously by a service route (seconds on an open store).
    job : bool
        Runs as a service job (a forked process, cancellable).
    outputs : tuple of Output
        The files, folders and stores the command writes (:class:`Output`); the service sets their
        fields itself.
    result : str
        The qualified name of the result type ``run`` returns (``"geobias.metrics.mweat.MweatResult"``),
        by name so that the registry imports no analysis module; :meth:`load_result` rebuilds one.
    example : str
        The arguments of an example command line (``"--lang fr --json"``), shown in its help.
    """

    name: str
    params: type[Params]
    run: Callable[..., Any]
    summary: str
    quick: bool = False
    job: bool = True
    outputs: tuple[Output, ...] = ()
    result: str = ""
    example: str = ""

    @property
    def output_fields(self) -> tuple[str, ...]:
        """The parameters naming files the command writes (a service client may not set them; a new
        store's name is the client's to give)."""
        return tuple(o.field for o in self.outputs if o.kind != "store")

    @property
    def publishes(self) -> Output | None:
        """The new store a run makes (a ``store`` output), if any."""
        return next((o for o in self.outputs if o.kind == "store"), None)

    def output(self, path: str) -> Output | None:
        """The ``report`` output served under ``path`` (its folder in the artefacts), if any."""
        return next((o for o in self.outputs if o.kind == "report" and o.path == path), None)

    def result_type(self) -> type:
        """The result class: the type the run returns, found among the ``Result`` types loaded by name
        (:func:`geobias.results.result_type`; the command modules import their analyses on use)."""
        from geobias.results import result_type

        return result_type(self.result)

    def load_result(self, data: dict[str, Any]):
        """The result object of a stored envelope's ``result`` (see :meth:`geobias.results.Result.from_dict`)."""
        return self.result_type().from_dict(data)

    def work(self, params: Params) -> Estimate | None:
        """The estimated work of a run with ``params`` (validated), before it starts; ``None`` when
        the command's work is bounded by its inputs alone (see :meth:`Params.work`). The bootstrap
        is counted once per pass its metric makes (:meth:`Estimate.with_passes`)."""
        estimate = params.work()
        if estimate is None or not estimate.resamples:
            return estimate
        from geobias.metrics.declaration import metric_of

        metric = metric_of(self.result_type())  # the result's module, imported, has declared its metric
        return estimate.with_passes(metric.bootstrap_passes if metric is not None else 1)

    @property
    def kind(self) -> str:
        """The command's name with spaces as hyphens (``"probe-becpro"``): its job kind."""
        return self.name.replace(" ", "-")


REGISTRY: dict[str, Command] = {}

def command(name: str, params: type[Params], *, quick: bool = False, job: bool = True,
            outputs: tuple[Output | str, ...] = (), result: str = "", example: str = "") -> Callable:
    """Register ``run`` as the command ``name`` with parameter model ``params`` (see :class:`Command`).

    ``outputs`` declares what the command writes: :class:`Output` objects, or bare field names
    (a ``"file"`` the service does not write). ``example``: the arguments of an example command
    line (``"--lang fr --json"``), shown in its help.
    """
    declared = tuple(o if isinstance(o, Output) else Output(o) for o in outputs)
    for o in declared:
        if o.field not in params.model_fields:
            raise TypeError(f"command {name!r}: output field {o.field!r} is not a parameter of {params.__name__}")

    def register(run: Callable) -> Callable:
        summary = " ".join((run.__doc__ or "").strip().split("\n\n")[0].split())
        REGISTRY[name] = Command(name, params, run, summary, quick=quick, job=job, outputs=declared, result=result,
                                 example=example)
        return run

    return register


def get(name: str) -> Command:
    """The command named ``name`` (or its job kind, ``"probe-becpro"``), its module imported on first use.

    Raises
    ------
    InputError
        No such command (the message lists them).
    """
    found = _registered(name)
    if found is None:  # not imported yet: the module the index names (every module for another name)
        from geobias.commands import load

        load(name)
        found = _registered(name)
    if found is None:
        raise InputError(f"unknown command {name!r}; choose from {', '.join(sorted(REGISTRY))}")
    return found


def _registered(name: str) -> Command | None:
    return REGISTRY.get(name) or next((c for c in REGISTRY.values() if c.kind == name), None)


def commands() -> list[Command]:
    """Every registered command, by name (every command module and plug-in imported first)."""
    from geobias.commands import load

    load()
    return [REGISTRY[n] for n in sorted(REGISTRY)]


def _first_error(exc: ValidationError) -> tuple[str | None, str, BaseException | None]:
    err = exc.errors()[0]
    loc = [str(x) for x in err.get("loc", ()) if not isinstance(x, int)]
    field = loc[0] if loc else None
    cause = (err.get("ctx") or {}).get("error")
    message = str(cause) if isinstance(cause, BaseException) else err.get("msg", "invalid value")
    message = message.removeprefix("Value error, ")
    return field, message, cause if isinstance(cause, BaseException) else None


def validate(command_: Command | str, data: dict[str, Any] | Params, *, front: Front = "python",
             outputs_given: bool = False) -> Params:
    """``data`` validated against the command's parameter model.

    Raises
    ------
    ParameterError
        A wrong type, a value outside its range or choices, unknown or conflicting fields, or an
        output field given to the service (``field`` names the parameter).
    InputError
        Input that is well-formed but unusable (a word file that does not exist, an empty list):
        the :class:`~geobias.errors.InputError` a validator raised.

    ``outputs_given=True`` is the service's own call, once it has set the output fields itself.
    """
    cmd = get(command_) if isinstance(command_, str) else command_
    if isinstance(data, cmd.params):
        return data
    if isinstance(data, Params):
        data = data.model_dump()
    if front == "service" and not outputs_given:
        refuse_outputs(cmd, data)
    try:
        params = cmd.params.model_validate(data, context={"front": front})
    except ValidationError as exc:
        field, message, cause = _first_error(exc)
        if isinstance(cause, ParameterError):
            named = cause.field is None or cause.field == field
            raise ParameterError(_prefixed(field if named else None, message), cause.field or field) from None
        if isinstance(cause, InputError):
            raise type(cause)(_prefixed(field, message)) from None
        raise ParameterError(_prefixed(field, message), field) from None
    if front == "service":
        # a choice for a local run (its kind says so: reading part of a file, unpickling, building
        # subword vectors, a file on this machine): the service opens its stores once, in full,
        # loads no pickle and reads no file a client names
        from geobias.commands._kinds import LOCAL, fields_of, spec_of

        model = type(params)
        local = next((f for f in fields_of(model, service=LOCAL) if getattr(params, f) != spec_of(model, f).value),
                     None)
        if local is not None:
            raise ParameterError(f"{local} is not available in the service (a choice for a local run: stores are "
                                 "opened once, in full, no pickle is loaded and no file a client names is read)", local)
    return params


def _prefixed(field: str | None, message: str) -> str:
    """``message`` naming ``field`` first: "seed must be ...", "targets_x: no such file ..."."""
    if not field or message.startswith(field):
        return message
    return f"{field} {message}" if message.startswith("must ") else f"{field}: {message}"


def refuse_outputs(cmd: Command, data: dict[str, Any]) -> None:
    """Raise :class:`ParameterError` when a service client sets a field naming an output file."""
    given = [f for f in cmd.output_fields if data.get(f) is not None]
    if given:
        raise ParameterError(f"{given[0]}: this service chooses where a job writes its files", given[0])


def check_budget(command_: Command | str, params: Params, *, factor: float = 1.0) -> Estimate | None:
    """Refuse a run whose estimated work exceeds the budget, before any work; return the estimate.

    Parameters
    ----------
    command_ : Command or str
    params : Params
        Validated parameters; a model with a true ``force`` field is never refused.
    factor : float, default 1.0
        Budget as a multiple of the estimate's limit: a front door with a tighter budget (a
        service's quick route) passes less than 1.

    Raises
    ------
    WorkBudgetError
        The estimate exceeds ``factor`` × its limit and ``force`` is not set; the one-line message
        gives the estimate and names `force`.
    """
    cmd = get(command_) if isinstance(command_, str) else command_
    estimate = cmd.work(params)
    if estimate is None or getattr(params, "force", False):
        return estimate
    estimate = estimate.scaled(factor) if factor != 1.0 else estimate
    if estimate.over:
        raise WorkBudgetError(
            f"{cmd.name}: {estimate.describe()}; the limit without `force` is {estimate.limit:,} {estimate.unit}",
            estimate)
    return estimate


def dump(params: Params) -> dict[str, Any]:
    """The parameters as JSON-able values (paths as strings), for envelopes and job records."""
    return params.model_dump(mode="json")


def execute(command_: Command | str, params: Params | dict[str, Any], *, progress: ProgressArg = None,
            front: Front = "python", budget: float | None = 1.0) -> tuple[Any, dict[str, Any]]:
    """Run a command and build its result envelope.

    Parameters
    ----------
    command_ : Command or str
    params : Params or dict
        A dict is validated first (see :func:`validate`).
    progress : geobias._progress.Progress, bool or None, optional
        Where the run reports its stages and bars (:data:`geobias._progress.ProgressArg`; ``True``:
        rich bars on stderr); default: nowhere. Its
        :meth:`~geobias._progress.Progress.cancelled` stops the run (:class:`~geobias.errors.Cancelled`)
        at the next permutation chunk, loop step or stage.
    front : {"python", "cli", "service"}
        The front door, for validation.
    budget : float or None, default 1.0
        The work budget as a multiple of each estimate's limit (:func:`check_budget`), checked
        before the run; ``None`` checks nothing (a service job: cancellable, run by choice).

    Returns
    -------
    (result, envelope)
        The command's result object and ``{"command", "geobias_version", "inputs", "result"}``;
        ``inputs`` holds the validated parameters (``options``) and the stores the run resolved.

    Raises
    ------
    WorkBudgetError
        The run's estimated work (:meth:`Command.work`) exceeds the budget without ``force``.
    Cancelled
        ``progress.cancelled()`` became true.
    GeobiasError
        Every problem with the input or the environment (one line).
    """
    from geobias.results import envelope

    cmd = get(command_) if isinstance(command_, str) else command_
    result, inputs = _execute(cmd, params, progress=progress, front=front, budget=budget)
    env = envelope(cmd.name, inputs, result)
    for output in cmd.outputs:  # the envelope itself, written where the command's output field says
        path = inputs.get("options", {}).get(output.field) if output.kind == "envelope" else None
        if path is not None:
            _write_envelope(Path(path), env, progress)
    return result, env


def _write_envelope(path: Path, env: dict[str, Any], progress: ProgressArg) -> None:
    """Write ``env`` as JSON to ``path`` (atomically: never a partial report; the command checked
    the path before its run, and whether it may replace a file there)."""
    import json

    from geobias._progress import reporter
    from geobias.io.atomic import atomic_write

    with atomic_write(path, mode="w", what="report", overwrite=True) as fh:
        fh.write(json.dumps(env, indent=2, ensure_ascii=False) + "\n")
    reporter(progress).note(f"report written to {path}")


def _execute(cmd: Command, params: Params | dict[str, Any], *, progress: ProgressArg, front: Front,
             budget: float | None) -> tuple[Any, dict[str, Any]]:
    """:func:`execute` without the envelope: the result and the recorded inputs."""
    from geobias._progress import reporter
    from geobias.results import recorded_inputs, start_recording, stop_recording

    if isinstance(progress, bool):  # the shorthand: a command's run always gets a reporter, or None
        progress = reporter(progress) if progress else None

    params = validate(cmd, params, front=front)
    if budget is not None:
        check_budget(cmd, params, factor=budget)
    from geobias.stats import cancellable

    cancelled = getattr(progress, "cancelled", None)  # a reporter of our Progress family can stop the run
    if cancelled is not None and cancelled():
        raise Cancelled("the run was cancelled before it started")  # e.g. its client left while it waited
    stop = cancellable(cancelled) if cancelled is not None else contextlib.nullcontext()  # permutation tests
    token = start_recording()
    try:
        with _trusting_pickle(params), stop:  # every loader of the run
            result = cmd.run(params, progress=progress)
        inputs = {"options": dump(params), **recorded_inputs()}
    finally:
        stop_recording(token)
    return result, inputs


def _trusting_pickle(params: Params) -> contextlib.AbstractContextManager:
    """The loaders of the run accept pickled checkpoints when ``params`` say ``trust_pickle``
    (:func:`geobias.models.trusting_pickle`); otherwise nothing changes, and the model loaders'
    module is not imported (a static analysis never needs it)."""
    if not getattr(params, "trust_pickle", False):
        return contextlib.nullcontext()
    from geobias.models import trusting_pickle

    return trusting_pickle(True)


def run(name: str, /, progress: ProgressArg = None, **params: Any) -> Any:
    """Run the command ``name`` from Python: ``run("mweat", lang="fr", permutations=10_000)``.

    Returns the command's result object (``.to_dict()`` gives its JSON form; :func:`execute` also
    gives the envelope). Stores stay open between calls (:mod:`geobias.sources.opened`), so a loop
    over seeds or tests pays for opening a store once.
    """
    result, _ = _execute(get(name), params, progress=progress, front="python", budget=1.0)
    return result


__all__ = ["Command", "Estimate", "Output", "Front", "GeobiasError", "Params", "REGISTRY", "WorkBudgetError", "check_budget",
           "command", "commands", "dump", "duration", "execute", "front_of", "get", "run", "validate"]
