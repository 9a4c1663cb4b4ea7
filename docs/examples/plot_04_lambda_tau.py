"""
What λ and τ do to the weights and the accuracy
===============================================

λ (``lambda_``) weighs ‖w‖² in eq. (70): it adds to π_t, so a λ large against π
pulls the weights to gcForest's uniform 1/T. τ (``tau``) is the margin of the
hinge on ⟨Q_ij, w⟩ ∈ [0, 2] for one forest: a larger τ keeps more
different-class pairs inside the hinge. This example fits DisDF over a grid of
both on scikit-learn's wine table and shows the effective number of trees
(1/Σw², T for uniform weights) of the first level's weights and the test
accuracy, over 3 random splits.

The test accuracy here only *illustrates* the effect: choosing λ and τ on it would
be selection on test data. Choose them by cross-validation (``GridSearchCV``) or
with ``tune=True`` (per level, by out-of-fold accuracy).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from disdf import DisDFClassifier

X, y = load_wine(return_X_y=True)
lambdas = [0.01, 1.0, 100.0, 10_000.0]
taus = [0.5, 1.0, 2.0]
T = 40
splits = range(3)

effective = np.zeros((len(taus), len(lambdas), len(splits)))
accuracy = np.zeros_like(effective)
for s in splits:
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=s)
    for a, tau in enumerate(taus):
        for b, lambda_ in enumerate(lambdas):
            model = DisDFClassifier(n_trees=T, lambda_=lambda_, tau=tau, random_state=s).fit(X_train, y_train)
            first_level = [w for forest in model.weights_[0] for w in forest]  # every fold model's w
            effective[a, b, s] = np.mean([1.0 / np.sum(np.square(w)) for w in first_level])
            accuracy[a, b, s] = model.score(X_test, y_test)

for a, tau in enumerate(taus):
    print(
        f"tau = {tau}: effective trees "
        + ", ".join(f"λ={lam:g}: {effective[a, b].mean():.1f}" for b, lam in enumerate(lambdas))
    )

# %%
# Large λ gives back gcForest's uniform weights (T effective trees); small λ lets the hinge
# concentrate the weights on fewer trees, the more so the larger τ. On a dataset as easy as wine
# the accuracies differ by little against their spread over the splits.

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for a, tau in enumerate(taus):
    axes[0].plot(lambdas, effective[a].mean(axis=1), marker="o", label=f"τ = {tau}")
    axes[1].errorbar(
        lambdas,
        accuracy[a].mean(axis=1),
        yerr=accuracy[a].std(axis=1),
        marker="o",
        capsize=3,
        label=f"τ = {tau}",
    )
axes[0].axhline(T, color="black", linestyle="--", label="uniform (T)")
axes[0].set_ylabel("effective trees 1/Σw² (first level)")
axes[1].set_ylabel("test accuracy (mean ± sd, 3 splits)")
for ax in axes:
    ax.set_xscale("log")
    ax.set_xlabel("λ (lambda_)")
    ax.legend()
fig.tight_layout()
plt.show()
