"""A scanner in front of a cascade: gcForest complete (multi-grained scanning, then the cascade)."""

from __future__ import annotations

import numpy as np
from sklearn.pipeline import Pipeline

from disdf.cascade._cascade import CascadeForestClassifier
from disdf.scanning._scanner import MultiGrainedScanner


def scanning_pipeline(
    scanner: MultiGrainedScanner,
    cascade: CascadeForestClassifier,
    *,
    n_trees: int | None = None,
    random_state: int | np.random.RandomState | None = None,
    n_jobs: int | None = None,
) -> Pipeline:
    """``Pipeline([("scan", scanner), ("cascade", cascade)])``, with the cascade's T and both steps'
    seed and threads set where given (what an experiment sets per unit).

    The pipeline's ``fit`` calls the scanner's ``fit_transform``, so the cascade is grown on the
    training examples' out-of-fold scanning vectors, and new examples go through the scanner's
    ``transform``. Both steps take the same ``random_state``; they draw from it differently (the
    scanner's forests are not the cascade's).

    Parameters
    ----------
    scanner : disdf.scanning.MultiGrainedScanner
    cascade : CascadeForestClassifier or DisDFClassifier
    n_trees : int, default=None
        The cascade's ``n_trees`` (the paper's T); None leaves it. The scanner keeps its own.
    random_state, n_jobs : default=None
        Set on both steps when given.

    Returns
    -------
    sklearn.pipeline.Pipeline
    """
    shared = {"random_state": random_state, "n_jobs": n_jobs}
    shared = {name: value for name, value in shared.items() if value is not None}
    scanner.set_params(**shared)
    cascade.set_params(**shared, **({} if n_trees is None else {"n_trees": n_trees}))
    return Pipeline([("scan", scanner), ("cascade", cascade)])
