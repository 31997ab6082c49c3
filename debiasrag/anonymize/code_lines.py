"""Which lines of a text are source code, so the reader of lower-case names in casual text leaves them alone.

Code opens its lines in lower case, as chat does ("obj = dict(obj)", "elif arg:", "from pydantic import ..."), so a
source file, a notebook or a README's code block read as casual text gave "obj", "elif", "param" and "pydantic" for
names. :func:`code_spans` finds the code in a text line by line; the words and thresholds it uses are
``data/names/code_context.json``'s. A comment on a code line or a comment line ("# TODO(sven): ...", "// thanks
priya") stays text, and only its marker is left out, so a comment's first word counts as a sentence's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_FENCE = re.compile(r"[ \t]*(?:```|~~~)")
# Where a comment starts: "#" or "//" opening the line or after a space, "/*", "<!--", or a "*" opening the line
# (a block comment's middle lines). Not "#fff", "https://", "a//b".
_COMMENT = re.compile(r"(?:^|(?<=[ \t]))(?:#+|//+|/\*+|<!--)|^[ \t]*\*+(?=[ \t/]|$)")
_FIRST_WORD = re.compile(r"[ \t]*([A-Za-z_]\w*)")
# Strong signs: any one makes a line code.
_STRONG = re.compile(
    r"==|!=|<=|>=|[-+*/%|&^]=|:=|\w::\w|&&|\|\|"  # operators
    # an assignment opening the line ("x = 1", "self.a[0] += b"); not an emoticon ("lol =D")
    r"|^[ \t]*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?[ \t]*(?:\*\*|//|[-+*/%&|^@])?=(?![=DPp3)(][ \t]*$)[ \t]*\S"
    r"|^[ \t]*[A-Za-z_]\w*[ \t]*:[\w.\[\], |'\"]+=[ \t]*\S"  # an annotated one ("name: str = 'x'")
    r"|[(,][ \t]*[A-Za-z_]\w*=(?!=)"  # a keyword argument ("f(a=1", ", b=2")
    r"|\b[A-Za-z_]\w*\.[A-Za-z_]\w*\("  # a dotted call ("np.max(")
    r"|\b(?:self|cls|this)\.[A-Za-z_]"
    r"|[;{][ \t]*$|^[ \t]*[)\]}][)\]};,.:]*[ \t]*$"  # ";" or "{" ending the line; closing brackets only
    r"|^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|^[ \t]*class[ \t]+\w+[ \t]*[(:]"
    r"|^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]"
    r"|^[ \t]*import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*[ \t]*;?[ \t]*$"
)
_CALL = re.compile(r"\b[A-Za-z_]\w*(?:\((?!e?s\))|\[)")  # "f(x)", "obj[key]"; not "friend(s)"
_OPEN_END = re.compile(r"[:,(\[\\][ \t]*$")
# A name before a colon, maybe with a type in brackets: an annotation ("name: str") or a docstring's parameter
# ("loc (float or Tensor): mean of ...", "obj : dict")
_PARAMETER = re.compile(r"[ \t]*\*{0,2}[A-Za-z_]\w*(?:[ \t]*\([^)\n]*\))?[ \t]*:(?:[ \t]|$)")
_STRING = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'")
_NAME = re.compile(r"[A-Za-z_]\w*")
# Inline code ("try `obj.get(arg)`"), reST fields opening a line (":param obj:", ":type obj: dict") and roles
# (":meth:`load`", ":py:class:`Param`"): left out wherever they are.
_INLINE = re.compile(
    r"`[^`\n]+`|^[ \t]*:[A-Za-z_][\w.-]*(?:[ \t]+[\w.*\[\], |]+)?:(?=\s|$)|:[\w-]+(?::[\w-]+)?:(?=`)", re.MULTILINE
)
_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*_\w|\b[A-Za-z_]\w+\.[A-Za-z_]\w+")  # "snake_case", "os.path"


@lru_cache(maxsize=1)
def _context() -> dict[str, Any]:
    from debiasrag.resources import read_json

    raw = read_json("names", "code_context.json")
    return {k: frozenset(v) if isinstance(v, list) else v for k, v in raw.items() if not k.startswith("_")}


def _code_line(body: str, indent: int, comment: bool = False) -> tuple[bool, int]:
    """Whether a line's code part (comment removed) has a strong sign of code, and how many weak signs it has; in a
    comment a name before a colon is no sign ("TODO(sven): move this")."""
    context = _context()
    first = _FIRST_WORD.match(body)
    word = first.group(1) if first else ""
    if _STRONG.search(body) or word in context["code_only_words"]:
        return True, 0
    if word in context["block_keywords"] and body.rstrip().endswith(":"):
        return True, 0
    weak = (
        (indent >= context["min_indent"])
        + (word in context["statement_keywords"])
        + (not comment and bool(_PARAMETER.match(body)))
        + bool(_CALL.search(body))
        + bool(_OPEN_END.search(body))
        + bool(_IDENTIFIER.search(body))
    )
    return False, weak


def code_spans(text: str, shape: str | None = None) -> list[tuple[int, int]]:
    """The parts of ``text`` that are code, and the comment markers on its code lines, as ``(start, end)`` spans.

    ``shape`` (as long as ``text``) is the text lines are classified on, where a chat log's speaker labels are
    blanked ("[09:02] maria_k: ..."); a line's indentation is ``text``'s. A line is code with a strong sign, or with
    ``weak_signs_for_code`` weak ones in a text that has at least one line with a strong sign; a line inside a
    Markdown fence is code. A comment stays text, unless it is code commented out. Inline code in backticks and reST
    fields and roles are code wherever they are; a text with no other code gives only those."""
    shape = text if shape is None else shape
    context = _context()
    inline = [m.span() for m in _INLINE.finditer(shape)] if "`" in shape or ":" in shape else []
    shape = blank(shape, inline)
    fenced = False
    lines: list[tuple[int, int, int, bool, int]] = []  # start, end of the code part, marker end, strong, weak
    end = -1
    for line in shape.split("\n"):
        start = end + 1
        end = start + len(line)
        if _FENCE.match(line):
            fenced = not fenced
            lines.append((start, end, end, True, 0))
            continue
        comment = _COMMENT.search(line)
        code_end = start + comment.start() if comment else end
        marker_end = start + comment.end() if comment else end
        body = shape[start:code_end]
        if comment:
            strong, weak = _code_line(shape[marker_end:end], 0, comment=True)
            if strong or weak >= context["weak_signs_for_code"]:  # code commented out ("# del obj[key]")
                lines.append((start, end, end, strong, weak))
                continue
        if not body.strip():
            if comment:  # a comment line: only its marker goes
                lines.append((start + comment.start(), start + comment.start(), marker_end, True, 0))
            continue
        original = text[start:end]
        indent = len(original) - len(original.lstrip(" ")) if not original.startswith("\t") else 8
        strong, weak = (True, 0) if fenced else _code_line(body, indent)
        lines.append((start, code_end, marker_end, strong, weak))
    if not any(strong and code_start < code_end for code_start, code_end, _, strong, _ in lines):
        return inline
    spans = inline
    for code_start, _, marker_end, strong, weak in lines:
        if strong or weak >= context["weak_signs_for_code"]:
            spans.append((code_start, marker_end))
    return spans


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` replaced by spaces (line breaks kept)."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = [c if c == "\n" else " " for c in text[start:end]]
    return "".join(chars)


def code_names(text: str, spans: list[tuple[int, int]]) -> frozenset[str]:
    """The identifiers of the code in ``text`` at ``spans`` (outside its string literals), lower case: "pydantic"
    and "obj" of "from pydantic import BaseModel", "def f(obj):"; not "priya" of 'owner = "priya"'."""
    return frozenset(n for a, b in spans for n in _NAME.findall(_STRING.sub(" ", text[a:b])) if n.islower())


# The info string of a fence whose lines are no program (a log, a transcript, plain text): there a line is code only
# as :func:`code_spans` reads it outside fences, by its signs
_PROSE_FENCE = re.compile(
    r"[ \t]*(?:```|~~~)[ \t]*(?:text|txt|plain|plaintext|log|logs|output|console|md|markdown)?"
    r"[ \t]*$",
    re.IGNORECASE,
)
# A variable of a shell, a template or an environment, code even inside a string ("Bearer $TOKEN", "${USER}")
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?|%[A-Za-z_]\w*%|\{\{[^{}\n]*\}\}")


def block_code(text: str, regions: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The code of ``text``'s code blocks, as ``(start, end)`` spans the NER anonymizer leaves unread (session 48's
    walkthrough: "Bearer $TOKEN" of a fenced ``bash`` block lost "TOKEN" as a PERSON, Go code in an HTML ``<pre>``
    "Charge(ctx", "Context", "Receipt"). The blocks are Markdown fences (the fence lines too) and ``regions`` (an HTML
    page's ``<pre>`` / ``<code>`` contents, :func:`~debiasrag.anonymize.markup.code_regions`); in a fence whose info
    string names no program ("```text", "```log", none) only the lines with :func:`code_spans`'s signs of code. As
    there, a comment stays text ("# thanks priya"), and so does a string literal ('--author "Priya Raman"') but for the
    variables in it ("$TOKEN")."""
    if not regions and "```" not in text and "~~~" not in text:
        return []
    context = _context()
    lines: list[tuple[int, int]] = []
    fence: bool | None = None  # None outside a fence, else whether every line of it is code
    end = -1
    for line in text.split("\n"):
        start = end + 1
        end = start + len(line)
        if _FENCE.match(line):
            fence = None if fence is not None else _PROSE_FENCE.fullmatch(line) is None
            lines.append((start, end))
            continue
        if fence is None and not any(a < end and start < b for a, b in regions):
            continue
        comment = _COMMENT.search(line)
        code_end = start + comment.start() if comment else end
        if fence is False:
            strong, weak = _code_line(text[start:code_end], len(line) - len(line.lstrip(" ")))
            if not strong and weak < context["weak_signs_for_code"]:
                continue
        if fence is None:  # in a region only: "<p>Run <code>make test</code> ...</p>"
            for a, b in regions:
                if a < code_end and start < b:
                    lines.append((max(a, start), min(b, code_end)))
            continue
        lines.append((start, code_end))
    spans: list[tuple[int, int]] = []
    for start, end in lines:
        position = start
        for string in _STRING.finditer(text, start, end):
            spans.append((position, string.start()))
            spans += [v.span() for v in _VARIABLE.finditer(text, string.start(), string.end())]
            position = string.end()
        spans.append((position, end))
    return [(a, b) for a, b in spans if a < b]
