"""
Regression, one output or several
=================================

:class:`disdf.CascadeForestRegressor` is the gcForest cascade for a numeric target: each level's
forests are regression forests, their out-of-fold predictions join the next level's input, and the
depth is chosen by the out-of-fold R² of a level's mean prediction. Data: scikit-learn's bundled
diabetes table (442 patients, 10 features, one target) and Linnerud (20 athletes, 3 exercises,
3 physiological targets).
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes, load_linnerud
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import KFold, cross_val_predict, cross_val_score

from disdf import CascadeForestRegressor

X, y = load_diabetes(return_X_y=True)
cv = KFold(5, shuffle=True, random_state=0)

# %%
# The cascade beside one random forest
# ------------------------------------
# The same 5 folds for both; ``level_scores_`` are the out-of-fold R² of each level grown, the last
# one discarded when it did not improve.

cascade = CascadeForestRegressor(n_trees=100, random_state=0)
forest = RandomForestRegressor(n_estimators=400, random_state=0)
for name, model in [("cascade (4 x 100 trees per level)", cascade), ("random forest (400 trees)", forest)]:
    scores = cross_val_score(model, X, y, cv=cv, scoring="r2")
    print(f"{name}: 5-fold R^2 {scores.mean():.3f} (folds {np.round(scores, 3)})")
fitted = CascadeForestRegressor(n_trees=100, random_state=0).fit(X, y)
print("levels kept:", fitted.n_levels_, "out-of-fold R^2 per level:", np.round(fitted.level_scores_, 3))

# %%
# Predicted against measured
# --------------------------
# Out-of-fold predictions (each patient predicted by the model of the fold that held it out).

predicted = cross_val_predict(cascade, X, y, cv=cv)
fig, ax = plt.subplots(figsize=(4.5, 4.5))
ax.scatter(y, predicted, s=10, alpha=0.6)
ax.plot([y.min(), y.max()], [y.min(), y.max()], color="black", linewidth=1)
ax.set_xlabel("measured disease progression")
ax.set_ylabel("predicted (out of fold)")
ax.set_title("CascadeForestRegressor on diabetes")
fig.tight_layout()

# %%
# Out of bag: DF21's layers, a third of the trees
# -----------------------------------------------
# By default a level grows each forest once per fold (3 fold models). ``out_of_bag=True`` grows it
# once, every tree on a bootstrap sample, and passes on each patient's mean over the trees that left
# it out, as DF21's layers do. The same 5 folds; the process CPU seconds of the 5 fits beside.

for name, out_of_bag in [("3 folds", False), ("out of bag", True)]:
    model = CascadeForestRegressor(n_trees=100, out_of_bag=out_of_bag, random_state=0)
    started = time.process_time()
    scores = cross_val_score(model, X, y, cv=cv, scoring="r2")
    print(f"{name}: 5-fold R^2 {scores.mean():.3f}, {time.process_time() - started:.1f} CPU s for 5 fits")

# %%
# Several outputs at once
# -----------------------
# A 2-d y of k columns grows trees whose leaves hold k means (one split for all outputs, as
# scikit-learn's multi-output trees): ``predict`` returns k columns and ``transform`` M x k.

X_lin, Y_lin = load_linnerud(return_X_y=True)
multi = CascadeForestRegressor(n_trees=50, random_state=0)
Y_predicted = cross_val_predict(multi, X_lin, Y_lin, cv=KFold(5, shuffle=True, random_state=0))
print(
    "outputs:",
    Y_predicted.shape[1],
    "mean absolute error per output:",
    np.round(np.abs(Y_predicted - Y_lin).mean(axis=0), 2),
)
print("transform's columns:", multi.fit(X_lin, Y_lin).transform(X_lin[:2]).shape[1])
