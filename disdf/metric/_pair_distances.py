"""Distances between examples in a fitted cascade's learned representation (metric-learn's API).

The representation of an example is the last kept level's M concatenated class
vectors v = (v^(1), ..., v^(M)) (:meth:`~disdf.CascadeForestClassifier.transform`).
:class:`PairDistances` gives a cascade ``pair_distance``, ``pair_score`` and ``get_metric``:
the paper's d_1, a squared Euclidean distance, and the per-tree surrogates its
objective optimises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from disdf._utils.parameters import OneOf

#: Distances between two representations (see CascadeForestClassifier.pair_distance).
PAIR_DISTANCES = {
    "manhattan": lambda d: np.abs(d).sum(axis=1),
    "squared_euclidean": lambda d: np.square(d).sum(axis=1),
}
#: The paper's per-tree surrogates (True: squared, <P_ij, w^2> of eq. (58); False: <Q_ij, w> of eq. (62)).
SURROGATES = {"surrogate_p": True, "surrogate_q": False}
#: pair_distance's and get_metric's ``distance``.
DISTANCE = OneOf((*PAIR_DISTANCES, *SURROGATES))


class PairDistances:
    """``pair_distance``, ``pair_score`` and ``get_metric`` of a fitted cascade (a mixin of
    :class:`~disdf.CascadeForestClassifier`, whose public ``transform``, ``levels_`` and
    ``last_level_input`` it reads)."""

    if TYPE_CHECKING:  # the host cascade's, for the type checker only (the mixin defines none of them)
        levels_: list[Any]  # disdf.cascade.CascadeLevel: the cascade is a floor above, not imported here
        n_features_in_: int

        def last_level_input(self, X) -> np.ndarray: ...

        def transform(self, X) -> np.ndarray: ...

    def _surrogate_distances(self, first: np.ndarray, second: np.ndarray, squared: bool) -> np.ndarray:
        """The paper's per-tree surrogates at the last kept level, summed over its forests and averaged
        over each forest's fold models: <P_ij, w^2> of eq. (58) or <Q_ij, w> of eq. (62)."""
        inputs = self.last_level_input(np.vstack([first, second]))
        level = self.levels_[-1]
        n = len(first)
        total = np.zeros(n)
        for forest in level.forests:
            for model, w in zip(forest.models, forest.weights, strict=True):
                p = model.probabilities(inputs)  # (2n, T, C)
                difference = p[:n] - p[n:]
                per_tree = np.square(difference).sum(axis=2) if squared else np.abs(difference).sum(axis=2)
                total += per_tree @ (np.square(w) if squared else w) / len(forest.models)
        return total

    def pair_distance(self, pairs, distance: str = "manhattan") -> np.ndarray:
        """Distance between the two samples of each pair in the learned representation.

        metric-learn's convention: ``pairs`` has shape (n_pairs, 2, n_features).
        The representation is that of
        :meth:`~disdf.CascadeForestClassifier.transform` (the last kept
        level's M concatenated class vectors v = (v^(1), ..., v^(M))). ``"manhattan"``
        is the paper's d_1(v_i, v_j) = ||v_i - v_j||_1, the distance DisDF's
        hinge term pushes above τ for different-class pairs (through <Q_ij, w>,
        eq. (62), which bounds it from above); ``"squared_euclidean"`` is
        sum_k sum_c (v_ic^(k) - v_jc^(k))^2, the distance of eq. (58)'s first line.
        The paper's per-tree surrogates, which its objective optimises:
        ``"surrogate_p"`` is <P_ij, w^2> of eq. (58) (``P_ij^(t) = sum_c
        (p_ic^(t) - p_jc^(t))^2``) and ``"surrogate_q"`` is <Q_ij, w> of eq. (62)
        (``Q_ij^(t) = sum_c |p_ic^(t) - p_jc^(t)|``), at the last kept level,
        summed over its forests and averaged over each forest's fold models.

        With M forests per level (4 by default) every class vector is a probability
        vector, so ``"manhattan"`` and ``"squared_euclidean"`` lie in [0, 2M] ([0, 8]
        by default); ``"surrogate_q"`` bounds ``"manhattan"`` from above.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features)
            Each pair's two samples in the original feature space.
        distance : {"manhattan", "squared_euclidean", "surrogate_p", "surrogate_q"}, default="manhattan"
            Which distance (above).

        Returns
        -------
        ndarray of shape (n_pairs,)
            The distance of each pair; :meth:`pair_score` is its negative.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from disdf import DisDFClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DisDFClassifier(n_trees=10, max_levels=1, random_state=0).fit(X, y)
        >>> d = model.pair_distance([[X[0], X[1]], [X[0], X[100]]])  # same class, then different
        >>> d.shape
        (2,)
        >>> bool(d[0] < d[1])
        True
        >>> bool((d <= model.pair_distance([[X[0], X[1]], [X[0], X[100]]], "surrogate_q") + 1e-12).all())
        True

        References
        ----------
        .. [1] L. V. Utkin and M. A. Ryabinin, "Discriminative Metric Learning with Deep
           Forest", International Journal on Artificial Intelligence Tools, 2019.
           arXiv:1705.09620.
        """
        check_is_fitted(self)
        DISTANCE.check(type(self).__name__, "distance", distance)
        pairs = np.asarray(pairs, dtype=np.float64)
        n_features = self.n_features_in_
        if pairs.ndim != 3 or pairs.shape[1] != 2 or pairs.shape[2] != n_features:
            raise ValueError(
                f"pairs must have shape (n_pairs, 2, n_features) with n_features = {n_features}, "
                f"the features {type(self).__name__} was fitted on; got {pairs.shape}"
            )
        if distance in SURROGATES:
            return self._surrogate_distances(pairs[:, 0], pairs[:, 1], squared=SURROGATES[distance])
        n_pairs = pairs.shape[0]
        vectors = self.transform(pairs.reshape(2 * n_pairs, pairs.shape[2])).reshape(n_pairs, 2, -1)
        return PAIR_DISTANCES[distance](vectors[:, 0] - vectors[:, 1])

    def pair_score(self, pairs, distance: str = "manhattan") -> np.ndarray:
        """Similarity of the two samples of each pair: ``-pair_distance(pairs, distance)``.

        metric-learn's convention: a larger score means more similar, so the
        scores feed :func:`sklearn.metrics.roc_auc_score` (same class against
        different class) or a threshold directly.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features)
            Each pair's two samples in the original feature space.
        distance : {"manhattan", "squared_euclidean", "surrogate_p", "surrogate_q"}, default="manhattan"
            The distance negated (see :meth:`pair_distance`).

        Returns
        -------
        ndarray of shape (n_pairs,)
            Minus the distance of each pair.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from disdf import DisDFClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DisDFClassifier(n_trees=10, max_levels=1, random_state=0).fit(X, y)
        >>> pairs = [[X[0], X[1]], [X[0], X[100]]]
        >>> bool((model.pair_score(pairs) == -model.pair_distance(pairs)).all())
        True
        >>> bool(model.pair_score(pairs)[0] > model.pair_score(pairs)[1])  # same class scores higher
        True

        References
        ----------
        .. [1] W. de Vazelhes, C. J. Carey, Y. Tang, N. Vauquier and A. Bellet,
           "metric-learn: Metric Learning Algorithms in Python", JMLR 21(138), 2020.
        """
        return -self.pair_distance(pairs, distance)

    def get_metric(self, distance: str = "manhattan") -> Callable[[np.ndarray, np.ndarray], float]:
        """A function ``metric(u, v)`` of two samples (1-d arrays), as metric-learn's ``get_metric``.

        The function returns :meth:`pair_distance` of the pair (u, v); it holds the
        fitted estimator, so it can be passed as ``metric=`` to scikit-learn's
        neighbours or to :func:`sklearn.metrics.pairwise_distances`.

        Parameters
        ----------
        distance : {"manhattan", "squared_euclidean", "surrogate_p", "surrogate_q"}, default="manhattan"
            The distance the function computes (see :meth:`pair_distance`).

        Returns
        -------
        callable
            ``metric(u, v) -> float``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from disdf import CascadeForestClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = CascadeForestClassifier(n_trees=10, max_levels=1, random_state=0).fit(X, y)
        >>> metric = model.get_metric()
        >>> metric(X[0], X[0])
        0.0
        >>> 0.0 <= metric(X[0], X[100]) <= 8.0  # four forests of probability vectors: [0, 2 * 4]
        True
        """
        DISTANCE.check(type(self).__name__, "distance", distance)

        def metric(u, v) -> float:
            check_is_fitted(self)
            u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
            expected = (self.n_features_in_,)
            if u.shape != expected or v.shape != expected:
                raise ValueError(
                    f"get_metric's metric(u, v) takes two samples of {self.n_features_in_} features "
                    f"(1-d arrays, the features {type(self).__name__} was fitted on); "
                    f"got shapes {u.shape} and {v.shape}"
                )
            return float(self.pair_distance(np.stack([u, v])[None], distance)[0])

        return metric
