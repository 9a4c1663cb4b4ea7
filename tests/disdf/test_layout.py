"""The layout's rules, read from the source: the library never imports the experiments, no import circles."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("disdf", "experiments")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of_our_modules() -> dict[str, set[str]]:
    """Each module of disdf/ and experiments/, and the modules of ours it imports (at any depth)."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            imported = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                imported |= {name for name in names if name.split(".")[0] in PACKAGES}
            graph[module_name(path)] = imported
    return graph


def test_the_library_never_imports_the_experiments():
    offenders = {
        m: sorted(i for i in deps if i.startswith("experiments"))
        for m, deps in imports_of_our_modules().items()
    }
    assert {m: i for m, i in offenders.items() if m.startswith("disdf") and i} == {}


def test_there_is_no_import_circle():
    graph = imports_of_our_modules()
    circles = []

    def visit(start, module, path):
        for imported in graph.get(module, ()):
            if imported == start:
                circles.append([*path, start])
            elif imported in graph and imported not in path:
                visit(start, imported, [*path, imported])

    for module in graph:
        visit(module, module, [module])
    assert circles == []


def test_the_library_works_without_the_experiment_stack():
    """`pip install disdf` needs numpy, scipy, scikit-learn, cvxpy, numba and joblib only: with the
    experiment stack made unimportable, the library imports and fits (pandas only for the UCI tables)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "for name in ('pandas', 'ucimlrepo', 'hydra', 'omegaconf', 'matplotlib', 'tqdm', 'tabulate'):\n"
        "    sys.modules[name] = None  # import raises ImportError\n"
        "import numpy as np, disdf.datasets, disdf.downloads\n"
        "from disdf import DisDFClassifier\n"
        "X = np.random.default_rng(0).normal(size=(60, 4)); y = (X[:, 0] > 0).astype(int)\n"
        "print(DisDFClassifier(n_trees=5, engine='fast', random_state=0).fit(X, y).n_levels_ >= 1)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "True", result.stderr
