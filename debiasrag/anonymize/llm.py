"""LLM anonymizer on the official ``anthropic`` SDK, with the seed's prompts (Tables 5 and 17).

The LLM is used as a *detector*: its answer is aligned with the input, and only an answer that is the input
minus some name-like spans (or with those spans swapped for ``CHAR_A`` / ``LOC_A`` / ``ORG_A`` placeholders) is
accepted. The spans it deleted become :class:`Entity` objects with offsets into the original, and our own
operators produce the output, so ``remove`` / ``replace`` behave exactly as with NER. An answer that rewrites,
summarises, adds a preamble or drops ordinary words is rejected and that document falls back to the NER
anonymizer; the reason is recorded in ``AnonymizedText.fallback`` - never a lost or reordered row.

An answer that aligns is still checked against the NER detector run on the same text: if any name NER finds
survives the answer (an echo of the input after a prompt injection, a partial removal), the answer is rejected
and that document falls back to NER, with the reason recorded. Only accepted answers are cached.

Safe over a corpus: requests run in a thread pool (``max_concurrency``); each attempt gives up after
``timeout`` seconds; the SDK retries 408/409/429/5xx, connection errors and timeouts with exponential backoff
(``max_retries``); accepted answers are cached on disk keyed by model + prompt + text, so a re-run costs
nothing. Ctrl-C cancels the batch: nothing more is sent and requests in flight are closed, not retried. An unknown
model (404) or a refused API key (401/403) stops the run with :class:`LlmSetupError`
naming the setting to change, instead of quietly falling back for every document.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from debiasrag.anonymize.base import (
    AnonymizedText,
    Entity,
    check_batch,
    filter_entities,
    labels_for,
    parse_entity_types,
)
from debiasrag.anonymize.ner import (
    DEFAULT_SPACY_MODEL,
    NerAnonymizer,
    find_occurrences,
    split_for_spacy,
)
from debiasrag.anonymize.operators import Operator, PlaceholderMapping, compose, get_operator
from debiasrag.errors import DebiasragError, InputError, OutputError, check_int, check_names
from debiasrag.fileio import atomic_write_json, user_cache_dir
from debiasrag.resources import data_file

logger = logging.getLogger(__name__)

# The current Sonnet in Anthropic's models overview (platform.claude.com/docs/en/about-claude/models/overview;
# claude-sonnet-5 is listed there as legacy) and in the SDK's ``anthropic.types.ModelParam`` (checked by a test).
DEFAULT_LLM_MODEL = "claude-sonnet-5-5"
# Seconds per request attempt; the SDK's own default is 600 s, far too long to notice a hung gateway.
DEFAULT_TIMEOUT = 60.0
API_KEY_VARIABLE = "ANTHROPIC_API_KEY"
PROMPTS = {
    "remove_person_location": "anonymize_remove_person_location.txt",  # seed Table 5, row 1 (its default)
    "remove_person": "anonymize_remove_person.txt",  # seed Table 5, row 2
    "replace": "anonymize_replace.txt",  # seed Table 17
}
# Placeholder families of the replacement prompt -> our labels.
_PLACEHOLDER = re.compile(r"^(CHAR|CHARACTER|PERSON|LOC|LOCATION|ORG|ORGANIZATION)_[A-Z0-9]{1,3}$")
_PLACEHOLDER_LABEL = {
    "CHAR": "PERSON",
    "CHARACTER": "PERSON",
    "PERSON": "PERSON",
    "LOC": "LOC",
    "LOCATION": "LOC",
    "ORG": "ORG",
    "ORGANIZATION": "ORG",
}
_TOKEN = re.compile(r"\w+|[^\w\s]")
# Lower-case words that belong to names ("Leonardo da Vinci", "Osama bin Laden", "Bosnia and Herzegovina" no).
_PARTICLES = {
    "de",
    "da",
    "das",
    "do",
    "dos",
    "di",
    "du",
    "del",
    "della",
    "der",
    "den",
    "van",
    "von",
    "bin",
    "binti",
    "ibn",
    "bint",
    "al",
    "el",
    "la",
    "le",
    "y",
    "ben",
    "ter",
    "af",
    "zu",
}
_NAME_PUNCT = {"'", "\u2019", "-", ".", ","}


class LlmSetupError(DebiasragError):
    """The Anthropic API refused the model or the key: every request would fail the same way, so stop.

    ``hint`` names the library parameter; ``cli_hint`` the command-line flag or variable to change.
    """

    cli_hint: str = ""
    kind: str = ""  # "model" or "key"

    def for_cli(self, hint: str | None = None) -> DebiasragError:
        """The same error phrased for the command line (``--llm-model`` instead of ``model=``)."""
        return DebiasragError(self.message, hint=hint or self.cli_hint or self.hint)


class RequestCancelled(BaseException):
    """Raised by the transport once a batch is cancelled (Ctrl-C).

    A ``BaseException``, like ``KeyboardInterrupt``: the SDK retries every ``Exception`` a request raises, and a
    cancelled batch must send nothing more (a user saw 16 paid requests after Ctrl-C, session 46).
    """


class _Cancellation:
    """One batch's requests: once cancelled, none is sent and the connections still open are closed."""

    def __init__(self) -> None:
        self._cancelled = False
        self._open: set[Any] = set()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            transports, self._open = list(self._open), set()
        for transport in transports:  # ends a read in flight; the SDK's retry then meets `opened` and stops
            transport.close()

    def opened(self, transport: Any) -> None:
        with self._lock:
            if not self._cancelled:
                self._open.add(transport)
                return
        transport.close()
        raise RequestCancelled("the batch was cancelled")

    def closed(self, transport: Any) -> None:
        with self._lock:
            self._open.discard(transport)


# The batch a worker thread is asking for, read by the transport (which the SDK calls without our arguments).
_current = threading.local()


def _error_type(exc: Exception) -> str:
    """The API's error type (``authentication_error``) from an SDK status error, if the body has one."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else "error"


def default_cache_dir() -> Path:
    """The LLM answer cache folder: ``llm-anonymize`` under ``$DEBIASRAG_CACHE_DIR`` or ``~/.cache/debiasrag``."""
    return user_cache_dir() / "llm-anonymize"


def load_prompt(name: str) -> str:
    """The packaged prompt called ``name`` (InputError listing the known prompts otherwise)."""
    if name not in PROMPTS:
        raise InputError(f"unknown prompt {name!r}; choose from {', '.join(PROMPTS)}")
    path = data_file("prompts", PROMPTS[name])
    return path.read_text(encoding="utf-8").strip()


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _name_token(token: str) -> bool:
    return token[:1].isupper() or token in _PARTICLES or token in _NAME_PUNCT or token == "s" or token.isdigit()


def _entities_from_run(text: str, run: list[tuple[str, int, int]], label: str) -> list[Entity] | None:
    """Split a deleted run of tokens into names; None if it contains an ordinary word (a rewrite, not a removal)."""
    if not all(_name_token(tok) for tok, _, _ in run):
        return None
    entities: list[Entity] = []
    current: list[tuple[str, int, int]] = []

    def close() -> None:
        # Drop a trailing possessive and punctuation: the name is the span, the operator removes "'s".
        while current and (
            current[-1][0] in _NAME_PUNCT
            or (current[-1][0] == "s" and len(current) > 1 and current[-2][0] in ("'", "\u2019"))
        ):
            current.pop()
            if current and current[-1][0] in ("'", "\u2019"):
                current.pop()
        while current and not current[0][0][:1].isupper():
            current.pop(0)
        if current:
            start, end = current[0][1], current[-1][2]
            entities.append(Entity(text[start:end], label, start, end))
        current.clear()

    for token in run:
        gap = text[current[-1][2] : token[1]] if current else ""
        if token[0] == "," or "\n" in gap or (current and gap.strip()):
            close()
            if token[0] == ",":
                continue
        current.append(token)
    close()
    if not entities and any(tok[:1].isupper() for tok, _, _ in run):
        return None
    return entities


def spans_from_answer(text: str, answer: str, labelled: bool) -> tuple[list[Entity] | None, str]:
    """Align an LLM answer with its input. Returns (entities, "") or (None, why the answer was rejected).

    Accepted: the input with name-like runs deleted (label ``NAME``) or, when ``labelled``, replaced by one
    placeholder each (label from the placeholder family). Comparison ignores whitespace and letter case.
    """
    source = _tokens(text)
    target = _tokens(answer.strip())
    matcher = SequenceMatcher(
        None, [t[0].casefold() for t in source], [t[0].casefold() for t in target], autojunk=False
    )
    entities: list[Entity] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        run = source[i1:i2]
        if op == "insert":
            return None, f"the answer adds words ({' '.join(t[0] for t in target[j1:j2])[:60]!r})"
        label = "NAME"
        if op == "replace":
            inserted = [t[0] for t in target[j1:j2]]
            if not labelled or len(inserted) != 1 or not _PLACEHOLDER.match(inserted[0]):
                before, after = " ".join(t[0] for t in run)[:40], " ".join(inserted)[:40]
                return None, f"the answer changes words ({before!r} -> {after!r})"
            label = _PLACEHOLDER_LABEL[inserted[0].split("_")[0]]
        found = _entities_from_run(text, run, label)
        if found is None:
            return None, f"the answer deletes ordinary words ({' '.join(t[0] for t in run)[:60]!r})"
        entities.extend(found)
    return entities, ""


_WORD = re.compile(r"\w+")


def surviving_names(detected: Sequence[Entity], removed: Sequence[Entity]) -> list[str]:
    """Names the NER detector found (``detected``) that the LLM's ``removed`` spans do not cover, word by word.

    A name counts as surviving when any of its capitalised words lies outside every removed span, so a
    partial removal ("Alice Smith" -> "Smith") is caught as well as an answer that keeps the name whole.
    """
    covered = sorted((e.start, e.end) for e in removed)
    left: list[str] = []
    for entity in detected:
        for word in _WORD.finditer(entity.text):
            if not word.group(0)[:1].isupper():
                continue  # particles ("da", "bin") may legitimately stay with a looser LLM boundary
            start, end = entity.start + word.start(), entity.start + word.end()
            if not any(s <= start and end <= e for s, e in covered):
                left.append(entity.text)
                break
    return left


def _check_base_url(base_url: str | None) -> None:
    """Refuse a base URL every request would fail on (not http(s), no host, a bad port, control characters)."""
    from_env = base_url is None
    url = os.environ.get("ANTHROPIC_BASE_URL") if from_env else base_url
    if not url:
        return
    problem = "it holds spaces or control characters" if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url) else ""
    try:
        parts = urlsplit(url)
        if not (parts.scheme in ("http", "https") and parts.hostname):
            problem = problem or "not an http(s) URL with a host"
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        problem = problem or str(exc)
    if problem:
        if from_env:
            raise InputError(f"ANTHROPIC_BASE_URL {url!r} is not a usable URL ({problem})", hint="fix or unset it")
        raise InputError(
            f"the LLM base URL {url!r} is not usable ({problem})",
            hint="for the API itself, or your gateway's http(s) URL",
            option="base_url",
            value="https://api.anthropic.com",
        )


def _client(*, api_key: str, base_url: str | None, max_retries: int, timeout: Any) -> Any:
    """The SDK client, each of whose request attempts ends at most about ``timeout`` seconds after it was sent.

    The HTTP library's timeouts apply to each socket read, so a server that trickles its headers or its body a
    few bytes at a time would never time out; each attempt therefore gets a connection of its own, which a timer
    closes at the deadline (see :func:`_deadline_transport`).
    """
    import anthropic

    seconds = float(getattr(timeout, "read", None) or timeout)  # pickled clients carry a Timeout object
    http_client = anthropic.DefaultHttpxClient()
    # The SDK's own transport settings (socket options, limits) for every attempt; requests through a proxy from
    # the environment use the client's proxy mounts instead and keep the per-read timeouts only.
    http_client._transport = _deadline_transport(
        http_client, seconds, lambda: anthropic.DefaultHttpxClient()._transport
    )
    return anthropic.Anthropic(
        api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout, http_client=http_client
    )


def _deadline_transport(client: Any, seconds: float, new_transport: Callable[[], Any]) -> Any:
    """A transport running each request on a fresh ``new_transport()`` that a timer closes after ``seconds``.

    Closing it ends the attempt however slowly the server sends (the next read fails); the failure is raised as
    the HTTP library's ``ReadTimeout``, which the SDK retries like any timeout.
    """
    http = importlib.import_module(type(client._transport).__module__.partition(".")[0])  # httpx2, as the SDK uses

    def timed_out(request: Any) -> Exception:
        return http.ReadTimeout(f"no complete answer within {seconds:g} s", request=request)

    class DeadlineStream(http.SyncByteStream):  # type: ignore[name-defined]
        def __init__(self, stream: Any, request: Any, timer: threading.Timer, inner: Any) -> None:
            self.stream, self.request, self.timer, self.inner = stream, request, timer, inner
            self.batch: _Cancellation | None = None

        def __iter__(self) -> Iterator[bytes]:
            try:
                for chunk in self.stream:
                    if not self.timer.is_alive():
                        raise timed_out(self.request)
                    yield chunk
            except http.TransportError as exc:
                if not self.timer.is_alive():
                    raise timed_out(self.request) from exc
                raise

        def close(self) -> None:
            self.timer.cancel()
            try:
                self.stream.close()
            finally:
                self.inner.close()
                if self.batch is not None:
                    self.batch.closed(self.inner)

    class DeadlineTransport(http.BaseTransport):  # type: ignore[name-defined]
        def handle_request(self, request: Any) -> Any:
            inner = new_transport()
            batch: _Cancellation | None = getattr(_current, "batch", None)
            if batch is not None:
                batch.opened(inner)  # raises RequestCancelled once the batch is cancelled
            timer = threading.Timer(seconds, inner.close)
            timer.daemon = True
            timer.start()
            try:
                response = inner.handle_request(request)
            except BaseException as exc:
                expired = not timer.is_alive() and not isinstance(exc, KeyboardInterrupt)
                timer.cancel()
                inner.close()
                if batch is not None:
                    batch.closed(inner)
                if expired and isinstance(exc, (http.TransportError, OSError)):
                    raise timed_out(request) from exc
                raise
            stream = DeadlineStream(response.stream, request, timer, inner)
            stream.batch = batch
            return http.Response(
                response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
            )

        def close(self) -> None:
            pass  # each request's own transport is closed when its response is

    return DeadlineTransport()


class LlmAnonymizer:
    """Anonymize with an Anthropic model; rejected answers and failed requests fall back to :class:`NerAnonymizer`.

    ``api_key`` defaults to ``$ANTHROPIC_API_KEY``; ``base_url`` points the SDK elsewhere (a proxy, a gateway,
    a test server); without it the SDK reads ``$ANTHROPIC_BASE_URL``. ``prompt`` overrides the seed prompt chosen
    from ``strategy``/``entities``. ``cache_dir=None`` disables the cache. ``fallback="error"`` raises instead of
    falling back. ``timeout`` is in seconds per attempt, so one chunk waits at most about
    ``(max_retries + 1) * timeout`` plus the SDK's short backoff before it falls back.

    Raises :class:`LlmSetupError` when the API answers 404 (unknown ``model``) or 401/403 (``api_key``).
    """

    method = "llm"

    def __init__(
        self,
        model: str = DEFAULT_LLM_MODEL,
        *,
        strategy: str = "remove",
        entities: str | Iterable[str] | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        prompt: str | None = None,
        max_concurrency: int = 4,
        max_retries: int = 4,
        timeout: float = DEFAULT_TIMEOUT,
        max_tokens: int | None = None,
        cache_dir: str | Path | None = "default",
        max_chars: int = 12_000,
        fallback: str = "ner",
        ner_model: str = DEFAULT_SPACY_MODEL,
        allow_list: Iterable[str] = (),
        deny_list: Iterable[str] = (),
        mapping: PlaceholderMapping | None = None,
    ) -> None:
        _check_base_url(base_url)
        key = api_key or os.environ.get(API_KEY_VARIABLE)
        if not key:
            raise InputError(
                f"the LLM anonymizer needs an Anthropic API key: set {API_KEY_VARIABLE}",
                hint="instead, which runs offline",
                option="method",
                value="ner",
            )
        if fallback not in ("ner", "error"):
            raise InputError("fallback must be 'ner' or 'error'")
        max_concurrency, max_retries = (
            check_int("max_concurrency", max_concurrency),
            check_int("max_retries", max_retries, 0),
        )
        max_chars = check_int("max_chars", max_chars, 200)
        if max_tokens is not None:
            max_tokens = check_int("max_tokens", max_tokens)
        allow_list, deny_list = check_names("allow_list", allow_list), check_names("deny_list", deny_list)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
            raise InputError(f"timeout must be a positive number of seconds, not {timeout!r}", option="timeout")
        try:
            import anthropic  # noqa: F401 - the llm extra must be installed
        except ImportError as exc:  # pragma: no cover - declared in the llm extra
            raise InputError("the LLM anonymizer needs the anthropic SDK: pip install 'debiasrag[llm]'") from exc
        self.model = model
        self.strategy = strategy
        self.entity_types = parse_entity_types(entities)
        self.labels = labels_for(self.entity_types)
        self.allow_list = frozenset(allow_list)
        self.deny_list = frozenset(deny_list)
        self.mapping = mapping
        self.operator: Operator = get_operator(strategy, mapping)
        self.prompt_name, self.labelled = self._choose_prompt(strategy, set(self.entity_types))
        self.prompt = prompt.strip() if prompt else load_prompt(self.prompt_name)
        self.max_concurrency = max_concurrency
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.fallback_mode = fallback
        self.ner_model = ner_model
        self._fallback: NerAnonymizer | None = None
        self.cache_dir = (
            None if cache_dir is None else (default_cache_dir() if cache_dir == "default" else Path(cache_dir))
        )
        self.client = _client(api_key=key, base_url=base_url, max_retries=max_retries, timeout=timeout)
        self.stats = {"requests": 0, "cache_hits": 0, "fallbacks": 0}
        self._setup_error: LlmSetupError | None = None
        self._setup_lock = threading.Lock()

    # -- pickling: the HTTP client (locks, sockets) is rebuilt from its settings, the NER fallback on first use -
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        client = state.pop("client")
        state["_fallback"] = None
        state["_setup_lock"] = None
        state["_client_options"] = {
            "api_key": client.api_key,
            "base_url": str(client.base_url),
            "max_retries": client.max_retries,
            "timeout": client.timeout,
        }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        options = state.pop("_client_options")
        self.__dict__.update(state)
        self._setup_lock = threading.Lock()
        self.client = _client(**options)  # cheap: no connection is opened until the first request

    @staticmethod
    def _choose_prompt(strategy: str, types: set[str]) -> tuple[str, bool]:
        # The removal prompts cannot say which kind of name they deleted, so a selection they do not cover
        # exactly (e.g. person + location without organisations) uses the labelling prompt of Table 17.
        if strategy == "remove" and types == {"person"}:
            return "remove_person", False
        if strategy == "remove" and {"person", "location", "organization"} <= types:
            return "remove_person_location", False
        return "replace", True

    # -- public API -------------------------------------------------------------------------------------
    def anonymize(self, text: str) -> AnonymizedText:
        """One text anonymized by the model (NER fallback when the answer is rejected or the model unavailable)."""
        return self.anonymize_batch([text])[0]

    def anonymize_batch(self, texts: Sequence[str]) -> list[AnonymizedText]:
        """Several texts; each answer is checked, cached when accepted, NER-anonymized otherwise."""
        texts = check_batch(texts)
        if self._setup_error is not None:
            raise self._setup_error  # the model or key was refused earlier: the same answer would come back
        plans = [split_for_spacy(text, self.max_chars) if text.strip() else [] for text in texts]
        unique = list(dict.fromkeys(chunk for plan in plans for _, chunk in plan))
        batch = _Cancellation()
        pool = ThreadPoolExecutor(max_workers=self.max_concurrency)
        try:
            answers = dict(zip(unique, pool.map(lambda chunk: self._ask(chunk, batch), unique)))
        except BaseException:  # Ctrl-C: send nothing more; requests in flight are closed, not retried
            batch.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        if self._setup_error is not None:
            raise self._setup_error
        verdicts = self._judge(answers)
        results: list[AnonymizedText | None] = []
        failed: list[tuple[int, str]] = []
        for index, (text, plan) in enumerate(zip(texts, plans)):
            entities: list[Entity] = []
            problem = ""
            for offset, chunk in plan:
                found, problem = verdicts[chunk]
                if found is None:
                    break
                entities.extend(Entity(e.text, e.label, e.start + offset, e.end + offset) for e in found)
            if problem:
                if self.fallback_mode == "error":
                    raise DebiasragError(f"text {index}: {problem}")
                failed.append((index, problem))
                results.append(None)
                continue
            results.append(self._transform(text, entities))
        if failed:
            logger.info("%d text(s) fall back to NER, e.g. text %d: %s", len(failed), failed[0][0], failed[0][1])
            self.stats["fallbacks"] += len(failed)
            fallback = self._fallback_anonymizer()
            for (index, problem), result in zip(failed, fallback.anonymize_batch([texts[i] for i, _ in failed])):
                result.fallback = problem
                results[index] = result
        return [r for r in results if r is not None]

    def _judge(self, answers: dict[str, tuple[str, str, bool]]) -> dict[str, tuple[list[Entity] | None, str]]:
        """Accept or reject each chunk's answer: (entities, "") or (None, why). Caches accepted fresh answers."""
        verdicts: dict[str, tuple[list[Entity] | None, str]] = {}
        aligned: dict[str, list[Entity]] = {}
        for chunk, (answer, error, _) in answers.items():
            if error:
                verdicts[chunk] = None, f"LLM request failed ({error})"
                continue
            found, why = spans_from_answer(chunk, answer, self.labelled)
            if found is None:
                verdicts[chunk] = None, f"LLM answer rejected: {why}"
            else:
                aligned[chunk] = found
        if aligned:
            # The privacy check: every name the NER detector finds in the same chunk must be gone.
            chunks = list(aligned)
            ner = self._fallback_anonymizer()
            for chunk, detected in zip(chunks, ner.detect_batch(chunks)):
                kept = self._kept(chunk, aligned[chunk])
                left = surviving_names(detected, kept)
                lost = ner.ordinary_words(aligned[chunk], detected) if not left else []
                if lost:  # an answer may drop a name NER missed, not "However" or "I"
                    shown = ", ".join(repr(w) for w in dict.fromkeys(lost[:3]))
                    verdicts[chunk] = None, f"LLM answer rejected: the answer deletes ordinary words ({shown})"
                    continue
                if not left:
                    verdicts[chunk] = aligned[chunk], ""
                    continue
                answer = answers[chunk][0]
                how = "repeats the input" if answer.strip() == chunk.strip() else "keeps"
                shown = ", ".join(repr(n[:40]) for n in dict.fromkeys(left[:3]))
                verdicts[chunk] = None, f"LLM answer rejected: the answer {how} name(s) NER found ({shown})"
        for chunk, (answer, _, from_cache) in answers.items():
            path = self._cache_path(chunk)
            if path is None or chunk not in verdicts:
                continue
            if verdicts[chunk][0] is not None and not from_cache:
                self._write_cache(path, answer)
            elif verdicts[chunk][0] is None and from_cache:
                path.unlink(missing_ok=True)  # written by an older version without these checks: never serve it
        return verdicts

    # -- internals --------------------------------------------------------------------------------------
    def _kept(self, text: str, entities: list[Entity]) -> list[Entity]:
        """The LLM's entities of the selected types plus deny-list names: what the operator will change."""
        labels = self.labels | ({"NAME"} if not self.labelled else set())
        if self.deny_list:
            entities = entities + find_occurrences(text, {n: "MISC" for n in self.deny_list}, ignore_case=True)
        return filter_entities(entities, frozenset(labels), self.allow_list, self.deny_list)

    def _transform(self, text: str, entities: list[Entity]) -> AnonymizedText:
        return compose(text, self._kept(text, entities), self.operator, self.method)

    def _fallback_anonymizer(self) -> NerAnonymizer:
        if self._fallback is None:
            self._fallback = NerAnonymizer(
                self.ner_model,
                strategy=self.strategy,
                entities=self.entity_types,
                allow_list=self.allow_list,
                deny_list=self.deny_list,
                mapping=self.mapping,
            )
        return self._fallback

    def _cache_path(self, chunk: str) -> Path | None:
        if self.cache_dir is None:
            return None
        key = hashlib.sha256(json.dumps([self.model, self.prompt, chunk]).encode("utf-8")).hexdigest()
        return self.cache_dir / key[:2] / f"{key}.json"

    def _ask(self, chunk: str, batch: _Cancellation) -> tuple[str, str, bool]:
        """Return (answer, "", from_cache) or ("", error description, False).

        Never raises: one bad document must not sink a batch. A refused model or key is remembered in
        ``_setup_error`` (raised by the caller) and stops the requests still queued.
        """
        _current.batch = batch
        try:
            return self._ask_once(chunk)
        except RequestCancelled:
            return "", "cancelled", False
        finally:
            _current.batch = None

    def _ask_once(self, chunk: str) -> tuple[str, str, bool]:
        path = self._cache_path(chunk)
        if path is not None and path.is_file():
            try:
                answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
                if isinstance(answer, str):
                    self.stats["cache_hits"] += 1
                    return answer, "", True
            except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:  # corrupt: asked again
                logger.info("ignoring unreadable LLM cache entry %s: %s", path, exc)
        if self._setup_error is not None:
            return "", "not sent", False
        import anthropic

        try:
            self.stats["requests"] += 1
            message = self.client.messages.create(
                model=self.model,
                max_tokens=self.max_tokens or min(8192, 256 + len(chunk) // 2),
                messages=[{"role": "user", "content": f"{self.prompt}\n{chunk}"}],
            )
            content = getattr(message, "content", None)
            if not isinstance(content, list):
                return "", "malformed response (no content list)", False
            answer = "".join(str(getattr(block, "text", "") or "") for block in content)
        except anthropic.NotFoundError as exc:
            # Offering the model just refused would send the user round in a circle (a walkthrough, session 46).
            example = "" if self.model == DEFAULT_LLM_MODEL else f", e.g. {DEFAULT_LLM_MODEL}"
            self._refused(
                "model",
                f"the Anthropic API does not know the model {self.model!r} (404 {_error_type(exc)})",
                f"pass model= with a model listed in Anthropic's models overview{example}",
                f"use --llm-model with a model listed in Anthropic's models overview{example}",
                exc,
            )
            return "", "model not found", False
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            self._refused(
                "key",
                f"the Anthropic API refused the API key ({exc.status_code} {_error_type(exc)})",
                f"set a valid key in {API_KEY_VARIABLE} or pass api_key=",
                f"set a valid key in {API_KEY_VARIABLE}",
                exc,
            )
            return "", "API key refused", False
        except Exception as exc:  # SDK already retried what is retryable; anything left falls back to NER
            return "", f"{type(exc).__name__}: {str(exc)[:120]}", False
        return answer, "", False

    def _refused(self, kind: str, message: str, hint: str, cli_hint: str, exc: Exception) -> None:
        with self._setup_lock:
            if self._setup_error is None:
                error = LlmSetupError(message, hint=hint)
                error.cli_hint, error.kind = cli_hint, kind
                error.__cause__ = exc
                self._setup_error = error

    def _write_cache(self, path: Path, answer: str) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_json(path, {"model": self.model, "answer": answer}, indent=None)
        except (OSError, OutputError) as exc:  # the cache is an optimisation; a read-only disk must not fail the run
            logger.info("could not write the LLM cache entry %s: %s", path, exc)
