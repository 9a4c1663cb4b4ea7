"""A level's fold models grown fold-major with one shared feature-major copy per fold
(disdf.cascade._level_growth), and the heap handed back between levels (disdf._utils.malloc_trim):
the same fold models, placed as before, as each grown alone on its own copy."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification

import disdf.cascade._cascade_base as cascade_base
import disdf.cascade._level_growth as level_tasks
from disdf import CascadeForestClassifier, DisDFClassifier
from disdf._utils import malloc_trim
from disdf.forests._compiled import FastForest
from disdf.forests._compiled.forest import feature_major
from disdf.forests._specs import fit_fold_model

ARRAYS = ("roots", "feature", "threshold", "left", "right", "leaf_values")


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=240, n_features=8, n_informative=5, n_classes=3, n_clusters_per_class=1, random_state=5
    )
    X[:, :3] = np.round(X[:, :3] * 10)
    return np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64)


@pytest.mark.parametrize("engine", ["binned", "sklearn"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_fold_major_tasks_give_each_fold_model_grown_alone(data, engine, n_jobs):
    """Every (forest, fold) model is the one fit_fold_model grows alone with its seed and rows, at its
    place: the shared copy and the task order change nothing, with one job or two."""
    X, y = data
    model = CascadeForestClassifier(n_trees=6, max_levels=1, random_state=3, engine=engine, n_jobs=n_jobs)
    fit = model._grow_first_level(X, y)
    specs = model._validate_hyperparameters()
    options = {"n_classes": 3, "n_trees": 6, "tree_params": model._prepare_fit(X, y).tree_params}
    for (kind, params), forest in zip(specs, fit.forests, strict=True):
        for k, (train, test) in enumerate(fit.folds):
            seed = forest.seeds[k]
            alone = fit_fold_model(kind, params, engine, X, y, random_state=seed, rows=train, **options)
            got = forest.models[k]
            np.testing.assert_array_equal(got.probabilities(X), alone.probabilities(X))
            np.testing.assert_array_equal(forest.held_out[k].probabilities(), alone.probabilities(X[test]))
            if engine != "sklearn":
                for name in ARRAYS:
                    np.testing.assert_array_equal(getattr(got, name), getattr(alone, name), err_msg=name)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_cascade_with_two_jobs_is_the_cascade_with_one(data, estimator):
    X, y = data
    settings = {"n_trees": 8, "max_levels": 3, "random_state": 2, "engine": "binned"}
    one = estimator(**settings, n_jobs=1).fit(X[:180], y[:180])
    two = estimator(**settings, n_jobs=2).fit(X[:180], y[:180])
    assert two.level_scores_ == one.level_scores_
    np.testing.assert_array_equal(two.predict_proba(X[180:]), one.predict_proba(X[180:]))


def test_a_fold_copy_is_made_once_and_let_go_after_its_last_task(data, monkeypatch):
    X, y = data
    made, folds_rows = [], []

    def counting(X, rows=None):
        made.append(len(rows))
        return feature_major(X, rows)

    monkeypatch.setattr(level_tasks, "feature_major", counting)
    real_fold_rows = level_tasks.FoldRows

    def recording(*args):
        folds_rows.append(real_fold_rows(*args))
        return folds_rows[-1]

    monkeypatch.setattr(level_tasks, "FoldRows", recording)
    model = CascadeForestClassifier(n_trees=4, max_levels=1, random_state=0, engine="fast", n_jobs=2)
    fit = model._grow_first_level(X, y)
    assert made == [len(train) for train, _ in fit.folds]  # one copy per fold, not per forest
    assert len(folds_rows) == 3 and not any(rows.held for rows in folds_rows)


def test_a_wrong_feature_major_copy_is_refused(data):
    X, y = data
    model = fit_fold_model(
        "random_forest", {}, "fast", X, y, n_classes=3, n_trees=2, random_state=0, tree_params={}
    )
    with pytest.raises(ValueError, match="feature_major_rows must be feature_major"):
        FastForest(model.params, 2, 0, 3).fit(X, y, rows=np.arange(100), feature_major_rows=feature_major(X))


def test_every_level_reports_what_it_freed_to_the_heap_trim(data, monkeypatch):
    X, y = data
    freed = []
    monkeypatch.setattr(cascade_base, "release_free_memory", freed.append)
    model = CascadeForestClassifier(n_trees=4, max_levels=3, patience=3, random_state=0).fit(X, y)
    assert len(freed) == len(model.level_scores_) == 3
    # at least every level's float32 input and its (n, T) int32 held-out leaf rows of 4 forests
    assert all(bytes_ >= X.shape[0] * (X.shape[1] * 4 + 4 * 4 * 4) for bytes_ in freed)


def test_the_heap_is_trimmed_only_after_a_large_level(monkeypatch):
    trims = []
    monkeypatch.setattr(malloc_trim, "_malloc_trim", lambda: trims.append)
    assert not malloc_trim.release_free_memory(malloc_trim.TRIM_MIN_BYTES - 1)
    assert malloc_trim.release_free_memory(malloc_trim.TRIM_MIN_BYTES)
    assert malloc_trim.release_free_memory()
    assert trims == [0, 0]
