"""Fit and score the units of one split: every T and method, sharing level 1."""

from __future__ import annotations

import inspect
import time
import warnings
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np
from hydra.utils import get_object, instantiate
from sklearn.metrics import balanced_accuracy_score, confusion_matrix

from disdf import CascadeForestClassifier, WeightSolverError
from disdf.cascade import fit_sharing_first_level
from experiments.running.protocol import Split, Unit
from experiments.running.records import DIGESTS
from experiments.running.scanned_inputs import Inputs, split_inputs

#: Record fields that measure time: they differ between runs, nothing else may.
TIMING_FIELDS = ("fit_seconds", "predict_seconds", "solver_seconds", "split_fit_seconds")
#: What a rerun of the same unit may change in its record: the timings, and the digests that cover them.
RERUN_VARYING_FIELDS = (*TIMING_FIELDS, DIGESTS)
#: What the protocol sets per unit on a method's estimator, where the estimator takes it.
PER_UNIT = ("n_trees", "random_state", "n_jobs")


def make_estimator(unit: Unit, specs: Mapping[str, Mapping[str, Any]], seed: int):
    """The estimator of ``unit.method`` (its spec from configs/method/, resolved to a plain dict),
    built by ``hydra.utils.instantiate`` with the unit's T and seed, where its target takes them
    (a baseline such as kNN has no trees and no randomness)."""
    # Units run in parallel; the forests inside a unit are single-threaded.
    per_unit = {"n_trees": unit.T, "random_state": seed, "n_jobs": 1}
    accepted = per_unit_parameters(specs[unit.method]["_target_"])
    return instantiate(specs[unit.method], **{k: v for k, v in per_unit.items() if k in accepted})


@cache  # one look at a target's signature per process, not one per unit
def per_unit_parameters(target: str) -> frozenset[str]:
    """Which of n_trees, random_state and n_jobs the target (a class or a factory) takes."""
    parameters = inspect.signature(get_object(target)).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return frozenset(PER_UNIT)
    return frozenset(PER_UNIT) & frozenset(parameters)


def weight_solver_seconds(estimator) -> float:
    """Seconds of every weight solve of a fitted DisDF (summed over threads), cross-fitted ones included."""
    flat = [d for level in estimator.solver_diagnostics_ for forest in level for d in forest]
    cross_fitted = [level.weight_fit.cross_fit_solver_seconds for level in estimator.levels_]
    return float(sum(d["seconds"] for d in flat) + sum(cross_fitted))


def solver_summary(estimator) -> dict[str, Any]:
    """Aggregate diagnostics of every weight solve of a fitted DisDF."""
    if not hasattr(estimator, "solver_diagnostics_"):
        return {}
    flat = [d for level in estimator.solver_diagnostics_ for forest in level for d in forest]
    return {
        "solver_solves": len(flat),
        "solver_seconds": weight_solver_seconds(estimator),
        "solver_mean_iter": float(np.mean([d["n_iter"] for d in flat])),
        "solver_max_relative_gap": float(max(d["relative_gap"] for d in flat)),
        "solver_statuses": sorted({d["status"] for d in flat}),
        "solver_fallbacks": sum(d["fallback_reason"] is not None for d in flat),
        "tuned": [[p["lambda_"], p["tau"]] for p in estimator.tuned_params_],
    }


def run_split(
    units: list[Unit],
    split: Split,
    specs: dict[str, dict],
    seed: int,
    context: dict,
    share: bool = True,
    confusion: bool = False,
) -> list[dict]:
    """The records of the units of one split (same dataset, N, repetition): accuracy, depth, timings.

    With ``share``, level 1 is grown once for all of them (exact, see
    :mod:`disdf.cascade._shared_first_level`); its time is ``shared_fit_seconds`` of every record,
    and ``fit_seconds`` is each unit's own remaining fit time. With ``confusion``
    (``protocol.record_confusion``), each record also keeps its test predictions' confusion counts and
    balanced accuracy (:func:`confusion_fields`).
    """
    try:
        return _run_split(units, split, specs, seed, context, share, confusion)
    except WeightSolverError as error:
        first = units[0]
        raise WeightSolverError(
            f"In the split dataset={first.dataset}, N={first.N}, repetition={first.repetition} (seed {seed}; "
            f"T in {sorted({u.T for u in units})}): {error}",
            solver=error.solver,
            status=error.status,
        ) from error


def confusion_fields(y_true: np.ndarray, y_pred: np.ndarray, y_train: np.ndarray) -> dict[str, Any]:
    """``confusion``: counts with rows the true class and columns the predicted one, over the sorted
    classes of the split (training and test labels), so any metric of the predictions is computed later
    without refitting; ``balanced_accuracy``: the mean recall over the test set's classes (scikit-learn's
    ``balanced_accuracy_score``)."""
    labels = np.unique(np.concatenate([y_train, y_true]))
    return {
        "confusion": confusion_matrix(y_true, y_pred, labels=labels).tolist(),
        "balanced_accuracy": float(balanced_accuracy_score(y_true, y_pred)),
    }


def _run_split(units, split, specs, seed, context, share, confusion) -> list[dict]:
    estimators = [make_estimator(unit, specs, seed) for unit in units]
    with warnings.catch_warnings(record=True) as caught:
        # e.g. a class rarer than the folds: kept in the record, not printed per unit
        warnings.simplefilter("always")
        inputs = split_inputs(estimators, split.X_train, split.y_train, split.X_test)
        fit_seconds = _fit_models(inputs, split.y_train, share)
    records = []
    for unit, given, seconds in zip(units, inputs, fit_seconds, strict=True):
        estimator = given.model  # a scanning pipeline's cascade, on the shared scan of the split
        start = time.perf_counter()
        predictions = estimator.predict(given.X_test)
        predict_seconds = time.perf_counter() - start + given.predict_seconds
        records.append(
            {
                "dataset": unit.dataset,
                "N": unit.N,
                "T": unit.T,
                "method": unit.method,
                "repetition": unit.repetition,
                "seed": seed,
                "n_test": len(split.y_test),
                "accuracy": float(np.mean(predictions == split.y_test)),
                # a baseline without a cascade: no levels, no out-of-fold scores
                "n_levels": int(getattr(estimator, "n_levels_", 0)),
                "level_scores": [float(s) for s in getattr(estimator, "level_scores_", [])],
                "fit_seconds": seconds,
                "predict_seconds": predict_seconds,
                "split_units": len(units),
                "split_fit_seconds": float(sum(fit_seconds)),
                **solver_summary(estimator),
                # e.g. a metric's 1-NN accuracy and pair AUC (disdf.metric._embedding)
                **(
                    estimator.evaluation_scores(given.X_test, split.y_test)
                    if hasattr(estimator, "evaluation_scores")
                    else {}
                ),
                "warnings": sorted({str(w.message) for w in caught}),
                **(confusion_fields(split.y_test, predictions, split.y_train) if confusion else {}),
                **context,
            }
        )
    return records


def _fit_models(inputs: list[Inputs], y_train: np.ndarray, share: bool) -> list[float]:
    """Fit every model on its inputs; its seconds. With ``share``, the cascades fitted on the same
    inputs grow their level 1 once (:mod:`disdf.cascade._shared_first_level`) and split its time; any
    other model (a baseline) is fitted on its own. A scan's share
    (:mod:`experiments.running.scanned_inputs`) is added."""
    fit_seconds = [given.fit_seconds for given in inputs]
    groups: dict[int, list[int]] = {}
    for position, given in enumerate(inputs):
        if share and isinstance(given.model, CascadeForestClassifier):
            groups.setdefault(id(given.X_train), []).append(position)
        else:
            start = time.perf_counter()
            given.model.fit(given.X_train, y_train)
            fit_seconds[position] += time.perf_counter() - start
    for positions in groups.values():
        start = time.perf_counter()
        fit_sharing_first_level([inputs[p].model for p in positions], inputs[positions[0]].X_train, y_train)
        for position in positions:
            fit_seconds[position] += (time.perf_counter() - start) / len(positions)
    return fit_seconds
