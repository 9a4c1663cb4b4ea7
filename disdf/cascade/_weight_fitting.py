"""Fitting one DisDF level's tree weights: eq. (70)-(72) for every fold model, at each grid point (λ, τ).

A fold model's weights w minimise J(w) of eq. (70)-(72) over the pairs of its held-out examples
(:class:`FoldProblem`). With ``weight_fitting="cross_fit"`` each held-out set is also cut into parts
and each part's out-of-fold vectors get the weights fitted on the other parts
(:class:`CrossFitPart`), so that no example's vector uses weights that saw its label. Every solve
is one task (:class:`Solve`) that builds its problem where it runs, so a problem's arrays live
only while it is solved. :class:`WeightFitting` holds the estimator's solver settings and runs
one grid point of a level (:class:`PointWeights`). With example weights each pair of held-out
examples weighs the product of their weights (:mod:`disdf.weights._problem`), and the grid points
are ranked by weighted scores.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, cast

import numpy as np
from sklearn.model_selection import KFold

from disdf._utils.threads import run_tasks
from disdf.cascade._forest_fit import ForestFit, LevelFit
from disdf.cascade._level_score import level_accuracy
from disdf.forests._tree_leaves import TreeLeaves
from disdf.weights import (
    OneHotVectors,
    PairStatistics,
    SampledWeightProblem,
    WeightProblem,
    WeightSolution,
    WeightSolverError,
    different_class_pair_count,
    drawn_pair_statistics,
    reads_pair_statistics,
    solve_weights,
)


@dataclass(frozen=True)
class GridPoint:
    """λ of eq. (70) and τ of eq. (72): one point of the grid a level tries."""

    lambda_: float
    tau: float


class ProblemSource(Protocol):
    """Whatever builds one weight problem for a grid point, and names where it is for errors."""

    @property
    def where(self) -> str: ...  # read only: the sources are frozen dataclasses

    def problem(self, point: GridPoint) -> WeightProblem | SampledWeightProblem: ...


@dataclass(frozen=True)
class FoldProblem:
    """One fold model's problem over all its held-out examples: from their pair statistics (π, Q)
    for the exact solvers, or from their probabilities, labels and weights for the pair-sampling
    ones (pairs drawn with the fold model's seed)."""

    where: str
    held: TreeLeaves
    labels: np.ndarray
    seed: int
    stats: PairStatistics | None = None
    weights: np.ndarray | None = None  # the held-out examples' weights; None: unweighted

    def problem(self, point: GridPoint) -> WeightProblem | SampledWeightProblem:
        if self.stats is not None:
            return WeightProblem(self.stats, point.lambda_, point.tau)
        vectors = held_out_vectors(self.held, self.weights)
        return SampledWeightProblem(vectors, self.labels, point.lambda_, point.tau, self.seed, self.weights)


def held_out_vectors(held: TreeLeaves, weights: np.ndarray | None) -> np.ndarray | OneHotVectors:
    """What the pair-sampling solver reads of a held-out set: its classes when every vector is one-hot
    and the examples are unweighted (fully grown trees; the same solution without building the
    (n, T, C) probabilities), else the probabilities."""
    vectors = OneHotVectors.of_rows(held.leaves, held.table) if weights is None else None
    return held.probabilities() if vectors is None else vectors


@dataclass(frozen=True)
class CrossFitPart:
    """One solve of a cross-fitting pass: fold model ``fold`` of forest ``forest`` fitted on the
    held-out examples at ``fitting`` (positions in its held-out set); its weights go to ``part``."""

    forest: int
    fold: int
    part: np.ndarray
    fitting: np.ndarray
    where: str
    held: TreeLeaves  # the fold model's whole held-out set
    fold_labels: np.ndarray  # its labels
    seed: int
    exact: bool
    whole_stats: PairStatistics | None  # the whole set's (π, Q), whose pairs include the part's
    fold_weights: np.ndarray | None = None  # the whole set's example weights; None: unweighted
    max_pairs: int | None = None  # the most pairs a problem reads (drawn beyond); None: every pair

    def problem(self, point: GridPoint) -> WeightProblem | SampledWeightProblem:
        held = self.held[self.fitting]
        labels = self.fold_labels[self.fitting]
        weights = None if self.fold_weights is None else self.fold_weights[self.fitting]
        if not self.exact:
            vectors = held_out_vectors(held, weights)
            return SampledWeightProblem(vectors, labels, point.lambda_, point.tau, self.seed, weights)
        probabilities = held.probabilities()
        # The whole set's rows hold every pair of the part's examples unless they were drawn: then the
        # part draws its own, as the whole set did.
        whole_drawn = (
            self.max_pairs is not None and different_class_pair_count(self.fold_labels) > self.max_pairs
        )
        stats = (
            drawn_pair_statistics(probabilities, labels, self.max_pairs, self.seed, weights)
            if self.whole_stats is None or whole_drawn
            else self.whole_stats.of_examples(
                self.fold_labels, self.fitting, probabilities, self.fold_weights
            )
        )
        return WeightProblem(stats, point.lambda_, point.tau)


@dataclass(frozen=True)
class Solve:
    """One task: build ``source``'s problem at ``point`` and solve it, warm-started at ``w0``."""

    fitting: WeightFitting
    source: ProblemSource
    point: GridPoint
    w0: np.ndarray | None

    def __call__(self) -> WeightSolution:
        return self.fitting.solve(self.source.problem(self.point), self.w0, self.source.where)


@dataclass
class PointWeights:
    """A level's weights at one grid point: every fold model's solution on its whole held-out set
    (forest-major), the forests carrying them, and the cross-fitted parts' solutions."""

    point: GridPoint
    forests: list[ForestFit]
    solutions: list[WeightSolution]
    cross_fitted: list[WeightSolution]

    @property
    def cross_fit_seconds(self) -> float:
        return float(sum(solution.seconds for solution in self.cross_fitted))

    def score(self, fit: LevelFit) -> tuple[float, float]:
        """The level's out-of-fold accuracy with these weights, then (to break ties) the mean
        out-of-fold probability of the true class, both weighted by the examples' weights if the fit
        has them: how ``tune`` ranks grid points."""
        n_samples = len(fit.y_code)
        oof = [forest.out_of_fold_vectors(fit.folds, n_samples) for forest in self.forests]
        total = np.sum(oof, axis=0)
        accuracy = level_accuracy(oof, fit.y_code, fit.sample_weight)
        true_class = total[np.arange(n_samples), fit.y_code]
        mean = (
            np.mean(true_class)
            if fit.sample_weight is None
            else np.average(true_class, weights=fit.sample_weight)
        )
        return accuracy, float(mean) / len(oof)

    def diagnostics(self) -> list[list[dict]]:
        """[forest][fold] diagnostics of the whole-set solves (the cross-fitted parts' are not kept)."""
        n_folds = len(self.solutions) // len(self.forests)
        return [
            [s.diagnostics() for s in self.solutions[m * n_folds : (m + 1) * n_folds]]
            for m in range(len(self.forests))
        ]


@dataclass(frozen=True)
class WeightFitting:
    """How an estimator solves its weight problems: the solver, its options and fallback, and
    whether (into how many parts) the out-of-fold weights are cross-fitted."""

    solver: str
    options: dict
    fallback: str | None
    cross_fit_parts: int | None  # None: the whole-set weights for every held-out example
    n_jobs: int | None
    max_pairs: int | None = None  # the most different-class pairs a fold model's problem reads

    @property
    def exact(self) -> bool:
        """Whether the solver reads every pair's statistics (else it draws pairs)."""
        return reads_pair_statistics(self.solver)

    def solve(self, problem, w0: np.ndarray | None, where: str) -> WeightSolution:
        """Solve one weight problem; on failure raise an error naming ``where``, or use the fallback.

        A failure is any :class:`WeightSolverError` of :func:`solve_weights`: a solver's own
        (a non-optimal cvxpy status), a floating-point error during the solve
        (``"numerical_error"``) or a non-finite result (``"non_finite"``).
        """
        try:
            return solve_weights(problem, self.solver, w0=w0, **self.options)
        except WeightSolverError as error:
            reason = f"{where}: solver {error.solver} ended with status {error.status!r} ({error})"
            if self.fallback is None:
                raise WeightSolverError(
                    f"Weight solve failed at {reason}. Set solver_fallback='frank_wolfe_away' to fall back.",
                    solver=error.solver,
                    status=error.status,
                ) from error
            return replace(self._fall_back(problem, w0, reason), fallback_reason=reason)

    def _fall_back(self, problem, w0: np.ndarray | None, reason: str) -> WeightSolution:
        """The fallback's solution; if it fails too, an error naming both failures and where."""
        assert self.fallback is not None  # solve falls back only when there is a fallback
        try:
            return solve_weights(problem, self.fallback, w0=w0)
        except WeightSolverError as error:
            raise WeightSolverError(
                f"Weight solve failed at {reason}; solver_fallback={self.fallback!r} failed too: "
                f"solver {error.solver} ended with status {error.status!r} ({error})",
                solver=error.solver,
                status=error.status,
            ) from error

    def fold_problems(self, fit: LevelFit, level_index: int) -> list[FoldProblem]:
        """Every fold model's problem (forest-major); the exact solvers' (π, Q) computed here, once."""
        if self.exact:
            fit.compute_pair_statistics(self.n_jobs, self.max_pairs)
        n_folds = len(fit.folds)
        return [
            FoldProblem(
                where=f"level {level_index + 1}, forest {m + 1} ({forest.kind}), fold {k + 1} of {n_folds}",
                held=held,
                labels=fit.y_code[test],
                seed=seed,
                stats=forest.pair_statistics[k] if self.exact and forest.pair_statistics else None,
                weights=fit.weights_of(test),
            )
            for m, forest in enumerate(fit.forests)
            for k, (held, (_, test), seed) in enumerate(
                zip(forest.held_out, fit.folds, forest.seeds, strict=True)
            )
        ]

    def at_point(
        self, fit: LevelFit, problems: list[FoldProblem], point: GridPoint, warm: list[np.ndarray | None]
    ) -> PointWeights:
        """The level's weights at ``point``, each solve warm-started at ``warm`` (the previous point's)."""
        solutions: list[WeightSolution] = run_tasks(
            (Solve(self, source, point, w0) for source, w0 in zip(problems, warm, strict=True)), self.n_jobs
        )
        n_folds = len(fit.folds)
        forests = [
            forest.with_weights([s.w for s in solutions[m * n_folds : (m + 1) * n_folds]])
            for m, forest in enumerate(fit.forests)
        ]
        weights = PointWeights(point, forests, solutions, cross_fitted=[])
        if self.cross_fit_parts is not None:
            self._cross_fit(weights, fit, problems)
        return weights

    def _cross_fit(self, weights: PointWeights, fit: LevelFit, problems: list[FoldProblem]) -> None:
        """Give each held-out part the weights fitted on its fold's other parts (warm-started at the
        whole set's); the whole-set weights stay for new examples."""
        parts = self._cross_fit_parts(weights.forests, fit, problems)
        solutions: list[WeightSolution] = run_tasks(
            (
                # cast: at_point gave every forest its whole-set weights (with_weights)
                Solve(
                    self,
                    part,
                    weights.point,
                    cast("list[np.ndarray]", weights.forests[part.forest].weights)[part.fold],
                )
                for part in parts
            ),
            self.n_jobs,
        )
        by_fold: list[list[list]] = [[[] for _ in fit.folds] for _ in weights.forests]
        for part, solution in zip(parts, solutions, strict=True):
            by_fold[part.forest][part.fold].append((part.part, solution.w))
        weights.forests = [
            forest.with_out_of_fold_weights(by_fold[m]) for m, forest in enumerate(weights.forests)
        ]
        weights.cross_fitted = solutions

    def _cross_fit_parts(
        self, forests: list[ForestFit], fit: LevelFit, problems: list[FoldProblem]
    ) -> list[CrossFitPart]:
        """Every fold model's held-out set cut into parts (shuffled, seeded by the fold model's seed)."""
        assert self.cross_fit_parts is not None
        n_folds = len(fit.folds)
        parts = []
        for m, forest in enumerate(forests):
            for k, (_, test) in enumerate(fit.folds):
                splitter = KFold(
                    n_splits=min(self.cross_fit_parts, len(test)), shuffle=True, random_state=forest.seeds[k]
                )
                stats = forest.pair_statistics[k] if forest.pair_statistics is not None else None
                for fitting, part in splitter.split(test):
                    parts.append(
                        CrossFitPart(
                            forest=m,
                            fold=k,
                            part=part,
                            fitting=fitting,
                            where=f"{problems[m * n_folds + k].where}, cross-fitted part",
                            held=forest.held_out[k],
                            fold_labels=fit.y_code[test],
                            seed=forest.seeds[k],
                            exact=self.exact,
                            whole_stats=stats,
                            fold_weights=fit.weights_of(test),
                            max_pairs=self.max_pairs,
                        )
                    )
        return parts
