"""The analysis plan is declared once (experiments/analysis/plan.py): no significance level, margin,
posterior threshold, draw count or verdict word is written anywhere else in experiments/ or scripts/."""

import ast
import re
from pathlib import Path

import pytest

from experiments.analysis import plan

ROOT = Path(__file__).resolve().parents[2]
PLAN = "experiments/analysis/plan.py"
#: A decision constant's name, declared by assignment.
DECISION_NAME = re.compile(
    r"^(ALPHA|CONFIDENCE|INTERVAL_LEVEL|DECISION_PROBABILITY|DRAWS|\w*MARGIN\w*|ROPE\w*)$"
)
#: The plan's levels as literals: α, 1 − α, α/2, 1 − α/2.
LEVEL_LITERALS = {0.05, 0.95, 0.025, 0.975}
#: Literals of those values that are not decisions, each with why.
NOT_DECISIONS = {
    ("experiments/reporting/sections/audit.py", 0.05): "the 5-95 % band of splits shown (descriptive)",
    ("experiments/reporting/sections/audit.py", 0.95): "the 5-95 % band of splits shown (descriptive)",
    ("experiments/running/runner.py", 0.05): "the progress bar's smoothing",
    ("scripts/figures/plot_audit.py", 0.05): "a figure's zoom threshold",
}
#: A level or the ±1-point margin written into text.
LITERAL_IN_TEXT = re.compile(r"\b0\.05\b|±\s?1(\.0)?\s?(pp|point)")
VERDICT_WORDS = {plan.CONFIRMED, plan.REFUTED, plan.NOT_DECIDED, plan.NOT_DECIDED_BY_OUR_DATA, plan.UNDECIDED}


def sources() -> list[tuple[str, ast.Module]]:
    found = []
    for folder in ("experiments", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative != PLAN:
                found.append((relative, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions (prose, not values)."""
    owners = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.ClassDef, ast.FunctionDef)))]
    return {
        id(owner.body[0].value)
        for owner in owners
        if owner.body
        and isinstance(owner.body[0], ast.Expr)
        and isinstance(owner.body[0].value, ast.Constant)
    }


@pytest.fixture(scope="module")
def parsed():
    return sources()


def test_no_decision_constant_is_declared_outside_the_plan(parsed):
    declared = [
        f"{path}:{node.lineno} {target.id}"
        for path, tree in parsed
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and DECISION_NAME.match(target.id)
    ]
    assert declared == []


def test_no_level_is_written_as_a_literal(parsed):
    literals = [
        f"{path}:{node.lineno} {node.value}"
        for path, tree in parsed
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value in LEVEL_LITERALS
        and (path, node.value) not in NOT_DECISIONS
    ]  # fmt: skip
    assert literals == []


def test_no_level_margin_or_verdict_word_is_written_into_text(parsed):
    found = []
    for path, tree in parsed:
        prose = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
                if LITERAL_IN_TEXT.search(node.value) or node.value in VERDICT_WORDS:
                    found.append(f"{path}:{node.lineno} {node.value[:50]!r}")
    assert found == []


def test_the_plan_states_each_value_once():
    """The levels derive from α; the verdict words are distinct."""
    assert plan.CONFIDENCE == 1 - plan.ALPHA and plan.INTERVAL_LEVEL == 1 - 2 * plan.ALPHA
    words = [plan.CONFIRMED, plan.REFUTED, plan.NOT_DECIDED, plan.NOT_DECIDED_BY_OUR_DATA]
    words += [plan.WORSE, plan.NOT_WORSE, plan.UNDECIDED, plan.BETTER, plan.EQUIVALENT]
    assert len(set(words)) == len(words)
