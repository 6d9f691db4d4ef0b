"""Build small randomly initialised BERT models with a purpose-made WordPiece vocabulary.

No pretrained masked LM can be downloaded on the project's machines; tests and benchmarks build
models with this helper, save them with ``save_pretrained`` and load them *by path* through the
same ``from_pretrained`` code path as real model ids (Ray actors too: they load the saved folder,
so no worker imports this module).

A test factory, not library code: tests import it as ``from _tiny_models import ...`` (pytest
puts ``tests/`` on ``sys.path``); benchmarks put ``tests/`` on ``sys.path`` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def vocabulary_for(texts: Iterable[str], *, split: Iterable[str] = (), lowercase: bool = True) -> list[str]:
    """A WordPiece vocabulary covering every word and punctuation mark of ``texts``.

    Parameters
    ----------
    texts : iterable of str
        Sentences or words; every whitespace/punctuation-separated piece becomes a token.
    split : iterable of str
        Words to leave out as whole tokens; they are covered by two pieces instead
        (``"phlebotomist"`` → ``"phlebo"``, ``"##tomist"``), to exercise multi-token attributes.
    lowercase : bool, default True

    Returns
    -------
    list of str
        ``[PAD] [UNK] [CLS] [SEP] [MASK]`` followed by the tokens, sorted.
    """
    split = {w.lower() if lowercase else w for w in split}
    tokens: set[str] = set()
    for text in texts:
        for piece in re.findall(r"\w+|[^\w\s]", text.lower() if lowercase else text):
            if piece in split:
                half = max(1, len(piece) // 2)
                tokens.update({piece[:half], "##" + piece[half:]})
            else:
                tokens.add(piece)
    return SPECIAL + sorted(tokens - set(SPECIAL))


def make_random_bert(
    path: str | Path,
    vocab: list[str],
    *,
    hidden_size: int = 32,
    num_hidden_layers: int = 2,
    num_attention_heads: int = 2,
    intermediate_size: int = 64,
    max_position_embeddings: int = 128,
    mlm_head: bool = True,
    lowercase: bool = True,
    seed: int = 0,
) -> Path:
    """Save a randomly initialised ``BertForMaskedLM`` (or ``BertModel``) and its tokenizer.

    Parameters
    ----------
    path : str or Path
        Output directory (created).
    vocab : list of str
        WordPiece vocabulary; must start with the five special tokens.
    mlm_head : bool, default True
        False saves an encoder only (``BertModel``), like the MiniLM sentence encoder.
    seed : int, default 0
        ``torch.manual_seed`` before initialisation (same seed, same weights).

    Returns
    -------
    Path
        The directory, loadable with ``from_pretrained``.
    """
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertModel, BertTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    import inspect

    # transformers 5 names the argument ``vocab`` (path or dict); 4.x names it ``vocab_file``
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    tok = BertTokenizerFast(**{key: str(path / "vocab.txt")}, do_lower_case=lowercase)
    tok.save_pretrained(path)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=hidden_size,
        num_hidden_layers=num_hidden_layers,
        num_attention_heads=num_attention_heads,
        intermediate_size=intermediate_size,
        max_position_embeddings=max_position_embeddings,
        pad_token_id=vocab.index("[PAD]"),
    )
    torch.manual_seed(seed)
    model = (BertForMaskedLM if mlm_head else BertModel)(config)
    model.save_pretrained(path)
    return path
