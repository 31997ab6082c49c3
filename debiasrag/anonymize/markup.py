"""Markup in a corpus row (HTML / XML tags, comments, character references), blanked so detectors read words only.

Every function keeps the text's length, so offsets found in the blanked copy are offsets into the original and the
operators work on the original, tags intact. Web pages are a common RAG corpus: before session 47 spaCy read
"<b>Adwoa Mensah</b></li><li>QA" as one name and the removal took the tags with it
(``ner_gold_report9.jsonl``'s HTML texts: person recall 0.500, the markup broken in 13 of 20).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator

# A tag (with its attributes), a comment, or a link (a URL's path names no one: "/she")
_COMMENT = r"<!--.*?-->"
_TAG = r"</?[A-Za-z][\w:.-]*(?:\s[^<>]{0,500})?/?>"
_LINK = r"\b(?:https?://|www\.)[^\s<>\])]+"
# What a reader never sees (session 48's walkthrough: "<!DOCTYPE html>" lost "DOCTYPE" as an ORG, a script's
# "gtag('config','G-ABC123',{user:'Jordan'})" one MISC entity and its JavaScript, a style's ".author-Kenji" its name):
# a script or style element whole, a declaration, a processing instruction, a CDATA section
_HIDDEN = (
    r"(?P<hidden>(?i:<(?P<element>script|style)\b[^<>]{0,500}>.*?</(?P=element)\s*>)"
    r"|<!\[CDATA\[.*?\]\]>|<![A-Za-z][^<>]{0,500}>|<\?[A-Za-z][^<>]{0,500}\?>)"
)
# Markdown: a link's or an image's target, "[Tomás Herrera](https://github.com/tomas-herrera)" (its text is read; a
# name ran into "](https://github.com" before), and an autolink of a URL, "<https://example.com/priya>" (whole). An
# address in brackets stays text: "Jane Doe <jane@example.com>" is how mail and commits sign a name.
_TARGET = r"(?P<target>\]\((?:[^()\s]|\([^()\s]*\))*(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?\))"
_AUTOLINK = r"(?P<autolink><(?:https?|ftp|mailto):[^\s<>]+>)"
_MARKUP = re.compile(f"{_COMMENT}|{_HIDDEN}|{_TAG}|{_TARGET}|{_AUTOLINK}", re.DOTALL)
_MARKUP_AND_LINKS = re.compile(f"{_COMMENT}|{_HIDDEN}|{_TAG}|{_TARGET}|{_AUTOLINK}|{_LINK}", re.DOTALL)
# Where a page shows code (left alone as a Markdown fence is: :func:`~debiasrag.anonymize.code_lines.block_code`)
_CODE_ELEMENT = re.compile(r"<(pre|code)\b[^<>]{0,500}>(.*?)</\1\s*>", re.IGNORECASE | re.DOTALL)
_REFERENCE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
# Attributes whose values are text a reader sees (an image's alt text names the person in the photo)
_READABLE = re.compile(
    r"""\b(?:alt|title|aria-label|placeholder|label)\s*=\s*(["'])(.*?)\1""", re.IGNORECASE | re.DOTALL
)
_TAG_NAME = re.compile(r"</?([A-Za-z][\w:.-]*)")
_CLOSING = re.compile(r"</[A-Za-z][\w:.-]*\s*>")
# Tags that end a line of what the reader sees: a name never runs across them ("<td>Ravi Shankar</td><td>Engineer")
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br caption dd details div dl dt figcaption figure footer form h1 h2 h3 h4 h5 "
    "h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)


# HTML's elements: a tag of another name is markup only with attributes, a closing tag, or its own closing tag in
# the text (XML); "<mkowalski> anyone seen …" is an IRC nick, a person (ner_gold_report7/8's chat logs)
_HTML_ELEMENTS = _BLOCK_TAGS | frozenset(
    "a abbr area audio b base bdi bdo body button canvas cite code col colgroup data datalist del dfn dialog em embed "
    "fieldset font head html i iframe img input ins kbd label legend link map mark menu meta meter noscript object "
    "optgroup option output param picture progress q rp rt ruby s samp script select slot small source span strong "
    "style sub sup svg template textarea time title track u var video wbr center big tt strike".split()
)


def _is_tag(piece: str, text: str) -> bool:
    if piece.startswith(("<!--", "</")) or piece.endswith("/>") or "=" in piece:
        return True
    name = _TAG_NAME.match(piece)
    if name is None:
        return False
    closing = f"</{name.group(1).lower()}>"
    # an element of HTML's only in a text that closes a tag: "<Mark> hi" alone is a chat speaker, not <mark>
    return closing in text.lower() or (name.group(1).lower() in _HTML_ELEMENTS and _CLOSING.search(text) is not None)


def _markup(text: str, pattern: re.Pattern[str] = _MARKUP) -> Iterator[re.Match[str]]:
    """The tags and comments of ``text`` (and whatever else ``pattern`` matches that is no ``<``…``>``)."""
    for match in pattern.finditer(text):
        piece = match.group()
        if not piece.startswith("<") or match.lastgroup is not None or _is_tag(piece, text):
            yield match


def _shown(match: re.Match[str]) -> list[tuple[int, int]]:
    """The parts of a piece of markup a reader sees, as spans of its text: a tag's ``alt`` / ``title`` /
    ``aria-label`` values."""
    piece = match.group()
    if match.lastgroup is not None or piece.startswith("<!") or not piece.startswith("<"):
        return []
    return [(match.start() + v.start(2), match.start() + v.end(2)) for v in _READABLE.finditer(piece)]


def has_markup(text: str) -> bool:
    """Whether ``text`` holds a tag, a comment or a character reference (``&amp;``)."""
    return (("<" in text or "](" in text) and next(_markup(text), None) is not None) or (
        "&" in text and _REFERENCE.search(text) is not None
    )


def blank_markup(text: str, *, links: bool = False, readable: bool = False, breaks: bool = False) -> str:
    """``text`` with its tags and comments (and with ``links``, its URLs) replaced by as many spaces; so are what a
    reader never sees (a script or style element, ``<!DOCTYPE …>``) and a Markdown link's target (``](url)``).

    ``readable`` keeps the values of attributes a reader sees (``alt``, ``title``, ``aria-label``) and blanks
    character references (``&amp;`` -> ``&``, ``&ndash;`` -> ``–``, a letter's as spaces); ``breaks`` starts a block
    tag's blank with a line break (``</td>``, ``<li>``, ``<br>``), where what the reader sees breaks too.
    """
    pattern = _MARKUP_AND_LINKS if links else _MARKUP

    def blanked(match: re.Match[str]) -> str:
        piece = match.group()
        out = [" "] * len(piece)
        for start, end in _shown(match) if readable else ():
            out[start - match.start() : end - match.start()] = text[start:end].replace("\n", " ")
        name = _TAG_NAME.match(piece) if breaks else None
        if match.lastgroup == "hidden" and breaks:
            out[0] = "\n"
        elif name is not None and name.group(1).lower() in _BLOCK_TAGS:
            out[0] = "\n"
        return "".join(out)

    parts, position = [], 0
    for match in _markup(text, pattern):
        parts += [text[position : match.start()], blanked(match)]
        position = match.end()
    text = "".join(parts) + text[position:]
    if readable:
        text = _REFERENCE.sub(lambda m: _character(m.group()) + " " * (len(m.group()) - 1), text)
    return text


def _character(reference: str) -> str:
    """The one character a reader sees for a character reference, if it is punctuation or a symbol ("&ndash;" ->
    "–": "<b>Tyrone Jackson</b> &ndash; Site manager" was read as one name "Tyrone Jackson … Site", session 48),
    otherwise a space."""
    shown = html.unescape(reference)
    return shown if len(shown) == 1 and not shown.isalnum() and not shown.isspace() else " "


def markup_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each tag, comment and character reference of ``text``: what a name never spans."""
    if not has_markup(text):
        return []
    spans = []
    for match in _markup(text) if "<" in text or "](" in text else ():
        # an attribute a reader sees is text: a name in an image's alt text is removed from it
        spans += outside(match.start(), match.end(), _shown(match))
    spans += [m.span() for m in _REFERENCE.finditer(text)] if "&" in text else []
    return sorted(spans)


def outside(start: int, end: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``start``..``end`` that no span of ``spans`` (sorted, not overlapping) covers."""
    parts, position = [], start
    for a, b in spans:
        if b <= position or a >= end:
            continue
        if a > position:
            parts.append((position, a))
        position = max(position, b)
    if position < end:
        parts.append((position, end))
    return parts


def code_regions(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the contents of each ``<pre>`` and ``<code>`` element of ``text``: code the page shows,
    which :func:`~debiasrag.anonymize.code_lines.block_code` reads as it reads a Markdown fence's lines."""
    if "<" not in text:
        return []
    return [m.span(2) for m in _CODE_ELEMENT.finditer(text)]


# Elements whose text is often a label of the page rather than prose: a button, a link, a form's label or option, a
# table's cell, a list item, a term, emphasis ("<strong>Forgot password?</strong>")
_LABEL_ELEMENT = re.compile(
    r"<(a|b|button|dd|dt|em|i|label|legend|li|option|span|strong|summary|td|th)\b[^<>]{0,500}>([^<>]{1,80})</\1\s*>",
    re.IGNORECASE,
)


def label_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the text of each element of ``text`` that may be a label of the page (a button, a link, an
    option, a cell, a list item, emphasis) and holds no other tag: ``<button>Sign in</button>``'s "Sign in"."""
    if "<" not in text:
        return []
    return [m.span(2) for m in _LABEL_ELEMENT.finditer(text)]


# References decoded before detection: a letter ("Chlo&eacute;", "Ra&#250;l"), a space ("Priya&nbsp;Raman") or a mark
# a name is written with (an apostrophe, a hyphen, a dot); never one that would make or end markup ("&lt;", "&amp;",
# "&quot;"), which stay references (read as the character, never inside a name)
_NAME_MARKS = frozenset("'\u2019\u02bc-\u2010\u2011.\u00b7")
_SPACES = "\n\r\t"


def _decoded(reference: str) -> str | None:
    """The character a reader sees for ``reference`` when it may be part of a name (a letter, a combining mark, an
    apostrophe, a hyphen, a dot; a space as " "), else None."""
    shown = html.unescape(reference)
    if len(shown) != 1:
        return None
    if shown.isspace():
        return shown if shown in _SPACES else " "
    if shown.isalnum() or shown in _NAME_MARKS or unicodedata.category(shown).startswith("M"):
        return shown
    return None


def decode_references(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with its character references of letters, spaces and a name's marks decoded, as a reader sees it
    ("Ra&#250;l Fern&#225;ndez" -> "Raúl Fernández"), and, for each character of that copy, where it starts and ends
    in ``text``; None when ``text`` has no such reference. A name found in the copy maps back to the whole of its
    written form, references included (session 48's walkthrough: "Chlo&eacute; Martin" was not found, "Ra&#250;l
    Fern&#225;ndez" became three names)."""
    if "&" not in text:
        return None
    pieces: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for match in _REFERENCE.finditer(text):
        shown = _decoded(match.group())
        if shown is None:
            continue
        pieces.append(text[position : match.start()])
        starts.extend(range(position, match.start()))
        ends.extend(range(position + 1, match.start() + 1))
        pieces.append(shown)
        starts.append(match.start())
        ends.append(match.end())
        position = match.end()
    if not pieces:
        return None
    pieces.append(text[position:])
    starts.extend(range(position, len(text)))
    ends.extend(range(position + 1, len(text) + 1))
    return "".join(pieces), starts, ends


# Attribute values that hold text about the page rather than an address: a meta tag's content ("author",
# "description"), a data-* value, and the values a reader sees (alt, title, aria-label, ...)
_VALUE = re.compile(
    r"""\b(?:content|data-[\w.:-]+|alt|title|aria-label|placeholder|label)\s*=\s*(["'])(.*?)\1""", re.I | re.S
)
_CONDITIONAL = re.compile(r"<!--\s*\[")


def named_markup(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the parts of ``text``'s markup that may name someone the prose names: the text of each HTML
    comment ("<!-- TODO(siobhan): ... -->") and the value of a ``content``, ``data-*``, ``alt``, ``title``,
    ``aria-label`` or ``placeholder`` attribute (``<meta name="author" content="Priya Raman">``); not a script's,
    a style's or a declaration's. A URL or file name in them is left to the caller's boundaries."""
    if "<" not in text:
        return []
    spans = []
    for match in _markup(text):
        piece = match.group()
        if match.lastgroup is not None:
            continue
        if piece.startswith("<!--"):
            if _CONDITIONAL.match(piece) is None:
                spans.append((match.start() + 4, match.end() - 3))
        elif not piece.startswith("<!"):
            spans += [(match.start() + v.start(2), match.start() + v.end(2)) for v in _VALUE.finditer(piece)]
    return [(a, b) for a, b in spans if b > a]
