"""Memory: the leaf-row held-out path, the compact fitted forest, float32 inputs and growth, fitted
levels on disk, and the refusal of a fit that will not fit. Each is checked to give the numbers of
the path it replaced, bit for bit."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf._utils.float32_input import float32_columns
from disdf._utils.parameters import InvalidParameterError
from disdf.cascade import check_estimator_memory
from disdf.cascade._fit_memory import (
    LIMIT_VARIABLE,
    InsufficientMemoryError,
    growth_bytes_per_value,
    parse_bytes,
)
from disdf.forests._compiled import FastForest, FastForestParams, forest, kernels, prediction_kernels
from disdf.forests._compiled.forest import n_candidate_features
from disdf.forests._compiled.node_layout import float32_floor, local_child_codes
from disdf.forests._specs import fit_fold_model
from disdf.forests._tree_leaves import weighted_sum


def grow_unshared(X, y, *args):
    """The compiled grower with one leaf row per leaf, from X example-major as the tests build it
    (``args``: n_classes to min_samples_leaf, then optionally histogram_min_node and max_bins), its
    bins on every example: the tree arrays (roots, feature, threshold, left, right, leaf_values)."""
    args = (*args, *(kernels._HISTOGRAM_MIN_NODE, 0)[len(args) - 9 :])  # the defaults not given
    Xt = np.ascontiguousarray(X.T).astype(np.float64)
    return kernels.grow_forest(Xt, y, np.empty(0), *args, np.empty(0, dtype=np.bool_), False)[:6]


KINDS = {
    "completely_random": FastForestParams(random_splits=True, max_features=1, bootstrap=False),
    "random_forest": FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True),
    "binned": FastForestParams(random_splits=False, max_features="sqrt", bootstrap=True, max_bins=255),
}


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=400, n_features=10, n_informative=5, n_classes=3, n_clusters_per_class=1, random_state=3
    )
    X[:, :4] = np.round(X[:, :4] * 20)  # few-valued columns: coded, histogram splits
    X[1::2, 5] = X[::2, 5]  # ties
    return np.ascontiguousarray(X, dtype=np.float32), y.astype(np.int64)


def _raw_arrays(params, X, y, n_trees, min_leaf=1, max_depth=None):
    return grow_unshared(
        X, y, 3, n_trees, 5, n_candidate_features(params.max_features, X.shape[1]), params.random_splits,
        params.bootstrap, -1 if max_depth is None else max_depth, 2, min_leaf, kernels._HISTOGRAM_MIN_NODE,
        params.max_bins,
    )  # fmt: skip


@pytest.mark.parametrize("min_leaf, max_depth", [(1, None), (3, None), (1, 4)])
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("value_type", [np.float64, np.float32])
def test_growth_with_shared_leaves_is_grow_forest_then_share_pure_leaves(
    data, kind, value_type, min_leaf, max_depth
):
    X, y = data
    params = KINDS[kind]
    raw = _raw_arrays(params, X, y, 15, min_leaf, max_depth)
    roots, left, right, table = prediction_kernels.share_pure_leaves(raw[0], raw[3], raw[4], raw[5])
    shared = kernels.grow_forest(
        np.ascontiguousarray(X.T, dtype=value_type), y, np.empty(0), 3, 15, 5,
        n_candidate_features(params.max_features, X.shape[1]), params.random_splits, params.bootstrap,
        -1 if max_depth is None else max_depth, 2, min_leaf, kernels._HISTOGRAM_MIN_NODE, params.max_bins,
        np.empty(0, dtype=np.bool_), True,
    )[:6]  # fmt: skip
    for name, got, want in zip(
        ("roots", "feature", "threshold", "left", "right", "leaf_values"),
        shared,
        (roots, raw[1], raw[2], left, right, table),
        strict=True,
    ):
        assert got.dtype == want.dtype and np.array_equal(got, want), name


def test_float32_floor_keeps_every_comparison_of_float32_values():
    rng = np.random.default_rng(0)
    values = rng.normal(size=2000).astype(np.float32)
    # thresholds at, between and next to float32 values, as splits make them
    thresholds = np.concatenate(
        [values[:-1] / 2.0 + values[1:] / 2.0, values.astype(np.float64), np.nextafter(values, 10.0)]
    ).astype(np.float64)
    floored = float32_floor(thresholds)
    assert floored.dtype == np.float32 and np.all(floored <= thresholds)
    probes = np.concatenate([values, np.nextafter(values, np.float32(np.inf)), np.nextafter(values, -np.inf)])
    for t, f in zip(thresholds[::50], floored[::50], strict=True):
        np.testing.assert_array_equal(probes <= t, probes <= f)


def test_float32_floor_is_numpys_nearest_float32_stepped_down_where_it_rounded_up():
    big = float(np.finfo(np.float32).max)
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    edges = [0.0, -0.0, 1e-50, -1e-50, tiny / 3, -tiny / 3, big * 1.5, -big * 1.5, np.inf, -np.inf, 0.1, -0.1]
    values = np.concatenate([edges, np.random.default_rng(2).normal(scale=1e3, size=5000)])
    with np.errstate(over="ignore"):  # beyond float32's largest: inf, as the kernel rounds it
        rounded = values.astype(np.float32)
    above = rounded.astype(np.float64) > values
    expected = np.where(above, np.nextafter(rounded, np.float32(-np.inf)), rounded)
    floored = float32_floor(values)
    np.testing.assert_array_equal(floored.view(np.int32), expected.view(np.int32))  # -0.0 and 0.0 apart
    assert 1000 < above.sum() < 4000  # about half of them rounded up and were stepped down


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_compact_forest_gives_the_probabilities_of_the_raw_arrays(data, kind, monkeypatch):
    X, y = data
    fitted = FastForest(KINDS[kind], 15, 5, 3).fit(X, y)
    assert fitted.feature.dtype == np.int16 and fitted.threshold.dtype == np.float32
    assert fitted.left.dtype == np.int16
    raw = list(_raw_arrays(KINDS[kind], X, y, 15))
    raw[0], raw[3], raw[4] = local_child_codes(raw[0], raw[3], raw[4], len(raw[5]))
    X_new = np.random.default_rng(1).normal(size=(300, X.shape[1])).astype(np.float32) * 10
    X_new[:100] = X[:100]  # training values: exactly at the split values' neighbours
    np.testing.assert_array_equal(
        fitted.probabilities(X_new), prediction_kernels.tree_probabilities(X_new, *raw)
    )
    # grown from a float32 feature-major copy (as large forests are): the same forest
    monkeypatch.setattr(forest, "FLOAT32_GROWTH_VALUES", 1)
    small = FastForest(KINDS[kind], 15, 5, 3).fit(X, y)
    for name in ("roots", "feature", "threshold", "left", "right", "leaf_values"):
        np.testing.assert_array_equal(getattr(small, name), getattr(fitted, name), err_msg=name)


def test_growing_on_rows_is_growing_on_those_rows(data):
    X, y = data
    rows = np.sort(np.random.default_rng(2).choice(len(X), 250, replace=False))
    for engine in ("fast", "sklearn"):
        a = fit_fold_model("random_forest", {}, engine, X, y, rows=rows, **_options())
        b = fit_fold_model("random_forest", {}, engine, X[rows], y[rows], **_options())
        np.testing.assert_array_equal(a.probabilities(X), b.probabilities(X))


def _options():
    return {"n_classes": 3, "n_trees": 10, "random_state": 4, "tree_params": {}}


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
def test_leaf_rows_give_the_per_tree_probabilities_bit_for_bit(data, engine):
    X, y = data
    model = fit_fold_model("completely_random", {}, engine, X[:300], y[:300], **_options())
    held = model.tree_leaves(X[300:])
    expected = model.probabilities(X[300:])
    assert held.leaves.dtype == np.int32 and held.leaves.shape == (100, 10)
    np.testing.assert_array_equal(held.probabilities(), expected)
    np.testing.assert_array_equal(held.first(4).probabilities(), expected[:, :4])
    positions = np.array([3, 1, 50])
    np.testing.assert_array_equal(held[positions].probabilities(), expected[positions])
    rows = np.array([350, 301, 399, 300])
    np.testing.assert_array_equal(model.tree_leaves(X, rows=rows).probabilities(), expected[rows - 300])
    # the weighted sums from the leaf rows: bit for bit those of the (n, T, C) array, eq. (41)
    for w in (np.full(10, 0.1), np.random.default_rng(3).dirichlet(np.ones(10))):
        np.testing.assert_array_equal(held.weighted_sum(w), weighted_sum(expected, w))
        np.testing.assert_array_equal(held[positions].weighted_sum(w), weighted_sum(expected[positions], w))


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_out_of_fold_vectors_are_those_of_the_per_tree_probabilities(data, engine, estimator):
    """The path the held-out probabilities took before (weighted sums of each fold model's
    ``probabilities`` of its held-out examples), recomputed: the same numbers."""
    X, y = data
    model = estimator(n_trees=8, max_levels=1, random_state=0, engine=engine)
    fit = model._grow_first_level(X, y)
    forests, _ = model._level_weights(fit, fit.y_code, 0)
    features = X.astype(np.float32)
    for forest_fit in forests:
        got = forest_fit.out_of_fold_vectors(fit.folds, len(y))
        expected = np.empty_like(got)
        for k, (_, test) in enumerate(fit.folds):
            probabilities = forest_fit.models[k].probabilities(features[test])
            if forest_fit.out_of_fold_weights is None:
                expected[test] = weighted_sum(probabilities, forest_fit.weights[k])
            else:
                for positions, w in forest_fit.out_of_fold_weights[k]:
                    expected[test[positions]] = weighted_sum(probabilities[positions], w)
        np.testing.assert_array_equal(got, expected)


def test_level_input_in_float32_is_the_float64_columns_converted():
    rng = np.random.default_rng(0)
    parts = [rng.normal(size=(50, 7)) * 1e3, rng.random((50, 6)), rng.random((50, 6))]
    np.testing.assert_array_equal(float32_columns(parts), np.hstack(parts).astype(np.float32))
    assert float32_columns(parts[:1]).dtype == np.float32


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_fitted_levels_on_disk_give_the_same_predictions(data, estimator, tmp_path):
    X, y = data
    settings = {"n_trees": 10, "max_levels": 3, "random_state": 1, "n_jobs": 2}
    memory = estimator(**settings).fit(X[:300], y[:300])
    disk = estimator(**settings, keep_fitted_levels="disk", fitted_levels_dir=tmp_path / "levels")
    disk.fit(X[:300], y[:300])
    assert disk.level_scores_ == memory.level_scores_
    assert disk.fitted_levels_path_.parent == tmp_path / "levels"  # the fit's own folder in it
    assert len(list(disk.fitted_levels_path_.glob("level_*/model_*_threshold.npy"))) == 12 * disk.n_levels_
    for model in (disk, pickle.loads(pickle.dumps(disk))):  # twice: pages dropped after a first pass
        for _ in range(2):
            np.testing.assert_array_equal(model.predict_proba(X[300:]), memory.predict_proba(X[300:]))
            np.testing.assert_array_equal(model.transform(X[300:]), memory.transform(X[300:]))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"keep_fitted_levels": "cloud"}, "keep_fitted_levels must be one of"),
        ({"keep_fitted_levels": "disk"}, "keep_fitted_levels='disk' needs fitted_levels_dir"),
        ({"fitted_levels_dir": "x"}, "fitted_levels_dir is read only with keep_fitted_levels='disk'"),
        (
            {"keep_fitted_levels": "disk", "fitted_levels_dir": "x", "engine": "sklearn"},
            "keep_fitted_levels='disk' stores the compiled engines' trees",
        ),
    ],
)
def test_bad_keep_fitted_levels_is_refused_before_any_work(data, params, message):
    X, y = data
    with pytest.raises(InvalidParameterError, match=message):
        CascadeForestClassifier(**params).fit(X, y)


def test_a_fit_that_will_not_fit_is_refused_naming_the_estimate_and_what_fits(monkeypatch):
    """All of MNIST's shape under a limit of 2.5 GiB: the in-memory cascade's estimate exceeds it,
    and the message names the setting that fits (the levels on disk)."""
    model = CascadeForestClassifier(n_trees=100, n_jobs=2)
    counts = np.full(10, 6000)
    monkeypatch.setenv(LIMIT_VARIABLE, "2.5G")
    with pytest.raises(InsufficientMemoryError) as refused:
        check_estimator_memory(model, counts, 784)
    message = str(refused.value)
    assert (
        "CascadeForestClassifier(n_trees=100, max_levels=10, n_jobs=2, keep_fitted_levels='memory')"
        in message
    )
    assert "60000 examples of 784 features and 10 classes" in message
    assert "trees" in message and "more than the 2.5 GiB available (DISDF_MEMORY_LIMIT" in message
    assert "keep_fitted_levels='disk' (about" in message and "would fit" in message
    check_estimator_memory(
        model.set_params(keep_fitted_levels="disk", fitted_levels_dir="levels"), counts, 784
    )
    monkeypatch.setenv(LIMIT_VARIABLE, "10M")
    with pytest.raises(InsufficientMemoryError, match="fewer trees"):
        check_estimator_memory(model, counts, 784)
    X = np.zeros((60, 784))
    with pytest.raises(InsufficientMemoryError):  # fit checks it before growing anything
        CascadeForestClassifier(n_trees=10**6).fit(X, np.arange(60) % 2)


def test_memory_limit_sizes_are_read_or_refused():
    assert parse_bytes("3G") == 3 * 2**30 and parse_bytes("512MiB") == 512 * 2**20
    assert parse_bytes("1000") == 1000
    with pytest.raises(ValueError, match="DISDF_MEMORY_LIMIT"):
        parse_bytes("lots")


def _numpy_leaves(X, roots, feature, threshold, left, right):
    """Leaf rows by walking the grown forest's global child codes, one example and tree at a time."""
    leaves = np.empty((len(X), len(roots)), dtype=np.int64)
    for i, x in enumerate(X):
        for t, code in enumerate(roots):
            while code >= 0:
                code = left[code] if x[feature[code]] <= threshold[code] else right[code]
            leaves[i, t] = -code - 1
    return leaves


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_child_codes_relative_to_the_root_reach_the_leaves_of_the_grown_codes(data, kind):
    X, y = data
    fitted = FastForest(KINDS[kind], 12, 5, 3).fit(X, y)
    grown = kernels.grow_forest(
        np.ascontiguousarray(X.T), y, np.empty(0), 3, 12, 5,
        n_candidate_features(KINDS[kind].max_features, X.shape[1]),
        KINDS[kind].random_splits, KINDS[kind].bootstrap, -1, 2, 1, kernels._HISTOGRAM_MIN_NODE,
        KINDS[kind].max_bins, np.empty(0, dtype=np.bool_), True,
    )  # fmt: skip
    noise = np.random.default_rng(4).normal(size=(60, X.shape[1])).astype(np.float32) * 10
    X_new = np.vstack([X[:60], noise])
    expected = _numpy_leaves(X_new, *grown[:5])
    assert fitted.left.dtype == fitted.right.dtype == np.int16
    assert fitted.left.max() < np.diff(np.append(fitted.roots[fitted.roots >= 0], len(fitted.left))).max()
    np.testing.assert_array_equal(fitted.apply(X_new), expected)
    np.testing.assert_array_equal(fitted.first(5).apply(X_new), expected[:, :5])
    # wider codes (a tree of more than 32,768 nodes, or more leaf rows): the same leaves
    roots, left, right = local_child_codes(grown[0], grown[3], grown[4], 2**15 + 1)
    assert left.dtype == right.dtype == np.int32 and roots.dtype == np.int32
    np.testing.assert_array_equal(left, fitted.left)
    np.testing.assert_array_equal(roots, fitted.roots)
    wide = fitted.first(12)
    wide.left, wide.right = left, right
    np.testing.assert_array_equal(wide.apply(X_new), expected)
    np.testing.assert_array_equal(wide.probabilities(X_new), fitted.probabilities(X_new))


def test_child_code_types_follow_the_largest_tree_and_the_leaf_rows():
    roots = np.array([0, -2, 3], dtype=np.int64)  # tree 1 is one leaf
    left = np.array([1, -1, -3, 4, -1, -2], dtype=np.int64)
    right = np.array([2, -2, -1, 5, -3, -1], dtype=np.int64)
    got_roots, got_left, got_right = local_child_codes(roots, left, right, 3)
    np.testing.assert_array_equal(got_left, [1, -1, -3, 1, -1, -2])
    np.testing.assert_array_equal(got_right, [2, -2, -1, 2, -3, -1])
    assert got_left.dtype == np.int16 and got_roots.dtype == np.int32
    np.testing.assert_array_equal(got_roots, roots)
    assert local_child_codes(roots, left, right, 2**15)[1].dtype == np.int16
    assert local_child_codes(roots, left, right, 2**15 + 1)[1].dtype == np.int32
    assert local_child_codes(roots, left, right, 2**31 + 1)[1].dtype == np.int64


def test_growth_estimate_counts_one_copy_per_fold_among_the_tasks_run_at_once():
    kinds = ("completely_random", "completely_random", "random_forest", "random_forest")
    # two random forests of one fold: one shared copy (4) and two orders and codes (2 x 5)
    assert growth_bytes_per_value(kinds, 3, 2, 4) == 14
    assert growth_bytes_per_value(kinds, 3, 1, 4) == 9
    assert growth_bytes_per_value(kinds[:1], 3, 2, 8) == 16  # one forest: its two tasks are two folds
    assert growth_bytes_per_value(kinds, 1, 8, 4) == 14  # no more tasks than the level has


def test_disdfs_exact_pair_rows_are_counted_for_every_fold_model_of_a_level(monkeypatch):
    """The trial that was killed at 21 GiB: 20,000 training rows of 3 classes, 20 features, DisDF with
    every pair (then the default; max_pairs=None today) and n_jobs=2. A level computes (π, Q) for all
    4 forests x 3 folds and keeps them while it solves, so the estimate counts 12 fold models' Q rows;
    on a 24 GiB machine the fit is refused before any tree grows, pointing at what would fit. Today's
    default, max_pairs="auto", reads 5,000 drawn pairs per fold model: 0.045 GiB of rows."""
    import disdf.cascade._cascade_base as cascade_module
    from disdf import DisDFClassifier
    from disdf.cascade._fit_memory import different_class_pairs_per_fold

    counts = np.array([6667, 6667, 6666])
    model = DisDFClassifier(n_trees=100, n_jobs=2, max_pairs=None)
    per_fold = different_class_pairs_per_fold(counts, 3)
    assert model._pair_rows(counts) == 4 * 3 * per_fold
    monkeypatch.setenv(LIMIT_VARIABLE, "24G")
    with pytest.raises(
        InsufficientMemoryError, match=r"pair rows Q_ij (1[0-9]{2}|[2-9][0-9]) GiB"
    ) as refused:
        check_estimator_memory(model, counts, 20)
    assert "solver='stochastic_frank_wolfe'" in str(refused.value)
    check_estimator_memory(model.set_params(solver="stochastic_frank_wolfe"), counts, 20)  # no Q rows: fits
    check_estimator_memory(model.set_params(solver="frank_wolfe_away", max_pairs="auto"), counts, 20)
    assert model._pair_rows(counts) == 4 * 3 * 5_000

    def no_growing(*args, **kwargs):
        raise AssertionError("a tree grew")

    monkeypatch.setattr(cascade_module, "grow_level_models", no_growing)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20_000, 20)), np.repeat([0, 1, 2], [6667, 6667, 6666])
    with pytest.raises(InsufficientMemoryError):
        DisDFClassifier(n_trees=100, n_jobs=2, max_pairs=None).fit(X, y)


def test_the_qps_workspace_is_counted_per_problem_solved_at_once():
    """cvxpy's canonical form of a fold model's QP takes about 30 times its rows Q_ij (measured); the
    estimate counts it for the problems solved at once, and nothing for the Frank-Wolfe solvers."""
    from disdf import DisDFClassifier
    from disdf.cascade._fit_memory import estimator_fit_memory
    from disdf.weights._qp import QP_WORKSPACE_PER_Q_BYTE

    counts = np.array([333, 333, 334])
    away = DisDFClassifier(n_trees=100, n_jobs=2)
    assert away._solver_workspace(counts, 2) == 0
    qp = DisDFClassifier(n_trees=100, n_jobs=2, solver="qp")
    per_problem = qp._pair_rows(counts) // 12 * 8 * 100
    assert qp._solver_workspace(counts, 2) == 2 * QP_WORKSPACE_PER_Q_BYTE * per_problem
    assert qp._solver_workspace(counts, 1) == QP_WORKSPACE_PER_Q_BYTE * per_problem
    difference = estimator_fit_memory(qp, counts, 20).total - estimator_fit_memory(away, counts, 20).total
    assert difference == qp._solver_workspace(counts, 2)
