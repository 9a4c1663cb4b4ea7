"""Every estimator parameter is checked by its estimator's table (disdf._utils.parameters), before any work,
with scikit-learn's InvalidParameterError; the weight solvers are one registry of entries."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf._utils.parameters import Grid, MaxFeatures, RandomSeed
from disdf.forests._plain import PlainForestClassifier
from tests.disdf.test_bad_estimator_inputs import PARAM_CASES, X, y

ESTIMATORS = [CascadeForestClassifier, DisDFClassifier, PlainForestClassifier]


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_the_table_holds_every_parameter_and_reads_only_those_before(estimator):
    table = estimator._parameter_table
    assert list(table) and set(table) == set(estimator().get_params())
    for position, (name, constraint) in enumerate(table.items()):
        assert set(constraint.reads) <= set(list(table)[:position]), name


def test_disdf_checks_its_parameters_by_the_table_alone():
    """No hand-written checks: the cascade's validation (the table, then the parsed forests) is DisDF's."""
    assert "_validate_hyperparameters" not in vars(DisDFClassifier)


@pytest.mark.parametrize(("params", "message"), PARAM_CASES, ids=[str(p) for p, _ in PARAM_CASES])
def test_every_parameter_error_is_scikit_learns(params, message):
    with pytest.raises(InvalidParameterError, match=message):
        DisDFClassifier(**({"n_trees": 3, "engine": "sklearn"} | params)).fit(X, y)


@pytest.mark.parametrize(
    ("estimator", "params", "message"),
    [
        (
            CascadeForestClassifier,
            {"random_state": -1},
            r"random_state must be None, an int in \[0, 4294967295\]",
        ),
        (DisDFClassifier, {"random_state": True}, r"random_state must be None, .*; got True \(bool\)"),
        (PlainForestClassifier, {"random_state": 2**32}, r"PlainForestClassifier: random_state must be None"),
        (
            PlainForestClassifier,
            {"max_features": 0},
            r"max_features must be None, 'sqrt', 'log2', an int >= 1",
        ),
        (PlainForestClassifier, {"max_features": 1.5}, r"or a float in \(0, 1\]; got 1.5 \(float\)"),
        (
            DisDFClassifier,
            {"tune": True, "tune_grid": {"lambda_": 1.0, "tau": [1.0]}},
            r"tune_grid\['lambda_'\] must be a list of values; got 1.0 \(float\)",
        ),
        (
            DisDFClassifier,
            {"tune": True, "tune_grid": {"lambda_": [1.0], "tau": []}},
            r"tune_grid lists must be non-empty",
        ),
        (DisDFClassifier, {"solver_options": [("tol", 1.0)]}, r"solver_options must be a dict or None"),
        (DisDFClassifier, {"solver_fallback": ["qp"]}, r"solver_fallback must be None or a solver other"),
        (
            DisDFClassifier,
            {"solver": "stochastic_frank_wolfe", "solver_fallback": "qp"},
            r"solver_fallback must be None with solver='stochastic_frank_wolfe'",
        ),
    ],
)
def test_parameters_once_left_to_fit_are_refused_by_name_before_any_work(estimator, params, message):
    with pytest.raises(InvalidParameterError, match=message):
        estimator(**({"n_trees": 3} | params)).fit(X, y)


def test_the_new_constraint_kinds_accept_what_they_should():
    for seed in (None, 0, np.int64(7), 2**32 - 1, np.random.RandomState(0)):
        RandomSeed().check("owner", "random_state", seed)
    for value in (None, "sqrt", "log2", 1, np.int32(3), 0.5, 1.0):
        MaxFeatures().check("owner", "max_features", value)
    grid = Grid({"a": RandomSeed()}, when="search")
    grid.check_in("owner", "grid", {"search": False, "grid": "not read"})
    grid.check_in("owner", "grid", {"search": True, "grid": {"a": np.array([1, 2])}})
    assert grid.reads == ("search",)
    # A grid that is not searched is not read: tune=False with a broken grid fits (as it always did).
    DisDFClassifier(n_trees=3, max_levels=1, tune_grid={"lambda_": []}, random_state=0).fit(X, y)


def test_each_solver_is_one_registry_entry_and_replacing_its_function_replaces_the_solver(monkeypatch):
    from dataclasses import replace

    from disdf import weights
    from disdf.weights import SOLVER_REGISTRY

    for name, entry in SOLVER_REGISTRY.items():
        assert entry.function is getattr(weights, name)
    with pytest.raises(TypeError):
        SOLVER_REGISTRY["qp"].options["tol"] = None  # an entry's options table is read-only
    # Replacing a solver's function (how tests wrap a solver) replaces its entry, which solves.
    entry = SOLVER_REGISTRY["frank_wolfe_away"]
    monkeypatch.setitem(SOLVER_REGISTRY, "frank_wolfe_away", replace(entry, function=weights.uniform))
    problem = weights.WeightProblem(
        weights.PairStatistics.from_tree_probabilities(
            np.eye(2)[[[0, 1], [1, 1], [0, 0]]], np.array([0, 1, 0])
        ),
        1.0,
        1.0,
    )
    assert weights.solve_weights(problem, "frank_wolfe_away").status == "uniform"
