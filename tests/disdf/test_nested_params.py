"""set_params(name__key=value) for the dict parameters, as GridSearchCV spells them.

scikit-learn reads ``solver_options__tol`` as the parameter ``tol`` of a nested
estimator ``solver_options`` and calls ``set_params`` on the value: an
AttributeError on None, on a dict too. The estimators set the dict's entry instead.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.cascade._discriminative import DEFAULT_TUNE_GRID

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 4))
y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)


def test_solver_options_entries_are_set_one_at_a_time_on_a_copy():
    model = DisDFClassifier()
    assert model.set_params(solver_options__tol=1e-6) is model
    assert model.solver_options == {"tol": 1e-6}
    given = {"tol": 1e-6}
    model = DisDFClassifier(solver_options=given).set_params(solver_options__max_iter=5)
    assert model.solver_options == {"tol": 1e-6, "max_iter": 5}
    assert given == {"tol": 1e-6}  # the caller's dict (and a clone's original) is never changed
    # The whole dict first, then its entries, whatever the order of the arguments.
    model.set_params(solver_options__newton_every=0, solver_options={"tol": 1e-3})
    assert model.solver_options == {"tol": 1e-3, "newton_every": 0}
    with pytest.raises(ValueError, match="Invalid parameter 'solver_option' for estimator"):
        model.set_params(solver_option__tol=1e-6)  # a name that is no parameter: scikit-learn's error


def test_tune_grid_entries_start_from_the_default_grid():
    model = DisDFClassifier().set_params(tune_grid__lambda_=[0.5, 5.0])
    assert model.tune_grid == {"lambda_": [0.5, 5.0], "tau": DEFAULT_TUNE_GRID["tau"]}
    model.set_params(tune_grid__tau=[1.0])
    assert model.tune_grid == {"lambda_": [0.5, 5.0], "tau": [1.0]}


@pytest.mark.parametrize(
    ("estimator", "params", "message"),
    [
        (
            DisDFClassifier,
            {"tune_grid__gamma": [1.0]},
            r"cannot set 'tune_grid__gamma': tune_grid has the keys",
        ),
        (
            DisDFClassifier,
            {"forests__kind": "random_forest"},
            r"cannot set 'forests__kind': forests is not an",
        ),
        (DisDFClassifier, {"tau__value": 1.0}, r"cannot set 'tau__value': tau is not an estimator"),
        (CascadeForestClassifier, {"forests__kind": "random_forest"}, r"'forests__kind': forests is not an"),
        (DisDFClassifier, {"solver_options": 3, "solver_options__tol": 1e-6}, r"solver_options is 3 \(int\)"),
    ],
)
def test_other_nested_keys_are_refused_by_name_and_change_nothing(estimator, params, message):
    model = estimator()
    before = model.get_params()
    with pytest.raises(ValueError, match=message):
        model.set_params(n_trees=7, **params)  # a valid parameter beside: not set either
    assert model.get_params() == before


def test_clone_round_trips_after_nested_set_params():
    model = DisDFClassifier(n_trees=3).set_params(solver_options__tol=1e-6, tune_grid__tau=[0.5])
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    assert copy.solver_options is not model.solver_options
    assert clone(copy.set_params(solver_options__max_iter=9)).solver_options == {"tol": 1e-6, "max_iter": 9}
    assert model.solver_options == {"tol": 1e-6}


def test_grid_search_over_a_solver_option_reaches_the_solver():
    base = DisDFClassifier(n_trees=3, max_levels=1, solver="frank_wolfe", random_state=0)
    search = GridSearchCV(base, {"solver_options__max_iter": [1, 7]}, cv=2).fit(X, y)
    assert [p["solver_options__max_iter"] for p in search.cv_results_["params"]] == [1, 7]
    best = search.best_estimator_
    assert best.solver_options == {"max_iter": search.best_params_["solver_options__max_iter"]}
    n_iters = {d["n_iter"] for level in best.solver_diagnostics_ for forest in level for d in forest}
    assert n_iters == {search.best_params_["solver_options__max_iter"]}  # frank_wolfe runs max_iter steps
    assert base.solver_options is None


def test_a_tune_grid_entry_set_by_name_is_the_grid_searched():
    model = DisDFClassifier(n_trees=3, max_levels=1, tune=True, random_state=0)
    model.set_params(tune_grid__lambda_=[1.0, 10.0], tune_grid__tau=[0.5]).fit(X, y)
    assert [(g["lambda_"], g["tau"]) for g in model.tuned_params_[0]["grid"]] == [(1.0, 0.5), (10.0, 0.5)]
