"""Bad input to the estimators: each case raises an error that names the problem."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from disdf import CascadeForestClassifier, DisDFClassifier

rng = np.random.default_rng(0)
X = rng.normal(size=(30, 4))
y = np.arange(30) % 2


def with_value(value, row=3, col=1):
    bad = X.astype(object if isinstance(value, str) else X.dtype)
    bad[row, col] = value
    return bad


FIT_CASES = [
    ("NaN in X", with_value(np.nan), y, ValueError, "NaN"),
    ("inf in X", with_value(np.inf), y, ValueError, "infinity"),
    ("string in X", with_value("a"), y, ValueError, "could not convert string"),
    ("complex X", X + 1j, y, ValueError, "[Cc]omplex"),
    ("empty X", np.empty((0, 4)), np.empty(0), ValueError, "0 sample"),
    ("one class", X, np.zeros(30), ValueError, "only one class"),
    ("length mismatch", X, y[:-1], ValueError, "inconsistent numbers of samples"),
    ("continuous y", X, rng.normal(size=30), ValueError, "Unknown label type"),
    ("fewer examples than folds", X[:2], y[:2], ValueError, "n_samples=2 is fewer than n_folds=3"),
    ("sparse X", sp.csr_matrix(X), y, TypeError, "[Ss]parse"),
    ("1-D X", X[:, 0], y, ValueError, "Expected 2D array"),
]


@pytest.mark.parametrize(("name", "X_", "y_", "error", "message"), FIT_CASES, ids=[c[0] for c in FIT_CASES])
@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_bad_training_data(estimator, name, X_, y_, error, message):
    with pytest.raises(error, match=message):
        estimator(n_trees=3).fit(X_, y_)


PARAM_CASES = [
    ({"n_trees": 0}, "n_trees"),
    ({"n_trees": 2.5}, "n_trees"),
    ({"n_folds": 1}, "n_folds"),
    ({"patience": 0}, "patience"),
    ({"max_levels": 0}, "max_levels"),
    ({"tol": -1.0}, "tol"),
    ({"augmentation": "stacked"}, "augmentation"),
    (
        {"forests": ["completely_random", "gradient_boosting"]},
        "Unknown forest spec 'gradient_boosting' at forests\\[1\\]",
    ),
    ({"forests": []}, "forests"),
    ({"forests": [{"kind": "random_forest", "n_estimators": 5}]}, "n_estimators"),
    ({"lambda_": -0.1}, "lambda_"),
    ({"tau": 0.0}, "tau"),
    ({"tau": -1.0}, "tau"),
    ({"solver": "adam"}, "Unknown solver 'adam'"),
    ({"tune": True, "tune_grid": {"lambda_": [1.0]}}, "tune_grid"),
    ({"tune": True, "tune_grid": {"lambda_": [-1.0], "tau": [1.0]}}, "lambda_"),
    ({"solver_options": {"momentum": 0.9}}, "solver_options"),
]


@pytest.mark.parametrize(("params", "message"), PARAM_CASES, ids=[str(p) for p, _ in PARAM_CASES])
def test_bad_hyperparameters(params, message):
    cascade_only = not any(k in params for k in ("lambda_", "tau", "solver", "tune", "solver_options"))
    estimators = [CascadeForestClassifier, DisDFClassifier] if cascade_only else [DisDFClassifier]
    for estimator in estimators:
        with pytest.raises((ValueError, TypeError), match=message):
            estimator(**({"n_trees": 3} | params)).fit(X, y)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_predict_errors(estimator):
    with pytest.raises(NotFittedError):
        estimator().predict(X)
    model = estimator(n_trees=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 3 features, but .* is expecting 4 features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        model.predict(with_value(np.nan))
