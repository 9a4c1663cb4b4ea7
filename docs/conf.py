"""Sphinx configuration of disdf's documentation (`make docs`: warnings are errors, references checked)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))  # the checkout's disdf and experiments, not an installed copy
sys.path.insert(0, str(DOCS / "_ext"))
os.environ.setdefault("DISDF_DATA_DIR", str(ROOT.parent / "shared" / "data"))

import disdf  # noqa: E402

project = "disdf"
author = "the disdf developers"
copyright = "the disdf developers"
release = disdf.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: the pages render offline
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "results_data",
]

exclude_patterns = ["_build", "**.ipynb_checkpoints", "examples/README.rst"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]
nitpicky = True
# Types written in words in numpydoc "Parameters" (array-like, default=...) are prose, not references;
# signatures carry no type hints (numpy's and scikit-learn's inventories are not fetched offline).
autodoc_typehints = "none"
# A class shows its own members and those of disdf's classes it inherits (DisDFClassifier's fit,
# pair_distance), not scikit-learn's (get_params, score: documented upstream).
SKLEARN_BASES = (
    "BaseEstimator,ClassifierMixin,RegressorMixin,TransformerMixin,_SetOutputMixin,_MetadataRequester,object"
)
autodoc_default_options = {
    "members": True,
    "undoc-members": True,
    "inherited-members": SKLEARN_BASES
    + ",BaseException,Exception,Warning,UserWarning,RuntimeError,MemoryError,ValueError,dict,tuple",
    "show-inheritance": True,
}
autodoc_member_order = "bysource"
# The page's table of contents lists "fit()", not "CascadeForestClassifier.fit()": it fits the sidebar.
toc_object_entries_show_parents = "hide"
autosummary_generate = True
autosummary_imported_members = False
# The top-level names (disdf.DisDFClassifier, ...) are documented once, on the package's page; the
# modules that define them leave them out (see _templates/autosummary/module.rst).
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()
default_role = "py:obj"
# Names the docstrings mention that live outside disdf (no inventory offline) or are the paper's.
nitpick_ignore_regex = [
    # private helpers and modules a docstring names (any dotted part private): real code, not in the reference
    ("py:.*", r"(.*\.)?_[a-z_].*"),
    (
        "py:.*",
        r"prediction_kernels\..*",
    ),  # named relative to its package in disdf.forests._compiled.leaf_memo
    ("py:class", r"InvalidParameterError"),  # scikit-learn's
    ("py:.*", r"(numpy|np|sklearn|scipy|cvxpy|joblib|numba|pandas|collections|typing|pathlib|os|time)\..*"),
    ("py:class", r"(ndarray|array-like|callable|optional|RandomState|Path|PathLike|Callable|Mapping|Any)"),
]


def skip_member(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods (metadata routing) belong to its docs."""
    return True if name.startswith("set_") and name.endswith("_request") else None


def public_bases(app, name, obj, options, bases):
    """A class page names its public bases only: scikit-learn's, and the library's that ``disdf``
    exports (shown under that name); its private mixins are implementation, their methods documented
    on the class itself."""
    bases[:] = [
        base
        for base in bases
        if not base.__module__.startswith("disdf") or getattr(disdf, base.__name__, None) is base
    ]


def locate(path: str):
    """The object a dotted path names, importing the longest module prefix (so that a submodule wins over
    a package attribute of the same name), or None."""
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attribute in parts[i:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return None
        return obj
    return None


def resolve_alias(app, env, node, contnode):
    """A reference to a name re-exported elsewhere (``disdf.weights.WeightProblem``,
    ``disdf.CascadeForestClassifier.transform``, ``SOLVER_REGISTRY`` in
    ``disdf.weights``) resolves to where the object is documented. The object must import, so the
    pointer is real."""
    if node.get("refdomain") != "py":
        return None
    target, module = node["reftarget"], node.get("py:module")
    obj = locate(target) or (locate(f"{module}.{target}") if module else None)
    if obj is None:
        return None
    domain = env.get_domain("py")
    names = []
    if getattr(obj, "__module__", None) and getattr(obj, "__qualname__", None):
        names += [f"{obj.__module__}.{obj.__qualname__}", f"disdf.{obj.__qualname__}"]
    last = target.rsplit(".", 1)[-1]
    names += [name for name in domain.objects if name.endswith("." + last) and locate(name) is obj]
    for name in names:
        if name != target:
            found = domain.resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], name, node, contnode
            )
            if found is not None:
                return found
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_member)
    app.connect("autodoc-process-bases", public_bases)
    app.connect("missing-reference", resolve_alias)


html_theme = "pydata_sphinx_theme"
html_title = f"disdf {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # The examples' code is wide: their pages give the right-hand column to it.
    "secondary_sidebar_items": {
        pattern: ["page-toc"]
        for pattern in ("index", "getting_started", "api", "glossary", "user_guide/*", "generated/*")
    }
    | {"auto_examples/*": []},
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_show_sourcelink = False
html_context = {"default_mode": "light"}

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    "abort_on_example_error": True,
    "run_stale_examples": False,
}
