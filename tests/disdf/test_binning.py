"""engine="binned"'s ``n_bins`` and ``bin_subsample``: the defaults grow today's trees, fewer bins give fewer
thresholds, a bin sample is drawn from the forest's seed, and wrong values are refused by name."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.utils._param_validation import InvalidParameterError

from disdf import CascadeForestClassifier, DisDFClassifier, PlainForestClassifier
from disdf.forests._compiled import FastForestParams, kernels
from disdf.forests._specs import fit_fold_model

NO_SAMPLE = np.empty(0, dtype=np.bool_)


def continuous_data(n=700, seed=0):
    X, y = make_classification(
        n_samples=n, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=seed
    )
    X = X.astype(np.float32)
    X[:, 5] = np.round(X[:, 5] * 20) / 20  # fewer than 256 values: coded exactly, not binned
    return X, y.astype(np.int64)


#: The binned trees grown by the kernels before n_bins and bin_subsample (commit ec3b86a), on
#: continuous_data() (five binned features, one coded exactly), bootstrapped and not.
TODAYS_BINNED_TREES = "ca0fae40628a05bd034c8b0662098170c04dc272589a94091f0fee4096044630"


def test_the_default_bins_grow_todays_trees_bit_for_bit():
    X, y = continuous_data()
    Xt = np.ascontiguousarray(X.T, dtype=np.float64)
    assert kernels._training_data(Xt, y, np.empty(0), False, 64, 255, NO_SAMPLE).binned.tolist() == [
        *[True] * 5,
        False,
    ]
    digest = hashlib.sha256()
    for bootstrap, max_features, min_leaf in [(True, 2, 1), (False, 6, 3)]:
        grown = kernels.grow_forest(
            Xt, y, np.empty(0), 3, 12, 11, max_features, False, bootstrap, -1, 2, min_leaf, 64, 255,
            NO_SAMPLE, True,
        )  # fmt: skip
        for array in grown[:6]:
            digest.update(np.ascontiguousarray(array).tobytes())
    assert digest.hexdigest() == TODAYS_BINNED_TREES


@pytest.mark.parametrize("bin_subsample", [None, 700, 10_000])
def test_the_estimators_defaults_and_a_sample_of_every_row_are_the_default_bins(bin_subsample):
    X, y = continuous_data()
    default = CascadeForestClassifier(n_trees=5, max_levels=2, engine="binned", random_state=0).fit(X, y)
    explicit = CascadeForestClassifier(
        n_trees=5, max_levels=2, engine="binned", n_bins=255, bin_subsample=bin_subsample, random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(explicit.predict_proba(X), default.predict_proba(X))
    for a, b in zip(explicit.levels_[0].models, default.levels_[0].models, strict=True):
        np.testing.assert_array_equal(a.threshold, b.threshold)


def thresholds_per_feature(n_bins, bin_subsample=None, seed=0, n=3000):
    """The distinct thresholds of each feature in a binned random forest whose every split node
    holds at least 64 examples (the nodes that read bins; smaller ones split on exact values)."""
    X, y = continuous_data(n)
    model = fit_fold_model(
        "random_forest", {}, "binned", X, y, n_classes=3, n_trees=10, random_state=seed,
        tree_params={"min_samples_split": 64, "n_bins": n_bins, "bin_subsample": bin_subsample},
    )  # fmt: skip
    return [np.unique(model.threshold[model.feature == f]) for f in range(X.shape[1])]


@pytest.mark.parametrize("n_bins", [2, 8, 32])
def test_fewer_bins_give_at_most_n_bins_thresholds_per_feature(n_bins):
    counts = [len(t) for t in thresholds_per_feature(n_bins)]
    assert max(counts) <= n_bins and sum(counts) > 0
    assert max(len(t) for t in thresholds_per_feature(255)) > 32  # the default: many more


def test_bins_from_a_sample_differ_by_seed_and_keep_the_bound():
    first = thresholds_per_feature(16, bin_subsample=300)
    again = thresholds_per_feature(16, bin_subsample=300)
    other_seed = thresholds_per_feature(16, bin_subsample=300, seed=1)
    all_rows = thresholds_per_feature(16)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert max(len(t) for t in first) <= 16
    # edges from 300 of the 3,000 training examples: other edges than from all of them, or another seed's
    assert not set(first[0]) <= set(all_rows[0]) and not set(first[0]) <= set(other_seed[0])


def test_the_plain_forest_takes_the_bins_too():
    X, y = continuous_data(3000)
    model = PlainForestClassifier(n_trees=2, engine="binned", n_bins=4, random_state=0).fit(X, y)
    assert model.forest_.params == FastForestParams(False, "sqrt", True, max_bins=4)
    assert model.score(X, y) > 0.7


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier, PlainForestClassifier])
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"engine": "binned", "n_bins": 1}, r"n_bins must be an int in \[2, 255\]; got 1"),
        ({"engine": "binned", "n_bins": 256}, r"n_bins must be an int in \[2, 255\]; got 256"),
        ({"engine": "binned", "n_bins": 16.0}, r"n_bins must be an int in \[2, 255\]; got 16.0 \(float\)"),
        ({"engine": "binned", "n_bins": True}, r"n_bins must be an int .*; got True \(bool\)"),
        ({"engine": "binned", "bin_subsample": 100}, r"bin_subsample must be an int in \[256, inf\] or None"),
        ({"engine": "fast", "n_bins": 16}, r"n_bins is read only with engine='binned'; got n_bins=16"),
        ({"engine": "sklearn", "bin_subsample": 1000}, r"bin_subsample is read only with engine='binned'"),
    ],
)
def test_bad_binning_parameters_are_refused_by_name(estimator, params, message):
    X, y = continuous_data(60)
    with pytest.raises(InvalidParameterError, match=message):
        estimator(**({"n_trees": 3} | params)).fit(X, y)
