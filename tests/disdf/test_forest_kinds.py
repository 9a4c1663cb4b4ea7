"""A forest kind is one entry (disdf.forests._specs.FOREST_KINDS): both engines grow it and the memory
model counts it from that entry alone."""

import dataclasses

import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import ExtraTreesClassifier, ExtraTreesRegressor

from disdf import CascadeForestClassifier
from disdf.cascade import estimator_fit_memory
from disdf.forests._specs import FOREST_KINDS, ForestKind

#: Extremely randomised trees on bootstrap samples: a kind disdf does not ship.
BAGGED_EXTRA_TREES = ForestKind(
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    {"max_features": "sqrt", "bootstrap": True},
    bootstrap=True,
    random_splits=True,
    nodes_per_example=0.3,
    regression_nodes_per_example=0.632,
)


@pytest.fixture
def bagged(monkeypatch):
    monkeypatch.setitem(FOREST_KINDS, "bagged_extra_trees", BAGGED_EXTRA_TREES)
    return "bagged_extra_trees"


@pytest.mark.parametrize("engine", ["sklearn", "fast"])
def test_a_new_kind_is_grown_by_every_engine_from_its_entry(bagged, engine):
    X, y = load_iris(return_X_y=True)
    model = CascadeForestClassifier(forests=[bagged, bagged], n_trees=10, max_levels=1, engine=engine)
    model.set_params(random_state=0).fit(X, y)
    assert model.score(X, y) > 0.9
    fold_model = model.levels_[0].forests[0].models[0]
    bootstrapped = fold_model.forest.bootstrap if engine == "sklearn" else fold_model.params.bootstrap
    assert bootstrapped and model.levels_[0].forests[0].kind == bagged


def test_the_memory_model_reads_the_kind_s_nodes_per_example(bagged, monkeypatch):
    estimator = CascadeForestClassifier(forests=[bagged] * 4, n_trees=100)
    trees = estimator_fit_memory(estimator, [5000, 5000], n_features=20, levels=1).trees
    doubled = dataclasses.replace(BAGGED_EXTRA_TREES, nodes_per_example=0.6)
    monkeypatch.setitem(FOREST_KINDS, bagged, doubled)
    assert estimator_fit_memory(estimator, [5000, 5000], n_features=20, levels=1).trees == pytest.approx(
        2 * trees, rel=0.01
    )
