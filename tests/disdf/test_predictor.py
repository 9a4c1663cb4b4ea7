"""A classifier on top of the cascade: fitted on the raw features beside the last kept level's
out-of-fold class vectors; predict and predict_proba are its; None keeps the paper's average."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV

from disdf import CascadeForestClassifier, DisDFClassifier, InvalidParameterError

X, y = load_iris(return_X_y=True)
TOP = LogisticRegression(max_iter=2000)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_the_predictor_learns_from_the_raw_features_and_the_out_of_fold_vectors(estimator):
    settings = {"n_trees": 6, "max_levels": 2, "random_state": 0}
    plain = estimator(**settings)
    out_of_fold = plain.fit_transform(X, y)
    model = estimator(**settings, predictor=TOP).fit(X, y)
    expected = clone(TOP).fit(np.hstack([X.astype(np.float32).astype(np.float64), out_of_fold]), y)
    np.testing.assert_allclose(model.predictor_.coef_, expected.coef_)
    np.testing.assert_array_equal(model.transform(X), plain.fit(X, y).transform(X))  # the cascade's own
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 3) and np.allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


def test_without_a_predictor_the_cascade_predicts_as_before():
    a = CascadeForestClassifier(n_trees=6, random_state=0).fit(X, y)
    b = CascadeForestClassifier(n_trees=6, random_state=0, predictor=None).fit(X, y)
    assert a.predictor_ is None
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_a_predictor_is_searched_like_any_nested_estimator():
    Xb, yb = load_breast_cancer(return_X_y=True)
    search = GridSearchCV(
        CascadeForestClassifier(n_trees=5, max_levels=1, random_state=0, predictor=TOP),
        {"predictor__C": [0.1, 1.0]},
        cv=2,
    ).fit(Xb[:200], yb[:200])
    assert search.best_estimator_.predictor_.C in (0.1, 1.0)


def test_a_predictor_that_is_no_classifier_is_refused_before_any_work():
    with pytest.raises(InvalidParameterError, match="predictor must be None or a scikit-learn classifier"):
        CascadeForestClassifier(predictor="gbdt").fit(X, y)


def test_an_unseeded_predictor_is_seeded_from_the_cascade():
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    top = make_pipeline(StandardScaler(), ExtraTreesClassifier(n_estimators=5, max_features=1))
    settings = {"n_trees": 5, "max_levels": 1, "predictor": top}
    first, second, other = (CascadeForestClassifier(**settings, random_state=s).fit(X, y) for s in (0, 0, 1))
    seed = first.predictor_.get_params()["extratreesclassifier__random_state"]
    assert isinstance(seed, int)
    assert seed == second.predictor_.get_params()["extratreesclassifier__random_state"]
    assert seed != other.predictor_.get_params()["extratreesclassifier__random_state"]
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    assert top.get_params()["extratreesclassifier__random_state"] is None  # the user's object untouched
    mine = CascadeForestClassifier(
        n_trees=5, max_levels=1, random_state=0, predictor=ExtraTreesClassifier(random_state=7)
    )
    assert mine.fit(X, y).predictor_.random_state == 7  # a seed the user set stays
