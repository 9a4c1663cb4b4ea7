"""What a DF21 user meets: DF21's parameter names refused with disdf's, a predictor that must be an
instance (refused before any tree grows), predict_log_proba, and a verbose fit that says which level it
kept and why it stopped."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

import disdf.cascade._cascade_base as cascade_module
from disdf import CascadeForestClassifier, DisDFClassifier
from disdf._utils.parameters import InvalidParameterError
from disdf.cascade._df21_names import DF21_EQUIVALENTS

X, y = load_iris(return_X_y=True)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
@pytest.mark.parametrize("name", sorted(DF21_EQUIVALENTS))
def test_a_df21_name_is_refused_with_the_disdf_equivalent(estimator, name):
    expected = DF21_EQUIVALENTS[name].split(" ")[0].split("=")[0]
    with pytest.raises(TypeError, match=f"no parameter '{name}' \\(a DF21 name\\): use {expected}"):
        estimator(**{name: 1})
    model = estimator(n_trees=3)
    with pytest.raises(TypeError, match=f"use {expected}"):
        model.set_params(**{name: 1})
    assert model.get_params()["n_trees"] == 3  # nothing changed


def test_a_predictor_class_is_refused_before_any_tree_grows(monkeypatch):
    def no_growing(*args, **kwargs):
        raise AssertionError("a tree grew")

    monkeypatch.setattr(cascade_module, "grow_level_models", no_growing)
    with pytest.raises(
        InvalidParameterError, match=r"write LogisticRegression\(\) instead of LogisticRegression"
    ):
        CascadeForestClassifier(n_trees=3, predictor=LogisticRegression).fit(X, y)

    class NotAnEstimator:  # fit and predict_proba, but nothing to clone it by
        def fit(self, X, y):
            return self

        def predict_proba(self, X):
            return np.ones((len(X), 3)) / 3

    with pytest.raises(InvalidParameterError, match="get_params"):
        CascadeForestClassifier(n_trees=3, predictor=NotAnEstimator()).fit(X, y)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_predict_log_proba_is_the_log_of_predict_proba(estimator):
    model = estimator(n_trees=5, random_state=0).fit(X, y)
    proba = model.predict_proba(X[:20])
    log = model.predict_log_proba(X[:20])
    finite = proba > 0
    np.testing.assert_allclose(log[finite], np.log(proba[finite]))
    assert np.all(np.isneginf(log[~finite]))


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"max_levels": 2, "patience": 3}, "max_levels=2 reached"),
        ({"patience": 1, "tol": 0.5}, "level(s) without an out-of-fold gain over"),
    ],
)
def test_verbose_names_the_level_kept_and_why_the_fit_stopped(settings, reason, caplog):
    with caplog.at_level(logging.INFO, logger="disdf"):
        model = CascadeForestClassifier(n_trees=5, random_state=0, verbose=1, **settings).fit(X, y)
    (line,) = [r.getMessage() for r in caplog.records if "stopped:" in r.getMessage()]
    assert f"kept level {model.n_levels_} " in line and reason in line


def test_verbose_says_out_of_bag_when_the_levels_hold_out_by_bagging(caplog):
    with caplog.at_level(logging.INFO, logger="disdf"):
        CascadeForestClassifier(n_trees=5, random_state=0, verbose=1, out_of_bag=True, tol=0.5).fit(X, y)
    messages = [r.getMessage() for r in caplog.records]
    assert any("level 1: out-of-bag accuracy" in m for m in messages)
    kept = [m for m in messages if "kept level 1 (out-of-bag accuracy" in m]
    assert len(kept) == 1 and "without an out-of-bag gain" in kept[0]
    assert not any("out-of-fold" in m for m in messages)
