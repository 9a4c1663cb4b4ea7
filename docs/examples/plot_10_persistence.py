"""
Saving and loading a fitted model, and the version check
========================================================

A fitted estimator is saved with :func:`joblib.dump` (or ``pickle``) and loaded with
:func:`joblib.load`: the file carries the trees (their arrays, also for a model whose levels were
kept on disk) and the disdf version that saved it. The internal layout of a fitted model is not
kept across versions, so a model saved by another version of disdf is refused when loaded, with a
:class:`~disdf.ModelVersionError` that names both versions, instead of predicting from arrays it
might misread. Data: scikit-learn's bundled iris table.
"""

import pickle
import tempfile
from pathlib import Path

import joblib
import numpy as np
from sklearn.datasets import load_iris

import disdf
from disdf import DisDFClassifier, ModelVersionError

X, y = load_iris(return_X_y=True)
model = DisDFClassifier(n_trees=20, random_state=0).fit(X, y)

# %%
# Save, load, predict
# -------------------

with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "disdf_model.joblib"
    joblib.dump(model, path)
    print(f"saved {path.name}: {path.stat().st_size / 1024:.0f} KiB")
    loaded = joblib.load(path)
print("same probabilities after loading:", np.array_equal(loaded.predict_proba(X), model.predict_proba(X)))
print("its importances came along:", np.array_equal(loaded.feature_importances_, model.feature_importances_))

# %%
# The version a saved model carries
# ---------------------------------
# The pickled state holds the version that saved it, next to the estimator's own attributes.

state = model.__getstate__()
print("this disdf:", disdf.__version__, "| saved by:", state["_disdf_version"])

# %%
# A model saved by another version is refused
# -------------------------------------------
# Here the version in a saved state is changed by hand, as if another release had written it.

state["_disdf_version"] = "0.0.1"
forged = pickle.dumps(state)
try:
    other = DisDFClassifier.__new__(DisDFClassifier)
    other.__setstate__(pickle.loads(forged))
except ModelVersionError as error:
    print(f"{type(error).__name__}: {error}")
