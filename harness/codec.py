"""The JSON codec of observations: `encode(obs)` for files and the wire, `decode` back.

Text stays text, tab lists, the goal and the chat become JSON lists, the one-element arrays
(`active_page_index`, `elapsed_time`) become numbers, BrowserGym's page objects stay the JSON
they came as, and images become base64 PNG strings; `decode(encode(obs))` gives the same
observation, screenshots byte for byte. Recordings, reports, the SFT export and servers all read and write observations here.

    >>> data = encode(obs)                 # json.dumps(data) works
    >>> decode(data)["screenshot"].shape   # (720, 1280, 3), uint8
"""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Mapping
from typing import Any

import numpy as np
from PIL import Image

from .observation import FIELDS, Observation


class CodecError(ValueError):
    """A value cannot be encoded or decoded as the observation key it is stored under."""


def png_bytes(image: np.ndarray) -> bytes:
    """An H×W×3 uint8 array as PNG bytes."""
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[2] != 3:
        raise CodecError(
            f"an image must be an H×W×3 uint8 array, got {array.dtype} shape {array.shape}"
        )
    buffer = io.BytesIO()
    Image.fromarray(array, "RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def png_array(png: bytes) -> np.ndarray:
    """PNG bytes as an H×W×3 uint8 array."""
    try:
        with Image.open(io.BytesIO(png)) as image:
            return np.array(image.convert("RGB"), dtype=np.uint8)
    except OSError as error:
        raise CodecError(f"not a readable PNG image: {error}") from None


def png_data_uri(png: bytes) -> str:
    """PNG bytes as a `data:` URI (for self-contained HTML)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _field(key: str):
    field = FIELDS.get(key)
    if field is None:
        raise CodecError(f"{key!r} is not an observation key; known: {', '.join(FIELDS)}")
    return field


def _number(key: str, value: Any) -> int | float:
    array = np.asarray(value)
    if array.size != 1:
        raise CodecError(f"{key!r} must hold one number, got shape {array.shape}")
    return array.item()


def encode(obs: Mapping[str, Any], *, images: bool = True, objects: bool = True) -> dict[str, Any]:
    """`obs` as a JSON-serialisable dict (images as base64 PNG; images and BrowserGym's page
    objects are left out unless `images` and `objects`)."""
    data: dict[str, Any] = {}
    for key, value in obs.items():
        kind = _field(key).kind
        if kind == "image":
            if images and value is not None:
                data[key] = base64.b64encode(png_bytes(value)).decode("ascii")
        elif kind == "texts":
            data[key] = [str(item) for item in value]
        elif kind in ("goal", "chat"):
            data[key] = [dict(item) for item in value]
        elif kind == "index":
            data[key] = int(_number(key, value))
        elif kind == "seconds":
            data[key] = float(_number(key, value))
        elif kind == "object":
            if objects and value is not None:
                data[key] = value
        else:
            data[key] = value
    return data


def decode(data: Mapping[str, Any]) -> Observation:
    """The observation `encode` wrote (any subset of the keys): lists back to tuples, numbers
    back to one-element arrays and images back to H×W×3 uint8 arrays."""
    obs: dict[str, Any] = {}
    for key, value in data.items():
        kind = _field(key).kind
        if kind == "image":
            try:
                png = base64.b64decode(value, validate=True)
            except (binascii.Error, TypeError):
                raise CodecError(f"{key!r} is not base64 PNG data") from None
            obs[key] = png_array(png)
        elif kind == "texts":
            obs[key] = tuple(value)
        elif kind in ("goal", "chat"):
            obs[key] = tuple(dict(item) for item in value)
        elif kind == "index":
            obs[key] = np.array([_number(key, value)], dtype=np.int64)
        elif kind == "seconds":
            obs[key] = np.array([_number(key, value)], dtype=np.float64)
        else:
            obs[key] = value
    return obs  # type: ignore[return-value]


__all__ = ["CodecError", "decode", "encode", "png_array", "png_bytes", "png_data_uri"]
