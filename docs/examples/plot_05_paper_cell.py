"""
One cell of the paper's table through the Python API
====================================================

The paper's Ecoli table, N = 50 training examples and T = 100 trees per forest:
gcForest against DisDF. This example draws the protocol's splits with the
runner's own functions (``experiments.running.protocol``: the seed of a split
is derived from the dataset, N and the repetition; round(2N/3) test examples),
fits both estimators with the protocol's settings (the split's seed as
``random_state``, λ = τ = 1, cross-fitted weights), and compares

* the accuracies with the committed records of the same repetitions
  (``results/raw/ecoli.jsonl``),
* the mean with the headline's 100-repetition mean and the paper's value
  (``results/tables/ecoli.csv``).

It runs **10 of the protocol's 100 repetitions**, so its mean is noisier than the
headline's. It reads Ecoli from ``DISDF_DATA_DIR`` (``make docs`` sets it).
"""

import json
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from disdf import CascadeForestClassifier, DisDFClassifier
from experiments.running.protocol import draw_split, load_pool, split_seed, test_size

# Ecoli's rarest classes have 2 to 5 examples, so a 50-example draw often holds one of them once:
# scikit-learn's stratified 3-fold split warns each time (the runner keeps it in each record).
warnings.filterwarnings("ignore", message="The least populated class in y")

DATASET, N, T, REPETITIONS = "ecoli", 50, 100, 10
ROOT = Path.cwd().resolve()
while not (ROOT / "results").is_dir():  # the checkout's root, wherever the build runs this from
    ROOT = ROOT.parent

pool = load_pool(DATASET, None)
ours = {"gcforest": [], "disdf": []}
for repetition in range(REPETITIONS):
    seed = split_seed(DATASET, N, repetition, 0)
    split = draw_split(pool, N, test_size(N, 2 / 3), seed, DATASET, cap_test=True)
    for method, estimator in (("gcforest", CascadeForestClassifier), ("disdf", DisDFClassifier)):
        model = estimator(n_trees=T, random_state=seed, n_jobs=1).fit(split.X_train, split.y_train)
        ours[method].append(model.score(split.X_test, split.y_test))

# %%
# The same numbers as the committed records
# -----------------------------------------
# The headline's records of these repetitions, read from ``results/raw/``:

records = [json.loads(line) for line in (ROOT / "results" / "raw" / f"{DATASET}.jsonl").open()]
committed = {
    method: [
        next(
            r["accuracy"]
            for r in records
            if (r["N"], r["T"], r["method"], r["repetition"]) == (N, T, method, k)
        )
        for k in range(REPETITIONS)
    ]
    for method in ours
}
for method in ours:
    equal = np.allclose(ours[method], committed[method], rtol=0, atol=1e-12)
    print(f"{method:>8}: {REPETITIONS} accuracies equal to the committed records: {equal}")

# %%
# Against the headline and the paper
# -----------------------------------

table = pd.read_csv(ROOT / "results" / "tables" / f"{DATASET}.csv")
cell = table[(table.N == N) & (table["T"] == T)].set_index("method")
difference = np.subtract(ours["disdf"], ours["gcforest"])
for method in ours:
    values = np.array(ours[method])
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    print(
        f"{method:>8}: {values.mean():.3f} ± {half:.3f} ({REPETITIONS} repetitions); headline "
        f"{cell.loc[method, 'mean']:.3f} ± {cell.loc[method, 'ci_half']:.3f} ({cell.loc[method, 'n']} "
        f"repetitions); paper {cell.loc[method, 'paper']}"
    )
print(
    f"DisDF − gcF: {100 * difference.mean():+.1f} pp over these {REPETITIONS} splits "
    f"(DisDF better on {np.sum(difference > 0)}, worse on {np.sum(difference < 0)}, "
    f"tied on {np.sum(difference == 0)})"
)

# %%
# Each repetition's pair of accuracies; the paper's cell as a cross.

fig, ax = plt.subplots(figsize=(5, 4.5))
ax.scatter(ours["gcforest"], ours["disdf"], label=f"our splits ({REPETITIONS})", alpha=0.7)
ax.scatter(
    [cell.loc["gcforest", "paper"]],
    [cell.loc["disdf", "paper"]],
    marker="x",
    s=120,
    color="red",
    label="the paper",
)
ax.scatter(
    [cell.loc["gcforest", "mean"]],
    [cell.loc["disdf", "mean"]],
    marker="D",
    color="black",
    label=f"headline mean ({cell.loc['disdf', 'n']} repetitions)",
)
low = min(min(ours["gcforest"]), min(ours["disdf"])) - 0.03
ax.plot([low, 1], [low, 1], color="gray", linewidth=0.8)
ax.set_xlabel("gcForest test accuracy")
ax.set_ylabel("DisDF test accuracy")
ax.set_title(f"Ecoli, N = {N}, T = {T}")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
