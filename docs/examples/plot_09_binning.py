"""
Binned features for larger data: n_bins and bin_subsample
=========================================================

``engine="binned"`` is the compiled engine with DF21's and LightGBM's shortcut for large data: on
a forest of more than 256 training examples, a feature of more than ``n_bins + 1`` distinct values
is cut into at most ``n_bins`` bins of about equal counts, and a node of 64 examples or more
chooses its best split among the bins' edges (one pass over a histogram instead of a sort).
Smaller nodes split on the exact values, and completely-random trees draw their thresholds as
before: the bins concern the random forests' best splits. ``bin_subsample`` places the edges on a
random sample of that many of a fold model's examples (drawn from its seed) instead of all. The
defaults (255 bins from every example) are the engine's bins of old, and on 256 examples or fewer
``"binned"`` grows exactly ``"fast"``'s trees. Data: a synthetic problem of 4,000 examples with 20
continuous features.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from disdf import CascadeForestClassifier, PlainForestClassifier

X, y = make_classification(n_samples=4000, n_features=20, n_informative=8, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)

# %%
# Fewer bins, fewer thresholds
# ----------------------------
# One random forest of 20 trees on the 3,000 training examples: where its splits on feature 0
# fall. Every node of 64 examples or more splits at one of the ``n_bins - 1`` bin edges: with 4
# bins, the three tall bars. The others come from smaller nodes, which split on exact values (most
# nodes of a fully grown tree are small, so the count of distinct thresholds hardly moves).

fig, axes = plt.subplots(1, 3, figsize=(10, 3), sharey=True)
for ax, n_bins in zip(axes, (255, 32, 4), strict=True):
    forest = PlainForestClassifier(n_trees=5, engine="binned", n_bins=n_bins, random_state=0)
    forest.fit(X_train, y_train)
    thresholds = forest.forest_.threshold[forest.forest_.feature == 0]
    ax.hist(thresholds, bins=80)
    ax.set_title(f"n_bins={n_bins}: {len(np.unique(thresholds))} distinct thresholds", fontsize=9)
    ax.set_xlabel("threshold on feature 0")
axes[0].set_ylabel("splits")
fig.tight_layout()
plt.show()

# %%
# The cascade: time and accuracy against n_bins
# ----------------------------------------------
# ``n_bins`` and ``bin_subsample`` are the binned engine's only: another engine refuses them.

settings = {
    "fast": {"engine": "fast"},
    "binned, n_bins=255": {"engine": "binned"},
    "binned, n_bins=32": {"engine": "binned", "n_bins": 32},
    "binned, n_bins=8": {"engine": "binned", "n_bins": 8},
    "binned, n_bins=32, bin_subsample=500": {"engine": "binned", "n_bins": 32, "bin_subsample": 500},
}
for name, params in settings.items():
    model = CascadeForestClassifier(n_trees=20, max_levels=3, random_state=0, **params)
    started = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - started
    accuracy = model.score(X_test, y_test)
    print(f"{name}: fit {seconds:.1f} s, {model.n_levels_} level(s), test accuracy {accuracy:.3f}")

try:
    CascadeForestClassifier(engine="fast", n_bins=32).fit(X_train, y_train)
except ValueError as error:
    print(type(error).__name__, error)
