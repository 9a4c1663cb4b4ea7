"""The README and the documentation site: short, undated, and every code pointer real.

The site itself is built by ``make docs`` (warnings as errors, references resolved); these checks are
the cheap ones that need no Sphinx.
"""

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SOURCES = [README, *sorted(DOCS.glob("**/*.rst")), *sorted((DOCS / "examples").glob("*.py"))]
SOURCES = [
    p
    for p in SOURCES
    if "_build" not in p.parts and "generated" not in p.parts and "auto_examples" not in p.parts
]
#: A date, or a word of 7 to 40 hex digits with both a digit and a letter (a commit hash).
DATE = re.compile(r"\b(19|20)\d\d-[01]\d-[0-3]\d\b")
HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
#: An issue tag as the project's history writes them: "#16", "issue [speed]".
ISSUE = re.compile(r"(?<![\w&])#\d+\b|\bissue \[")


def resolve(dotted: str) -> bool:
    """Whether ``disdf.a.b.C.m`` names something: the longest importable module, then attributes
    (a dataclass field counts)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if hasattr(obj, name):
                obj = getattr(obj, name)
            elif dataclasses.is_dataclass(obj) and name in {f.name for f in dataclasses.fields(obj)}:
                obj = None
            else:
                return False
        return True
    return False


def test_the_readme_is_a_first_page():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150
    begin, end = (
        lines.index("<!-- BEGIN generated summary -->"),
        lines.index("<!-- END generated summary -->"),
    )
    assert 0 < end - begin <= 25


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dates_commit_hashes_or_issue_tags(path):
    text = path.read_text()
    for pattern in (DATE, HASH, ISSUE):
        assert not pattern.search(text), f"{path.name}: {pattern.search(text).group(0)!r}"


def test_every_disdf_name_the_docs_mention_exists():
    names = set()
    for path in SOURCES:
        names |= set(re.findall(r"\bdisdf(?:\.[A-Za-z_][A-Za-z0-9_]*)+", path.read_text()))
    assert len(names) > 20
    missing = sorted(name for name in names if not resolve(name))
    assert not missing


def test_every_results_file_the_docs_read_exists():
    """The build reads results files through ``.. results::`` generators; each file they name is there."""
    text = (DOCS / "_ext" / "results_data.py").read_text()
    files = set(re.findall(r'RESULTS / "([a-z_]+)" / "([a-z_]+\.csv)"', text))
    assert files
    for folder, name in files:
        assert (ROOT / "results" / folder / name).is_file()


@pytest.mark.parametrize(
    "name",
    [
        "CascadeForestClassifier",
        "DisDFClassifier",
        "PlainForestClassifier",
        "MultiGrainedScanner",
        "EmbeddingKNeighborsClassifier",
    ],
)
def test_every_parameter_is_documented_on_its_own_class(name):
    """help(DisDFClassifier) used to list DisDF's own 9 parameters and refer to the cascade's."""
    import inspect

    import disdf

    estimator = getattr(disdf, name)
    doc = inspect.getdoc(estimator)
    listed = r"^(?:\w+, )*{}(?:, \w+)* : "  # numpydoc's "a, b : type" documents both
    missing = [
        p for p in inspect.signature(estimator).parameters if not re.search(listed.format(p), doc, re.M)
    ]
    assert missing == []
