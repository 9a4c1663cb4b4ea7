"""Window geometry of multi-grained scanning: where the windows of one example lie, and their rows.

gcForest's multi-grained scanning (Zhou & Feng, 2017, section 3.2; the paper's section 2) slides a
window of ``size`` features (1-D, over a vector) or of ``size x size`` pixels (2-D, over an image of
a given shape) with a step ``stride``; each position is one instance with the example's label. The
instances are read from a strided view (``numpy.lib.stride_tricks.sliding_window_view``) and copied
only for the examples asked for: a caller materialises one window size for a slice of examples at a
time, never every window of every size at once.

Default sizes (:func:`default_window_sizes`): gcForest's published setting for d raw features,
windows of floor(d/16), floor(d/8) and floor(d/4) features (Zhou & Feng 2017, the default settings
of section 4; table 1 of their 2019 *National Science Review* version), i.e. for a 28 x 28 image
(d = 784) windows of 49, 98 and 196 pixels, squares of side 7, 10 and 14 (round(sqrt(d/16)) and so
on), the 7 x 7, 10 x 10 and 14 x 14 windows given for MNIST.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, cast

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from disdf._utils.parameters import Constraint, InvalidParameterError

#: Divisors of d for the default window sizes (floor(d/16), floor(d/8), floor(d/4)).
DEFAULT_DIVISORS = (16, 8, 4)


def _is_positive_int(value: Any) -> bool:
    # cast: typeshed's numbers.Integral has no __ge__ (it compares only through its own __lt__/__le__)
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)) and cast(int, value) >= 1


@dataclass(frozen=True)
class ImageShape(Constraint):
    """None (1-D windows over vectors) or (height, width), two ints >= 1."""

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None:
            return
        if (
            isinstance(value, (str, bytes))
            or not isinstance(value, Sequence | np.ndarray)
            or len(value) != 2
            or not all(_is_positive_int(v) for v in value)
        ):
            raise InvalidParameterError(
                f"{owner}: {name} must be None or (height, width), two ints >= 1; got {value!r}"
            )


@dataclass(frozen=True)
class PositiveInts(Constraint):
    """An int >= 1 or a non-empty list of them (``one=True`` allows the single int); None if ``none``."""

    none: bool = True
    one: bool = False

    def check(self, owner: str, name: str, value: Any) -> None:
        if value is None and self.none:
            return
        if self.one and _is_positive_int(value):
            return
        values = (
            list(value) if isinstance(value, Sequence | np.ndarray) and not isinstance(value, str) else None
        )
        if not values or not all(_is_positive_int(v) for v in values):
            single = "an int >= 1 or " if self.one else ""
            raise InvalidParameterError(
                f"{owner}: {name} must be {single}a non-empty list of ints >= 1"
                f"{' or None' if self.none else ''}; got {value!r}"
            )


@dataclass(frozen=True)
class WindowGeometry:
    """The windows of one size over examples of ``n_features`` (1-D) or of ``image_shape`` (2-D)."""

    n_features: int
    image_shape: tuple[int, int] | None
    size: int
    stride: int

    @property
    def grid(self) -> tuple[int, ...]:
        """Window positions along each axis."""
        sides = (self.n_features,) if self.image_shape is None else self.image_shape
        return tuple((side - self.size) // self.stride + 1 for side in sides)

    @property
    def n_positions(self) -> int:
        return int(np.prod(self.grid))

    @property
    def window_features(self) -> int:
        return self.size if self.image_shape is None else self.size * self.size

    def instances(self, X: np.ndarray) -> np.ndarray:
        """Every window of every row of X, shape (n * n_positions, window_features), C-ordered:
        example i's windows are rows i * n_positions to (i + 1) * n_positions - 1, position-major."""
        n = X.shape[0]
        if self.image_shape is None:
            view = sliding_window_view(X, self.size, axis=1)[:, :: self.stride]
        else:
            images = X.reshape(n, *self.image_shape)
            view = sliding_window_view(images, (self.size, self.size), axis=(1, 2))
            view = view[:, :: self.stride, :: self.stride]
        return np.ascontiguousarray(view.reshape(n * self.n_positions, self.window_features))


def default_window_sizes(n_features: int, image_shape: tuple[int, int] | None) -> list[int]:
    """gcForest's floor(d/16), floor(d/8), floor(d/4) (see the module docstring), at least 1; for an
    image the side of the square of about that many pixels, at most the image's shorter side. A size
    is listed once: on a short input two divisors give the same window (d = 10: 1, 1, 2), and two
    scanners of one window would only repeat each other's features."""
    if image_shape is None:
        sizes = [max(1, n_features // k) for k in DEFAULT_DIVISORS]
    else:
        side = min(image_shape)
        sizes = [min(side, max(1, round((n_features / k) ** 0.5))) for k in DEFAULT_DIVISORS]
    return list(dict.fromkeys(sizes))


def window_geometries(owner: str, params: Mapping[str, Any], n_features: int) -> list[WindowGeometry]:
    """The geometry of each window size for examples of ``n_features``: refuses, naming the parameter,
    a window larger than the input, strides that do not match the window sizes, and an image shape
    whose pixels are not the examples' features."""
    image_shape = params["image_shape"]
    if image_shape is not None:
        image_shape = (int(image_shape[0]), int(image_shape[1]))
        if image_shape[0] * image_shape[1] != n_features:
            raise ValueError(
                f"{owner}: image_shape={image_shape} has {image_shape[0] * image_shape[1]} pixels but X "
                f"has {n_features} features"
            )
    sizes = params["window_sizes"]
    sizes = default_window_sizes(n_features, image_shape) if sizes is None else [int(s) for s in sizes]
    smallest = n_features if image_shape is None else min(image_shape)
    too_large = [s for s in sizes if s > smallest]
    if too_large:
        what = f"{n_features} features" if image_shape is None else f"the image's side {smallest}"
        raise InvalidParameterError(
            f"{owner}: window_sizes={list(sizes)} has windows larger than the input ({too_large} > {what})"
        )
    strides = params["strides"]
    strides = [int(strides)] * len(sizes) if _is_positive_int(strides) else [int(s) for s in strides]
    if len(strides) != len(sizes):
        raise InvalidParameterError(
            f"{owner}: strides={list(strides)} must be one int or one per window size ({len(sizes)})"
        )
    return [WindowGeometry(n_features, image_shape, s, t) for s, t in zip(sizes, strides, strict=True)]
