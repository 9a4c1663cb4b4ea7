"""
Open levels: any scikit-learn estimator beside the forests
==========================================================

``level_estimators=[(name, estimator), ...]`` adds members to every level of a cascade, as
scikit-learn's stacking estimators take theirs: each member is cloned and fitted per fold like a
forest's fold model, and its out-of-fold ``predict_proba`` (a regressor's ``predict``) joins the next
level's input beside the forests' class vectors. ``forests=[]`` leaves the members alone. Data:
scikit-learn's bundled breast cancer table (569 tumours, 30 features).
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from disdf import CascadeForestClassifier, DisDFClassifier

X, y = load_breast_cancer(return_X_y=True)
cv = StratifiedKFold(5, shuffle=True, random_state=0)
logistic = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
knn = make_pipeline(StandardScaler(), KNeighborsClassifier(15))

# %%
# Three levels of different members
# ---------------------------------
# The same 5 folds for each; every cascade has 50 trees per forest.

cascades = {
    "the paper's level (4 forests)": CascadeForestClassifier(n_trees=50, random_state=0),
    "4 forests + logistic regression + 15-NN": CascadeForestClassifier(
        n_trees=50, random_state=0, level_estimators=[("logistic", logistic), ("knn", knn)]
    ),
    "logistic regression + 15-NN only": CascadeForestClassifier(
        random_state=0, forests=[], level_estimators=[("logistic", logistic), ("knn", knn)]
    ),
}
for name, model in cascades.items():
    scores = cross_val_score(model, X, y, cv=cv)
    print(f"{name}: 5-fold accuracy {scores.mean():.3f} (folds {np.round(scores, 3)})")

# %%
# What a fitted level holds
# -------------------------
# Each member is a forest of one "tree": its K fold models are the fitted clones. ``transform``
# returns the members' columns after the forests' (2 classes each).

model = CascadeForestClassifier(n_trees=50, random_state=0, level_estimators=[("logistic", logistic)]).fit(
    X, y
)
print("members of level 1:", [forest.kind for forest in model.levels_[0].forests])
print("transform's columns:", model.transform(X[:2]).shape[1])

# %%
# DisDF weighs the forests' trees, not the members
# ------------------------------------------------
# DisDF's weights (eq. (70)-(72)) are learned per forest over its trees; a member has one, of weight 1.

discriminative = DisDFClassifier(n_trees=50, random_state=0, level_estimators=[("logistic", logistic)]).fit(
    X, y
)
print("the member's weights at level 1, per fold:", [w.tolist() for w in discriminative.weights_[0][-1]])
