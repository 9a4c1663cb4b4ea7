"""The Discriminative Deep Forest (DisDF) of Utkin & Ryabinin."""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

import numpy as np
from sklearn.model_selection import KFold

from disdf.cascade import CascadeForestClassifier, level_accuracy
from disdf.fit_memory import different_class_pairs_per_fold
from disdf.forest_fit import LevelFit
from disdf.parameters import Boolean, Constraint, DictParameter, Float, Grid, Integer, OneOf
from disdf.threads import run_tasks
from disdf.tree_probabilities import TreeLeaves
from disdf.weights import (
    PairStatistics,
    SampledWeightProblem,
    SolverFallback,
    SolverName,
    SolverOptions,
    WeightProblem,
    WeightSolution,
    WeightSolverError,
    reads_pair_statistics,
    solve_weights,
)

#: How a fold model's weights and its held-out examples' class vectors relate (see DisDFClassifier).
WEIGHT_FITTINGS = ("same_examples", "cross_fit")
#: Upper ends of λ and τ: within them J of eq. (70)-(72), its gradient and the line search's
#: sums stay far below float64's 1.8e308 for any problem a machine can hold (10^12 pairs, 10^6 trees).
#: τ ≤ 1e3: <Q_ij, w> lies in [0, 2], so from τ = 2 on every hinge is active; a pair adds at most
#: τ² = 1e6 to J and 2 τ Q_ij ≤ 4e3 to a gradient entry (1e18 and 4e15 over 10^12 pairs). A
#: larger τ only buries the part of J that depends on w under the constant (pairs) τ²: from
#: τ ~ 1e5 on, Clarabel calls such problems infeasible.
#: λ ≤ 1e12: pi_t sums P_ij ≤ 2 over same-class pairs, so pi_t ≤ n² (1e12 at n = 10^6 held-out
#: examples); with λ far above pi the optimum is the uniform weights of gcForest
#: (solver="uniform"), so a larger λ chooses nothing new. (pi_t + λ) w_t², the gradient
#: 2 (pi_t + λ) w_t and the line search's 2 Σ_t (pi_t + λ) d_t² stay below ~1e13 T.
LAMBDA_MAX = 1e12
TAU_MAX = 1e3
#: λ of eq. (70) and τ of eq. (72): λ ≥ 0 weighs ‖w‖², τ > 0 is the margin on <Q_ij, w>
#: (also the checks of every ``tune_grid`` entry).
LAMBDA = Float(0.0, high=LAMBDA_MAX)
TAU = Float(0.0, low_open=True, high=TAU_MAX)


def _sampled_problem(held: TreeLeaves, y, lambda_: float, tau: float, random_state) -> SampledWeightProblem:
    """The pair-sampling problem of a fold model's held-out examples, their (n_k, T, C) probabilities
    made from the leaf rows here, in the task that solves it (one such array per running task)."""
    return SampledWeightProblem(held.probabilities(), y, lambda_, tau, random_state=random_state)


class SolverFallbackWarning(UserWarning):
    """The configured weight solver failed on some problems and ``solver_fallback`` solved them."""


#: Grid searched per level when ``tune=True``: lambda spans "the hinge decides"
#: (small) to "nearly uniform, like gcForest" (large); tau spans the range
#: (0, 2] of the Manhattan distance <Q_ij, w> between two class vectors.
DEFAULT_TUNE_GRID: dict[str, tuple[float, ...]] = {
    "lambda_": (0.1, 1.0, 10.0, 100.0, 1000.0),
    "tau": (0.5, 1.0, 1.5),
}


class DisDFClassifier(CascadeForestClassifier):
    """Discriminative Deep Forest: gcForest whose tree weights are learned.

    Every forest's class vector is sum_t w_t p^(t), eq. (41), with w on the unit
    simplex, eq. (42). For every fold model, w minimises eq. (70)-(72),

        J(w) = sum_t (pi_t + lambda) w_t^2 + sum_{z_ij=1} max(0, tau - <Q_ij, w>)^2,

    over the pairs i < j of that fold model's held-out examples, using the
    trees' predictions on examples they never trained on. Levels are trained
    greedily (Algorithm 4).

    Parameters
    ----------
    lambda_ : float, default=1.0
        lambda in [0, 1e12], strength of the ||w||^2 regulariser. The objective sums over
        pairs, so pi_t grows like (held-out examples)^2; lambda that is large
        against pi pulls w to the uniform weights of gcForest.
    tau : float, default=1.0
        tau in (0, 1e3], the margin of the hinge on different-class pairs. <Q_ij, w> is
        the Manhattan distance between two class vectors, which lies in [0, 2]:
        tau = 1 asks every different-class pair to be at total-variation
        distance at least 1/2; tau >= 2 keeps every hinge active.
    solver : {"frank_wolfe_away", "frank_wolfe", "qp", "uniform", "stochastic_frank_wolfe"}, \
            default="frank_wolfe_away"
        How w is found (:data:`disdf.weights.registry.SOLVER_REGISTRY`).
        ``"frank_wolfe_away"``: away-step Frank-Wolfe with exact line search,
        to a duality gap of 1e-6 J. ``"frank_wolfe"``: the paper's algorithm
        as printed. ``"qp"``: the exact QP in cvxpy.
        ``"uniform"`` (w = 1/T) makes DisDF identical to gcForest.
        ``"stochastic_frank_wolfe"`` draws different-class pairs instead of
        storing Q for all n^2/2 of them
        (:mod:`disdf.weights.stochastic_frank_wolfe`): memory O(batch_size * T)
        beyond the held-out probabilities, for training sets of thousands of
        examples and more; its optimum is approximate. Its
        pair draws are seeded from the fold model's seed.
    solver_options : dict, default=None
        Passed to the solver, e.g. ``{"tol": 1e-6}``, ``{"max_iter": 100}``,
        ``{"qp_solver": "OSQP"}``, ``{"gradient": "printed"}`` (frank_wolfe
        only: the ablation with eq. (78) as printed), ``{"batch_size": 1024,
        "max_iter": 2000}`` (stochastic_frank_wolfe). ``set_params(solver_options__tol=1e-6)``
        (GridSearchCV's spelling) sets one entry of a copy (None: of ``{}``).
    tune : bool, default=False
        Per level, once its trees are fit, choose (lambda, tau) from
        ``tune_grid`` by the level's out-of-fold accuracy (ties: the larger mean
        out-of-fold probability of the true class), re-solving only the
        weights, warm-started. Test data is never involved.
    tune_grid : dict with keys ``"lambda_"`` and ``"tau"``, default=None
        None means :data:`~disdf.discriminative.DEFAULT_TUNE_GRID`.
        ``set_params(tune_grid__tau=[...])`` sets one entry of a copy (None: of
        the default grid).
    solver_fallback : str or None, default=None
        What to do when ``solver`` fails (e.g. qp ends in status
        ``user_limit`` or ``solver_error``). None: raise a
        :class:`~disdf.weights.result.WeightSolverError` naming the level, forest,
        fold, solver and status. A solver name (e.g. ``"frank_wolfe_away"``):
        solve that problem with it instead (default options, same warm start),
        warn once per level with :class:`SolverFallbackWarning`, and record
        the reason as ``fallback_reason`` in ``solver_diagnostics_``.
        Only the exact solvers fail this way and serve as a fallback: not
        with ``solver="stochastic_frank_wolfe"``.

    weight_fitting : {"cross_fit", "same_examples"}, default="cross_fit"
        What a fold model's held-out examples' *out-of-fold* class vectors use.
        "Out-of-fold" means, for gcForest, that no tree behind an example's
        vector saw that example; for DisDF it must also mean that no *weight*
        behind it saw the example's label. A fold model's weights are fitted on
        the pairs of its held-out examples (their labels enter J);
        ``"same_examples"`` (the paper's code, kept for the ablation) then
        weighs those same examples' trees with them, so their labels leak into
        the vectors that score the level (the depth is chosen on a leaked
        score) and feed the next one (it trains on vectors more accurate than
        any test-time vector).
        ``"cross_fit"`` (the default) splits each fold model's held-out set into
        ``cross_fit_parts`` parts (shuffled, seeded by the fold model's seed)
        and gives each part the weights fitted on the other parts: no
        example's vector uses weights that saw its label. New examples use the
        weights fitted on the whole held-out set in both cases (the most
        pairs, and no label of theirs is involved).
    cross_fit_parts : int, default=3
        Parts of a held-out set for ``weight_fitting="cross_fit"``.

    Other parameters are those of :class:`CascadeForestClassifier`.

    Attributes
    ----------
    weights_ : list (level) of list (forest) of list (fold) of ndarray (T,)
    solver_diagnostics_ : list (level) of list (forest) of list (fold) of dict
        Objective, duality gap, iterations, seconds and status of each solve,
        and ``fallback_reason`` (None unless ``solver_fallback`` solved it).
    tuned_params_ : list (level) of dict
        The ``(lambda_, tau)`` used at each kept level and, with ``tune``, the
        out-of-fold accuracy of every grid point.

    See Also
    --------
    disdf.CascadeForestClassifier : gcForest, the same cascade with w = 1/T.
    disdf.weights.solve_weights : one forest's weight problem, eq. (70)-(72).

    References
    ----------
    .. [1] L. V. Utkin and M. A. Ryabinin, "Discriminative Metric Learning with Deep
       Forest", International Journal on Artificial Intelligence Tools, 2019.
       arXiv:1705.09620.
    .. [2] Z.-H. Zhou and J. Feng, "Deep Forest: Towards an Alternative to Deep Neural
       Networks", Proceedings of IJCAI 2017, pp. 3553-3559; extended as "Deep forest",
       National Science Review 6(1), 74-86, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.model_selection import train_test_split
    >>> from disdf import DisDFClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, stratify=y, random_state=0)
    >>> model = DisDFClassifier(n_trees=20, random_state=0).fit(X_train, y_train)
    >>> model.score(X_test, y_test) > 0.85
    True

    Every fold model's tree weights lie on the unit simplex, eq. (42):

    >>> w = model.weights_[0][0][0]  # level 1, forest 1, fold model 1
    >>> w.shape, bool(np.isclose(w.sum(), 1.0)), bool((w >= 0).all())
    ((20,), True, True)

    ``solver="uniform"`` gives every tree 1/T: DisDF is then gcForest.

    >>> from disdf import CascadeForestClassifier
    >>> uniform = DisDFClassifier(n_trees=20, solver="uniform", random_state=0).fit(X_train, y_train)
    >>> gcf = CascadeForestClassifier(n_trees=20, random_state=0).fit(X_train, y_train)
    >>> bool((uniform.predict_proba(X_test) == gcf.predict_proba(X_test)).all())
    True
    """

    #: The cascade's parameters, then DisDF's: the solver before the parameters that read it (its
    #: options, its fallback), tune before the grid it decides to read.
    _parameter_table: ClassVar[dict[str, Constraint]] = {
        **CascadeForestClassifier._parameter_table,
        "solver": SolverName(),
        "lambda_": LAMBDA,
        "tau": TAU,
        "tune": Boolean(),
        "weight_fitting": OneOf(WEIGHT_FITTINGS),
        "cross_fit_parts": Integer(2),
        "solver_options": SolverOptions(),
        "solver_fallback": SolverFallback(),
        "tune_grid": Grid({"lambda_": LAMBDA, "tau": TAU}, when="tune"),
    }

    #: set_params(solver_options__tol=1e-6) and set_params(tune_grid__lambda_=[...]) (GridSearchCV's
    #: spelling) set one entry: solver_options takes any (fit checks them against the solver; None
    #: is no options), tune_grid its two (None is DEFAULT_TUNE_GRID, whose other entry stays).
    _dict_parameters: ClassVar[dict[str, DictParameter]] = {
        "solver_options": DictParameter(),
        "tune_grid": DictParameter(keys=("lambda_", "tau"), default=DEFAULT_TUNE_GRID),
    }

    def __init__(
        self,
        *,
        n_trees: int = 100,
        forests: Sequence[str | Mapping[str, Any]] | None = None,
        n_folds: int = 3,
        max_levels: int = 10,
        patience: int = 1,
        tol: float = 0.0,
        augmentation: str = "cumulative",
        max_depth: int | None = None,
        min_samples_split: int = 2,
        min_samples_leaf: int = 1,
        n_jobs: int | None = None,
        random_state: int | np.random.RandomState | None = None,
        engine: str = "fast",
        verbose: int = 0,
        test_vectors: str = "fold_mean",
        keep_fitted_levels: str = "memory",
        fitted_levels_dir: str | os.PathLike | None = None,
        lambda_: float = 1.0,
        tau: float = 1.0,
        solver: str = "frank_wolfe_away",
        solver_options: Mapping[str, Any] | None = None,
        tune: bool = False,
        tune_grid: Mapping[str, Sequence[float]] | None = None,
        solver_fallback: str | None = None,
        weight_fitting: str = "cross_fit",
        cross_fit_parts: int = 3,
    ) -> None:
        super().__init__(
            n_trees=n_trees,
            forests=forests,
            n_folds=n_folds,
            max_levels=max_levels,
            patience=patience,
            tol=tol,
            augmentation=augmentation,
            max_depth=max_depth,
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            n_jobs=n_jobs,
            random_state=random_state,
            engine=engine,
            verbose=verbose,
            test_vectors=test_vectors,
            keep_fitted_levels=keep_fitted_levels,
            fitted_levels_dir=fitted_levels_dir,
        )
        self.lambda_ = lambda_
        self.tau = tau
        self.solver = solver
        self.solver_options = solver_options
        self.tune = tune
        self.tune_grid = tune_grid
        self.solver_fallback = solver_fallback
        self.weight_fitting = weight_fitting
        self.cross_fit_parts = cross_fit_parts

    def _pair_rows(self, class_counts: np.ndarray) -> int:
        """Rows Q_ij of one fold model's held-out pairs, eq. (72), held by an exact solver (none when
        the solver draws pairs or weighs uniformly)."""
        if self.solver == "uniform" or not reads_pair_statistics(self.solver):
            return 0
        return different_class_pairs_per_fold(class_counts, self.n_folds)

    def _memory_remedy(self) -> str:
        return (
            "fewer trees (n_trees), levels (max_levels) or training examples would fit, or "
            "solver='stochastic_frank_wolfe', which draws pairs instead of storing every Q_ij"
        )

    def _grid_points(self) -> list[tuple[float, float]]:
        """The (lambda_, tau) the level tries: every point of the grid with ``tune``, else the one pair
        (checked by the parameter table before any work)."""
        if not self.tune:
            return [(float(self.lambda_), float(self.tau))]
        grid = DEFAULT_TUNE_GRID if self.tune_grid is None else self.tune_grid
        return [(float(lam), float(tau)) for lam in grid["lambda_"] for tau in grid["tau"]]

    def _solve(self, problem, w0, options: dict, where: str) -> WeightSolution:
        """Solve one weight problem; on failure raise an error naming ``where``, or use the fallback.

        A failure is any :class:`WeightSolverError` of :func:`solve_weights`: a solver's own
        (a non-optimal cvxpy status), a floating-point error during the solve
        (``"numerical_error"``) or a non-finite result (``"non_finite"``).
        """
        try:
            return solve_weights(problem, self.solver, w0=w0, **options)
        except WeightSolverError as error:
            reason = f"{where}: solver {error.solver} ended with status {error.status!r} ({error})"
            if self.solver_fallback is None:
                raise WeightSolverError(
                    f"Weight solve failed at {reason}. Set solver_fallback='frank_wolfe_away' to fall back.",
                    solver=error.solver,
                    status=error.status,
                ) from error
            return replace(self._fall_back(problem, w0, reason), fallback_reason=reason)

    def _solve_problem(
        self, problem, lambda_: float, tau: float, w0, options: dict, where: str
    ) -> WeightSolution:
        """:meth:`_solve` of ``problem(lambda_, tau)``, built in the task (its arrays live while it runs)."""
        return self._solve(problem(lambda_, tau), w0, options, where)

    def _fall_back(self, problem, w0, reason: str) -> WeightSolution:
        """The fallback's solution; if it fails too, an error naming both failures and where."""
        try:
            return solve_weights(problem, self.solver_fallback, w0=w0)
        except WeightSolverError as error:
            raise WeightSolverError(
                f"Weight solve failed at {reason}; solver_fallback={self.solver_fallback!r} failed too: "
                f"solver {error.solver} ended with status {error.status!r} ({error})",
                solver=error.solver,
                status=error.status,
            ) from error

    def _weight_problems(self, fit: LevelFit, y_code: np.ndarray) -> list:
        """Per fold model (forest-major), a function (lambda_, tau) -> its weight problem.

        The exact solvers read pi and every Q_ij of the fold model's held-out
        examples; the pair-sampling ones draw pairs from the same held-out
        probabilities, seeded by the fold model's seed.
        """
        if reads_pair_statistics(self.solver):
            fit.compute_pair_statistics(self.n_jobs)
            return [partial(WeightProblem, s) for forest in fit.forests for s in forest.pair_statistics]
        return [
            partial(_sampled_problem, held, y_code[test], random_state=seed)
            for forest in fit.forests
            for held, (_, test), seed in zip(forest.held_out, fit.folds, forest.seeds, strict=True)
        ]

    def _cross_fitted(self, forests, fit: LevelFit, lambda_: float, tau: float, options: dict, places):
        """Each fold model's held-out parts with the weights fitted on its other parts (out-of-fold
        vectors whose weights never saw their labels); the whole-set weights stay for new examples."""
        jobs = []  # (forest, fold, part positions within the fold's held-out set, the other positions)
        for m, forest in enumerate(forests):
            for k, (_, test) in enumerate(fit.folds):
                splitter = KFold(
                    n_splits=min(self.cross_fit_parts, len(test)), shuffle=True, random_state=forest.seeds[k]
                )
                for fitting, part in splitter.split(test):
                    jobs.append((m, k, part, fitting))
        exact = reads_pair_statistics(self.solver)

        def problem(m, k, fitting):
            probabilities = forests[m].held_out[k][fitting].probabilities()
            labels = fit.y_code[fit.folds[k][1][fitting]]
            if exact:  # the fold's statistics hold every pair of the part's examples
                whole = forests[m].pair_statistics
                stats = (
                    PairStatistics.from_tree_probabilities(probabilities, labels)
                    if whole is None
                    else whole[k].of_examples(fit.y_code[fit.folds[k][1]], fitting, probabilities)
                )
                return WeightProblem(stats, lambda_, tau)
            return SampledWeightProblem(probabilities, labels, lambda_, tau, random_state=forests[m].seeds[k])

        def solve_part(m, k, fitting, where):
            return self._solve(problem(m, k, fitting), forests[m].weights[k], options, where)

        n_folds = len(fit.folds)
        solutions = run_tasks(
            (
                partial(solve_part, m, k, fitting, f"{places[m * n_folds + k]}, cross-fitted part")
                for m, k, _, fitting in jobs
            ),
            self.n_jobs,
        )
        parts: list[list[list]] = [[[] for _ in range(n_folds)] for _ in forests]
        for (m, k, part, _), solution in zip(jobs, solutions, strict=True):
            parts[m][k].append((part, solution.w))
        seconds = float(sum(solution.seconds for solution in solutions))
        return (
            [forest.with_out_of_fold_weights(parts[m]) for m, forest in enumerate(forests)],
            seconds,
            solutions,
        )

    def _level_weights(self, fit: LevelFit, y_code: np.ndarray, level_index: int):
        """Solve eq. (70)-(72) for every fold model of every forest: the level's forests with weights."""
        n_folds = len(fit.folds)
        places = [
            f"level {level_index + 1}, forest {m + 1} ({forest.kind}), fold {k + 1} of {n_folds}"
            for m, forest in enumerate(fit.forests)
            for k in range(n_folds)
        ]
        options = dict(self.solver_options or {})
        problems = self._weight_problems(fit, y_code)
        n_samples = len(y_code)
        previous: list[np.ndarray | None] = [None] * len(problems)
        best = None
        grid_scores = []
        cross_fit_seconds = 0.0
        grid = self._grid_points()
        for lambda_, tau in grid:
            solutions: list[WeightSolution] = run_tasks(
                (
                    partial(self._solve_problem, problem, lambda_, tau, w0, options, where)
                    for problem, w0, where in zip(problems, previous, places, strict=True)
                ),
                self.n_jobs,
            )
            previous = [solution.w for solution in solutions]
            forests = [
                forest.with_weights([s.w for s in solutions[m * n_folds : (m + 1) * n_folds]])
                for m, forest in enumerate(fit.forests)
            ]
            cross_fitted: list[WeightSolution] = []
            if self.weight_fitting == "cross_fit":
                forests, seconds, cross_fitted = self._cross_fitted(
                    forests, fit, lambda_, tau, options, places
                )
                cross_fit_seconds += seconds
            self._warn_fallbacks(solutions, level_index, cross_fitted)
            if len(grid) == 1:  # nothing to choose: the cascade scores the level itself
                best = (None, lambda_, tau, forests, solutions)
                break
            oof = [forest.out_of_fold_vectors(fit.folds, n_samples) for forest in forests]
            total = np.sum(oof, axis=0)
            accuracy = level_accuracy(oof, y_code)
            true_class_probability = float(np.mean(total[np.arange(n_samples), y_code])) / len(oof)
            key = (accuracy, true_class_probability)
            grid_scores.append({"lambda_": lambda_, "tau": tau, "accuracy": accuracy})
            if best is None or key > best[0]:
                best = (key, lambda_, tau, forests, solutions)
        _, lambda_, tau, forests, solutions = best
        diagnostics = [
            [s.diagnostics() for s in solutions[m * n_folds : (m + 1) * n_folds]] for m in range(len(forests))
        ]
        # The cross-fitted solves' time (their diagnostics are not kept: one per part and grid point).
        info = {
            "lambda_": lambda_,
            "tau": tau,
            "diagnostics": diagnostics,
            "cross_fit_solver_seconds": cross_fit_seconds,
        }
        if self.tune:
            info["grid"] = grid_scores
        return forests, info

    def _warn_fallbacks(
        self, solutions: list[WeightSolution], level_index: int, cross_fitted: Sequence[WeightSolution] = ()
    ) -> None:
        """One warning per level and grid point, not one per weight problem, saying why: the first
        failure's reason. The cross-fitted parts' solves fall back too, and are counted apart."""
        failed = [s.fallback_reason for s in solutions if s.fallback_reason is not None]
        failed_parts = [s.fallback_reason for s in cross_fitted if s.fallback_reason is not None]
        if failed or failed_parts:
            parts = (
                f" (and on {len(failed_parts)} of {len(cross_fitted)} cross-fitted parts)"
                if failed_parts
                else ""
            )
            warnings.warn(
                f"solver {self.solver!r} failed on {len(failed)} of {len(solutions)} weight problems "
                f"at level {level_index + 1}{parts}; solved them with "
                f"solver_fallback={self.solver_fallback!r}. First failure: {(failed + failed_parts)[0]}",
                SolverFallbackWarning,
                stacklevel=3,
            )

    def _fit(self, *args, **kwargs) -> DisDFClassifier:
        super()._fit(*args, **kwargs)
        self.solver_diagnostics_ = [level.info["diagnostics"] for level in self.levels_]
        self.tuned_params_ = [
            {k: v for k, v in level.info.items() if k not in ("diagnostics", "cross_fit_solver_seconds")}
            for level in self.levels_
        ]
        return self
