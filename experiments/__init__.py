"""The reproduction's experiment code: it runs from the checkout, with the package's ``experiments``
extra installed (``make install`` does both)."""

from importlib.util import find_spec

_MISSING = [name for name in ("hydra", "pandas", "matplotlib", "tabulate", "tqdm") if find_spec(name) is None]
if _MISSING:
    raise SystemExit(
        f"The experiment code needs the package's 'experiments' extra ({', '.join(_MISSING)} missing): "
        "pip install -e '.[experiments]' in the checkout, or `make install`"
    )
