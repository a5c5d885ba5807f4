"""Read and write the safetensors format with numpy only (no `safetensors` package needed).

Layout: u64 little-endian header length N, N bytes of JSON (padded with spaces to a multiple of 8), then the
raw little-endian tensor bytes, contiguous, in the order the tensors were given.

    save(path, {"name": np.ndarray, ...}, metadata={"key": "value"})
    tensors, metadata = load(path)
"""
import json
import struct

import numpy as np

_DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
    "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_,
}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


def to_bytes(tensors, metadata=None):
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    chunks, offset = [], 0
    for name, value in tensors.items():
        array = np.ascontiguousarray(value)
        if array.dtype not in _NAMES:
            raise ValueError(f"tensor '{name}': dtype {array.dtype} has no safetensors name")
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": _NAMES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def save(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(to_bytes(tensors, metadata))


def from_bytes(data):
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"header length {n} is larger than the {len(data) - 8} bytes that follow")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    body = data[8 + n:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        if entry["dtype"] == "BF16":
            raw = np.frombuffer(body[begin:end], dtype="<u2").astype(np.uint32) << 16
            tensors[name] = raw.view(np.float32).reshape(entry["shape"])
            continue
        dtype = np.dtype(_DTYPES[entry["dtype"]]).newbyteorder("<")
        tensors[name] = np.frombuffer(body[begin:end], dtype=dtype).reshape(entry["shape"]).copy()
    return tensors, metadata


def load(path):
    with open(path, "rb") as f:
        return from_bytes(f.read())
