"""Write ``debiasrag/data/neutral_words.json``: the gender-neutral counterpart of every gendered word form in
``data/gender_words.json`` (singular, plural, possessive), of the pronouns and of the titles, for
:class:`debiasrag.counterfactual.GenderNeutralizer`.

``BASE`` (hand-written) gives each singular pair word its neutral word and plural; forms the pair file lists are
derived from it ("mothers" -> "parents", "mother's" -> "parent's", "mothers'" -> "parents'"). A pair word
missing from ``BASE`` stops the script, so a new pair cannot ship without its neutral counterpart.

Run: ``.venv/bin/python scripts/build_neutral_words.py``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from debiasrag.fileio import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "debiasrag/data/gender_words.json"
OUT = ROOT / "debiasrag/data/neutral_words.json"
PERSON, PEOPLE = "person", "people"
# singular gendered word -> (neutral singular, neutral plural); None: no plural of its own (adjectives, abstracts)
BASE: dict[str, tuple[str, str | None]] = {
    **dict.fromkeys(["woman", "man", "lady", "gentleman", "gal", "guy", "lass", "lad"], (PERSON, PEOPLE)),
    **dict.fromkeys(["girl", "boy", "schoolgirl", "schoolboy"], ("child", "children")),
    **dict.fromkeys(["mother", "father", "mom", "dad", "mum", "mommy", "daddy", "mama", "papa"], ("parent", "parents")),
    **dict.fromkeys(["daughter", "son"], ("child", "children")),
    **dict.fromkeys(["sister", "brother"], ("sibling", "siblings")),
    **dict.fromkeys(["aunt", "uncle"], ("relative", "relatives")),
    **dict.fromkeys(["niece", "nephew"], ("relative", "relatives")),
    **dict.fromkeys(["wife", "husband"], ("spouse", "spouses")),
    **dict.fromkeys(["grandmother", "grandfather", "grandma", "grandpa", "granny"], ("grandparent", "grandparents")),
    **dict.fromkeys(["granddaughter", "grandson"], ("grandchild", "grandchildren")),
    **dict.fromkeys(["stepmother", "stepfather"], ("stepparent", "stepparents")),
    **dict.fromkeys(["stepdaughter", "stepson"], ("stepchild", "stepchildren")),
    **dict.fromkeys(["godmother", "godfather"], ("godparent", "godparents")),
    **dict.fromkeys(["female", "male"], (PERSON, PEOPLE)),
    **dict.fromkeys(["queen", "king", "empress", "emperor"], ("monarch", "monarchs")),
    **dict.fromkeys(["princess", "prince", "duchess", "duke", "baroness", "baron"], ("noble", "nobles")),
    **dict.fromkeys(["heroine", "hero"], ("hero", "heroes")),
    **dict.fromkeys(["actress", "actor"], ("actor", "actors")),
    **dict.fromkeys(["waitress", "waiter"], ("server", "servers")),
    **dict.fromkeys(["hostess", "host"], ("host", "hosts")),
    **dict.fromkeys(["stewardess", "steward"], ("flight attendant", "flight attendants")),
    **dict.fromkeys(["priestess", "priest", "nun", "monk"], ("cleric", "clerics")),
    **dict.fromkeys(["heiress", "heir"], ("heir", "heirs")),
    **dict.fromkeys(["chairwoman", "chairman"], ("chair", "chairs")),
    **dict.fromkeys(["businesswoman", "businessman"], ("businessperson", "businesspeople")),
    **dict.fromkeys(["congresswoman", "congressman"], ("member of congress", "members of congress")),
    **dict.fromkeys(["councilwoman", "councilman"], ("councillor", "councillors")),
    **dict.fromkeys(["spokeswoman", "spokesman"], ("spokesperson", "spokespeople")),
    **dict.fromkeys(["policewoman", "policeman"], ("police officer", "police officers")),
    **dict.fromkeys(["saleswoman", "salesman"], ("salesperson", "salespeople")),
    **dict.fromkeys(["sportswoman", "sportsman"], ("athlete", "athletes")),
    **dict.fromkeys(["horsewoman", "horseman"], ("rider", "riders")),
    **dict.fromkeys(["craftswoman", "craftsman"], ("craftsperson", "craftspeople")),
    **dict.fromkeys(["fisherwoman", "fisherman"], ("fisher", "fishers")),
    **dict.fromkeys(["anchorwoman", "anchorman"], ("anchor", "anchors")),
    **dict.fromkeys(["camerawoman", "cameraman"], ("camera operator", "camera operators")),
    **dict.fromkeys(["forewoman", "foreman"], ("supervisor", "supervisors")),
    **dict.fromkeys(["firewoman", "fireman"], ("firefighter", "firefighters")),
    **dict.fromkeys(["postwoman", "postman", "mailwoman", "mailman"], ("mail carrier", "mail carriers")),
    **dict.fromkeys(["doorwoman", "doorman"], ("door attendant", "door attendants")),
    **dict.fromkeys(["handywoman", "handyman"], ("handyperson", "handypeople")),
    **dict.fromkeys(["barmaid", "barman"], ("bartender", "bartenders")),
    **dict.fromkeys(["repairwoman", "repairman"], ("repair technician", "repair technicians")),
    **dict.fromkeys(["deliverywoman", "deliveryman"], ("delivery worker", "delivery workers")),
    **dict.fromkeys(["weatherwoman", "weatherman"], ("weather forecaster", "weather forecasters")),
    **dict.fromkeys(["clergywoman", "clergyman"], ("cleric", "clerics")),
    **dict.fromkeys(["alderwoman", "alderman"], ("council member", "council members")),
    **dict.fromkeys(["assemblywoman", "assemblyman"], ("assembly member", "assembly members")),
    **dict.fromkeys(["servicewoman", "serviceman"], ("service member", "service members")),
    **dict.fromkeys(["patrolwoman", "patrolman"], ("patrol officer", "patrol officers")),
    **dict.fromkeys(["stateswoman", "statesman"], ("statesperson", "statespeople")),
    **dict.fromkeys(["noblewoman", "nobleman"], ("noble", "nobles")),
    **dict.fromkeys(["kinswoman", "kinsman"], ("relative", "relatives")),
    **dict.fromkeys(["countrywoman", "countryman"], ("compatriot", "compatriots")),
    **dict.fromkeys(["tradeswoman", "tradesman"], ("tradesperson", "tradespeople")),
    **dict.fromkeys(["yachtswoman", "yachtsman"], ("sailor", "sailors")),
    **dict.fromkeys(["masseuse", "masseur"], ("massage therapist", "massage therapists")),
    **dict.fromkeys(["schoolmistress", "schoolmaster"], ("teacher", "teachers")),
    **dict.fromkeys(["headmistress", "headmaster"], ("head teacher", "head teachers")),
    **dict.fromkeys(["girlfriend", "boyfriend", "fiancee", "fiance"], ("partner", "partners")),
    **dict.fromkeys(["bride", "groom", "bridegroom"], ("spouse", "spouses")),
    **dict.fromkeys(["widow", "widower"], ("surviving spouse", "surviving spouses")),
    **dict.fromkeys(["landlady", "landlord"], ("landlord", "landlords")),
    **dict.fromkeys(["cowgirl", "cowboy"], ("cowhand", "cowhands")),
    **dict.fromkeys(["bachelorette", "bachelor"], ("single person", "single people")),
    **dict.fromkeys(["housewife", "househusband"], ("homemaker", "homemakers")),
    **dict.fromkeys(["matriarch", "patriarch"], ("elder", "elders")),
    **dict.fromkeys(["madam", "ma'am", "sir"], (PERSON, PEOPLE)),
    **dict.fromkeys(["mrs", "mrs.", "ms", "ms.", "mr", "mr."], ("mx", None)),
    **dict.fromkeys(["sorority", "fraternity"], ("society", "societies")),
    **dict.fromkeys(["sisterhood", "brotherhood", "womanhood", "manhood", "girlhood", "boyhood"], ("kinship", None)),
    **dict.fromkeys(["motherhood", "fatherhood"], ("parenthood", None)),
    **dict.fromkeys(["womenfolk", "menfolk"], ("folk", None)),
    **dict.fromkeys(["feminine", "masculine"], ("personal", None)),
    **dict.fromkeys(["femininity", "masculinity"], ("personality", None)),
    **dict.fromkeys(["motherly", "fatherly"], ("parental", None)),
    **dict.fromkeys(["sisterly", "brotherly"], ("friendly", None)),
    **dict.fromkeys(["maternal", "paternal"], ("parental", None)),
    **dict.fromkeys(["maternity", "paternity"], ("parental", None)),
    # session 40 (red team): rarer kin, compound and role words
    **dict.fromkeys(["goddaughter", "godson"], ("godchild", "godchildren")),
    **dict.fromkeys(["grandniece", "grandnephew", "grand-niece", "grand-nephew"], ("relative", "relatives")),
    **dict.fromkeys(["great-niece", "great-nephew", "grandaunt", "granduncle"], ("relative", "relatives")),
    **dict.fromkeys(["great-aunt", "great-uncle", "auntie", "aunty"], ("relative", "relatives")),
    **dict.fromkeys(
        ["great-grandmother", "great-grandfather", "great-grandma", "great-grandpa"],
        ("great-grandparent", "great-grandparents"),
    ),
    **dict.fromkeys(["great-granddaughter", "great-grandson"], ("great-grandchild", "great-grandchildren")),
    **dict.fromkeys(
        ["great-great-grandmother", "great-great-grandfather"], ("great-great-grandparent", "great-great-grandparents")
    ),
    **dict.fromkeys(
        ["great-great-granddaughter", "great-great-grandson"], ("great-great-grandchild", "great-great-grandchildren")
    ),
    **dict.fromkeys(["stepsister", "stepbrother", "step-sister", "step-brother"], ("stepsibling", "stepsiblings")),
    **dict.fromkeys(["step-mother", "step-father", "stepmom", "stepmum", "stepdad"], ("stepparent", "stepparents")),
    **dict.fromkeys(["step-daughter", "step-son"], ("stepchild", "stepchildren")),
    **dict.fromkeys(["half-sister", "half-brother"], ("half-sibling", "half-siblings")),
    **dict.fromkeys(["mother-in-law", "father-in-law"], ("parent-in-law", "parents-in-law")),
    **dict.fromkeys(["daughter-in-law", "son-in-law"], ("child-in-law", "children-in-law")),
    **dict.fromkeys(["sister-in-law", "brother-in-law"], ("sibling-in-law", "siblings-in-law")),
    **dict.fromkeys(["ex-wife", "ex-husband"], ("ex-spouse", "ex-spouses")),
    **dict.fromkeys(["ex-girlfriend", "ex-boyfriend", "fiancée", "fiancé"], ("partner", "partners")),
    **dict.fromkeys(["boatwoman", "boatman"], ("boat operator", "boat operators")),
    **dict.fromkeys(["ferrywoman", "ferryman"], ("ferry operator", "ferry operators")),
    **dict.fromkeys(["stuntwoman", "stuntman"], ("stunt performer", "stunt performers")),
    **dict.fromkeys(["frontwoman", "frontman"], ("frontperson", "frontpeople")),
    **dict.fromkeys(["groundswoman", "groundsman"], ("groundskeeper", "groundskeepers")),
    **dict.fromkeys(["oarswoman", "oarsman"], ("rower", "rowers")),
    **dict.fromkeys(["tribeswoman", "tribesman"], ("tribe member", "tribe members")),
    **dict.fromkeys(["clanswoman", "clansman"], ("clan member", "clan members")),
    **dict.fromkeys(["englishwoman", "englishman"], ("english person", "english people")),
    **dict.fromkeys(["frenchwoman", "frenchman"], ("french person", "french people")),
    **dict.fromkeys(["irishwoman", "irishman"], ("irish person", "irish people")),
    **dict.fromkeys(["welshwoman", "welshman"], ("welsh person", "welsh people")),
    **dict.fromkeys(["bridesmaid", "groomsman"], ("wedding attendant", "wedding attendants")),
    **dict.fromkeys(["choirgirl", "choirboy"], ("chorister", "choristers")),
    **dict.fromkeys(["abbess", "abbot"], ("abbey head", "abbey heads")),
    **dict.fromkeys(
        ["marchioness", "marquess", "viscountess", "viscount", "archduchess", "archduke"], ("noble", "nobles")
    ),
    **dict.fromkeys(["alumna", "alumnus"], ("graduate", "graduates")),
}
PRONOUNS = {  # "her" is object or possessive; "their" reads right for the possessive, the commoner one in chunks
    "she": "they", "he": "they", "her": "their", "him": "them", "his": "their", "hers": "theirs",
    "herself": "themselves", "himself": "themselves", "she's": "they're", "he's": "they're", "she'd": "they'd",
    "he'd": "they'd", "she'll": "they'll", "he'll": "they'll", "themself": "themselves",
}  # fmt: skip
# the verb right after "she" / "he" (adverbs skipped) takes the plural form, as after the neutral wording's "they"
VERBS = {"is": "are", "was": "were", "has": "have", "does": "do", "isn't": "aren't", "wasn't": "weren't",
         "hasn't": "haven't", "doesn't": "don't"}  # fmt: skip
ADVERBS = sorted(
    """always also never often now still usually sometimes just really then already even only rarely
soon later quickly recently finally first mostly simply certainly clearly probably actually regularly
immediately occasionally generally typically gently carefully personally no longer rather quietly happily""".split()
)
NOT_VERBS = sorted(
    """thus this its as plus perhaps sometimes always nevertheless towards afterwards whereas
unless""".split()
)
# "her" is the object ("them") right before these words or punctuation, else the possessive ("their")
HER_OBJECT_BEFORE = sorted(
    """to and or but with for about at in on that the a an up out off down over into
from by as if when while because again too so this these those what how why where who whether through after before
since until around away once twice all both some any every each no onto today yesterday tomorrow""".split()
)
TITLES = {"Mr": "Mx", "Mr.": "Mx", "Mrs": "Mx", "Mrs.": "Mx", "Ms": "Mx", "Ms.": "Mx", "Miss": "Mx", "Sir": "Mx",
          "Madam": "Mx", "Lady": "Mx", "Lord": "Mx", "Dame": "Mx"}  # fmt: skip


def neutral_form(word: str, plural_of: dict[str, str]) -> str:
    """The neutral counterpart of one pair word in any of its listed forms."""
    base, suffix = word, ""
    if word.endswith("'s"):
        base, suffix = word[:-2], "'s"
    elif word.endswith("s'"):
        base, suffix = word[:-1], "'"
    if base in BASE:
        return BASE[base][0] + suffix
    if base in plural_of:
        neutral = plural_of[base]
        return neutral + ("'" if suffix and neutral.endswith("s") else "'s" if suffix else "")
    sys.exit(f"no neutral counterpart for {word!r}: add its singular to BASE")


def main() -> None:
    pairs = json.loads(PAIRS.read_text(encoding="utf-8"))["pairs"]
    singular = {w for a, b in pairs for w in (a, b) if w in BASE}
    plural_of: dict[str, str] = {}  # gendered plural -> neutral plural, from the pair file's plural pairs
    for word in singular:
        neutral_plural = BASE[word][1] or BASE[word][0]  # "sisterhoods" -> "kinship"
        for candidate in (
            word + "s",
            word + "es",
            word[:-1] + "ies",
            word.replace("man", "men"),
            word[:-1] + "ves",
            word[:-2] + "ves",
        ):
            plural_of.setdefault(candidate, neutral_plural)
    plural_of.update({"women": PEOPLE, "men": PEOPLE, "wives": "spouses", "ladies": PEOPLE, "gentlemen": PEOPLE})
    # "mothers-in-law" -> "parents-in-law": the plural is inside a hyphenated compound
    plural_of.update({w.replace("-in-law", "s-in-law"): BASE[w][1] for w in singular if w.endswith("-in-law")})
    words = {w: neutral_form(w, plural_of) for a, b in pairs for w in (a, b)}
    data = {
        "source": "Written by scripts/build_neutral_words.py from gender_words.json (neutral counterparts by hand)",
        "format": "lower-case gendered word -> neutral word; pronouns likewise; titles case-sensitive",
        "pronouns": PRONOUNS,
        "words": dict(sorted(words.items())),
        "titles": TITLES,
        "verbs_after_pronoun": VERBS,
        "adverbs": ADVERBS,
        "not_verbs": NOT_VERBS,
        "her_object_before": HER_OBJECT_BEFORE,
    }
    atomic_write_text(OUT, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT} ({len(words)} words)")


if __name__ == "__main__":
    main()
