"""k-NN in a learned representation: training points embedded out of fold, scores computed directly."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.metric._embedding import EmbeddingKNeighborsClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=8, n_informative=4, n_classes=3, random_state=2)
    return X[:100], y[:100], X[100:], y[100:]


def test_training_points_are_embedded_out_of_fold_and_the_protocol_settings_reach_the_cascade(data):
    X, y, X_test, _ = data
    model = EmbeddingKNeighborsClassifier(DisDFClassifier(), n_trees=7, random_state=3, n_jobs=1).fit(X, y)
    assert model.embedding_.n_trees == 7 and model.embedding_.random_state == 3
    expected = DisDFClassifier(n_trees=7, random_state=3, n_jobs=1).fit_transform(X, y)
    np.testing.assert_allclose(model.train_embedding_, expected)  # not transform(X): in-sample
    knn = KNeighborsClassifier(5, metric="manhattan").fit(expected, y)
    np.testing.assert_array_equal(model.predict(X_test), knn.predict(model.embedding_.transform(X_test)))


def test_evaluation_scores_are_one_nn_accuracy_and_pair_auc(data):
    X, y, X_test, y_test = data
    model = EmbeddingKNeighborsClassifier(StandardScaler(), metric="euclidean", random_state=0).fit(X, y)
    scores = model.evaluation_scores(X_test, y_test)
    scaler = StandardScaler().fit(X)
    Z, Zt = scaler.transform(X), scaler.transform(X_test)
    assert scores["knn1_accuracy"] == pytest.approx(KNeighborsClassifier(1).fit(Z, y).score(Zt, y_test))
    i, j = np.triu_indices(len(y_test), 1)
    distances = np.linalg.norm(Zt[i] - Zt[j], axis=1)
    assert scores["pair_auc"] == pytest.approx(roc_auc_score(y_test[i] == y_test[j], -distances))


def test_a_missing_embedding_is_named():
    with pytest.raises(ValueError, match="embedding"):
        EmbeddingKNeighborsClassifier().fit(np.zeros((6, 2)), [0, 1] * 3)


def test_settings_the_representation_lacks_are_not_forced_on_it(data):
    X, y, _, _ = data
    model = EmbeddingKNeighborsClassifier(CascadeForestClassifier(max_levels=1), n_trees=5).fit(X, y)
    assert model.embedding_.n_trees == 5 and model.embedding_.max_levels == 1
    EmbeddingKNeighborsClassifier(StandardScaler(), n_trees=5, random_state=1).fit(X, y)  # no such params
