"""Names a web page writes with character references, and names its markup repeats (session 48's walkthrough,
``/tmp/s48/user5/repro/11`` and ``13``): "Chlo&eacute; Martin" is "Chloé Martin"; a name the prose reveals is also
anonymized in comments, ``<meta>`` content and ``data-*`` / ``alt`` values, but never in a URL or a file name."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import NerAnonymizer, Replace
from debiasrag.anonymize.base import Entity
from debiasrag.anonymize.markup import decode_references, named_markup


@pytest.fixture(scope="module")
def person() -> NerAnonymizer:
    return NerAnonymizer(entities="person")


@pytest.fixture(scope="module")
def replacing() -> NerAnonymizer:
    return NerAnonymizer(entities="person", strategy="replace")


def test_decode_references_maps_each_character_to_its_written_span():
    text = "Ra&#250;l &amp; Priya&nbsp;O&#39;Neil &lt;b&gt;"
    decoded, starts, ends = decode_references(text)
    assert decoded == "Raúl &amp; Priya O'Neil &lt;b&gt;"  # markup-making references stay
    u = decoded.index("ú")
    assert text[starts[u] : ends[u]] == "&#250;"
    assert text[starts[0] : ends[len("Raúl") - 1]] == "Ra&#250;l"
    assert decode_references("Fish &amp; Chips &ndash; a <b>menu</b>") is None


@pytest.mark.parametrize(
    ("html", "name"),
    [
        ("<p>Our recruiter Chlo&eacute; Martin answers e-mail. She speaks French.</p>", "Chlo&eacute; Martin"),
        ("<p>Written by Ra&#250;l Fern&#225;ndez, Support.</p>", "Ra&#250;l Fern&#225;ndez"),
        ("<p>Thanks to Priya&nbsp;Raman for the load tests.</p>", "Priya&nbsp;Raman"),
    ],
)
def test_a_name_written_with_references_is_one_whole_entity(person, html, name):
    entities = person.detect(html)
    assert [e.text for e in entities] == [name]
    start = html.index(name)
    assert (entities[0].start, entities[0].end) == (start, start + len(name))
    assert name not in person.anonymize(html).text and "&#" not in person.anonymize(html).text


def test_a_referenced_name_and_its_plain_spelling_share_a_placeholder(replacing):
    result = replacing.anonymize("<p>Ra&#250;l Fern&#225;ndez wrote it. Thanks, Raúl Fernández!</p>")
    assert result.text == "<p>PERSON_1 wrote it. Thanks, PERSON_1!</p>"
    assert result.mapping == {"PERSON_1": "Ra&#250;l Fern&#225;ndez"}


def test_named_markup_is_comments_and_text_attribute_values():
    html = '<!-- TODO(siobhan) --><meta name="author" content="Priya Raman"><a href="/team/x" data-by="Ann">x</a>'
    assert [html[a:b] for a, b in named_markup(html)] == [" TODO(siobhan) ", "Priya Raman", "Ann"]
    assert named_markup("<!--[if IE]><p>Ann</p><![endif]--><script>var a = 'Ann'</script>") == []


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (
            '<meta name="author" content="Priya Raman"><div data-author="Priya Raman"><p>Thanks to Priya Raman.</p>'
            "</div>",
            '<meta name="author" content="PERSON_1"><div data-author="PERSON_1"><p>Thanks to PERSON_1.</p></div>',
        ),
        (  # a first name alone in a comment, met before the full name: the full name's placeholder
            "<!-- TODO(siobhan): see https://x.com/siobhan --><p>Ask Siobhan Kelly.</p>",
            "<!-- TODO(PERSON_1): see https://x.com/siobhan --><p>Ask PERSON_1.</p>",
        ),
        (  # links and file names keep working
            '<img src="/img/team/amara-okafor.jpg" alt="Portrait of Amara Okafor"><h2>Amara Okafor</h2>'
            '<a href="/team/amara-okafor" data-slug="amara-okafor">Profile</a>',
            '<img src="/img/team/amara-okafor.jpg" alt="Portrait of PERSON_1"><h2>PERSON_1</h2>'
            '<a href="/team/amara-okafor" data-slug="amara-okafor">Profile</a>',
        ),
    ],
)
def test_a_name_the_prose_reveals_is_replaced_where_markup_repeats_it(replacing, html, expected):
    assert replacing.anonymize(html).text == expected


def test_removing_a_name_from_a_comment_keeps_the_markup(person):
    out = person.anonymize("<!-- by Tomasz --><p>Tomasz Nowak fixed the build.</p>").text
    assert "Tomasz" not in out and out.startswith("<!--") and "-->" in out and "<p>" in out


def test_a_part_before_its_full_name_takes_the_full_names_placeholder():
    entities = [Entity("Siobhan", "PERSON", 0, 7), Entity("Siobhan Kelly", "PERSON", 12, 25)]
    text, mapping = Replace().apply("Siobhan and Siobhan Kelly", entities)
    assert text == "PERSON_1 and PERSON_1" and mapping == {"PERSON_1": "Siobhan Kelly"}
