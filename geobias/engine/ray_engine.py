"""The Ray engine: deduplicated inputs as a Ray Data dataset, model replicas as an actor pool.

Probes and pooling call :func:`geobias.engine.masked_log_probs` / :func:`span_vectors` with a
:class:`RemoteModel` handle. The driver holds only the tokenizer and the config (it builds the
inputs); the weights load once per actor. The distinct inputs, sorted by length, become a dataset
of one block per batch; ``map_batches`` sends each batch to an actor of an
``ActorPoolStrategy(size=actors)`` pool; rows carry their index and come back sorted by it (and
``preserve_order`` is set), so results are in input order. The forward pass is the local engine's
(:func:`~geobias.engine.masked.forward_log_probs`, :func:`~geobias.engine.hidden.forward_span_vectors`)
on the same batches, so the numbers are the local engine's.

Failures: an actor that dies is restarted by Ray Data and its batch resubmitted (Ray Data's
actor defaults, ``max_restarts=-1``, ``max_task_retries=-1``); an exception inside a batch is
retried in the actor (``DataContext.retried_map_errors``), at most ``max_retries`` times, then the
run fails with one line. A model that cannot load fails at once (no retry). Audit cells are Ray
tasks with ``max_retries`` (a dead worker's cell is rerun).
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from geobias.engine.local import available_cores, check_threads
from geobias.errors import GeobiasError, InputError


def ray_temp_dir() -> Path:
    """Ray's session directory: ``$GEOBIAS_RAY_TMPDIR``, else ``.ray/`` in the vectors directory
    (:func:`geobias.sources.registry.vectors_dir`; git-ignored in a checkout).

    Unix socket paths are limited to 107 bytes; a very long directory makes ``ray.init`` fail.
    """
    env = os.environ.get("GEOBIAS_RAY_TMPDIR")
    if env:
        return Path(env).expanduser()
    from geobias.sources.registry import vectors_dir

    return vectors_dir() / ".ray"


def _quiet_ray_environment() -> None:
    # no token file in the home directory, no usage-stats notice (see the known facts)
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")


@contextlib.contextmanager
def _stderr_silenced():
    """File descriptor 2 to /dev/null (C++ log lines bypass Python's sys.stderr)."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _driver_messages_to_stderr() -> None:
    """Send the messages Ray's driver prints for its cluster ("(raylet) A worker died or was killed
    ...", with ``log_to_driver`` off too) to stderr: Ray writes them to ``sys.stdout`` from a
    background thread, where they would break the JSON or CSV a command prints. Installed once
    per process (a wrapper around Ray's printer that marks every batch as error output)."""
    try:
        from ray._private import worker as ray_worker
    except ImportError:  # pragma: no cover - another Ray layout: nothing to redirect
        return
    printer = getattr(ray_worker, "print_to_stdstream", None)
    if printer is None or getattr(printer, "_geobias_stderr", False):
        return

    def to_stderr(data, *args, **kwargs):
        return printer({**data, "is_err": True}, *args, **kwargs)

    to_stderr._geobias_stderr = True
    ray_worker.print_to_stdstream = to_stderr


#: Ray's switch between a head reachable from other machines (its default on Linux: the node's
#: address, every interface) and one on the loopback interface only (its default on macOS/Windows).
_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextlib.contextmanager
def _loopback_head(local: bool):
    """While a local head starts: its GCS, raylet, object store and workers listen on 127.0.0.1
    only, unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1`` is set (a head other machines may join;
    start one with ``ray start --head`` and pass ``--ray-address`` to use a cluster).

    Ray reads the switch from the environment (its head processes, started now, inherit it) and
    once into a module constant; both are set for the start and restored after it, so a later
    connection to a remote cluster from this process resolves its own address as usual."""
    if not local or os.environ.get(_CLUSTER_SWITCH) == "1":
        yield {}
        return
    from ray._private import ray_constants

    saved_env, saved_const = os.environ.get(_CLUSTER_SWITCH), getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[_CLUSTER_SWITCH] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield {"_node_ip_address": "127.0.0.1"}
    finally:
        if saved_env is None:
            os.environ.pop(_CLUSTER_SWITCH, None)
        else:
            os.environ[_CLUSTER_SWITCH] = saved_env
        if saved_const is not None:
            ray_constants.ENABLE_RAY_CLUSTER = saved_const


def _gcs_address(ray) -> str | None:
    try:
        return ray.get_runtime_context().gcs_address
    except Exception:  # noqa: BLE001 - only a label for the result
        return None


@contextlib.contextmanager
def _without_ray_address(active: bool):
    """Within the block, no ``RAY_ADDRESS`` in the environment (when ``active``): the private
    cluster's processes, started meanwhile, inherit the environment and must not look for another."""
    saved = os.environ.pop("RAY_ADDRESS", None) if active else None
    try:
        yield
    finally:
        if saved is not None:
            os.environ["RAY_ADDRESS"] = saved


def _check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on ``HOST:PORT`` that refuses connections (``ray.init`` would retry for minutes)."""
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or address == "auto":
        return
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise GeobiasError(f"cannot reach a Ray cluster at {address}: {exc.strerror or exc}") from None


def _first_line(text: str) -> str:
    return " ".join(str(text).strip().split("\n")[0].split())[:300]


def _as_geobias_error(exc: BaseException) -> GeobiasError:
    """The GeobiasError that caused a Ray failure (walking Ray's wrappers), else one line."""
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, GeobiasError):
            return e
        todo += [getattr(e, "cause", None), e.__cause__, e.__context__]
    # Ray's RayTaskError text holds the original exception as a "geobias.errors.ModelError: ..." line
    import re

    from geobias import errors

    for line in str(exc).splitlines():
        m = re.search(r"(?:geobias\.errors\.)?(\w+Error): (.+)", line)
        cls = getattr(errors, m.group(1), None) if m else None
        if isinstance(cls, type) and issubclass(cls, GeobiasError):
            return cls(_first_line(m.group(2)))
    return GeobiasError(f"Ray engine: {type(exc).__name__}: {_first_line(str(exc))}")


@dataclass(frozen=True)
class RemoteModel:
    """A model whose weights live in a Ray actor pool; the driver keeps tokenizer and config.

    Attributes
    ----------
    name : str
        What the user passed to ``--model`` (shown in results).
    source : str
        What the actors load: an absolute local path, a registry name or a hub id.
    kind : {"mlm", "encoder"}
    tokenizer : transformers.PreTrainedTokenizerBase
    config : transformers.PretrainedConfig
    device : str or None
        Device inside each actor (``None``/``"auto"``: CUDA when the actor has a GPU).
    engine : RayEngine
    """

    name: str
    source: str
    kind: str
    tokenizer: Any
    config: Any
    device: str | None
    engine: Any = field(repr=False, compare=False)
    trust_pickle: bool = False

    @property
    def mask_token_id(self) -> int:
        return int(self.tokenizer.mask_token_id)

    @property
    def pad_token_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return int(pad if pad is not None else 0)

    @property
    def model(self):
        raise GeobiasError(f"model {self.name} runs on the Ray engine; its weights are not in this process")


class ModelReplica:
    """Ray Data callable class: one model load per actor, one forward pass per batch.

    Parameters
    ----------
    source, kind, device : see :class:`RemoteModel`
    threads : int
        ``torch.set_num_threads`` in the actor.
    fault : list of (str, str), optional
        Fault injection for tests: ``("raise", path)`` raises, ``("exit", path)`` kills the actor
        process, in the first batch that finds ``path`` (removed first, so each fires once).
    """

    def __init__(self, source: str, kind: str, device: str | None, threads: int, fault=None,
                 trust_pickle: bool = False):
        import torch

        torch.set_num_threads(threads)
        from geobias.models import load_encoder, load_masked_lm

        self.lm = (load_masked_lm if kind == "mlm" else load_encoder)(source, device, trust_pickle=trust_pickle)
        self.fault = fault

    def _maybe_fault(self) -> None:
        for what, path in self.fault or ():
            try:
                os.remove(path)  # only one process wins the removal: each fault fires once
            except FileNotFoundError:
                continue
            if what == "exit":
                os._exit(1)
            raise RuntimeError("injected fault (test)")

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, Any]:
        import torch

        from geobias.engine.hidden import forward_span_vectors
        from geobias.engine.masked import forward_log_probs

        self._maybe_fault()
        lm = self.lm
        with torch.inference_mode():
            if "pos" in batch:
                vals = forward_log_probs(lm.model, lm.device, lm.pad_token_id, list(batch["ids"]),
                                         list(batch["pos"]), list(batch["tok"]))
                out = np.empty(len(vals), dtype=object)
                out[:] = vals
                return {"row": batch["row"], "logp": out}
            pad = lm.tokenizer.pad_token_id or 0
            layers = [int(x) for x in batch["layers"][0]]
            vecs = forward_span_vectors(lm.model, lm.device, pad, list(batch["ids"]), list(batch["idx"]), layers)
            return {"row": batch["row"], "vec": vecs}


class RayEngine:
    """Run probes, pooling and audit cells on a Ray cluster.

    Parameters
    ----------
    address : str, default "local"
        ``"local"``: start a private single-machine cluster for this engine and shut it down on
        exit; ``"auto"``: join the running cluster (``ray start --head``); else a cluster
        address (``HOST:PORT`` or ``ray://HOST:PORT``). If Ray is already initialised in this
        process (tests), that cluster is used and left running.
    threads : int, optional
        torch threads per actor; default 1 (each actor reserves ``threads`` CPUs of the cluster,
        so actors never oversubscribe the cores).
    actors : int, optional
        Model replicas (actor pool size); default: one per GPU when the cluster has GPUs, else
        ``cluster CPUs // threads``.
    num_cpus : int, optional
        CPUs of a private (``"local"``) cluster; default the cores this process may use.
    gpus_per_actor : float, optional
        Default 1 when the cluster has GPUs and ``device`` is not ``"cpu"``, else 0.
    max_retries : int, default 3
        Retries of a batch that raised, and of an audit cell whose worker died.
    """

    kind = "ray"

    def __init__(self, address: str = "local", *, threads: int | None = None, actors: int | None = None,
                 num_cpus: int | None = None, gpus_per_actor: float | None = None, max_retries: int = 3,
                 _fault: list[tuple[str, str]] | None = None):
        check_threads(threads)
        if actors is not None and actors < 1:
            raise InputError(f"--actors must be >= 1; got {actors}")
        if not address:
            raise InputError("--ray-address must be local, auto or a cluster address")
        self.address = address
        self.threads = threads or 1
        self.actors = actors
        self.num_cpus = num_cpus
        self.gpus_per_actor = gpus_per_actor
        self.max_retries = max_retries
        self._fault = _fault
        self._started = False
        #: What ran the work: "local" (a head this engine started) or the cluster's GCS address.
        self.cluster = "local" if address == "local" else address

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> RayEngine:
        _quiet_ray_environment()
        try:
            import ray
        except ImportError:
            raise GeobiasError(
                "--engine ray needs Ray: pip install 'geobias[distributed]' (ray[data]==2.60.0)"
            ) from None
        _driver_messages_to_stderr()
        if not ray.is_initialized():
            # the workers' output stays in their log files (never the driver's stdout, which carries
            # only the result); the driver's own Ray logging is warnings and up, on stderr
            kwargs: dict[str, Any] = dict(include_dashboard=False, logging_level=logging.WARNING,
                                          log_to_driver=False)
            local = self.address == "local"
            if local:
                tmp = ray_temp_dir()
                tmp.mkdir(parents=True, exist_ok=True)
                kwargs.update(num_cpus=self.num_cpus or available_cores(), _temp_dir=str(tmp))
                # "local" starts a private cluster whatever RAY_ADDRESS says (Ray reads the variable
                # for address=None and would connect to it, refusing num_cpus)
                address = "local"
            else:
                address = self.address
                _check_reachable(address)
            try:
                # stderr: the core worker's start-up log lines
                with _stderr_silenced(), _loopback_head(local) as loopback, _without_ray_address(local):
                    ray.init(address=address, **kwargs, **loopback)
            except (ConnectionError, RuntimeError, ValueError, OSError) as exc:
                raise GeobiasError(
                    f"cannot start or reach a Ray cluster at {self.address}: {_first_line(str(exc))}"
                ) from None
            self._started = True
            self.cluster = "local" if local else _gcs_address(ray) or self.address
        else:
            self.cluster = _gcs_address(ray) or self.address
        from ray.data import DataContext

        ctx = DataContext.get_current()
        ctx.execution_options.preserve_order = True
        # an exception in a batch is retried in the actor, at most max_retries times (bounded,
        # unlike actor_task_retry_on_errors with Ray Data's unlimited max_task_retries)
        ctx.retried_map_errors = True
        ctx.max_map_retries = self.max_retries
        ctx.enable_progress_bars = False
        ctx.print_on_execution_start = False
        logging.getLogger("ray.data").setLevel(logging.ERROR)
        return self

    def __exit__(self, *exc) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    def _resources(self) -> tuple[float, float]:
        import ray

        res = ray.cluster_resources()
        return float(res.get("CPU", 0)), float(res.get("GPU", 0))

    def plan(self, device: str | None = None) -> dict:
        """Actor pool size, CPUs and GPUs per actor for a model on ``device``."""
        cpus, gpus = self._resources()
        gpa = self.gpus_per_actor
        if gpa is None:
            gpa = 1.0 if gpus >= 1 and device != "cpu" else 0.0
        if self.actors is not None:
            actors = self.actors
        elif gpa > 0:
            actors = max(1, int(gpus // gpa))
        else:
            actors = max(1, int(cpus // self.threads))
        return {"actors": actors, "cpus_per_actor": 1 if gpa > 0 else self.threads, "gpus_per_actor": gpa}

    def describe(self) -> dict:
        """What ran the command (recorded in the result envelope's inputs)."""
        cpus, gpus = self._resources()
        return {"engine": "ray", "ray_address": self.address, "cluster": self.cluster, "cluster_cpus": cpus,
                "cluster_gpus": gpus, "torch_threads_per_actor": self.threads, **self.plan()}

    # ------------------------------------------------------------------ models
    def _handle(self, name: str, device: str | None, kind: str, trust_pickle: bool = False) -> RemoteModel:
        from geobias.errors import ModelError
        from geobias.models import (
            _load_tokenizer,
            _loading,
            resolve_model,
            weights_kwargs,
        )

        source, local, entry = resolve_model(name)
        if entry is None:
            weights_kwargs(source, name, trust_pickle)  # refuses pickled-only weights here, in one line
        if kind == "mlm" and entry is not None and not entry.has_mlm_head:
            raise ModelError(
                f"model {name} has no masked-LM head (it is an encoder only: use it with `geobias vectors pool`)"
            )
        from transformers import AutoConfig

        with _loading(name):
            config = AutoConfig.from_pretrained(source, local_files_only=local)
        tokenizer = _load_tokenizer(source, local, name)
        if kind == "mlm" and tokenizer.mask_token_id is None:
            raise ModelError(f"model {name}: its tokenizer has no mask token")
        # actors load by absolute path (their working directory is not ours) or by registry/hub name
        target = str(Path(source).resolve()) if entry is None and Path(source).exists() else name
        return RemoteModel(name=name, source=target, kind=kind, tokenizer=tokenizer, config=config,
                           device=device, engine=self, trust_pickle=trust_pickle)

    def load_masked_lm(self, name: str, device: str | None = None, *, trust_pickle: bool = False) -> RemoteModel:
        """Handle of a masked LM: tokenizer and config here, weights in the actors (loaded by
        :func:`~geobias.models.load_masked_lm` there, with its checks)."""
        return self._handle(name, device, "mlm", trust_pickle)

    def load_encoder(self, name: str, device: str | None = None, *, trust_pickle: bool = False) -> RemoteModel:
        """Handle of an encoder (see :meth:`load_masked_lm`)."""
        return self._handle(name, device, "encoder", trust_pickle)

    # ------------------------------------------------------------------ execution
    def _map(self, lm: RemoteModel, rows: list[dict], batch_size: int) -> list[dict]:
        import ray
        from ray.data import ActorPoolStrategy

        plan = self.plan(lm.device)
        import pyarrow as pa

        # one block per local batch (the same rows, so the same padding and the same numbers)
        blocks = [pa.Table.from_pylist(rows[b0 : b0 + batch_size]) for b0 in range(0, len(rows), batch_size)]
        n_blocks = len(blocks)
        ds = ray.data.from_arrow(blocks)
        ds = ds.map_batches(
            ModelReplica,
            fn_constructor_kwargs=dict(source=lm.source, kind=lm.kind, device=lm.device, trust_pickle=lm.trust_pickle,
                                       threads=self.threads, fault=self._fault),
            batch_size=batch_size,
            batch_format="numpy",
            compute=ActorPoolStrategy(size=min(plan["actors"], n_blocks)),
            num_cpus=plan["cpus_per_actor"],
            num_gpus=plan["gpus_per_actor"],
        )
        try:
            out = ds.take_all()
        except GeobiasError:
            raise
        except Exception as exc:  # noqa: BLE001 - Ray wraps worker errors in its own types
            raise _as_geobias_error(exc) from None
        out.sort(key=lambda r: int(r["row"]))
        if [int(r["row"]) for r in out] != list(range(len(rows))):
            raise GeobiasError(f"Ray engine returned {len(out)} rows for {len(rows)} inputs")
        return out

    def run_masked(self, lm: RemoteModel, inputs, requests, *, batch_size: int) -> list[np.ndarray]:
        """Log-probabilities of each distinct input's requests (see :func:`masked_log_probs`)."""
        rows = [{"row": i, "ids": list(seq), "pos": [p for _, p, _ in req], "tok": [t for _, _, t in req]}
                for i, (seq, req) in enumerate(zip(inputs, requests, strict=True))]
        return [np.asarray(r["logp"], dtype=np.float64) for r in self._map(lm, rows, batch_size)]

    def run_spans(self, lm: RemoteModel, items, layers: list[int], *, batch_size: int) -> np.ndarray:
        """Span vectors of each item (see :func:`span_vectors`), shape (n, hidden), float32."""
        rows = [{"row": i, "ids": list(ids), "idx": list(idx), "layers": list(layers)}
                for i, (ids, idx) in enumerate(items)]
        return np.stack([np.asarray(r["vec"], dtype=np.float32) for r in self._map(lm, rows, batch_size)])

    def map_cells(self, fn, cells: list, *, on_done=None) -> list:
        """``fn`` on every cell as a Ray task (one CPU each, retried if its worker dies), in
        cell order. A cell whose task fails for good gives ``{"error": one line}``.
        ``on_done(i, result)`` is called as each cell finishes (in the order they finish)."""
        import ray
        from ray.exceptions import WorkerCrashedError

        task = ray.remote(num_cpus=1, max_retries=self.max_retries)(fn)
        refs = [task.remote(c) for c in cells]
        index = {ref: i for i, ref in enumerate(refs)}
        out: list = [None] * len(refs)
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                i = index[ref]
                try:
                    out[i] = ray.get(ref)
                except WorkerCrashedError:
                    out[i] = {"error": f"the Ray worker running this cell died {self.max_retries + 1} time(s) "
                                       "(killed, or out of memory: set options.limit); the workers' logs are in the "
                                       "Ray session's logs folder"}
                except Exception as exc:  # noqa: BLE001 - a failed cell is reported, the grid goes on
                    out[i] = {"error": str(_as_geobias_error(exc))}
                if on_done is not None:
                    on_done(i, out[i])
        return out
