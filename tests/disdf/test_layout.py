"""The layout's rules, read from the source: the library is grouped by concern and its imports only go
down, it never imports the experiments, no import circles, every public name is exported."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import disdf

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


#: The library's rooms, each with its floor: a module imports only from its own room or from a lower floor
#: (never from a room on its own floor: those are independent concerns).
FLOORS = {
    "disdf._utils": 0,
    "disdf.utils": 1,  # the public face of a few _utils helpers (files, memory, parameter checks)
    "disdf.forests": 1,
    "disdf.weights": 1,
    "disdf.metric": 1,
    "disdf.datasets": 1,
    "disdf.cascade": 2,
    "disdf.scanning": 3,
    "disdf": 4,  # disdf/__init__.py: the public API
}
#: At most this many modules at the top of disdf/ (today: __init__.py alone).
TOP_LEVEL_MODULES = 6


def room_of(module: str) -> str:
    """The room (a key of FLOORS) a module of disdf lives in."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def test_the_library_is_grouped_by_concern():
    top = sorted(path.name for path in (ROOT / "disdf").glob("*.py"))
    rooms = sorted(p.name for p in (ROOT / "disdf").iterdir() if (p / "__init__.py").is_file())
    assert len(top) <= TOP_LEVEL_MODULES, top
    assert sorted(f"disdf.{room}" for room in rooms) == sorted(name for name in FLOORS if name != "disdf")


def test_imports_only_go_down():
    upward = []
    for module, imported in imports_of_our_modules().items():
        if not module.startswith("disdf"):
            continue
        for name in imported:
            if not name.startswith("disdf"):
                continue
            here, there = room_of(module), room_of(name)
            if here != there and FLOORS[there] >= FLOORS[here]:
                upward.append(f"{module} -> {name}")
    assert upward == []


@pytest.mark.parametrize(
    ("room", "never"),
    [
        ("disdf.forests", "disdf.cascade"),
        ("disdf.weights", "disdf.cascade"),
        ("disdf.weights", "disdf.forests"),
    ],
)
def test_the_engines_and_the_solvers_never_import_the_cascade(room, never):
    graph = imports_of_our_modules()
    offenders = {m: i for m, deps in graph.items() if m.startswith(room) for i in deps if i.startswith(never)}
    assert offenders == {}


def test_every_module_but_the_rooms_is_private():
    """A module that is not a room's __init__ has a private name, or lives in a private package."""
    public = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "disdf").rglob("*.py")
        if path.name != "__init__.py"
        and not any(part.startswith("_") for part in path.relative_to(ROOT / "disdf").parts)
    ]
    assert public == []


def public_objects() -> dict[str, object]:
    """Every estimator, error and warning class defined in the library, by qualified name."""
    found = {}
    for info in pkgutil.walk_packages(disdf.__path__, "disdf."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isclass(obj) or not obj.__module__.startswith("disdf"):
                continue
            if issubclass(obj, (BaseEstimator, Exception, Warning)):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_public_estimator_error_and_warning_is_exported():
    exported = {getattr(disdf, name) for name in disdf.__all__ if name != "__version__"}
    missing = sorted(name for name, obj in public_objects().items() if obj not in exported)
    assert missing == []


def test_every_room_exports_what_it_names_and_the_top_level_exports_it_again():
    for room in FLOORS:
        if room in ("disdf", "disdf._utils"):
            continue
        module = importlib.import_module(room)
        assert module.__all__, room
        for name in module.__all__:
            assert hasattr(module, name), f"{room}.{name}"


#: The reproduction's rooms and floors, as the library's: paths first (the one module every room reads
#: to find the checkout), then the safety mechanisms, the runner, the analysis of its records, the
#: rendering of reports, the drivers of whole runs and the command line.
EXPERIMENT_FLOORS = {
    "experiments": 0,  # its __init__: a docstring
    "experiments.paths": 0,
    "experiments.safety": 1,
    "experiments.running": 2,
    "experiments.analysis": 3,
    "experiments.reporting": 4,
    "experiments.drivers": 5,
    "experiments.run": 6,
}


def test_the_experiments_import_only_downwards():
    rooms = sorted(
        f"experiments.{p.stem}"
        for p in (ROOT / "experiments").iterdir()
        if (p / "__init__.py").is_file() or (p.suffix == ".py" and p.stem != "__init__")
    )
    assert rooms == sorted(room for room in EXPERIMENT_FLOORS if room != "experiments")
    upward = []
    for module, imported in imports_of_our_modules().items():
        if not module.startswith("experiments"):
            continue
        for name in imported:
            if name.startswith("experiments"):
                here, there = room_of(module), room_of(name)
                if here != there and EXPERIMENT_FLOORS[there] >= EXPERIMENT_FLOORS[here]:
                    upward.append(f"{module} -> {name}")
    assert upward == []


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
        "import sys, importlib.abc\n"
        "BLOCKED = {'pandas', 'ucimlrepo', 'hydra', 'omegaconf', 'matplotlib', 'tqdm', 'tabulate'}\n"
        "class Uninstalled(importlib.abc.MetaPathFinder):  # as if not installed: import raises\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] in BLOCKED:\n"
        "            raise ImportError(f'No module named {name!r}')\n"
        "sys.meta_path.insert(0, Uninstalled())\n"
        "import numpy as np, disdf.datasets._loaders, disdf.datasets._downloads\n"
        "from disdf import DisDFClassifier\n"
        "X = np.random.default_rng(0).normal(size=(60, 4)); y = (X[:, 0] > 0).astype(int)\n"
        "print(DisDFClassifier(n_trees=5, engine='fast', random_state=0).fit(X, y).n_levels_ >= 1)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "True", result.stderr


def test_importing_the_api_leaves_numba_unloaded():
    """numba (about 50 MiB resident) loads at the first fit or prediction, not with the estimators'
    import: ``import disdf`` stays near scikit-learn's own footprint (results/bench/first_fit.csv)."""
    import subprocess
    import sys

    probe = (
        "import sys, disdf\n"
        "from disdf import *\n"
        "import disdf.weights, disdf.metric, disdf.scanning\n"
        "print(sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.'))[:3])\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


#: Decorators that make a function compiled code (numba), whose machine code a cached caller embeds.
COMPILED = {"njit", "jit", "intrinsic", "overload", "generated_jit", "vectorize", "guvectorize", "cfunc"}


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def _is_cached(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in decorator.keywords
    )


def compiled_functions() -> dict[str, dict[str, bool]]:
    """Per module of disdf/, its compiled functions and whether each is cached on disk."""
    found = {}
    for path in sorted((ROOT / "disdf").rglob("*.py")):
        functions = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            decorators = getattr(node, "decorator_list", [])
            if isinstance(node, ast.FunctionDef) and any(_decorator_name(d) in COMPILED for d in decorators):
                functions[node.name] = any(_is_cached(d) for d in decorators)
        found[module_name(path)] = functions
    return found


def test_no_cached_kernel_calls_a_compiled_function_of_another_file():
    """numba's cache=True keys a cached function on its own file only (numba issue 1833): a cached
    caller in another file would keep the callee's old code after the callee changed
    (test_compiled_cache.py shows it). So cached kernels call compiled code of their own file only."""
    compiled = compiled_functions()
    crossing = []
    for path in sorted((ROOT / "disdf").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {}  # local name -> (module, name or None for the module itself)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in compiled:
                imported |= {a.asname or a.name: (node.module, a.name) for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.asname: (a.name, None) for a in node.names if a.asname and a.name in compiled}
        cached = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and compiled[module_name(path)].get(node.name)
        ]
        for function in cached:
            for node in ast.walk(function):
                if isinstance(node, ast.Name) and imported.get(node.id, (None, None))[1] is not None:
                    module, name = imported[node.id]
                elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    module, name = imported.get(node.value.id, (None, None))[0], node.attr
                else:
                    continue
                if module is not None and name in compiled.get(module, {}):
                    crossing.append(f"{module_name(path)}.{function.name} -> {module}.{name}")
    assert crossing == []


#: Modules allowed above MODULE_LINES, each with the words its docstring must give as the reason.
LONG_MODULES = {"disdf/forests/_compiled/kernels.py": "Why one file"}
MODULE_LINES = 500
#: A function's code: its body after the docstring (its signature and docstring are not counted, so
#: that documenting a function never pushes it over); a numba kernel's, KERNEL_LINES.
FUNCTION_LINES = 60
KERNEL_LINES = 80


def code_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function's body after its docstring."""
    body = function.body
    first = body[0]
    if len(body) > 1 and isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        first = body[1]
    return (function.end_lineno or first.lineno) - first.lineno + 1


def is_numba_kernel(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("njit" in ast.unparse(decorator) for decorator in function.decorator_list)


def test_modules_and_functions_stay_small():
    """No function of the library or the reproduction with more than 60 lines of code (a numba kernel:
    80); no module over 500 lines but the growth kernels, whose docstring says why they are one file."""
    long_functions, long_modules = [], []
    for path in sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                limit = KERNEL_LINES if is_numba_kernel(node) else FUNCTION_LINES
                if code_lines(node) > limit:
                    long_functions.append(f"{relative}:{node.lineno} {node.name}")
        if len(text.splitlines()) > MODULE_LINES:
            reason = LONG_MODULES.get(relative)
            if reason is None or reason not in (ast.get_docstring(tree) or ""):
                long_modules.append(relative)
    assert (long_functions, long_modules) == ([], [])


@pytest.mark.parametrize("name", ["CascadeForestClassifier", "DisDFClassifier"])
def test_the_estimators_surface_is_what_a_user_calls(name):
    """fit and fit_transform take X, y and sample_weight alone (no runner internals, hence a metadata
    request for sample_weight only); sharing level 1 and the memory check are private helpers."""
    estimator = getattr(disdf, name)()
    for method in ("fit", "fit_transform"):
        parameters = list(inspect.signature(getattr(estimator, method)).parameters)
        assert parameters == ["X", "y", "sample_weight"], method
    requested = inspect.signature(estimator.set_fit_request).parameters
    assert [name for name in requested if name != "self"] == ["sample_weight"]
    assert not any(hasattr(estimator, old) for old in ("grow_first_level", "check_fit_memory"))


def test_the_development_guide_lists_every_module():
    """docs/user_guide/development.rst's layout names every module and package of disdf/ and
    experiments/, each under its folder (indentation), and nothing that does not exist."""
    text = (ROOT / "docs" / "user_guide" / "development.rst").read_text(encoding="utf-8")
    block = text[text.index("   disdf/ ") : text.index("   configs/")]
    listed, folders = set(), []
    for line in block.splitlines():
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip()) - 3) // 2
        name = line.split()[0]
        folders[depth:] = [name.rstrip("/")] if name.endswith("/") else []
        path = "/".join([*folders[:depth], name.rstrip("/")]) if not name.endswith("/") else "/".join(folders)
        listed.add(path)
    present = {p.relative_to(ROOT).as_posix() for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    present |= {Path(p).parent.as_posix() for p in present}
    present |= {"disdf/py.typed"}
    assert sorted(present - listed) == [] and sorted(listed - present) == []


#: Benchmarks of the library's private stages: each times or patches a private module by name (a kernel,
#: a stage of the level loop), which no public name reaches. Everything else outside disdf/ imports
#: public names only.
INTERNAL_BENCHMARKS = {
    "scripts/bench/bench_engine.py": "clocks the private fold-model growth and weight solve",
    "scripts/bench/bench_fit_profile.py": "times each private stage of a fit",
    "scripts/bench/bench_grow_tree.py": "times the growth kernel against an older revision's",
    "scripts/bench/bench_routing_block.py": "times the prediction kernel per routing block",
    "scripts/bench/bench_split_breakdown.py": "times the private stages of a level's split",
    "scripts/bench/bench_split_solves.py": "records the private weight solves of a fit",
    "scripts/bench/bench_tree_floor.py": "times the growth kernel against reading each value once",
    "tests/experiments/test_bench_routing_block.py": "tests bench_routing_block.py",
}
#: The code outside the library that must keep to its public names (generated docs excluded).
OUTSIDE_THE_LIBRARY = ("experiments", "scripts", "docs", "tests/experiments")
GENERATED_DOCS = ("docs/_build", "docs/auto_examples", "docs/generated")


def private_imports(path: Path) -> list[str]:
    """Each import in ``path`` of a private module of disdf, or of a name a public module of disdf
    does not list in its ``__all__`` nor is a public room (``module:name``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names if alias.name.split(".")[0] == "disdf"]
            found += [name for name in modules if any(part.startswith("_") for part in name.split(".")[1:])]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "disdf":
            if any(part.startswith("_") for part in node.module.split(".")[1:]):
                found.append(node.module)
                continue
            module = importlib.import_module(node.module)
            rooms = {room.split(".")[-1] for room in FLOORS if room.startswith("disdf.")}
            public = set(module.__all__) | {room for room in rooms if not room.startswith("_")}
            found += [f"{node.module}:{alias.name}" for alias in node.names if alias.name not in public]
    return found


def test_outside_the_library_only_public_names_are_imported():
    """experiments/, scripts/, the docs' examples and the experiments' tests import names of ``__all__``
    (of disdf or of a public room: disdf.cascade, disdf.utils, ...), bar the internal benchmarks."""
    offenders = {}
    for folder in OUTSIDE_THE_LIBRARY:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(GENERATED_DOCS) or relative in INTERNAL_BENCHMARKS:
                continue
            if found := private_imports(path):
                offenders[relative] = found
    assert offenders == {}
    assert all((ROOT / path).is_file() for path in INTERNAL_BENCHMARKS)


def private_attributes_read(path: Path) -> list[str]:
    """Each ``obj._name`` of ``path`` whose object is not ``self`` or ``cls`` (``os._exit`` aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = ast.unparse(node.value)
            if owner not in ("self", "cls", "os"):
                found.append(f"{node.lineno}: {owner}.{node.attr}")
    return found


def test_outside_the_library_no_private_attribute_is_read():
    """The reproduction and the scripts call an estimator's public methods and the library's public
    functions (``disdf.utils.validate_estimator``, ``disdf.cascade.check_estimator_memory``), never a
    private method or attribute, bar the internal benchmarks."""
    offenders = {}
    for folder in ("experiments", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative not in INTERNAL_BENCHMARKS and (found := private_attributes_read(path)):
                offenders[relative] = found
    assert offenders == {}


def test_the_metric_room_reads_only_public_names_of_the_cascade_it_serves():
    """disdf/metric/ sits below the cascade: of its host it reads public methods and attributes
    (``transform``, ``levels_``, ``last_level_input``), and of itself whatever it defines."""
    defined, read = set(), {}
    for path in sorted((ROOT / "disdf" / "metric").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stubs = {  # the host's names declared for the type checker: read, not defined here
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if id(node) in stubs:
                continue
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                if isinstance(node.ctx, ast.Store):
                    defined.add(node.attr)
                else:
                    read.setdefault(node.attr, f"{path.name}:{node.lineno}")
    assert {name: where for name, where in read.items() if name not in defined} == {}


#: The most mixins of disdf's own an estimator's classes may have (the rest is composition).
MAX_MIXINS = 2


def test_each_estimator_has_at_most_two_mixins_of_its_own():
    """A mixin here: a class of disdf in an estimator's method order that is no estimator itself
    (``PairDistances``, ``VersionedPickle``); scikit-learn's own mixins are not counted."""
    too_many = {}
    for name in disdf.__all__:
        estimator = getattr(disdf, name)
        if not (inspect.isclass(estimator) and issubclass(estimator, BaseEstimator)):
            continue
        mixins = [
            cls.__name__
            for cls in estimator.__mro__
            if cls.__module__.startswith("disdf") and not issubclass(cls, BaseEstimator)
        ]
        if len(mixins) > MAX_MIXINS:
            too_many[name] = mixins
    assert too_many == {}
