"""A fitted cascade's ``levels_`` is made of public, documented classes: the metric view, the
reproduction's runner and user code read a fitted level without a private name."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_iris

import disdf.cascade
from disdf import CascadeForestClassifier, CascadeForestRegressor, DisDFClassifier
from disdf.cascade import CascadeLevel, ForestFit, LevelWeightFit

API_PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.rst"
PUBLIC_LEVEL_CLASSES = (CascadeLevel, ForestFit, LevelWeightFit)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def test_the_level_classes_are_exported_and_have_api_pages():
    api = API_PAGE.read_text()
    for cls in PUBLIC_LEVEL_CLASSES:
        assert cls.__name__ in disdf.cascade.__all__
        assert f"cascade.{cls.__name__}\n" in api
        assert "Attributes\n" in (cls.__doc__ or "") and "Examples\n" in (cls.__doc__ or "")


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_a_fitted_classifier_keeps_public_levels_without_growth_state(iris, estimator):
    X, y = iris
    model = estimator(n_trees=5, max_levels=2, random_state=0).fit(X, y)
    assert len(model.levels_) == model.n_levels_
    for level in model.levels_:
        assert type(level) is CascadeLevel
        assert all(type(forest) is ForestFit for forest in level.forests)
        # what growing needed and prediction does not is dropped from the kept level
        assert all(forest.held_out == [] and forest.pair_statistics is None for forest in level.forests)
        assert (type(level.weight_fit) is LevelWeightFit) == (estimator is DisDFClassifier)
    # the last level's public class vectors are the cascade's representation
    np.testing.assert_array_equal(
        model.levels_[-1].class_vectors(model.last_level_input(X[:7])), model.transform(X[:7])
    )


def test_the_regressor_keeps_public_levels_too():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    model = CascadeForestRegressor(n_trees=5, max_levels=1, random_state=0).fit(X, X[:, 0])
    assert type(model.levels_[0]) is CascadeLevel and model.levels_[0].weight_fit is None
