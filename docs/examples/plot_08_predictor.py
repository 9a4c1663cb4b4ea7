"""
A classifier on top of the cascade: predictor=
==============================================

By default a cascade predicts the paper's way: the average of its last level's class vectors.
``predictor=`` puts any scikit-learn classifier on top instead (DF21's ``use_predictor``): a clone
is fitted on the raw features beside the last kept level's *out-of-fold* class vectors, so that it
never learns from a vector of trees that saw its example. The levels, their trees and ``transform``
are the same with or without it (same ``random_state``): only the top changes. Data:
scikit-learn's bundled wine table (3 classes).

Whether a top helps depends on the data: on six KEEL tables
(``scripts/evidence/compare_predictor.py``, see :ref:`the user guide <predictor-on-top>`) a
logistic regression gained on one table and was level with ``None`` on the others; gradient
boosting on top did not help.
"""

import numpy as np
from sklearn.datasets import load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from disdf import CascadeForestClassifier

X, y = load_wine(return_X_y=True)
tops = {
    "None (average of the class vectors)": None,
    "LogisticRegression behind a StandardScaler": make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=1000)
    ),
    "HistGradientBoostingClassifier": HistGradientBoostingClassifier(max_iter=50),
}

# %%
# The same cascade, three tops
# ----------------------------
# Scaled features suit a logistic regression: the raw features enter the predictor as they are.

for name, top in tops.items():
    model = CascadeForestClassifier(n_trees=30, random_state=0, predictor=top)
    scores = cross_val_score(model, X, y, cv=5)
    print(f"{name}: 5-fold accuracy {scores.mean():.3f} (folds {np.round(scores, 3)})")

# %%
# What the fitted model holds
# ---------------------------
# ``predictor_`` is the fitted clone (on the class codes 0 .. n_classes - 1); its input is the raw
# features then the class vectors, so it has ``n_features + 4 forests x 3 classes`` columns.

model = CascadeForestClassifier(n_trees=30, random_state=0, predictor=tops["HistGradientBoostingClassifier"])
model.fit(X, y)
print(type(model.predictor_).__name__, "on", model.predictor_.n_features_in_, "columns")
plain = CascadeForestClassifier(n_trees=30, random_state=0).fit(X, y)
print("the same class vectors with and without it:", np.array_equal(model.transform(X), plain.transform(X)))

# %%
# A grid search reaches the predictor's own parameters as ``predictor__<name>`` (here through
# the pipeline: ``predictor__logisticregression__C``):

search = GridSearchCV(
    CascadeForestClassifier(
        n_trees=20, random_state=0, predictor=tops["LogisticRegression behind a StandardScaler"]
    ),
    {"predictor__logisticregression__C": [0.01, 1.0]},
    cv=3,
).fit(X, y)
print("best:", search.best_params_, f"cross-validated accuracy {search.best_score_:.3f}")
