"""
The weight solvers side by side
===============================

Every DisDF forest solves eqs. (70)-(72): minimise

.. math::

   J(w) = \\sum_t (\\pi_t + \\lambda) w_t^2 + \\sum_{z_{ij}=1} \\max(0, \\tau - \\langle Q_{ij}, w \\rangle)^2

over the unit simplex. Here one such problem — a random forest of 100 trees
trained on 80 breast-cancer examples, its weights learned on the pairs of 120
held-out examples, the problem ``scripts/bench/bench_solvers.py`` benchmarks — is
solved by each solver: the exact QP (cvxpy), the paper's Frank-Wolfe algorithm as
printed, the away-step Frank-Wolfe (the default, with and without its Newton
steps) and the stochastic Frank-Wolfe that draws pairs instead of listing them.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

from disdf import SampledWeightProblem
from disdf.forests import SklearnFoldModel
from disdf.weights import PairStatistics, WeightProblem, solve_weights

X, y = load_breast_cancer(return_X_y=True)
order = np.random.default_rng(0).permutation(len(y))
train, held_out = order[:80], order[80:200]
forest = RandomForestClassifier(n_estimators=100, random_state=0).fit(X[train], y[train])
probabilities = SklearnFoldModel(forest, n_classes=2).probabilities(X[held_out])  # (n, T, C)
stats = PairStatistics.from_tree_probabilities(probabilities, y[held_out])
problem = WeightProblem(stats, lambda_=1.0, tau=1.0)
print(f"{problem.n_trees} trees, {stats.n_pairs} different-class pairs")

# %%
# Each solver once
# ----------------
# The excess is (J - J*)/J*, J* the QP's optimum (a tiny negative excess: below the QP's optimum
# within its solver's tolerance). Every solution is scored on the exact problem, the stochastic
# solver's too.

runs = {
    "qp": ("qp", {}),
    "frank_wolfe, 100 steps": ("frank_wolfe", {"max_iter": 100}),
    "frank_wolfe, 1000 steps": ("frank_wolfe", {"max_iter": 1000}),
    "frank_wolfe_away": ("frank_wolfe_away", {}),
    "frank_wolfe_away, no Newton": ("frank_wolfe_away", {"newton_every": 0}),
    "uniform (gcForest)": ("uniform", {}),
}
solutions, seconds = {}, {}
for label, (solver, options) in runs.items():
    solve_weights(problem, solver, **options)  # once to warm up compiled code and cvxpy
    start = time.perf_counter()
    solutions[label] = solve_weights(problem, solver, **options)
    seconds[label] = time.perf_counter() - start

sampled = SampledWeightProblem(probabilities, y[held_out], 1.0, 1.0, random_state=0)
label = "stochastic_frank_wolfe, B=256, K=2000"
solve_weights(sampled, "stochastic_frank_wolfe", batch_size=256, max_iter=2000)
start = time.perf_counter()
solutions[label] = solve_weights(sampled, "stochastic_frank_wolfe", batch_size=256, max_iter=2000)
seconds[label] = time.perf_counter() - start

best = solutions["qp"].objective
print(f"{'solver':>40} {'J':>9} {'excess':>9} {'iterations':>10} {'ms':>8}  status")
for label, solution in solutions.items():
    J = problem.objective(solution.w)  # every solution scored on the exact problem
    print(
        f"{label:>40} {J:9.5f} {(J - best) / best:9.1e} {solution.n_iter:10d} "
        f"{1000 * seconds[label]:8.1f}  {solution.status}"
    )

# %%
# The paper's Frank-Wolfe against the away-step one
# -------------------------------------------------
# The printed algorithm takes steps 2/(s + 2) towards one vertex; its excess falls slowly.
# The away-step variant with exact line search and Newton steps reaches the QP's optimum in a
# few iterations (an excess at machine precision is drawn at 1e-16).

steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]
paper = [
    (problem.objective(solve_weights(problem, "frank_wolfe", max_iter=s).w) - best) / best for s in steps
]
away = [
    max(
        (problem.objective(solve_weights(problem, "frank_wolfe_away", max_iter=s, tol=1e-12).w) - best)
        / best,
        1e-16,
    )
    for s in steps
]

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
axes[0].loglog(steps, paper, marker="o", label="frank_wolfe (as printed)")
axes[0].loglog(steps, away, marker="s", label="frank_wolfe_away")
axes[0].set_xlabel("iterations")
axes[0].set_ylabel("(J − J*) / J*")
axes[0].set_title("Excess over the QP optimum")
axes[0].legend()
labels = list(solutions)
axes[1].barh(labels, [1000 * seconds[label] for label in labels], color="tab:gray")
axes[1].set_xscale("log")
axes[1].set_xlabel("time of one solve (ms, log scale)")
axes[1].set_title("Time")
fig.tight_layout()
plt.show()

# %%
# The weights themselves: the optimum puts weight on few trees, the uniform weights of
# gcForest on all of them.

fig, ax = plt.subplots(figsize=(8, 3))
ax.bar(np.arange(problem.n_trees), np.sort(solutions["qp"].w)[::-1], color="tab:blue", label="optimum (qp)")
ax.axhline(1 / problem.n_trees, color="black", linestyle="--", label="uniform, 1/T")
ax.set_xlabel("trees, by decreasing weight")
ax.set_ylabel("weight")
ax.legend()
fig.tight_layout()
plt.show()
