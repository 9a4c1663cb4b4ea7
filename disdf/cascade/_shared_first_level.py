"""Fit several cascades on the same data, growing their common first level once.

A sweep over T and methods (gcForest, DisDF) on one training set repeats most
of its work: with the same ``random_state``, every cascade's level 1 is grown
from the same seeds on the same input, and the first T trees of a forest are
the T-tree forest with the same seed (both engines; see the tests). So level 1
is grown once with the largest T, its per-tree held-out probabilities and
DisDF's pair statistics (pi, Q) computed once, and each cascade takes the
first T trees of it. Levels 2 and up see different inputs and are grown per
cascade. The fitted estimators are exactly those that ``fit`` would give, and
their level-1 class vectors of the same new examples are computed from one pass
of those examples through level 1 (:mod:`disdf.forests._compiled.leaf_memo`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import clone

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._discriminative import DisDFClassifier
from disdf.weights import pair_cap, reads_pair_statistics

#: Parameters that decide level 1's trees; they must agree across the estimators.
LEVEL_ONE_PARAMS = (
    "forests",
    "n_folds",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "engine",
    "n_bins",
    "bin_subsample",
    "max_tree_samples",
    "random_state",
    "class_weight",  # the examples' weights grow level 1's trees
)


def fit_sharing_first_level(estimators: Sequence[CascadeForestClassifier], X, y) -> list:
    """Fit every estimator on (X, y), growing the shared first level once.

    The estimators may differ in ``n_trees``, in the method (gcForest or DisDF
    and its weight options) and in what decides the later levels, but must
    agree on the parameters that decide level 1's trees (``forests``, ``n_folds``,
    ``max_depth``, ``min_samples_split``, ``min_samples_leaf``, ``engine``, ``n_bins``,
    ``bin_subsample``, ``max_tree_samples``, ``random_state``, ``class_weight``, and whether the
    levels hold out by folds or out of bag: ``out_of_bag``), with an integer ``random_state``.
    Each is then fitted exactly as its own ``fit`` would fit it; level 1 is grown once, with the
    largest ``n_trees``, and each estimator reads its first ``n_trees`` trees of every forest.

    Parameters
    ----------
    estimators : sequence of CascadeForestClassifier or DisDFClassifier
        Fitted in place.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    list
        The estimators, fitted.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from disdf import CascadeForestClassifier, DisDFClassifier
    >>> from disdf.cascade import fit_sharing_first_level
    >>> X, y = load_iris(return_X_y=True)
    >>> models = [CascadeForestClassifier(n_trees=10, random_state=0)]
    >>> models.append(DisDFClassifier(n_trees=20, random_state=0))
    >>> [model.n_levels_ >= 1 for model in fit_sharing_first_level(models, X, y)]
    [True, True]
    """
    if not estimators:
        raise ValueError("fit_sharing_first_level needs at least one estimator")
    reference = estimators[0].get_params()
    if not isinstance(reference["random_state"], (int, np.integer)):
        raise ValueError(
            "sharing level 1 needs an integer random_state (the same seeds for every estimator); "
            f"got {reference['random_state']!r}"
        )
    for position, estimator in enumerate(estimators):
        params = estimator.get_params()
        differing = [name for name in LEVEL_ONE_PARAMS if params[name] != reference[name]]
        if estimator._out_of_bag != estimators[0]._out_of_bag:  # DisDF has no out_of_bag: folds only
            differing.append("out_of_bag")
        if differing:
            raise ValueError(
                f"estimators[{position}] differs from estimators[0] in {differing}, "
                "which decide the first level: it cannot be shared"
            )

    grower = clone(estimators[0]).set_params(n_trees=max(e.n_trees for e in estimators))
    shared = grower._grow_first_level(X, y)
    shared.memoize_leaves()  # their predictions route the same examples through level 1 once
    # Once, for every DisDF's first T trees, when they draw the same pairs (else each its own).
    caps = {
        pair_cap(e.max_pairs)
        for e in estimators
        if isinstance(e, DisDFClassifier) and reads_pair_statistics(e.solver)
    }
    if len(caps) == 1:
        shared.compute_pair_statistics(grower.n_jobs, caps.pop())
    for estimator in estimators:
        estimator._fit_with_first_level(X, y, shared)
    return list(estimators)
