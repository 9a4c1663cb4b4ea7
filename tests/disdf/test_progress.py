"""A fit's progress goes through the ``disdf`` logger, per level and per forest, never to stdout."""

from __future__ import annotations

import logging

import pytest
from sklearn.datasets import load_iris

from disdf import CascadeForestClassifier, DisDFClassifier

X, y = load_iris(return_X_y=True)


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
@pytest.mark.parametrize("verbose", [0, 1, 2])
def test_progress_is_logged_per_level_and_per_forest(estimator, verbose, caplog, capsys):
    with caplog.at_level(logging.INFO, logger="disdf"):
        model = estimator(n_trees=5, verbose=verbose, random_state=0).fit(X, y)
    lines = [record.getMessage() for record in caplog.records if record.name == "disdf"]
    levels = [line for line in lines if ": out-of-fold accuracy" in line and "forest" not in line]
    forests = [line for line in lines if ", forest " in line]
    grown = len(model.level_scores_)
    assert len(levels) == (grown if verbose >= 1 else 0)
    assert len(forests) == (4 * grown if verbose >= 2 else 0)
    if verbose:
        score = model.level_scores_[0]
        assert levels[0].startswith(f"[{estimator.__name__}] level 1: out-of-fold accuracy {score:.4f}, ")
        assert "elapsed" in levels[0] and "peak memory" in levels[0] and levels[0].endswith(" GiB")
    assert capsys.readouterr().out == ""  # print() no more
