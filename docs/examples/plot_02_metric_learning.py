"""
DisDF as a metric learner
=========================

DisDF learns tree weights so that class vectors of different classes lie far
apart: its last level's concatenated class vectors are a learned
representation, and :meth:`~disdf.DisDFClassifier.pair_distance`,
:meth:`~disdf.DisDFClassifier.pair_score` and
:meth:`~disdf.DisDFClassifier.get_metric` follow metric-learn's conventions.

Here k-NN in that representation is compared with k-NN on the standardised
features and in scikit-learn's :class:`~sklearn.neighbors.NeighborhoodComponentsAnalysis`
(NCA) space, on scikit-learn's wine table (178 examples, 13 features, 3 classes),
over 5 random splits.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import NeighborhoodComponentsAnalysis
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from disdf import CascadeForestClassifier, DisDFClassifier, EmbeddingKNeighborsClassifier

X, y = load_wine(return_X_y=True)

# %%
# One split, step by step
# -----------------------
# ``fit_transform`` returns the training examples' *out-of-fold* class vectors (an
# in-sample ``transform(X_train)`` would overstate them); ``transform`` embeds new examples.

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
model = DisDFClassifier(n_trees=50, random_state=0)
train_embedding = model.fit_transform(X_train, y_train)
print("representation:", train_embedding.shape, "(4 forests x 3 classes)")

pairs = np.stack([X_test[:-1], X_test[1:]], axis=1)  # neighbouring test examples, shape (n, 2, d)
distances = model.pair_distance(pairs)
same = y_test[:-1] == y_test[1:]
print(f"Manhattan distances lie in [0, 8] for four forests: {distances.min():.2f} to {distances.max():.2f}")
print(
    f"mean distance, same class {distances[same].mean():.2f}, different class {distances[~same].mean():.2f}"
)
print(f"pair_score = -pair_distance: {np.allclose(model.pair_score(pairs), -distances)}")
print(f"ROC AUC of pair_score for 'same class': {roc_auc_score(same, model.pair_score(pairs)):.3f}")
metric = model.get_metric()
print(f"get_metric()(u, v) = {metric(X_test[0], X_test[1]):.3f} = pair_distance {distances[0]:.3f}")

# %%
# Four representations over 5 splits
# -----------------------------------
# :class:`~disdf.EmbeddingKNeighborsClassifier` runs k-NN in any representation
# fitted with labels; ``evaluation_scores`` adds 1-NN accuracy and the pair AUC over every
# pair of test examples. Euclidean distance for the raw and NCA spaces, Manhattan (the
# paper's d_1) for class vectors.

representations = {
    "raw (standardised)": (StandardScaler(), "euclidean"),
    "NCA": (make_pipeline(StandardScaler(), NeighborhoodComponentsAnalysis(random_state=0)), "euclidean"),
    "gcF class vectors": (CascadeForestClassifier(n_trees=50), "manhattan"),
    "DisDF class vectors": (DisDFClassifier(n_trees=50), "manhattan"),
}
scores = {name: {"5-NN accuracy": [], "pair AUC": []} for name in representations}
for split in range(5):
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=split)
    for name, (embedding, distance) in representations.items():
        knn = EmbeddingKNeighborsClassifier(embedding, n_neighbors=5, metric=distance, random_state=split)
        knn.fit(X_train, y_train)
        scores[name]["5-NN accuracy"].append(knn.score(X_test, y_test))
        scores[name]["pair AUC"].append(knn.evaluation_scores(X_test, y_test)["pair_auc"])

for name, values in scores.items():
    print(
        f"{name:>20}: 5-NN {np.mean(values['5-NN accuracy']):.3f} ± {np.std(values['5-NN accuracy']):.3f}, "
        f"pair AUC {np.mean(values['pair AUC']):.3f} ± {np.std(values['pair AUC']):.3f}"
    )

# %%
# Mean ± standard deviation over the 5 splits:

fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
names = list(representations)
for ax, score in zip(axes, ("5-NN accuracy", "pair AUC"), strict=True):
    means = [np.mean(scores[name][score]) for name in names]
    sds = [np.std(scores[name][score]) for name in names]
    ax.barh(names, means, xerr=sds, capsize=3, color="tab:blue")
    ax.set_xlabel(f"{score} (5 splits)")
    ax.set_xlim(min(means) - 0.1, 1.0)
axes[1].set_yticklabels([])
fig.suptitle("k-NN on wine in four representations")
fig.tight_layout()
plt.show()
