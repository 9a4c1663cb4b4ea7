"""Bad input to the estimators: each case raises an error of the right type whose message names
the problem (training data, hyper-parameters, predict, values float32 cannot hold)."""

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
    (
        "2-D y",
        X,
        np.column_stack([y, y]),
        ValueError,
        r"y should be a 1d array, got an array of shape \(30, 2\)",
    ),
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
    ({"max_tree_samples": 0}, r"max_tree_samples must be an int in \[1, inf\] or None; got 0"),
    ({"max_tree_samples": 100, "engine": "sklearn"}, "max_tree_samples is read only by the compiled engines"),
    ({"forests": [{"kind": "random_forest", "n_estimators": 5}]}, "n_estimators"),
    ({"lambda_": -0.1}, "lambda_"),
    ({"tau": 0.0}, "tau"),
    ({"tau": -1.0}, "tau"),
    ({"solver": "adam"}, "Unknown solver 'adam'"),
    ({"tune": True, "tune_grid": {"lambda_": [1.0]}}, "tune_grid"),
    ({"tune": True, "tune_grid": {"lambda_": [-1.0], "tau": [1.0]}}, "lambda_"),
    ({"solver_options": {"momentum": 0.9}}, "solver_options"),
    ({"solver_fallback": "newton"}, "solver_fallback must be None or a solver other than"),
    ({"solver_fallback": "frank_wolfe_away"}, "solver_fallback must be None or a solver other than"),
    # Non-finite floats, bools where ints are meant, wrong types and ranges of solver options: each
    # refused by name before any tree grows (disdf._utils.parameters; both engines for the cascade's).
    ({"tol": float("nan")}, r"tol must be a finite number >= 0; got nan"),
    ({"tol": float("inf")}, r"tol must be a finite number >= 0; got inf"),
    ({"n_trees": True}, r"n_trees must be an int in \[1, inf\]; got True \(bool\)"),
    ({"n_trees": np.True_}, r"n_trees must be an int"),
    ({"max_levels": False}, r"max_levels must be an int"),
    ({"n_jobs": 0}, r"n_jobs must not be 0"),
    ({"n_jobs": 1.5}, r"n_jobs must be an int"),
    ({"verbose": -1}, r"verbose must be an int in \[0, inf\]"),
    ({"engine": "gpu"}, r"engine must be one of \['sklearn', 'fast', 'binned'\]"),
    ({"lambda_": float("nan")}, r"lambda_ must be a finite number in \[0, 1e\+12\]; got nan"),
    ({"tau": float("inf")}, r"tau must be a finite number in \(0, 1000\]; got inf"),
    # Finite but so large that J of eq. (70)-(72) or its gradient would overflow float64.
    ({"tau": 1e300}, r"DisDFClassifier: tau must be a finite number in \(0, 1000\]; got 1e\+300"),
    ({"tau": 1e160}, r"DisDFClassifier: tau must be a finite number in \(0, 1000\]; got 1e\+160"),
    ({"lambda_": 1e300}, r"DisDFClassifier: lambda_ must be a finite number in \[0, 1e\+12\]; got 1e\+300"),
    (
        {"tune": True, "tune_grid": {"lambda_": [1.0], "tau": [1.0, 1e300]}},
        r"tune_grid\['tau'\] entry must be a finite number in \(0, 1000\]; got 1e\+300",
    ),
    (
        {"tune": True, "tune_grid": {"lambda_": [1e300], "tau": [1.0]}},
        r"tune_grid\['lambda_'\] entry must be a finite number in \[0, 1e\+12\]; got 1e\+300",
    ),
    ({"tune": "yes"}, r"tune must be True or False; got 'yes'"),
    ({"tune": True, "tune_grid": {"lambda_": [1.0], "tau": [float("nan")]}}, r"tune_grid\['tau'\] entry"),
    (
        {"solver_options": {"tol": "x"}},
        r"solver 'frank_wolfe_away': tol must be a finite number > 0; got 'x'",
    ),
    ({"solver_options": {"tol": -1.0}}, r"tol must be a finite number > 0; got -1"),
    ({"solver_options": {"tol": float("nan")}}, r"tol must be a finite number > 0; got nan"),
    ({"solver": "frank_wolfe", "solver_options": {"max_iter": -5}}, r"max_iter must be an int in \[1, inf\]"),
    ({"solver": "frank_wolfe", "solver_options": {"gradient": "wrong"}}, r"gradient must be one of"),
    ({"solver": "qp", "solver_options": {"time_limit": 0}}, r"time_limit must be a finite number > 0"),
    (
        {"solver": "stochastic_frank_wolfe", "solver_options": {"batch_size": "big"}},
        r"batch_size must be an int in \[1, inf\]; got 'big' \(str\)",
    ),
    ({"solver": "stochastic_frank_wolfe", "solver_options": {"max_iter": True}}, r"max_iter must be an int"),
]


@pytest.mark.parametrize(("params", "message"), PARAM_CASES, ids=[str(p) for p, _ in PARAM_CASES])
def test_bad_hyperparameters(params, message):
    cascade_only = not any(
        k in params for k in ("lambda_", "tau", "solver", "tune", "solver_options", "solver_fallback")
    )
    estimators = [CascadeForestClassifier, DisDFClassifier] if cascade_only else [DisDFClassifier]
    for estimator in estimators:
        for engine in ("sklearn", "fast") if "engine" not in params else ("sklearn",):
            with pytest.raises((ValueError, TypeError), match=message):
                estimator(**({"n_trees": 3, "engine": engine} | params)).fit(X, y)


def test_lambda_and_tau_bounds_hold_their_ends_and_every_default():
    """The ends of the ranges are accepted, and so is every lambda and tau the default tune grid uses."""
    from disdf.cascade import DEFAULT_TUNE_GRID
    from disdf.weights import LAMBDA, LAMBDA_MAX, TAU, TAU_MAX

    for value in (0.0, LAMBDA_MAX, *DEFAULT_TUNE_GRID["lambda_"]):
        LAMBDA.check("DisDFClassifier", "lambda_", value)
    for value in (1e-9, TAU_MAX, *DEFAULT_TUNE_GRID["tau"]):
        TAU.check("DisDFClassifier", "tau", value)
    above = float(np.nextafter(TAU_MAX, np.inf))
    with pytest.raises(ValueError, match=rf"tau must be a finite number in \(0, 1000\]; got {above!r}"):
        TAU.check("DisDFClassifier", "tau", above)


def test_every_solver_option_table_matches_its_solver():
    """The option tables cannot drift from the solvers: same names as their keyword arguments."""
    import inspect

    from disdf.weights._registry import NOT_OPTIONS, SOLVER_REGISTRY

    for name, entry in SOLVER_REGISTRY.items():
        assert set(entry.options) == set(inspect.signature(entry.function).parameters) - NOT_OPTIONS, name


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_predict_errors(estimator):
    with pytest.raises(NotFittedError):
        estimator().predict(X)
    model = estimator(n_trees=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"X has 3 features, but .* is expecting 4 features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        model.predict(with_value(np.nan))


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_a_class_with_one_example_works_with_a_warning(estimator):
    """Stratification cannot put it in every fold: scikit-learn's splitter says so, the fit goes on."""
    y_rare = y.copy()
    y_rare[0] = 2
    with pytest.warns(UserWarning, match="least populated class in y has only 1 members"):
        model = estimator(n_trees=3, random_state=0).fit(X, y_rare)
    assert model.predict_proba(X).shape == (30, 3)


# ------------------------------------------------------------------ the runner and its data
FLOAT32_CASES = [
    ("beyond float32", 1e39, r"Input X contains infinity or a value too large for dtype\('float32'\)"),
    ("inf", np.inf, r"Input X contains infinity"),
    ("NaN", np.nan, r"Input X contains NaN"),
]


@pytest.mark.parametrize("engine", ["sklearn", "fast"])
@pytest.mark.parametrize(("name", "value", "message"), FLOAT32_CASES, ids=[c[0] for c in FLOAT32_CASES])
def test_both_engines_refuse_what_scikit_learn_refuses_at_fit_and_predict(engine, name, value, message):
    with pytest.raises(ValueError, match=message):
        CascadeForestClassifier(n_trees=3, engine=engine).fit(with_value(value), y)
    model = CascadeForestClassifier(n_trees=3, engine=engine).fit(X, y)
    with pytest.raises(ValueError, match=message):
        model.predict(with_value(value))


@pytest.mark.parametrize("value", [1e39, np.inf, np.nan])
def test_the_fast_forest_itself_refuses_values_float32_cannot_hold(value):
    from disdf.forests._compiled import FastForest
    from disdf.forests._compiled.forest import FastForestParams

    params = FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True)
    forest = FastForest(params, n_trees=3, seed=0, n_classes=2)
    with pytest.raises(ValueError, match="Input X contains"):
        forest.fit(with_value(value), y)
    forest.fit(X, y)
    with pytest.raises(ValueError, match="Input X contains"):
        forest.probabilities(with_value(value))


def _fast_forest(n_trees=3):
    from disdf.forests._compiled import FastForest
    from disdf.forests._compiled.forest import FastForestParams

    params = FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True)
    return FastForest(params, n_trees=n_trees, seed=0, n_classes=2)


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_the_fast_forest_refuses_non_finite_float32_input_that_skips_the_checks(value):
    """C-ordered float32, what the cascade passes, is taken without check_array: only if finite."""
    clean = np.ascontiguousarray(X, dtype=np.float32)
    forest = _fast_forest().fit(clean, y)
    bad = clean.copy()
    bad[4, 1] = value
    message = "NaN" if np.isnan(value) else "infinity"
    with pytest.raises(ValueError, match=f"Input X contains {message}"):
        _fast_forest().fit(bad, y)
    for method in (forest.apply, forest.probabilities):
        with pytest.raises(ValueError, match=f"Input X contains {message}"):
            method(bad)


def test_the_fast_forest_reads_any_layout_as_the_same_numbers():
    """C-ordered float64, Fortran order, a strided view and a list go through check_array; the
    C float32 fast path gives the same per-tree probabilities."""
    forest = _fast_forest(n_trees=5).fit(X, y)
    expected = forest.probabilities(np.ascontiguousarray(X, dtype=np.float32))
    wide = np.repeat(X, 2, axis=1)
    for layout in (X, np.asfortranarray(X), wide[:, ::2], X.tolist()):
        np.testing.assert_array_equal(forest.probabilities(layout), expected)


def test_k_nn_in_a_representation_refuses_more_neighbours_than_training_examples():
    """It used to predict class 0 for everything (scikit-learn's manhattan path counts phantoms)."""
    from disdf import EmbeddingKNeighborsClassifier, InvalidParameterError

    X = np.random.default_rng(0).normal(size=(40, 4))
    y = (X[:, 0] > 0).astype(int)
    model = EmbeddingKNeighborsClassifier(embedding=CascadeForestClassifier(n_trees=3), n_neighbors=100)
    with pytest.raises(InvalidParameterError, match=r"n_neighbors must be an int in \[1, 40\]; got 100"):
        model.fit(X, y)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_labels_of_mixed_types_are_refused_naming_y(estimator):
    X = np.random.default_rng(0).normal(size=(40, 4))
    with pytest.raises(ValueError, match=r"y mixes label types \(number, str\)"):
        estimator(n_trees=3).fit(X, np.array([1, "a"] * 20, dtype=object))


@pytest.mark.parametrize("n_jobs", [-100, 0])
def test_n_jobs_beyond_the_machine_s_cores_is_refused(n_jobs):
    X = np.random.default_rng(0).normal(size=(40, 4))
    with pytest.raises(ValueError, match="n_jobs must"):
        CascadeForestClassifier(n_trees=3, n_jobs=n_jobs).fit(X, (X[:, 0] > 0).astype(int))


def test_disdf_s_cross_fitting_refuses_folds_of_one_held_out_example():
    """It used to be scikit-learn's 'KFold ... n_splits=1' from deep inside the weight fitting."""
    X = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(ValueError, match=r"cross_fit' needs at least 2 held-out examples per fold"):
        DisDFClassifier(n_trees=3).fit(X, [0, 1, 0, 1, 0])
    DisDFClassifier(n_trees=3, weight_fitting="same_examples").fit(X, [0, 1, 0, 1, 0])  # as the message says


@pytest.mark.parametrize("limit", ["inf", "1e999", "-2G", "0"])
def test_a_memory_limit_that_is_no_size_names_the_variable(monkeypatch, limit):
    monkeypatch.setenv("DISDF_MEMORY_LIMIT", limit)
    X = np.random.default_rng(0).normal(size=(40, 4))
    with pytest.raises(ValueError, match=rf"DISDF_MEMORY_LIMIT='{limit}' is not a positive finite size"):
        CascadeForestClassifier(n_trees=3).fit(X, (X[:, 0] > 0).astype(int))


def test_an_atomic_rewrite_that_fails_names_the_file_and_leaves_it_as_it_was(tmp_path, monkeypatch):
    """A full disk used to surface as an OSError naming the temporary file, or nothing."""
    import errno
    import os

    from disdf._utils import atomic_files

    target = tmp_path / "table.md"
    target.write_text("old")

    def full(descriptor):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match=rf"No space left on device: '{target}'"):
        atomic_files.write_text_atomically(target, "new")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["table.md"]


def test_a_keyword_disdf_does_not_take_is_refused_naming_disdf():
    with pytest.raises(TypeError, match=r"^DisDFClassifier\.fit\(\) got an unexpected keyword"):
        DisDFClassifier().fit([[1.0]], [1], check_input=False)
