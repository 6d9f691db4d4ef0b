"""One progress protocol from the library to the command layer: every ``progress`` parameter of
geobias has the one type :data:`geobias._progress.ProgressArg` (a reporter, or ``True``/``False``
from Python), and a reporter handed to a library loop sees its bar and can stop it."""

from __future__ import annotations

import ast
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from geobias._progress import ConsoleProgress, Progress, ProgressArg, reporter
from geobias.errors import Cancelled

PACKAGE = Path(__file__).resolve().parents[2] / "geobias"


def _progress_parameters():
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                    if arg.arg == "progress":
                        yield f"{path.relative_to(PACKAGE.parent)}:{node.name}", (
                            ast.unparse(arg.annotation) if arg.annotation is not None else None)


def test_every_progress_parameter_has_the_one_type():
    found = dict(_progress_parameters())
    assert len(found) > 60  # the scan sees the library and the command layer
    other = {where: kind for where, kind in found.items() if kind != "ProgressArg"}
    assert other == {}, f"progress parameters of another type: {other}"
    assert ProgressArg == Progress | bool | None


class Recording(Progress):
    """A reporter that records its bars and can be cancelled after ``stop_after`` steps."""

    enabled = True

    def __init__(self, stop_after: int | None = None):
        self.bars: list[tuple[str, int, int]] = []
        self.stop_after, self.steps = stop_after, 0

    def cancelled(self) -> bool:
        return self.stop_after is not None and self.steps >= self.stop_after

    @contextmanager
    def bar(self, description: str, total: int):
        done = [0]

        def advance(n: int = 1) -> None:
            done[0] += n
            self.steps += 1
        yield advance
        self.bars.append((description, total, done[0]))


def test_the_permutation_test_shows_its_partitions_on_a_reporter():
    from geobias.stats import permutation_test

    scores = np.random.default_rng(0).standard_normal(40)
    shown = Recording()
    with_bar = permutation_test(scores, 20, n_permutations=25_000, method="monte-carlo", chunk_size=10_000,
                                progress=shown)
    plain = permutation_test(scores, 20, n_permutations=25_000, method="monte-carlo", chunk_size=10_000)
    assert shown.bars == [("permutations", 25_000, 25_000)]  # one bar, every partition counted once
    assert with_bar.p_value == plain.p_value  # showing progress changes nothing
    with pytest.raises(Cancelled):
        permutation_test(scores, 20, n_permutations=25_000, method="monte-carlo", chunk_size=10_000,
                         progress=Recording(stop_after=1))


def test_true_and_false_stand_for_reporters():
    assert isinstance(reporter(True), ConsoleProgress) and reporter(True).enabled
    assert type(reporter(False)) is Progress and not reporter(None).enabled
    shown = Recording()
    assert reporter(shown) is shown
