"""
Feature importances of a cascade, beside permutation importance
===============================================================

``feature_importances_`` of :class:`~disdf.CascadeForestClassifier` and
:class:`~disdf.DisDFClassifier` are the original features' impurity-based importances (mean
decrease in Gini impurity, as scikit-learn's forests compute them): each kept level's, restricted
to the raw-feature columns of its input and renormalised, averaged over the kept levels; within a
level each fold model's trees count with their weights (1/T for gcF, DisDF's learned w).
``level_feature_importances_`` gives every kept level's over its whole input, raw features and
the class vectors of the levels before it. Impurity importances are computed on the training
data and favour features of many distinct values; scikit-learn's
:func:`~sklearn.inspection.permutation_importance` measures what shuffling a feature costs on held-out data,
and works on any fitted cascade. Data: scikit-learn's bundled breast-cancer table.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

from disdf import CascadeForestClassifier

data = load_breast_cancer()
X_train, X_test, y_train, y_test = train_test_split(
    data.data, data.target, test_size=0.3, stratify=data.target, random_state=0
)
model = CascadeForestClassifier(n_trees=50, max_levels=4, patience=2, random_state=0).fit(X_train, y_train)
print(f"{model.n_levels_} level(s) kept; test accuracy {model.score(X_test, y_test):.3f}")

# %%
# The original features' importances sum to 1
# -------------------------------------------

importances = model.feature_importances_
print(f"sum {importances.sum():.6f}; the five largest:")
for index in np.argsort(importances)[::-1][:5]:
    print(f"  {data.feature_names[index]}: {importances[index]:.3f}")

# %%
# Each level's importances over its whole input
# ---------------------------------------------
# From level 2 on a level's input holds the earlier levels' class vectors (4 forests x 2 classes
# each); their share says how much the level leans on what the levels before it learned.

n_features = X_train.shape[1]
for level, per_input in enumerate(model.level_feature_importances_, start=1):
    print(
        f"level {level}: {len(per_input)} inputs, raw features {per_input[:n_features].sum():.2f}, "
        f"class vectors {per_input[n_features:].sum():.2f}"
    )

# %%
# Beside permutation importance on the test set
# ---------------------------------------------
# The mean drop in test accuracy over 5 shuffles of each feature (± its standard deviation).
# Correlated features (a cell's radius, perimeter and area) share their impurity importance, and
# shuffling one costs little where another stands in for it: the two measures agree on the
# leading group (the "worst" size features), not feature by feature.

permuted = permutation_importance(model, X_test, y_test, n_repeats=5, random_state=0)
top = np.argsort(importances)[::-1][:10][::-1]
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
left.barh(np.arange(len(top)), importances[top])
left.set_yticks(np.arange(len(top)), [data.feature_names[i] for i in top])
left.set_xlabel("impurity importance (sums to 1)")
left.set_title("feature_importances_")
right.barh(np.arange(len(top)), permuted.importances_mean[top], xerr=permuted.importances_std[top])
right.set_xlabel("mean drop in test accuracy")
right.set_title("permutation_importance")
fig.suptitle("The ten largest impurity importances of gcF, breast cancer")
fig.tight_layout()
plt.show()
