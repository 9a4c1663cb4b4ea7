"""Nearest neighbours in a learned representation: how good a metric a representation is.

DisDF's objective, eq. (62), is a contrastive loss on distances between class
vectors, so the natural test of it as a metric learner is what any metric
learner is judged by: k-nearest-neighbour accuracy in its representation, and
how well a distance tells same-class from different-class pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import pairwise_distances
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.validation import _num_samples, check_is_fitted

from disdf._utils.parameters import Integer
from disdf._utils.persistence import VersionedPickle

#: Settings of the k-NN that it passes on to its representation, where that takes them (so that a
#: protocol setting T, the seed and the threads of the k-NN sets them for the cascade inside).
PASSED_TO_EMBEDDING = ("n_trees", "random_state", "n_jobs")


class EmbeddingKNeighborsClassifier(VersionedPickle, ClassifierMixin, BaseEstimator):
    """k-NN in the representation of ``embedding`` (any transformer fitted with labels).

    Training points are embedded with ``embedding.fit_transform(X, y)``: for the
    cascades these are out-of-fold class vectors, not in-sample ones. New points
    with ``embedding.transform``.

    Parameters
    ----------
    embedding : transformer, default=None
        E.g. :class:`disdf.DisDFClassifier`, :class:`disdf.CascadeForestClassifier`,
        ``StandardScaler()`` (the raw features) or
        ``NeighborhoodComponentsAnalysis()``. It is cloned at fit.
    n_neighbors : int, default=5
    metric : str, default="manhattan"
        The distance in the representation (the paper's d_1 between class vectors).
    n_trees, random_state, n_jobs : default=None
        Set on the cloned ``embedding`` where it has such a parameter (the protocol passes them).

    See Also
    --------
    disdf.CascadeForestClassifier.pair_distance : the distance between two samples' class vectors.

    References
    ----------
    .. [1] L. V. Utkin and M. A. Ryabinin, "Discriminative Metric Learning with Deep
       Forest", International Journal on Artificial Intelligence Tools, 2019.
       arXiv:1705.09620.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import train_test_split
    >>> from disdf import DisDFClassifier
    >>> from disdf import EmbeddingKNeighborsClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
    >>> knn = EmbeddingKNeighborsClassifier(DisDFClassifier(n_trees=10), random_state=0)
    >>> knn.fit(X_train, y_train).score(X_test, y_test) > 0.85
    True
    >>> sorted(knn.evaluation_scores(X_test, y_test))
    ['knn1_accuracy', 'pair_auc']
    """

    def __init__(
        self,
        embedding: Any = None,
        *,
        n_neighbors: int = 5,
        metric: str = "manhattan",
        n_trees: int | None = None,
        random_state=None,
        n_jobs: int | None = None,
    ) -> None:
        self.embedding = embedding
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.n_trees = n_trees
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y) -> EmbeddingKNeighborsClassifier:
        """Fit the representation on (X, y), then k-NN on the training points' embedding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        if self.embedding is None:
            raise ValueError("embedding must be a transformer, e.g. DisDFClassifier(); got None")
        # at most the training examples: scikit-learn's manhattan path would count phantom
        # neighbours and predict one class for everything
        Integer(1, high=_num_samples(X)).check(type(self).__name__, "n_neighbors", self.n_neighbors)
        embedding = clone(self.embedding)
        accepted = embedding.get_params(deep=False)
        settings = {name: getattr(self, name) for name in PASSED_TO_EMBEDDING if name in accepted}
        self.embedding_ = embedding.set_params(**{k: v for k, v in settings.items() if v is not None})
        self.train_embedding_ = self.embedding_.fit_transform(X, y)
        self.y_train_ = np.asarray(y)
        self.classes_ = np.unique(self.y_train_)
        self.knn_ = KNeighborsClassifier(n_neighbors=self.n_neighbors, metric=self.metric)
        self.knn_.fit(self.train_embedding_, self.y_train_)
        return self

    def predict(self, X) -> np.ndarray:
        """The majority class of the ``n_neighbors`` nearest training points in the representation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.knn_.predict(self.embedding_.transform(X))

    def evaluation_scores(self, X, y) -> dict[str, float]:
        """Scores beside the protocol's accuracy: 1-NN accuracy and the pair-verification ROC AUC
        (same class against different class by distance) over every pair of (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        dict with ``knn1_accuracy`` and ``pair_auc``
        """
        check_is_fitted(self)
        Z, y = self.embedding_.transform(X), np.asarray(y)
        one = KNeighborsClassifier(n_neighbors=1, metric=self.metric).fit(
            self.train_embedding_, self.y_train_
        )
        i, j = np.triu_indices(len(y), 1)
        same = y[i] == y[j]
        distances = pairwise_distances(Z, metric=self.metric)[i, j]
        auc = roc_auc_score(same, -distances) if 0 < same.sum() < len(same) else float("nan")
        return {"knn1_accuracy": float(np.mean(one.predict(Z) == y)), "pair_auc": float(auc)}
