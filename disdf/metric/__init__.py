"""The metric view of a fitted cascade: pair distances in its learned representation (the
``pair_distance``, ``pair_score`` and ``get_metric`` of both cascades) and k-NN in it."""

from disdf.metric._embedding import EmbeddingKNeighborsClassifier

__all__ = ["EmbeddingKNeighborsClassifier"]
