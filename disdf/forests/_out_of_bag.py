"""Out-of-bag outputs: a forest grown once on all of a level's examples, each example's output the
mean of the trees whose bootstrap sample left it out (DF21's layers; Breiman's out-of-bag estimate).

A level of K-fold cross-fitting grows K forests per kind, each on (K-1)/K of the examples; out of bag,
one forest per kind on all of them, every tree a bootstrap sample: K times fewer trees for the
held-out outputs. Tree t of a forest leaves out about (1 - 1/n)^n, 37 %, of the examples, so each
example's output is a mean over about 0.37 T trees (:class:`OutOfBagLeaves`).

Copies of a row: a copy in a tree's sample tells the held-out twin its target, as it would across
folds, so a row counts as out of tree t's bag only when no copy of it is in the bag
(:func:`in_bag_by_group`, the grouping of :func:`disdf._utils.folds.duplicate_groups`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from disdf.forests._tree_leaves import TreeLeaves

#: Examples summed per block (bounds the (block, T, C) array of their trees' outputs).
_BLOCK_VALUES = 1 << 22


def in_bag_by_group(in_bag: np.ndarray, groups: np.ndarray | None) -> np.ndarray:
    """``in_bag`` (n, T) with each row in tree t's bag when any row of its group is (``groups``: each
    row's group named by its first row, or None: every row alone)."""
    if groups is None:
        return in_bag
    first_rows, group = np.unique(groups, return_inverse=True)
    any_in_bag = np.zeros((len(first_rows), in_bag.shape[1]), dtype=bool)
    np.logical_or.at(any_in_bag, group.ravel(), in_bag)
    return any_in_bag[group.ravel()]


@dataclass(frozen=True)
class OutOfBagLeaves(TreeLeaves):
    """The leaf rows of every training example in every tree of a forest grown on all of them, with
    ``out_of_bag[i, t]``: whether tree t's sample left example i out. Its :meth:`weighted_sum` is the
    out-of-bag output, sum_t w_t [i out of t] p_i^(t) / sum_t w_t [i out of t] (eq. (41) restricted to
    the trees that never saw the example)."""

    out_of_bag: np.ndarray  # (n, T) booleans

    @classmethod
    def of(cls, leaves: TreeLeaves, in_bag: np.ndarray) -> OutOfBagLeaves:
        """``leaves`` of the training examples with their (n, T) in-bag booleans."""
        if in_bag.shape != leaves.leaves.shape:
            raise ValueError(f"in_bag has shape {in_bag.shape}; the leaves {leaves.leaves.shape}")
        return cls(leaves.leaves, leaves.table, ~in_bag)

    def __getitem__(self, positions: np.ndarray) -> OutOfBagLeaves:
        return OutOfBagLeaves(self.leaves[positions], self.table, self.out_of_bag[positions])

    def first(self, n_trees: int) -> OutOfBagLeaves:
        return OutOfBagLeaves(
            np.ascontiguousarray(self.leaves[:, :n_trees]), self.table, self.out_of_bag[:, :n_trees]
        )

    def weighted_sum(self, w: np.ndarray) -> np.ndarray:
        """The out-of-bag outputs (class docstring), shape (n, C). An example no tree left out (with
        T = 100 bootstrapped trees a chance of about 1e-20; likelier with few trees) gets the mean of
        the other examples' outputs: no tree that saw its target speaks for it."""
        w = np.asarray(w, dtype=np.float64)
        n, n_trees = self.leaves.shape
        sums = np.empty((n, self.n_classes))
        block = max(1, _BLOCK_VALUES // max(1, n_trees * self.n_classes))
        for start in range(0, n, block):
            outputs = self.table[self.leaves[start : start + block]]  # (b, T, C)
            left_out = self.out_of_bag[start : start + block]
            sums[start : start + block] = np.einsum("itc,t->ic", outputs * left_out[:, :, None], w)
        totals = self.out_of_bag @ w
        covered = totals > 0
        vectors = np.empty_like(sums)
        vectors[covered] = sums[covered] / totals[covered, None]
        if not covered.all():
            vectors[~covered] = vectors[covered].mean(axis=0) if covered.any() else 0.0
        return vectors
