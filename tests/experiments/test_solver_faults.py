"""Weight-solver faults: an error that names level, forest, fold, solver and status, or a recorded fallback.

The cvxpy failures are real where cvxpy can produce them on demand (a time
or iteration limit ends in status ``user_limit``); the others (a solver
exception, infeasible or inaccurate statuses) are simulated.
"""

import pickle
import re
import warnings

import numpy as np
import pytest

from disdf import DisDFClassifier, SolverFallbackWarning, WeightSolverError
from experiments.running.plan import plan_run

rng = np.random.default_rng(0)
X = rng.normal(size=(45, 4))
y = (X[:, 0] + 0.5 * rng.normal(size=45) > 0).astype(int)
FIRST_PROBLEM = r"level 1, forest 1 \(completely_random\), fold 1 of 3: solver qp:CLARABEL ended with status"


@pytest.mark.parametrize(
    "limit", [{"time_limit": 1e-9}, {"max_iter": 1}], ids=["time limit", "iteration limit"]
)
def test_a_solver_limit_is_an_error_naming_where_and_why(limit):
    model = DisDFClassifier(n_trees=8, solver="qp", solver_options=limit, random_state=0)
    with pytest.raises(WeightSolverError, match=FIRST_PROBLEM + " 'user_limit'.*T=8 trees") as caught:
        model.fit(X, y)
    assert (caught.value.solver, caught.value.status) == ("qp:CLARABEL", "user_limit")
    assert "solver_fallback='frank_wolfe_away'" in str(caught.value)


def simulate(monkeypatch, status=None, raises=False):
    import cvxpy as cp

    def solve(self, *args, **kwargs):
        if raises:
            raise cp.error.SolverError("simulated crash inside the solver")
        self._status = status

    monkeypatch.setattr(cp.Problem, "solve", solve)
    monkeypatch.setattr(cp.Problem, "status", property(lambda self: self._status))


@pytest.mark.parametrize("status", ["infeasible", "optimal_inaccurate", "infeasible_inaccurate", "unbounded"])
def test_a_non_optimal_status_is_an_error(monkeypatch, status):
    simulate(monkeypatch, status=status)
    with pytest.raises(WeightSolverError, match=f"{FIRST_PROBLEM} '{status}'"):
        DisDFClassifier(n_trees=5, solver="qp", random_state=0).fit(X, y)


def test_a_solver_exception_is_an_error(monkeypatch):
    simulate(monkeypatch, raises=True)
    with pytest.raises(WeightSolverError, match=f"{FIRST_PROBLEM} 'solver_error'.*simulated crash"):
        DisDFClassifier(n_trees=5, solver="qp", random_state=0).fit(X, y)


def test_the_error_keeps_solver_and_status_across_processes():
    error = pickle.loads(pickle.dumps(WeightSolverError("message", solver="qp:OSQP", status="user_limit")))
    assert (str(error), error.solver, error.status) == ("message", "qp:OSQP", "user_limit")


def test_fallback_only_when_asked_one_warning_per_level_reason_recorded():
    options = {"solver": "qp", "solver_options": {"time_limit": 1e-9}, "n_trees": 8, "random_state": 0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DisDFClassifier(**options, solver_fallback="frank_wolfe_away").fit(X, y)
    fallback_warnings = [w for w in caught if issubclass(w.category, SolverFallbackWarning)]
    assert len(fallback_warnings) == len(model.level_scores_)  # one per level grown, not one per problem
    assert "failed on 12 of 12 weight problems at level 1" in str(fallback_warnings[0].message)
    reasons = [d["fallback_reason"] for level in model.solver_diagnostics_ for f in level for d in f]
    assert all("'user_limit'" in reason for reason in reasons)
    assert {d["solver"] for level in model.solver_diagnostics_ for f in level for d in f} == {
        "frank_wolfe_away"
    }
    # The fallback solves each problem as the fallback solver alone would.
    direct = DisDFClassifier(n_trees=8, solver="frank_wolfe_away", random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))


def test_degenerate_weight_problems_inside_the_estimator_give_no_warnings():
    """One tree per forest; a class of 2 examples, so one of 3 held-out folds has no different-class pair."""
    X_small = rng.normal(size=(9, 3))
    y_small = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        one_tree = DisDFClassifier(n_trees=1, random_state=0).fit(X_small, y_small)
        model = DisDFClassifier(n_trees=6, random_state=1).fit(X_small, y_small)
    assert all(np.all(w == 1.0) for level in one_tree.weights_ for f in level for w in f)
    pairs = [d["objective"] for level in model.solver_diagnostics_ for f in level for d in f]
    assert all(np.isfinite(pairs))
    for level in model.weights_:
        for forest in level:
            for w in forest:
                assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)


@pytest.mark.slow
def test_in_a_sweep_the_error_names_the_split_and_keeps_what_was_recorded(tmp_path, data_dir):
    from experiments.running.composition import compose_config
    from experiments.running.records import RecordStore
    from experiments.running.runner import run_units

    def run(*overrides):
        base = ["experiment=smoke", "datasets=[ecoli]", "protocol.Ts=[10]", "protocol.repetitions=1"]
        settings = [f"runtime.output_dir={tmp_path}", f"data.dir={data_dir}", "runtime.progress=false"]
        return run_units(plan_run(compose_config(*base, *settings, "runtime.n_jobs=1", *overrides)))

    run()
    raw = tmp_path / "raw" / "ecoli.jsonl"
    recorded = raw.read_bytes()
    failing = ["solver=qp", "+solver.options.time_limit=1e-9"]
    with pytest.raises(
        WeightSolverError,
        match=r"In the split dataset=ecoli, N=30, repetition=0 \(seed \d+; T in \[10\]\): "
        + "Weight solve failed at "
        + FIRST_PROBLEM
        + " 'user_limit'",
    ):
        run(*failing)
    assert raw.read_bytes() == recorded
    run(*failing, "solver.fallback=frank_wolfe_away")
    fallen_back = [r for r in RecordStore(tmp_path / "raw").read("ecoli")[2:] if r["method"] == "disdf"]
    assert fallen_back and all(r["solver_fallbacks"] == r["solver_solves"] > 0 for r in fallen_back)
    assert any("solver_fallback='frank_wolfe_away'" in w for r in fallen_back for w in r["warnings"])


def returns_inf_objective(monkeypatch, solver="frank_wolfe_away"):
    """The solver runs as usual and reports "converged" with objective inf (as tau=1e300 did)."""
    from dataclasses import replace

    from disdf import weights

    entry = weights.SOLVER_REGISTRY[solver]
    real = entry.function
    wrapped = replace(
        entry, function=lambda problem, **kw: replace(real(problem, **kw), objective=float("inf"))
    )
    monkeypatch.setitem(weights.SOLVER_REGISTRY, solver, wrapped)


NON_FINITE = (
    r"level 1, forest 1 \(completely_random\), fold 1 of 3: solver frank_wolfe_away ended with status "
    r"'non_finite' \(solver 'frank_wolfe_away' returned non-finite objective \(objective=inf, "
)


def test_a_non_finite_solve_is_an_error_naming_where_and_why(monkeypatch):
    returns_inf_objective(monkeypatch)
    with pytest.raises(WeightSolverError, match=f"Weight solve failed at {NON_FINITE}") as caught:
        DisDFClassifier(n_trees=5, random_state=0).fit(X, y)
    assert (caught.value.solver, caught.value.status) == ("frank_wolfe_away", "non_finite")
    assert "solver_fallback='frank_wolfe_away'" in str(caught.value)


def test_a_non_finite_solve_falls_back_when_asked_and_the_warning_says_why(monkeypatch):
    returns_inf_objective(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DisDFClassifier(n_trees=5, solver_fallback="frank_wolfe", random_state=0).fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, SolverFallbackWarning)]
    assert len(messages) == len(model.level_scores_)
    assert re.match(
        r"solver 'frank_wolfe_away' failed on 12 of 12 weight problems at level 1 \(and on 36 of 36 "
        rf"cross-fitted parts\); solved them with solver_fallback='frank_wolfe'. First failure: {NON_FINITE}",
        messages[0],
    )
    diagnostics = [d for level in model.solver_diagnostics_ for f in level for d in f]
    assert all("'non_finite'" in d["fallback_reason"] for d in diagnostics)
    assert {d["solver"] for d in diagnostics} == {"frank_wolfe"}
    assert all(np.isfinite(d["objective"]) for d in diagnostics)


def test_a_cross_fitted_part_that_falls_back_is_warned_of(monkeypatch):
    """Only the cross-fitted parts' solves (warm-started, unlike a level's first solves) fail."""
    from dataclasses import replace

    from disdf import weights

    entry = weights.SOLVER_REGISTRY["frank_wolfe_away"]
    real = entry.function

    def fails_warm_started(problem, *, w0=None, **kw):
        solution = real(problem, w0=w0, **kw)
        return solution if w0 is None else replace(solution, objective=float("inf"))

    monkeypatch.setitem(
        weights.SOLVER_REGISTRY, "frank_wolfe_away", replace(entry, function=fails_warm_started)
    )
    with pytest.warns(
        SolverFallbackWarning,
        match=r"failed on 0 of 12 weight problems at level 1 \(and on 36 of 36 cross-fitted parts\).*"
        r"First failure: level 1, forest 1 \(completely_random\), fold 1 of 3, cross-fitted part: solver "
        r"frank_wolfe_away ended with status 'non_finite'",
    ):
        DisDFClassifier(n_trees=5, max_levels=1, solver_fallback="frank_wolfe", random_state=0).fit(X, y)


def test_a_fallback_that_fails_too_is_an_error_naming_both(monkeypatch):
    returns_inf_objective(monkeypatch)
    returns_inf_objective(monkeypatch, "frank_wolfe")
    with pytest.raises(
        WeightSolverError,
        match=f"{NON_FINITE}.*; solver_fallback='frank_wolfe' failed too: solver "
        r"frank_wolfe ended with status 'non_finite'",
    ) as caught:
        DisDFClassifier(n_trees=5, solver_fallback="frank_wolfe", random_state=0).fit(X, y)
    assert (caught.value.solver, caught.value.status) == ("frank_wolfe", "non_finite")


def test_the_cross_fitted_solves_are_timed_and_counted_in_the_solver_seconds():
    from sklearn.datasets import make_classification

    from experiments.running.unit import weight_solver_seconds

    X, y = make_classification(n_samples=90, n_features=6, n_informative=4, random_state=0)
    timed = {}
    for fitting in ("cross_fit", "same_examples"):
        model = DisDFClassifier(n_trees=8, max_levels=2, weight_fitting=fitting, random_state=0).fit(X, y)
        whole_folds = sum(
            d["seconds"] for level in model.solver_diagnostics_ for forest in level for d in forest
        )
        timed[fitting] = weight_solver_seconds(model) - whole_folds
        assert all(set(params) == {"lambda_", "tau"} for params in model.tuned_params_)
    assert timed["cross_fit"] > 0 and timed["same_examples"] == 0
