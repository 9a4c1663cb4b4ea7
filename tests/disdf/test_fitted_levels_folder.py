"""A fitted model owns its levels on disk: each fit writes a fresh folder of its own under
``fitted_levels_dir``, so that no other model, clone, parallel fit or refit changes its numbers, and a
folder that cannot hold the levels is refused before any tree grows."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV

from disdf import CascadeForestClassifier, DisDFClassifier, InvalidParameterError
from disdf.cascade import _level_growth


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(n_samples=300, n_features=8, n_informative=5, n_classes=3, random_state=0)
    return X, y


def on_disk(estimator, folder, **params):
    return estimator(keep_fitted_levels="disk", fitted_levels_dir=folder, **params)


def test_two_models_in_one_folder_keep_their_own_levels(data, tmp_path):
    """The second fit used to overwrite the first's arrays under it (silently other predictions)."""
    X, y = data
    settings = {"n_trees": 6, "max_levels": 3, "random_state": 1}
    memory = DisDFClassifier(**settings).fit(X[:150], y[:150])
    first = on_disk(DisDFClassifier, tmp_path, **settings).fit(X[:150], y[:150])
    second = on_disk(DisDFClassifier, tmp_path, n_trees=6, max_levels=3, random_state=2)
    second.fit(X[100:250], y[100:250])
    restored = pickle.loads(pickle.dumps(first))
    third = on_disk(CascadeForestClassifier, tmp_path, n_trees=6, random_state=3).fit(X[50:200], y[50:200])
    paths = {model.fitted_levels_path_ for model in (first, second, third)}
    assert len(paths) == 3 and all(path.parent == tmp_path for path in paths)
    for model in (first, restored):
        np.testing.assert_array_equal(model.predict_proba(X[250:]), memory.predict_proba(X[250:]))
    owner = json.loads((first.fitted_levels_path_ / "owner.json").read_text())
    assert owner["estimator"] == "DisDFClassifier" and owner["folder"] == first.fitted_levels_path_.name
    assert restored.fitted_levels_path_ == first.fitted_levels_path_  # named, but not owned by the copy


def test_a_refit_leaves_no_level_of_another_fit(data, tmp_path):
    """A refit with fewer levels used to leave the earlier fit's level_02/ beside the new one."""
    X, y = data
    model = on_disk(CascadeForestClassifier, tmp_path, n_trees=4, max_levels=4, patience=3, random_state=0)
    model.fit(X, y)
    earlier = model.fitted_levels_path_
    model.set_params(max_levels=1).fit(X[:90], y[:90])
    assert not earlier.exists()
    assert list(tmp_path.iterdir()) == [model.fitted_levels_path_]
    levels = sorted(path.name for path in model.fitted_levels_path_.glob("level_*"))
    assert levels == [f"level_{q:02d}" for q in range(1, model.n_levels_ + 1)]


def test_levels_grown_after_the_kept_ones_are_not_kept_on_disk(data, tmp_path):
    X, y = data
    model = on_disk(CascadeForestClassifier, tmp_path, n_trees=4, max_levels=5, patience=5, random_state=0)
    model.fit(X, y)
    assert len(model.level_scores_) > model.n_levels_ or model.n_levels_ == 5
    assert len(list(model.fitted_levels_path_.glob("level_*"))) == model.n_levels_


def test_a_collected_model_s_folder_goes_and_a_user_s_folder_stays(data, tmp_path):
    X, y = data
    (tmp_path / "mine.txt").write_text("kept")
    model = on_disk(CascadeForestClassifier, tmp_path, n_trees=4, max_levels=1, random_state=0).fit(X, y)
    path = model.fitted_levels_path_
    del model
    assert not path.exists() and (tmp_path / "mine.txt").read_text() == "kept"


def test_a_parallel_grid_search_sharing_one_folder_gives_the_in_memory_numbers(data, tmp_path):
    """clone() copies fitted_levels_dir: the search's fits, in two processes, share it."""
    X, y = data

    def search(**params):
        estimator = CascadeForestClassifier(max_levels=2, random_state=0, **params)
        return GridSearchCV(estimator, {"n_trees": [3, 5]}, cv=2, n_jobs=2).fit(X[:120], y[:120])

    disk, memory = search(keep_fitted_levels="disk", fitted_levels_dir=tmp_path), search()
    for key in ("mean_test_score", "split0_test_score", "split1_test_score"):
        np.testing.assert_array_equal(disk.cv_results_[key], memory.cv_results_[key])
    np.testing.assert_array_equal(disk.predict_proba(X[120:]), memory.predict_proba(X[120:]))
    assert disk.best_estimator_.fitted_levels_path_.parent == tmp_path


@pytest.mark.parametrize("case", ["a file", "under a file", "empty", "blank"])
def test_a_folder_that_cannot_hold_the_levels_is_refused_before_any_tree_grows(
    data, tmp_path, monkeypatch, case
):
    X, y = data
    (tmp_path / "file").write_text("not a folder")
    folder = {"a file": tmp_path / "file", "under a file": tmp_path / "file" / "levels", "empty": ""}.get(
        case, "  "
    )

    def no_tree(*args, **kwargs):
        raise AssertionError("a tree grew before the folder was checked")

    monkeypatch.setattr(_level_growth, "fit_fold_model", no_tree)
    message = "cannot hold the fitted levels" if case in ("a file", "under a file") else "non-empty str"
    with pytest.raises(InvalidParameterError, match=rf"fitted_levels_dir.*{message}|{message}.*"):
        on_disk(CascadeForestClassifier, folder, n_trees=3).fit(X, y)
