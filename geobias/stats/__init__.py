"""Statistics shared by every metric and probe: one permutation test (exact or Monte Carlo
without replacement, Clopper–Pearson interval) and the Wilcoxon signed-rank test with
Rosenthal's r. See docs/methods.md, "Statistics conventions".

``geobias.stats.permutation`` imports numpy only; ``geobias.stats.wilcoxon`` is imported on use.
"""

from geobias.stats.permutation import Cancelled, PermutationResult, cancellable, permutation_test

__all__ = ["Cancelled", "PermutationResult", "cancellable", "permutation_test"]
