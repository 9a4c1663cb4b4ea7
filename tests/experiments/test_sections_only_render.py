"""Analysis computes, sections render: no module under experiments/reporting/ imports a statistics
package or a test; the analysis modules of experiments/analysis/ give them numbers and verdicts."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Packages that compute tests (and scipy, whose distributions make intervals and p-values).
STATISTICS_PACKAGES = {"scipy", "statsmodels", "baycomp", "scikit_posthocs"}
#: What a section may take from experiments.analysis.statistics: a mean and its interval, for display.
INTERVALS = {"mean_ci", "split_mean_ci", "with_optimism", "five_by_two_interval"}


def imported_names(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every import of a file (name "" for ``import module``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
    return found


def test_no_section_imports_a_statistics_package_or_a_test():
    offenders = []
    for path in sorted((ROOT / "experiments" / "reporting").rglob("*.py")):
        for module, name in imported_names(path):
            if module.split(".")[0] in STATISTICS_PACKAGES:
                offenders.append(f"{path.relative_to(ROOT)}: {module}")
            elif module == "experiments.analysis.statistics" and name not in INTERVALS:
                offenders.append(f"{path.relative_to(ROOT)}: {module}.{name}")
    assert offenders == []


def markdown_written(path: Path) -> list[str]:
    """Where a module writes Markdown: a ``to_markdown`` call, or a text with a table row, a heading
    or bold type."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "to_markdown":
            found.append(f"{node.lineno}: to_markdown")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.lstrip()
            if text.startswith(("| ", "## ", "### ")) or "**" in text:
                found.append(f"{node.lineno}: {node.value[:40]!r}")
    return found


def test_no_analysis_module_writes_markdown():
    """experiments/analysis/ returns numbers, verdicts and frames of them; the reporting writes the text."""
    offenders = {}
    for path in sorted((ROOT / "experiments" / "analysis").rglob("*.py")):
        if found := markdown_written(path):
            offenders[path.relative_to(ROOT).as_posix()] = found
    assert offenders == {}
