"""A fit's progress goes through the ``disdf`` logger, per level and per forest, never to stdout; a terminal
also gets a bar over the levels (where tqdm is installed)."""

from __future__ import annotations

import io
import logging
import sys

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


class FakeTerminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def bar_lines(text: str) -> list[str]:
    """What tqdm drew: its carriage-return frames, e.g. 'CascadeForestClassifier: 100%|...| 3/3 [...]'."""
    frames = text.replace("\n", "\r").split("\r")
    return [frame for frame in frames if "level/s" in frame or "s/level" in frame]


@pytest.mark.parametrize("verbose", [0, 1])
def test_a_terminal_gets_a_progress_bar_over_the_levels_with_verbose(verbose, monkeypatch):
    pytest.importorskip("tqdm")
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    model = CascadeForestClassifier(n_trees=5, max_levels=4, verbose=verbose, random_state=0).fit(X, y)
    frames = bar_lines(terminal.getvalue())
    if not verbose:
        assert frames == []
        return
    grown = len(model.level_scores_)
    assert frames and frames[-1].startswith("CascadeForestClassifier: 100%")
    assert f"{grown}/{grown}" in frames[-1]  # stopped early: the bar ends full at the levels grown
    assert f"accuracy {model.level_scores_[-1]:.4f}" in frames[-1]


def test_output_that_is_no_terminal_never_gets_a_bar(monkeypatch):
    stream = io.StringIO()  # a file or a pipe: isatty() is False
    monkeypatch.setattr(sys, "stderr", stream)
    CascadeForestClassifier(n_trees=5, verbose=1, random_state=0).fit(X, y)
    assert bar_lines(stream.getvalue()) == []


def test_without_tqdm_a_terminal_gets_the_lines_alone(monkeypatch, caplog):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    with caplog.at_level(logging.INFO, logger="disdf"):
        model = CascadeForestClassifier(n_trees=5, verbose=1, random_state=0).fit(X, y)
    assert bar_lines(terminal.getvalue()) == []
    levels = [r.getMessage() for r in caplog.records if ": out-of-fold accuracy" in r.getMessage()]
    assert len(levels) == len(model.level_scores_)
