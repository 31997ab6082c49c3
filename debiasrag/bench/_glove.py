"""Old import path of the GloVe loader, kept for code written against it; see :mod:`debiasrag.glove`."""

from debiasrag.glove import GloveVectors, package_root, read_parquet_strings, snappy_decompress

__all__ = ["GloveVectors", "package_root", "read_parquet_strings", "snappy_decompress"]
