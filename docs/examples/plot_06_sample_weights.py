"""
Weighted examples on an imbalanced problem: class_weight and sample_weight
==========================================================================

A cascade scores each level by its out-of-fold accuracy, which on a problem of 9 negatives to
1 positive rewards predicting the majority. ``class_weight="balanced"`` weighs class c by
n / (n_classes · n_c): the trees, the level score (hence the depth) and DisDF's pairs then count
each class alike. ``sample_weight`` in ``fit`` does the same example by example (here the same
weights, from :func:`~sklearn.utils.class_weight.compute_sample_weight`), on every engine.
Data: a synthetic two-class problem, 10 % positives.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.metrics import balanced_accuracy_score, recall_score
from sklearn.model_selection import train_test_split
from sklearn.utils.class_weight import compute_sample_weight

from disdf import CascadeForestClassifier, DisDFClassifier

X, y = make_classification(
    n_samples=900, n_features=10, n_informative=4, weights=[0.9, 0.1], class_sep=0.7, random_state=2
)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)
print(f"positives: {y_train.mean():.1%} of {len(y_train)} training examples")

# %%
# Unweighted, balanced, and the same weights given per example
# ------------------------------------------------------------
# The third fit passes the balanced weights as ``sample_weight``: the same fit as
# ``class_weight="balanced"``, number for number.

weights = compute_sample_weight("balanced", y_train)
fits = {
    "gcF": CascadeForestClassifier(n_trees=30, random_state=0).fit(X_train, y_train),
    "gcF, class_weight='balanced'": CascadeForestClassifier(
        n_trees=30, class_weight="balanced", random_state=0
    ).fit(X_train, y_train),
    "gcF, sample_weight": CascadeForestClassifier(n_trees=30, random_state=0).fit(
        X_train, y_train, sample_weight=weights
    ),
    "DisDF, class_weight='balanced'": DisDFClassifier(
        n_trees=30, class_weight="balanced", random_state=0
    ).fit(X_train, y_train),
}
scores = {}
for name, model in fits.items():
    predicted = model.predict(X_test)
    scores[name] = {
        "accuracy": float(np.mean(predicted == y_test)),
        "balanced accuracy": balanced_accuracy_score(y_test, predicted),
        "recall of the positives": recall_score(y_test, predicted),
    }
    print(f"{name}: " + ", ".join(f"{k} {v:.3f}" for k, v in scores[name].items()))
same = np.array_equal(
    fits["gcF, class_weight='balanced'"].predict_proba(X_test),
    fits["gcF, sample_weight"].predict_proba(X_test),
)
print("class_weight='balanced' and its sample_weight give the same probabilities:", same)

# %%
# The weighted out-of-fold accuracy picks the depth: with balanced weights each level is
# scored by its balanced accuracy on the examples it never trained on.

for name, model in fits.items():
    print(f"{name}: level scores {[round(s, 3) for s in model.level_scores_]}")

# %%
# What the weights buy: the recall of the minority, while plain accuracy hardly moves.

names = list(scores)
metrics = list(scores[names[0]])
fig, ax = plt.subplots(figsize=(7, 3.5))
width = 0.8 / len(names)
for position, name in enumerate(names):
    ax.bar(
        np.arange(len(metrics)) + position * width,
        [scores[name][m] for m in metrics],
        width,
        label=name,
    )
ax.set_xticks(np.arange(len(metrics)) + width * (len(names) - 1) / 2, metrics)
ax.set_ylim(0, 1)
ax.set_ylabel("test score")
ax.set_title("An imbalanced problem (10 % positives), with and without weights")
ax.legend(fontsize=8, loc="upper right")
fig.tight_layout()
plt.show()
