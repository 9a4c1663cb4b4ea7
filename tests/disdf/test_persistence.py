"""A fitted model saved with pickle or joblib loads and predicts as before; one saved by another disdf
version is refused in one line naming both versions."""

from __future__ import annotations

import copy
import pickle

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_iris

import disdf
from disdf import (
    CascadeForestClassifier,
    DisDFClassifier,
    EmbeddingKNeighborsClassifier,
    ModelVersionError,
    MultiGrainedScanner,
    PlainForestClassifier,
)

X, y = load_iris(return_X_y=True)
MODELS = [
    lambda: CascadeForestClassifier(n_trees=5, random_state=0),
    lambda: DisDFClassifier(n_trees=5, random_state=0),
    lambda: PlainForestClassifier(n_trees=5, random_state=0),
    lambda: MultiGrainedScanner(n_trees=5, window_sizes=[2], random_state=0),
    lambda: EmbeddingKNeighborsClassifier(embedding=CascadeForestClassifier(n_trees=5), random_state=0),
]


@pytest.mark.parametrize("make", MODELS)
def test_a_saved_model_loads_and_gives_the_same_numbers(make, tmp_path):
    model = make().fit(X, y)
    joblib.dump(model, tmp_path / "model.joblib")
    for loaded in (
        joblib.load(tmp_path / "model.joblib"),
        pickle.loads(pickle.dumps(model)),
        copy.deepcopy(model),
    ):
        out = {MultiGrainedScanner: "transform", EmbeddingKNeighborsClassifier: "predict"}.get(
            type(model), "predict_proba"
        )
        np.testing.assert_array_equal(getattr(loaded, out)(X), getattr(model, out)(X))


@pytest.mark.parametrize("saved", ["0.0.1", None])
def test_a_model_of_another_version_is_refused_naming_both(saved):
    state = DisDFClassifier(n_trees=5, random_state=0).fit(X, y).__getstate__()
    assert state["_disdf_version"] == disdf.__version__
    if saved is None:
        del state["_disdf_version"]  # a pickle from before versions were stamped
    else:
        state["_disdf_version"] = saved
    with pytest.raises(
        ModelVersionError, match=rf"saved by disdf {saved or 'older than 0.1.0'} .* by disdf "
    ):
        DisDFClassifier.__new__(DisDFClassifier).__setstate__(state)


@pytest.mark.parametrize("array", ["left", "threshold", "leaf_values"])
def test_a_saved_model_with_flipped_bytes_is_refused_on_load(array, tmp_path):
    """64 bytes of one forest's tree arrays flipped in the saved file (a wrong child code would route
    examples forever, a wrong threshold would predict wrong numbers silently): loading refuses it."""
    X, y = load_iris(return_X_y=True)
    model = disdf.CascadeForestClassifier(n_trees=20, random_state=0).fit(X, y)
    forest = model.levels_[0].forests[0].models[0]
    blob = bytearray(pickle.dumps(model, protocol=5))
    target = np.ascontiguousarray(getattr(forest, array)).tobytes()
    start = blob.find(target[:64])
    assert start > 0 and len(target) >= 64
    blob[start : start + 64] = bytes(b ^ 0xFF for b in blob[start : start + 64])
    path = tmp_path / "model.pkl"
    path.write_bytes(bytes(blob))
    with pytest.raises(disdf.CorruptedModelError, match="corrupted: a forest's tree arrays"):
        pickle.loads(path.read_bytes())
    assert pickle.loads(pickle.dumps(model)).predict(X).tolist() == model.predict(X).tolist()  # intact


def test_a_saved_model_whose_other_arrays_changed_is_refused_on_load(tmp_path):
    """Beyond the tree arrays: bytes of DisDF's learned tree weights flipped in the saved file (wrong
    class vectors, silently) are refused on load, naming the estimator."""
    X, y = load_iris(return_X_y=True)
    model = disdf.DisDFClassifier(n_trees=20, random_state=0).fit(X, y)
    blob = bytearray(pickle.dumps(model, protocol=5))
    target = np.ascontiguousarray(model.weights_[0][0]).tobytes()
    start = blob.find(target[:64])
    assert start > 0
    blob[start : start + 8] = bytes(b ^ 0xFF for b in blob[start : start + 8])
    with pytest.raises(disdf.CorruptedModelError, match="this DisDFClassifier's arrays"):
        pickle.loads(bytes(blob))
    assert pickle.loads(pickle.dumps(model)).predict(X).tolist() == model.predict(X).tolist()
