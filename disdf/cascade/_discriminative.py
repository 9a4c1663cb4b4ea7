"""The Discriminative Deep Forest (DisDF) of Utkin & Ryabinin."""

from __future__ import annotations

import inspect
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, cast

import numpy as np
from threadpoolctl import threadpool_limits

from disdf._utils.parameters import Boolean, Constraint, DictParameter, Grid, Integer, OneOf
from disdf._utils.sample_weights import check_pair_weight_scale
from disdf.cascade._cascade import CascadeForestClassifier
from disdf.cascade._cascade_level import LevelWeightFit
from disdf.cascade._df21_names import constructor_signature
from disdf.cascade._fit_memory import different_class_pairs_per_fold, level_kinds
from disdf.cascade._forest_fit import LevelFit
from disdf.cascade._weight_fitting import GridPoint, PointWeights, WeightFitting
from disdf.weights import (
    LAMBDA,
    TAU,
    MaxPairs,
    SolverFallback,
    SolverName,
    SolverOptions,
    pair_cap,
    reads_pair_statistics,
)
from disdf.weights._qp import QP_WORKSPACE_PER_Q_BYTE

#: How a fold model's weights and its held-out examples' class vectors relate (see DisDFClassifier).
WEIGHT_FITTINGS = ("same_examples", "cross_fit")


class SolverFallbackWarning(UserWarning):
    """The configured weight solver failed on some problems and ``solver_fallback`` solved them."""


#: Grid searched per level when ``tune=True``: lambda spans "the hinge decides"
#: (small) to "nearly uniform, like gcForest" (large); tau spans the range
#: (0, 2] of the Manhattan distance <Q_ij, w> between two class vectors.
DEFAULT_TUNE_GRID: dict[str, tuple[float, ...]] = {
    "lambda_": (0.1, 1.0, 10.0, 100.0, 1000.0),
    "tau": (0.5, 1.0, 1.5),
}

#: The cascade's parameters DisDF lacks, and why.
ABSENT_CASCADE_PARAMETERS: dict[str, str] = {
    "out_of_bag": "DisDF fits each fold model's tree weights on that model's held-out examples, "
    "eq. (70)-(72), and bagging leaves no such set (CascadeForestClassifier(out_of_bag=True) "
    "grows DF21's out-of-bag levels)"
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
        How w is found (:data:`disdf.weights.SOLVER_REGISTRY`).
        ``"frank_wolfe_away"``: away-step Frank-Wolfe with exact line search,
        to a duality gap of 1e-6 J. ``"frank_wolfe"``: the paper's algorithm
        as printed. ``"qp"``: the exact QP in cvxpy.
        ``"uniform"`` (w = 1/T) makes DisDF identical to gcForest.
        ``"stochastic_frank_wolfe"`` draws different-class pairs instead of
        storing Q for all n^2/2 of them
        (:mod:`disdf.weights._stochastic_frank_wolfe`): memory O(batch_size * T)
        beyond the held-out probabilities, for training sets of thousands of
        examples and more; its optimum is approximate. Its
        pair draws are seeded from the fold model's seed.
    max_pairs : "auto", int or None, default="auto"
        The most different-class pairs (rows Q_ij of eq. (72)) one fold model's problem reads
        with an exact solver. A held-out set with more pairs P is represented by ``max_pairs``
        of them drawn uniformly (seeded by the fold model's seed), each weighted P / max_pairs:
        an unbiased estimate of J's hinge sum, with pi exact, solved exactly
        (:mod:`disdf.weights._drawn_pairs`). ``"auto"``: 5,000 pairs (0.045 GiB of rows for a
        level of 4 forests, 3 folds and T = 100; reached at about 420 training examples of 2
        balanced classes, 370 of 3 or 320 of 10, above every cell of the paper's protocol;
        equivalent in accuracy to every pair within ±0.5 points on MNIST slices of 1,000 and
        1,500 images, a TOST: ``make pair-draws``). None: every pair, the paper's problem,
        whose memory grows as n^2 (142 GiB at 20,000 training examples and T = 100; the memory
        check refuses what does not fit).
        Not read by ``"stochastic_frank_wolfe"``, which draws its own pairs, or ``"uniform"``.
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
        None means :data:`~disdf.cascade.DEFAULT_TUNE_GRID`.
        ``set_params(tune_grid__tau=[...])`` sets one entry of a copy (None: of
        the default grid).
    solver_fallback : str or None, default=None
        What to do when ``solver`` fails (e.g. qp ends in status
        ``user_limit`` or ``solver_error``). None: raise a
        :class:`~disdf.WeightSolverError` naming the level, forest,
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
    levels_ : list of :class:`~disdf.cascade.CascadeLevel`
        The kept levels, as gcForest's; each level's ``weight_fit``
        (:class:`~disdf.cascade.LevelWeightFit`) says how its weights were chosen.
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

    #: The cascade's parameters DisDF lacks, and why (refused by name; its table and docstring omit them).
    _absent_parameters: ClassVar[dict[str, str]] = ABSENT_CASCADE_PARAMETERS

    #: The cascade's parameters, then DisDF's: the solver before the parameters that read it (its
    #: options, its fallback), tune before the grid it decides to read.
    _parameter_table: ClassVar[dict[str, Constraint]] = {
        **{
            name: rule
            for name, rule in CascadeForestClassifier._parameter_table.items()
            if name not in ABSENT_CASCADE_PARAMETERS
        },
        "solver": SolverName(),
        "max_pairs": MaxPairs(),
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
        group_duplicates: bool = True,
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
        predictor: Any = None,
        class_weight: str | Mapping[Any, float] | None = None,
        n_bins: int = 255,
        bin_subsample: int | None = None,
        max_tree_samples: int | None = None,
        level_estimators: Sequence[tuple[str, Any]] | None = None,
        lambda_: float = 1.0,
        tau: float = 1.0,
        solver: str = "frank_wolfe_away",
        max_pairs: int | str | None = "auto",
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
            group_duplicates=group_duplicates,
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
            predictor=predictor,
            class_weight=class_weight,
            n_bins=n_bins,
            bin_subsample=bin_subsample,
            max_tree_samples=max_tree_samples,
            level_estimators=level_estimators,
        )
        self.lambda_ = lambda_
        self.tau = tau
        self.solver = solver
        self.max_pairs = max_pairs
        self.solver_options = solver_options
        self.tune = tune
        self.tune_grid = tune_grid
        self.solver_fallback = solver_fallback
        self.weight_fitting = weight_fitting
        self.cross_fit_parts = cross_fit_parts

    __signature__ = constructor_signature(__init__)

    @property
    def _out_of_bag(self) -> bool:
        return False

    def fit(self, X, y, sample_weight=None) -> DisDFClassifier:
        """Grow the cascade level by level, each forest's tree weights from eq. (70)-(72), until the
        out-of-fold accuracy stops improving.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the examples (>= 0, times ``class_weight``'s), as for
            :meth:`CascadeForestClassifier.fit`; in eq. (70)-(72) each pair (i, j) of held-out
            examples weighs s_i s_j, in pi_t and in its hinge (the objective of the examples
            repeated s_i times, for whole weights; :mod:`disdf.weights`).

        Returns
        -------
        self
        """
        return super().fit(X, y, sample_weight)

    def _prepare_fit(self, X, y, sample_weight=None):
        """The cascade's checks, then cross-fitting's: each fold model's held-out set is cut into
        parts, so it needs two examples at least (before any tree grows)."""
        prepared = super()._prepare_fit(X, y, sample_weight)
        smallest = len(prepared.y_code) // self.n_folds  # stratified folds hold at least this many
        if self.weight_fitting == "cross_fit" and smallest < 2:
            raise ValueError(
                f"{type(self).__name__}: weight_fitting='cross_fit' needs at least 2 held-out examples per "
                f"fold; n_samples={len(prepared.y_code)} with n_folds={self.n_folds} leaves {smallest}. Give "
                f"at least {2 * self.n_folds} examples, fewer folds, or weight_fitting='same_examples'"
            )
        return prepared

    def _check_weight_scale(self, weights: np.ndarray | None) -> None:
        """DisDF's pairs weigh s_i s_j against lambda_ (not scale-invariant): extreme weights are
        refused before any work (:func:`disdf._utils.sample_weights.check_pair_weight_scale`)."""
        check_pair_weight_scale(type(self).__name__, weights)

    def _pair_rows(self, class_counts: np.ndarray) -> int:
        """Rows Q_ij of eq. (72) an exact solver holds at once: every fold model's held-out pairs of a
        level (at most ``max_pairs`` each), since a level's (π, Q) are computed once for all its
        forests and folds and kept across the grid
        (:meth:`disdf.cascade._forest_fit.LevelFit.compute_pair_statistics`); none when the solver
        draws pairs or weighs uniformly."""
        if self.solver == "uniform" or not reads_pair_statistics(self.solver):
            return 0
        n_forests = len(level_kinds(self))  # a member's pairs counted as a forest's (conservative)
        per_fold = different_class_pairs_per_fold(class_counts, self.n_folds)
        cap = pair_cap(self.max_pairs)
        return n_forests * self.n_folds * (per_fold if cap is None else min(per_fold, cap))

    def _solver_workspace(self, class_counts: np.ndarray, n_jobs: int) -> int:
        """The QP's canonical form beside each problem solved at once (``n_jobs`` of them): about
        :data:`~disdf.weights._qp.QP_WORKSPACE_PER_Q_BYTE` times one fold model's rows Q_ij; the
        Frank-Wolfe solvers work in place of their rows."""
        if self.solver != "qp":
            return 0
        n_problems = len(level_kinds(self)) * self.n_folds
        rows = self._pair_rows(class_counts) // n_problems
        return QP_WORKSPACE_PER_Q_BYTE * 8 * self.n_trees * rows * min(n_jobs, n_problems)

    def _memory_remedy(self) -> str:
        return (
            "fewer trees (n_trees), levels (max_levels), pairs (max_pairs) or training examples would "
            "fit, or solver='stochastic_frank_wolfe', which stores no Q_ij"
        )

    def _grid_points(self) -> list[GridPoint]:
        """The (λ, τ) the level tries: every point of the grid with ``tune``, else the one pair
        (checked by the parameter table before any work)."""
        if not self.tune:
            return [GridPoint(float(self.lambda_), float(self.tau))]
        grid = DEFAULT_TUNE_GRID if self.tune_grid is None else self.tune_grid
        return [GridPoint(float(lam), float(tau)) for lam in grid["lambda_"] for tau in grid["tau"]]

    def _weight_fitting(self) -> WeightFitting:
        return WeightFitting(
            solver=self.solver,
            options=dict(self.solver_options or {}),
            fallback=self.solver_fallback,
            cross_fit_parts=self.cross_fit_parts if self.weight_fitting == "cross_fit" else None,
            n_jobs=self.n_jobs,
            max_pairs=pair_cap(self.max_pairs),
        )

    def _level_weights(self, fit: LevelFit, y_code: np.ndarray, level_index: int):
        """Solve eq. (70)-(72) for every fold model of every forest at each grid point (warm-started
        at the previous point's weights); keep the point of the best out-of-fold score.

        BLAS runs one thread per solve: the solves are small matrix-vector products run ``n_jobs`` at
        a time, beside which BLAS's own threads only spin (about twice the CPU seconds on 2 cores),
        and the numbers would depend on the machine's BLAS threads (a sum's order)."""
        with threadpool_limits(limits=1, user_api="blas"):
            return self._solve_level_weights(fit, level_index)

    def _solve_level_weights(self, fit: LevelFit, level_index: int):
        fitting = self._weight_fitting()
        problems = fitting.fold_problems(fit, level_index)
        grid = self._grid_points()
        warm: list[np.ndarray | None] = [None] * len(problems)
        best: PointWeights | None = None
        best_score: tuple[float, float] | None = None
        grid_scores = []
        cross_fit_seconds = 0.0
        for point in grid:
            weights = fitting.at_point(fit, problems, point, warm)
            warm = [solution.w for solution in weights.solutions]
            cross_fit_seconds += weights.cross_fit_seconds
            self._warn_fallbacks(weights, level_index)
            if len(grid) == 1:  # nothing to choose: the cascade scores the level itself
                best = weights
                break
            score = weights.score(fit)
            grid_scores.append({"lambda_": point.lambda_, "tau": point.tau, "accuracy": score[0]})
            if best_score is None or score > best_score:
                best, best_score = weights, score
        assert best is not None  # the grid has at least one point (the parameter table)
        # The cross-fitted solves' time (their diagnostics are not kept: one per part and grid point).
        weight_fit = LevelWeightFit(
            lambda_=best.point.lambda_,
            tau=best.point.tau,
            diagnostics=best.diagnostics(),
            cross_fit_solver_seconds=cross_fit_seconds,
            grid=grid_scores if self.tune else None,
        )
        return best.forests, weight_fit

    def _warn_fallbacks(self, weights: PointWeights, level_index: int) -> None:
        """One warning per level and grid point, not one per weight problem, saying why: the first
        failure's reason. The cross-fitted parts' solves fall back too, and are counted apart."""
        failed = [s.fallback_reason for s in weights.solutions if s.fallback_reason is not None]
        failed_parts = [s.fallback_reason for s in weights.cross_fitted if s.fallback_reason is not None]
        if failed or failed_parts:
            parts = (
                f" (and on {len(failed_parts)} of {len(weights.cross_fitted)} cross-fitted parts)"
                if failed_parts
                else ""
            )
            warnings.warn(
                f"solver {self.solver!r} failed on {len(failed)} of {len(weights.solutions)} weight problems "
                f"at level {level_index + 1}{parts}; solved them with "
                f"solver_fallback={self.solver_fallback!r}. First failure: {(failed + failed_parts)[0]}",
                SolverFallbackWarning,
                stacklevel=3,
            )

    def _fit(self, *args, **kwargs) -> DisDFClassifier:
        super()._fit(*args, **kwargs)
        # cast: every DisDF level has its LevelWeightFit (this class's _level_weights; None is gcForest's)
        self.solver_diagnostics_ = [
            cast(LevelWeightFit, level.weight_fit).diagnostics for level in self.levels_
        ]
        self.tuned_params_ = [cast(LevelWeightFit, level.weight_fit).tuned_params() for level in self.levels_]
        return self


#: The line of DisDF's docstring that stands for the cascade's parameters, replaced by them below.
CASCADE_PARAMETERS = "Other parameters are those of :class:`CascadeForestClassifier`."


def _with_cascade_parameters(doc: str) -> str:
    """DisDF's docstring with the cascade's parameters written out where it refers to them, so that
    ``help(DisDFClassifier)`` and its API page list every parameter (``n_trees``, ``random_state``...)."""
    cascade = inspect.cleandoc(CascadeForestClassifier.__doc__ or "")
    block = cascade.split("Parameters\n----------\n", 1)[1].split("\n\nAttributes\n", 1)[0]
    entries = re.split(r"\n(?=\S)", block)  # an entry: its "name : type" line and its indented text
    block = "\n".join(e for e in entries if e.split(" : ", 1)[0] not in ABSENT_CASCADE_PARAMETERS)
    own = inspect.cleandoc(doc)
    if CASCADE_PARAMETERS not in own:
        raise RuntimeError("DisDFClassifier's docstring lost the line that the cascade's parameters replace")
    return own.replace(CASCADE_PARAMETERS, block)


DisDFClassifier.__doc__ = _with_cascade_parameters(DisDFClassifier.__doc__ or "")
