"""A scraped web corpus (HTML and Markdown pages), session 48's walkthrough: links, hidden parts, code, deny-listed
names in addresses, person-only removal and the labels of a page (``/tmp/s48/user5/repro/01``-``05``)."""

from __future__ import annotations

import re

import pytest

from debiasrag.anonymize import NerAnonymizer
from debiasrag.anonymize.code_lines import block_code
from debiasrag.anonymize.markup import blank_markup, code_regions, label_spans, markup_spans
from tests.anonymize_support import anonymizer_for

TAG = re.compile(r"</?[A-Za-z][^<>]*>")


@pytest.fixture(scope="module")
def person() -> NerAnonymizer:
    return NerAnonymizer(entities="person")


@pytest.fixture(scope="module")
def fast_person() -> NerAnonymizer:
    return NerAnonymizer(entities="person", use_ner=False)


@pytest.fixture(scope="module", params=["default", "person"])
def either(request, person) -> NerAnonymizer:
    return anonymizer_for("ner") if request.param == "default" else person


# -- 1. Markdown links ------------------------------------------------------------------------------------------


def test_a_markdown_link_target_is_markup():
    text = "*Posted by [Tomás Herrera](https://github.com/tomas-herrera)*"
    start = text.index("](")
    assert markup_spans(text) == [(start, len(text) - 1)]
    assert blank_markup(text, readable=True) == text[:start] + " " * (len(text) - 1 - start) + "*"
    # an image's alt text is read, its source not; an autolink of a URL is not read at all
    image = "![Portrait of Kofi Boateng](img/kofi.jpg) <https://example.com/priya>"
    assert blank_markup(image, readable=True).split() == ["![Portrait", "of", "Kofi", "Boateng"]


@pytest.mark.parametrize(
    ("text", "names", "out"),
    [
        (
            "*Posted by [Tomás Herrera](https://github.com/tomas-herrera)*",
            ["Tomás Herrera"],
            "*Posted by [](https://github.com/tomas-herrera)*",
        ),
        (
            "Thanks to [Priya Raman](https://example.com/priya) and [Kwame Mensah](https://example.com/kwame).",
            ["Priya Raman", "Kwame Mensah"],
            "Thanks to [](https://example.com/priya) and [](https://example.com/kwame).",
        ),
    ],
)
def test_a_name_in_link_text_goes_and_the_target_stays(either, text, names, out):
    result = either.anonymize(text)
    assert [e.text for e in result.entities] == names  # was "Tomás Herrera](https://github.com"; none person-only
    assert result.text == out


def test_replace_puts_the_placeholder_inside_the_link():
    anonymizer = NerAnonymizer(entities="person", strategy="replace")
    result = anonymizer.anonymize("Posted by [Tomás Herrera](https://github.com/tomas-herrera) on Monday.")
    assert result.text == "Posted by [PERSON_1](https://github.com/tomas-herrera) on Monday."
    assert result.mapping == {"PERSON_1": "Tomás Herrera"}


# -- 2. what a reader never sees, and code ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "kept", "gone"),
    [
        ("<!DOCTYPE html>\n<html><body><p>Written by Amara Okafor.</p></body></html>", "<!DOCTYPE html>", "Okafor"),
        (
            "<p>Written by Amara Okafor.</p>\n<script>gtag('config','G-ABC123',{user:'Jordan'});</script>",
            "<script>gtag('config','G-ABC123',{user:'Jordan'});</script>",
            "Okafor",
        ),
        (
            "<style>.author-Kenji { font-weight: bold; }</style>\n<p>Kenji Watanabe designed the mailer.</p>",
            "<style>.author-Kenji { font-weight: bold; }</style>",
            "Watanabe",
        ),
        (
            "<pre><code>func (s *Server) Charge(ctx context.Context, req *ChargeRequest) (*Receipt, error) {\n"
            "    return s.gateway.Charge(ctx, req.Amount, req.Token)\n}</code></pre>\n"
            "<p>Oluwaseun Adeyemi led the rewrite.</p>",
            "(*Receipt, error) {\n    return s.gateway.Charge(ctx, req.Amount, req.Token)\n}</code></pre>",
            "Adeyemi",
        ),
    ],
)
def test_hidden_parts_and_code_of_a_page_stay(page, kept, gone):
    out = anonymizer_for("ner").anonymize(page).text
    assert kept in out and gone not in out, out
    assert TAG.findall(out) == TAG.findall(page)


def test_a_fenced_blocks_code_stays_its_comments_and_strings_are_read(person):
    text = (
        "Wanjiru Kamau's team shipped it.\n\n```bash\n# thanks Priya Raman for the script\n"
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v2/carts/me\n'
        'git commit --author "Kwame Mensah"\n```'
    )
    out = person.anonymize(text).text
    assert '"Authorization: Bearer $TOKEN"' in out  # "TOKEN" was a PERSON
    assert not any(name in out for name in ("Wanjiru", "Priya", "Kwame"))


def test_block_code_spans():
    text = "Intro\n```go\nx := f(Token) // by Priya\n```\n<pre>y = 'Priya'</pre>"
    spans = block_code(text, code_regions(text))
    code = "".join(text[a:b] for a, b in spans)
    assert "Token" in code and "Priya" not in code and "Intro" not in code and "by" not in code
    # a fence of plain text (a log) is read line by line, as code_spans reads text outside fences
    assert block_code("```text\nPriya Raman logged in\n```") == [(0, 7), (30, 33)]


# -- 3. the deny list and addresses ------------------------------------------------------------------------------


def test_deny_list_leaves_urls_and_takes_an_address_whole():
    anonymizer = NerAnonymizer(entities="person", deny_list=["Kenji", "Priya"])
    text = "Contact kenji@brightcart.example or see https://blog.example/authors/Kenji for more."
    result = anonymizer.anonymize(text)
    assert result.text == "Contact or see https://blog.example/authors/Kenji for more."  # was "@brightcart.example"
    page = "<p>Photos: https://cdn.example/Priya/headshot.jpg</p>"
    assert anonymizer.anonymize(page).text == page
    assert anonymizer.anonymize("Priya Raman wrote it.").text.endswith("wrote it.")


# -- 4. person-only removal finds the people the default removal finds -------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Written by Amara Okafor.", "Amara Okafor"),  # typed GPE in a full pass
        ('<div class="review"><b>Emily R.</b> <p>Blocks out the train completely.</p></div>', "Emily R."),
        ("<p><b>Tyrone Jackson</b> &ndash; Site manager, Reno. He started as a picker in 2012.</p>", "Tyrone Jackson"),
    ],
)
def test_person_only_removes_what_the_default_removes(person, text, name):
    assert name in [e.text for e in person.detect(text) if e.label == "PERSON"]
    assert name in [e.text for e in anonymizer_for("ner").detect(text)]


# -- 5. a page's labels ------------------------------------------------------------------------------------------

LABELS = [
    (
        '<p>Click <button class="btn-link">Sign in</button> and then <strong>Forgot password?</strong>.</p>',
        ["Sign in", "Forgot password?"],
        None,
    ),
    (
        "<p>Go to <strong>Settings &rarr; Privacy</strong> and click <button>Delete account</button>.</p>",
        ["Settings &rarr; Privacy", "Delete account"],
        None,
    ),
    ('<div class="note">Tip: you can <em>Grant access</em> to a household member.</div>', ["Grant access"], None),
    (
        "<table><tr><th>Payment method</th></tr><tr><td>Gift card</td><td>Adwoa Mensah</td></tr></table>",
        ["<td>Gift card</td>"],
        "Adwoa",
    ),
    (
        "<ul><li><a href='/s'>Mark as read</a></li><li><em>Grant Hill</em> wrote it</li></ul>",
        ["Mark as read"],
        "Grant",
    ),
]


@pytest.mark.parametrize(("page", "labels", "name"), LABELS)
def test_labels_of_a_page_stay_and_names_in_them_go(either, page, labels, name):
    out = either.anonymize(page).text
    assert all(label in out for label in labels), out
    assert name is None or name not in out, out


def test_label_spans_hold_only_element_text():
    page = "<p>Click <button class='b'>Sign in</button> or <label><input> Remember me</label></p>"
    assert [page[a:b] for a, b in label_spans(page)] == ["Sign in"]


def test_a_title_written_out_ends_the_sentence(person, fast_person):
    page = "<p><b>Dmitri Volkov</b>, Data Protection Officer. Dmitri handles every GDPR request.</p>"
    for anonymizer in (person, fast_person):
        result = anonymizer.anonymize(page)
        assert "Officer." in result.text and "Dmitri" not in result.text, result.text
        assert "Officer. Dmitri" not in [e.text for e in result.entities]
