"""Arrays on disk (.npz) for every element type, without pickle.

numpy cannot describe ml_dtypes types (bf16, f8, i4, ...) in an .npz header, so each
array is stored as its raw bits (an unsigned view) and the dtype names travel in an
extra ``__dtypes__`` entry.  Files stay loadable by plain numpy (``allow_pickle=False``).
"""

from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from .errors import BadInputFile
from .types import element_type, element_type_of_dtype, is_extension_dtype

_DTYPES_KEY = "__dtypes__"


def _raw(array: np.ndarray) -> np.ndarray:
    if not is_extension_dtype(array.dtype):
        return array
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def save_arrays(path_or_file, arrays: list[np.ndarray]) -> None:
    names = []
    payload = {}
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        names.append(element_type_of_dtype(a.dtype).name)
        payload[f"arg{i}"] = _raw(np.array(a, order="C", copy=True))
    payload[_DTYPES_KEY] = np.array(json.dumps(names))
    np.savez(path_or_file, **payload)


def load_arrays(path_or_file) -> list[np.ndarray]:
    with np.load(path_or_file, allow_pickle=False) as data:
        if _DTYPES_KEY not in data:  # a plain user-written .npz: keys in order, numpy dtypes
            return [data[k] for k in data.files]
        names = json.loads(str(data[_DTYPES_KEY]))
        return [data[f"arg{i}"].view(element_type(n).dtype) for i, n in enumerate(names)]


def save_array_sets(path: str, sets: dict[str, list]) -> None:
    """Named lists of arrays (``{case id: [outputs]}``) in one compressed .npz, each array as
    ``save_arrays`` stores it; ``load_array_sets`` reads them back."""
    payload, index = {}, {}
    for n, (key, arrays) in enumerate(sets.items()):
        names = []
        for i, a in enumerate(arrays):
            a = np.asarray(a)
            names.append(element_type_of_dtype(a.dtype).name)
            payload[f"s{n}_{i}"] = _raw(np.array(a, order="C", copy=True))
        index[key] = [n, names]
    payload[_DTYPES_KEY] = np.array(json.dumps(index))
    np.savez_compressed(path, **payload)


def load_array_sets(path: str) -> dict[str, list[np.ndarray]]:
    """The inverse of ``save_array_sets``."""
    with np.load(path, allow_pickle=False) as data:
        index = json.loads(str(data[_DTYPES_KEY]))
        return {key: [data[f"s{n}_{i}"].view(element_type(name).dtype) for i, name in enumerate(names)]
                for key, (n, names) in index.items()}


def read_arrays_file(path: str) -> list[np.ndarray]:
    """``load_arrays`` on a file the user named: anything unusable is a BadInputFile naming it."""
    if os.path.isdir(path):
        raise BadInputFile(f"{path}: is a folder, not an .npz file")
    if not os.path.exists(path):
        raise BadInputFile(f"{path}: no such file")
    try:
        if not zipfile.is_zipfile(path):
            raise BadInputFile(f"{path}: not an .npz file (numpy.savez's zip format)")
        with np.load(path, allow_pickle=False) as data:
            for name in data.files:  # find the entry numpy refuses, to name it
                try:
                    data[name]
                except ValueError:
                    raise BadInputFile(f"{path}: entry {name!r} is an object array; only numeric arrays are "
                                       "read (object arrays would need pickle)") from None
        return load_arrays(path)
    except OSError as e:
        raise BadInputFile(f"{path}: cannot read ({e.strerror or e})") from None
    except (zipfile.BadZipFile, EOFError, KeyError, ValueError, TypeError) as e:
        if isinstance(e, BadInputFile):
            raise
        raise BadInputFile(f"{path}: corrupt .npz ({type(e).__name__}: {e})") from None
