"""
Quick start: fit, predict, a Pipeline and GridSearchCV
======================================================

Both estimators are scikit-learn classifiers (and transformers), so they fit,
predict, score, sit in a :class:`~sklearn.pipeline.Pipeline` and are tuned by
:class:`~sklearn.model_selection.GridSearchCV` like any other. Data:
scikit-learn's bundled breast-cancer table (569 examples, 30 features).
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline

from disdf import CascadeForestClassifier, DisDFClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)

# %%
# Fit and predict
# ---------------
# ``n_trees`` is the paper's T (trees per forest); each level holds four forests.
# ``level_scores_`` is the out-of-fold accuracy of every level grown: growth stops when a
# level does not improve on the best, and the levels after the best are dropped.

models = {
    "gcForest": CascadeForestClassifier(n_trees=50, random_state=0),
    "DisDF": DisDFClassifier(n_trees=50, random_state=0),
}
for name, model in models.items():
    model.fit(X_train, y_train)
    print(
        f"{name}: {model.n_levels_} level(s) kept, out-of-fold scores "
        f"{[round(s, 3) for s in model.level_scores_]}, test accuracy {model.score(X_test, y_test):.3f}"
    )
print("first predictions:", models["DisDF"].predict(X_test[:5]), "true:", y_test[:5])
print("class probabilities of the first test example:", models["DisDF"].predict_proba(X_test[:1]).round(3))

# %%
# In a Pipeline
# -------------
# Any preprocessing step goes before the cascade; here the 10 features with the largest
# ANOVA F-statistic.

pipeline = make_pipeline(SelectKBest(f_classif, k=10), DisDFClassifier(n_trees=50, random_state=0))
pipeline.fit(X_train, y_train)
print(f"SelectKBest + DisDF: test accuracy {pipeline.score(X_test, y_test):.3f}")

# %%
# GridSearchCV
# ------------
# Hyperparameters are chosen by cross-validation on the training set only; the test set
# scores the chosen model once. Here λ (``lambda_``) and τ (``tau``) of eq. (70)-(72).

search = GridSearchCV(
    DisDFClassifier(n_trees=30, random_state=0),
    {"lambda_": [0.1, 1.0, 100.0], "tau": [0.5, 1.0]},
    cv=3,
)
search.fit(X_train, y_train)
print(f"best {search.best_params_}, cross-validated accuracy {search.best_score_:.3f}")
print(f"the chosen model on the test set: {search.score(X_test, y_test):.3f}")

# %%
# The cross-validated accuracy of every grid point:

results = search.cv_results_
fig, ax = plt.subplots(figsize=(6, 3.5))
for tau in (0.5, 1.0):
    rows = [i for i, params in enumerate(results["params"]) if params["tau"] == tau]
    ax.errorbar(
        [results["params"][i]["lambda_"] for i in rows],
        [results["mean_test_score"][i] for i in rows],
        yerr=[results["std_test_score"][i] for i in rows],
        marker="o",
        capsize=3,
        label=f"τ = {tau}",
    )
ax.set_xscale("log")
ax.set_xlabel("λ (lambda_)")
ax.set_ylabel("3-fold CV accuracy (mean ± sd)")
ax.set_title("GridSearchCV over DisDF's λ and τ")
ax.legend()
fig.tight_layout()
plt.show()
