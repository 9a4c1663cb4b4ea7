"""Out-of-bag levels (``out_of_bag=True``) of the gcForest classifier and the regressor: the bags, the
held-out means, the level loop; DisDF has none."""

import numpy as np
import pytest

from disdf import CascadeForestClassifier, CascadeForestRegressor, DisDFClassifier, InvalidParameterError
from disdf.cascade._fit_memory import estimator_fit_memory, nodes_per_example
from disdf.forests._out_of_bag import OutOfBagLeaves, in_bag_by_group
from disdf.forests._specs import _fast_params, fit_fold_model
from disdf.forests._tree_leaves import TreeLeaves

ENGINES = ["fast", "binned", "sklearn"]
DF21_LEVEL = ["random_forest", "random_forest", "extra_trees", "extra_trees"]


def distinct_data(n: int = 300, d: int = 3, seed: int = 0):
    """Distinct rows and targets at least 1 apart (no leaf of two targets is pure): a fully grown tree
    predicts its in-bag examples' own targets."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    return X, np.argsort(np.argsort(X[:, 0] * 2 + rng.normal(scale=0.3, size=n))).astype(np.float64)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["random_forest", "extra_trees", "completely_random"])
def test_in_bag_is_what_each_tree_trained_on(engine, kind):
    """A fully grown tree on distinct rows returns an example's own target exactly when it drew it: the
    in-bag booleans say which it drew, tree by tree, on every engine and with sample weights."""
    X, y = distinct_data()
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    model = fit_fold_model(
        kind, {"bootstrap": True}, engine, X, y, n_classes=1, n_trees=20, random_state=3,
        tree_params={}, sample_weight=weights, regression=True,
    )  # fmt: skip
    in_bag = model.in_bag(len(y), weights)
    own_target = np.isclose(model.probabilities(X)[:, :, 0], y[:, None], rtol=0, atol=1e-6)
    if engine == "sklearn" and kind != "random_forest":
        # scikit-learn's random splitter leaves a few impure leaves (a drawn threshold that parts nothing
        # ends the node): no example out of the bag returns its own target, nearly every one in it does
        assert not (own_target & ~in_bag).any()
        assert own_target.sum() > 0.97 * in_bag.sum()
    else:
        np.testing.assert_array_equal(in_bag, own_target)
    assert 0.25 < 1 - in_bag.mean() < 0.5  # about (1 - 1/n)^n of the examples out of each bag


@pytest.mark.filterwarnings("ignore:The number of unique classes:UserWarning")  # scikit-learn's: 150 classes
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["random_forest", "extra_trees", "completely_random"])
def test_a_classification_forest_s_in_bag_is_what_each_tree_trained_on(engine, kind):
    """Every example its own class: a fully grown tree gives an example its own class with probability 1
    exactly when it drew it (no other example has that class), tree by tree, with sample weights."""
    X, _ = distinct_data(n=150)
    y = np.arange(150)
    weights = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    model = fit_fold_model(
        kind, {"bootstrap": True}, engine, X, y, n_classes=len(y), n_trees=20, random_state=3,
        tree_params={}, sample_weight=weights,
    )  # fmt: skip
    in_bag = model.in_bag(len(y), weights)
    own_class = model.probabilities(X)[np.arange(len(y)), :, y] == 1.0
    if engine == "sklearn" and kind != "random_forest":  # impure leaves of the random splitter (above)
        assert not (own_class & ~in_bag).any()
        assert own_class.sum() > 0.97 * in_bag.sum()
    else:
        np.testing.assert_array_equal(in_bag, own_class)
    assert 0.25 < 1 - in_bag.mean() < 0.5


def test_a_forest_without_bootstrap_has_everything_in_bag():
    X, y = distinct_data(n=50)
    model = fit_fold_model(
        "extra_trees", {}, "fast", X, y, n_classes=1, n_trees=4, random_state=0, tree_params={},
        regression=True,
    )  # fmt: skip
    assert not _fast_params("extra_trees", {}, {}, "fast", True).bootstrap
    assert model.in_bag(len(y)).all()


def test_out_of_bag_sum_is_the_mean_of_the_trees_that_left_each_example_out():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(40, 2))
    leaves = TreeLeaves(rng.integers(0, 40, size=(30, 6)).astype(np.int32), table)
    in_bag = rng.random((30, 6)) < 0.6
    in_bag[4] = True  # no tree left example 4 out
    w = rng.uniform(0.1, 1.0, size=6)
    outputs = OutOfBagLeaves.of(leaves, in_bag).weighted_sum(w)
    left_out = ~in_bag
    covered = left_out.any(axis=1)
    sums = np.einsum("itc,it,t->ic", table[leaves.leaves], left_out, w)
    expected = sums[covered] / (left_out @ w)[covered, None]
    np.testing.assert_allclose(outputs[covered], expected)
    # the uncovered example: the others' mean, not its own in-bag trees' outputs
    np.testing.assert_allclose(outputs[4], expected.mean(axis=0))
    bagged = OutOfBagLeaves.of(leaves, in_bag)
    np.testing.assert_allclose(bagged[np.array([1, 2])].weighted_sum(w), outputs[1:3])
    first_three = OutOfBagLeaves.of(TreeLeaves(leaves.leaves[:, :3].copy(), table), in_bag[:, :3])
    np.testing.assert_allclose(bagged.first(3).weighted_sum(w[:3]), first_three.weighted_sum(w[:3]))


def test_a_row_is_in_a_bag_when_any_copy_of_it_is():
    in_bag = np.array([[True, False], [False, False], [False, True], [False, False]])
    groups = np.array([0, 0, 2, 3])  # rows 0 and 1 are copies
    grouped = in_bag_by_group(in_bag, groups)
    np.testing.assert_array_equal(grouped, [[True, False], [True, False], [False, True], [False, False]])
    assert in_bag_by_group(in_bag, None) is in_bag


@pytest.mark.parametrize("engine", ENGINES)
def test_level_outputs_are_the_out_of_bag_means_of_each_forest(engine):
    """One level: fit_transform's training outputs are, forest by forest, the mean of the trees that left
    each example out, computed from the fitted forest's own trees and bags."""
    X, y = distinct_data(n=200)
    model = CascadeForestRegressor(
        n_trees=15, forests=DF21_LEVEL, engine=engine, max_levels=1, random_state=0, out_of_bag=True
    )
    training_outputs = model.fit_transform(X, y)
    assert training_outputs.shape == (200, 4)
    for m, forest in enumerate(model.levels_[0].forests):
        (fold_model,) = forest.models
        left_out = ~fold_model.in_bag(len(y))
        per_tree = fold_model.probabilities(X)[:, :, 0]
        covered = left_out.any(axis=1)  # with 15 trees, an example in every bag is likely (0.63^15)
        expected = (per_tree * left_out).sum(axis=1)[covered] / left_out.sum(axis=1)[covered]
        np.testing.assert_allclose(training_outputs[covered, m], expected)
        np.testing.assert_allclose(training_outputs[~covered, m], expected.mean())
        # a new example's output: the mean of all the forest's trees
        np.testing.assert_allclose(model.transform(X[:5])[:, m], per_tree[:5].mean(axis=1))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_classifier_s_level_vectors_are_the_out_of_bag_means_of_each_forest(engine):
    """The classifier's training class vectors, forest by forest: the mean of the class distributions of
    the trees that left each example out; a new example's, the mean of all the forest's trees."""
    X, target = distinct_data(n=200)
    y = (target > 100).astype(int) + (target > 150)
    model = CascadeForestClassifier(
        n_trees=15, forests=DF21_LEVEL, engine=engine, max_levels=1, random_state=0, out_of_bag=True
    )
    training_vectors = model.fit_transform(X, y).reshape(200, 4, 3)
    for m, forest in enumerate(model.levels_[0].forests):
        (fold_model,) = forest.models
        left_out = ~fold_model.in_bag(len(y))
        per_tree = fold_model.probabilities(X)
        covered = left_out.any(axis=1)
        expected = np.einsum("itc,it->ic", per_tree, left_out)[covered] / left_out.sum(axis=1)[covered, None]
        np.testing.assert_allclose(training_vectors[covered, m], expected)
        np.testing.assert_allclose(model.transform(X[:5]).reshape(5, 4, 3)[:, m], per_tree[:5].mean(axis=1))
    assert model.level_scores_[0] == pytest.approx(
        np.mean(training_vectors.sum(axis=1).argmax(axis=1) == y)
    )  # the level's score: the out-of-bag accuracy


@pytest.mark.parametrize("estimator", [CascadeForestRegressor, CascadeForestClassifier])
def test_out_of_bag_levels_grow_a_third_of_the_trees_and_do_not_depend_on_n_jobs(estimator):
    X, y = distinct_data(n=400, d=5)
    if estimator is CascadeForestClassifier:
        y = (y > 200).astype(int)
    fits = [estimator(n_trees=10, random_state=2, out_of_bag=True, n_jobs=jobs).fit(X, y) for jobs in (1, 2)]
    np.testing.assert_array_equal(fits[0].predict(X), fits[1].predict(X))
    assert fits[0].level_scores_ == fits[1].level_scores_
    assert all(len(forest.models) == 1 for level in fits[0].levels_ for forest in level.forests)
    assert fits[0].score(X, y) > 0.5


def test_disdf_has_no_out_of_bag_levels_and_says_why():
    """DisDF's weights are fitted on each fold model's held-out examples: out_of_bag is refused by name
    (constructor and set_params), and neither its parameters nor its docstring list it."""
    for make in (
        lambda: DisDFClassifier(out_of_bag=True),
        lambda: DisDFClassifier().set_params(out_of_bag=True),
    ):
        with pytest.raises(
            TypeError, match=r"no parameter 'out_of_bag'.*CascadeForestClassifier\(out_of_bag=True\)"
        ):
            make()
    assert "out_of_bag" not in DisDFClassifier().get_params()
    assert "out_of_bag" not in (DisDFClassifier.__doc__ or "")
    assert "out_of_bag : bool" in (CascadeForestClassifier.__doc__ or "")


@pytest.mark.parametrize(
    "setting, named",
    [
        ({"n_folds": 5}, "n_folds"),
        ({"test_vectors": "refit"}, "test_vectors"),
        ({"forests": [{"kind": "extra_trees", "bootstrap": False}]}, "bootstrap=False"),
    ],
)
@pytest.mark.parametrize("estimator", [CascadeForestRegressor, CascadeForestClassifier])
def test_settings_out_of_bag_cannot_honour_are_refused_before_work(setting, named, estimator):
    X, y = distinct_data(n=30)
    y = y if estimator is CascadeForestRegressor else (y > 15).astype(int)
    with pytest.raises(InvalidParameterError, match=rf"out_of_bag=True.*{named}"):
        estimator(out_of_bag=True, **setting).fit(X, y)
    with pytest.raises(InvalidParameterError, match="out_of_bag must be True or False"):
        estimator(out_of_bag="yes").fit(X, y)


def test_level_members_are_refused_out_of_bag():
    from sklearn.linear_model import Ridge

    X, y = distinct_data(n=30)
    with pytest.raises(InvalidParameterError, match=r"out_of_bag=True.*level_estimators"):
        CascadeForestRegressor(out_of_bag=True, level_estimators=[("ridge", Ridge())]).fit(X, y)


@pytest.mark.parametrize(
    "estimator, counts",
    [(CascadeForestRegressor, np.array([9000])), (CascadeForestClassifier, np.array([3000, 3000, 3000]))],
)
def test_the_memory_check_counts_one_forest_per_kind_on_all_examples(estimator, counts):
    """Out of bag a level holds M forests on n examples, not M x 3 on 2n/3: half the trees' rows; and a
    kind without a bootstrap of its own (completely random) then grows on a bootstrap's distinct
    examples, 1 - 1/e of them, so it has that share of its nodes."""
    kfold, bagged = (estimator_fit_memory(estimator(out_of_bag=flag), counts, 10) for flag in (False, True))
    regression = estimator is CascadeForestRegressor
    coefficients = {
        kind: nodes_per_example(kind, regression) for kind in ("completely_random", "random_forest")
    }
    shrink = (coefficients["completely_random"] * (1 - np.exp(-1)) + coefficients["random_forest"]) / sum(
        coefficients.values()
    )
    assert bagged.trees == pytest.approx(kfold.trees / 2 * shrink, rel=1e-3)
    assert bagged.held_out_leaves == pytest.approx(kfold.held_out_leaves * 5 / 4)


def test_out_of_bag_cascades_share_their_first_level_and_refuse_folds_beside_them():
    """fit_sharing_first_level: out-of-bag gcForests of other T are fitted as their own fit fits them; an
    out-of-bag level beside a fold-held one (DisDF's or gcForest's) is refused, naming out_of_bag."""
    from disdf.cascade import fit_sharing_first_level

    X, target = distinct_data(n=240)
    y = (target > 120).astype(int)
    shared = fit_sharing_first_level(
        [CascadeForestClassifier(n_trees=n, random_state=0, out_of_bag=True) for n in (12, 7)], X, y
    )
    for model in shared:
        own = CascadeForestClassifier(n_trees=model.n_trees, random_state=0, out_of_bag=True).fit(X, y)
        assert model.level_scores_ == own.level_scores_
        np.testing.assert_array_equal(model.predict_proba(X[:50]), own.predict_proba(X[:50]))
    for others in (
        DisDFClassifier(n_trees=5, random_state=0),
        CascadeForestClassifier(n_trees=5, random_state=0),
    ):
        with pytest.raises(ValueError, match=r"estimators\[1\] differs .* \['out_of_bag'\]"):
            fit_sharing_first_level(
                [CascadeForestClassifier(n_trees=5, random_state=0, out_of_bag=True), others], X, y
            )
