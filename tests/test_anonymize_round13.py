"""Round R13: logins after a label, "key: value" config lines, lower-case given names that are common words.

Each case marks one word in braces: a person's name (or a login that embeds one) that must be removed, or a
look-alike that must stay. Half the cases hold a name, half a look-alike. On the real spaCy pipeline."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import NerAnonymizer
from tests.anonymize_support import removed

# (kind, text, where the marked word is, whether it is a person's name)
LABEL = "label"
CONFIG = "config"
CASUAL = "casual"
CASES: list[tuple[str, str, str, bool]] = [
    # 1. a login-style name after a label
    (LABEL, "Old value: j.smith\nNew value: a.jones", "Old value: {j.smith}", True),
    (LABEL, "Old value: j.smith\nNew value: a.jones", "New value: {a.jones}", True),
    (LABEL, "Assigned to: mgarcia", "Assigned to: {mgarcia}", True),
    (LABEL, "Reviewer: k.tanaka", "Reviewer: {k.tanaka}", True),
    (LABEL, "Changed by: pnguyen on 2024-03-02", "Changed by: {pnguyen}", True),
    (LABEL, "Old value: jsmith\nNew value: mgarcia", "Old value: {jsmith}", True),
    (LABEL, "Approved by: r.okafor", "Approved by: {r.okafor}", True),
    (LABEL, "Assignee: lchen\nPriority: P2", "Assignee: {lchen}", True),
    (LABEL, "Last modified by: dkowalski", "Last modified by: {dkowalski}", True),
    (LABEL, "Escalated to: s.ibrahim", "Escalated to: {s.ibrahim}", True),
    (LABEL, "Reporter: anna.k\nComponent: billing", "Reporter: {anna.k}", True),
    (LABEL, "Owner: tbrown", "Owner: {tbrown}", True),
    (LABEL, "Field assignee changed from jdoe to mgarcia.", "changed from {jdoe}", True),
    (LABEL, "On call: hkim", "On call: {hkim}", True),
    (LABEL, "Status: done", "Status: {done}", False),
    (LABEL, "Owner: root", "Owner: {root}", False),
    (LABEL, "Old value: 42\nNew value: 43", "Old value: {42}", False),
    (LABEL, "Assigned to: backend-team", "Assigned to: {backend-team}", False),
    (LABEL, "Reviewer: none", "Reviewer: {none}", False),
    (LABEL, "Old value: open\nNew value: closed", "Old value: {open}", False),
    (LABEL, "Assignee: unassigned", "Assignee: {unassigned}", False),
    (LABEL, "Owner: platform", "Owner: {platform}", False),
    (LABEL, "Changed by: system", "Changed by: {system}", False),
    (LABEL, "Resolution: wontfix", "Resolution: {wontfix}", False),
    (LABEL, "Priority: high", "Priority: {high}", False),
    (LABEL, "Owner: ops-bot", "Owner: {ops-bot}", False),
    (LABEL, "Assigned to: nobody", "Assigned to: {nobody}", False),
    (LABEL, "Old value: in_progress\nNew value: done", "Old value: {in_progress}", False),
    (LABEL, "Old value: j.smith\nNew value: a.jones", "{New} value:", False),
    (LABEL, "Reporter: guest\nComponent: api", "Reporter: {guest}", False),
    (LABEL, "On call: dave\nSeverity: SEV2", "On call: {dave}", True),
    (LABEL, "Old value: open\nNew value: jira", "New value: {jira}", False),
    (LABEL, "Status changed from todo to done", "from {todo} to", False),
    (LABEL, "Reviewer: Mark\nStatus: Open", "Reviewer: {Mark}", True),
    (LABEL, "Reviewer: Mark\nStatus: Open", "Status: {Open}", False),
    # 2. YAML / INI "key: value" lines
    (CONFIG, "name: docs\nauthor: Maria Lopez\nversion: 1.2", "author: {Maria Lopez}", True),
    (CONFIG, "maintainer: Kwame Mensah <kmensah@example.org>", "maintainer: {Kwame Mensah}", True),
    (CONFIG, "repo: infra\nowner: jdoe\nvisibility: private", "owner: {jdoe}", True),
    (CONFIG, "[user]\nname = Priya Sharma\nemail = psharma@example.com", "name = {Priya Sharma}", True),
    (CONFIG, "authors:\n  - Lars Eriksen\n  - Aiko Tanaka", "- {Lars Eriksen}", True),
    (CONFIG, "contact: Dr. Fatima Ahmed\nphone: 555-0100", "{Fatima Ahmed}", True),
    (CONFIG, "reviewed_by: Tom Becker\nstatus: approved", "reviewed_by: {Tom Becker}", True),
    (CONFIG, "created_by: s.novak\ncreated_at: 2024-01-02", "created_by: {s.novak}", True),
    (CONFIG, "assignee: Wei Zhang\nlabels: [bug]", "assignee: {Wei Zhang}", True),
    (CONFIG, "[metadata]\nname = mypkg\nauthor = Hector Ramirez", "author = {Hector Ramirez}", True),
    (CONFIG, "approver: Olivia Brown", "approver: {Olivia Brown}", True),
    (CONFIG, "team: payments\nlead: Chidi Okeke", "lead: {Chidi Okeke}", True),
    (CONFIG, "jobs:\n  build:\n    name: build\n    runs-on: ubuntu-latest", "name: {build}", False),
    (CONFIG, "services:\n  web:\n    image: nginx\n    ports:\n      - 80:80", "image: {nginx}", False),
    (CONFIG, "db:\n  user: admin\n  password: secret", "user: {admin}", False),
    (CONFIG, "jobs:\n  test:\n    runs-on: ubuntu-latest", "runs-on: {ubuntu-latest}", False),
    (CONFIG, "steps:\n  - name: Deploy to staging\n    run: make deploy", "name: {Deploy} to staging", False),
    (CONFIG, "server:\n  host: localhost\n  port: 8080", "host: {localhost}", False),
    (CONFIG, "[database]\nuser = postgres\nport = 5432", "user = {postgres}", False),
    (CONFIG, "owner: platform-team\ntier: 2", "owner: {platform-team}", False),
    (CONFIG, "on:\n  push:\n    branches:\n      - main", "- {main}", False),
    (CONFIG, "cache:\n  service: redis\n  ttl: 60", "service: {redis}", False),
    (CONFIG, "banner:\n  title: Summer Sale\n  color: rose", "title: {Summer} Sale", False),
    (CONFIG, "banner:\n  title: Summer Sale\n  color: rose", "color: {rose}", False),
    (CONFIG, "defaults:\n  shell: bash\n  mode: grace", "mode: {grace}", False),
    (CONFIG, "author: maria lopez\nlicense: MIT", "author: {maria lopez}", True),
    (CONFIG, "labels:\n  team: search\n  owner: l.garcia", "owner: {l.garcia}", True),
    (CONFIG, '[package]\nauthors = ["Ana Souza <asouza@example.com>"]', "{Ana Souza}", True),
    (CONFIG, "name: Build and Test\non: [push]", "name: {Build} and Test", False),
    (CONFIG, "environment:\n  POSTGRES_USER: admin\n  TZ: Europe/Berlin", "POSTGRES_USER: {admin}", False),
    (CONFIG, "kind: Deployment\nmetadata:\n  name: grace-api", "name: {grace-api}", False),
    (CONFIG, "reviewers:\n  - jsmith\n  - k.tanaka", "- {k.tanaka}", True),
    (CONFIG, "reviewers:\n  - jsmith\n  - k.tanaka", "- {jsmith}", True),
    (CONFIG, "owner: grace\nteam: search", "owner: {grace}", True),
    (CONFIG, "---\nauthor: rose\ndate: 2024-02-01\n---", "author: {rose}", True),
    (CONFIG, "user: guest\nshell: /bin/bash", "user: {guest}", False),
    (CONFIG, "from: june\nto: august", "from: {june}", False),
    (CONFIG, "approvers:\n  - backend-team\n  - release-bot", "- {release-bot}", False),
    (CONFIG, "title: Spring Release\ndate: 2024-04-01", "title: {Spring} Release", False),
    # 3. lower-case given names that are common words, in e-mail / SMS style text
    (CASUAL, "hey will, can you send the notes?", "hey {will}", True),
    (CASUAL, "thanks grace! that fixed it", "thanks {grace}", True),
    (CASUAL, "ask mark about it tomorrow", "ask {mark}", True),
    (CASUAL, "@rose pls check the deploy", "{@rose}", True),
    (CASUAL, "ok so bill said the meeting moved", "so {bill} said", True),
    (CASUAL, "lol dawn just called me", "lol {dawn} just", True),
    (CASUAL, "tell jack i'm running late", "tell {jack}", True),
    (CASUAL, "can you ping faith about the invoice", "ping {faith}", True),
    (CASUAL, "sorry june, i forgot to reply", "sorry {june}", True),
    (CASUAL, "penny and i are going to the gym later", "{penny} and i", True),
    (CASUAL, "happy birthday lily!! have a great day", "birthday {lily}", True),
    (CASUAL, "yo ray, you coming tonight?", "yo {ray}", True),
    (CASUAL, "i'll ask april tomorrow, she knows", "ask {april}", True),
    (CASUAL, "thanks, will! see you monday", "thanks, {will}!", True),
    (CASUAL, "hi grace,\n\njust checking in on the report.", "hi {grace}", True),
    (CASUAL, "cc @mark on this pls", "cc {@mark}", True),
    (CASUAL, "i will send it tomorrow", "i {will} send", False),
    (CASUAL, "by the grace of god we finished", "the {grace} of", False),
    (CASUAL, "can you mark it as done", "you {mark} it", False),
    (CASUAL, "the rose bushes need water", "the {rose} bushes", False),
    (CASUAL, "pay the bill before friday", "the {bill} before", False),
    (CASUAL, "i hope you can make it", "i {hope} you", False),
    (CASUAL, "we left at dawn, it was cold", "at {dawn}", False),
    (CASUAL, "jack up the volume lol", "{jack} up", False),
    (CASUAL, "have faith, it'll work out", "have {faith}", False),
    (CASUAL, "see you in june then", "in {june}", False),
    (CASUAL, "it doesn't cost a penny", "a {penny}", False),
    (CASUAL, "ray of sunshine today lol", "{ray} of", False),
    (CASUAL, "thanks, will do!", "thanks, {will} do", False),
    (CASUAL, "hey, mark your calendars for friday", "hey, {mark} your", False),
    (CASUAL, "hope so! see u there", "{hope} so", False),
    (CASUAL, "just bill me later lol", "just {bill} me", False),
    (CASUAL, "morning grace! coffee later?", "morning {grace}", True),
    (CASUAL, "did rose text you back?", "did {rose} text", True),
    (CASUAL, "grace period ends friday btw", "{grace} period", False),
    (CASUAL, "will do, thanks", "{will} do", False),
    (CASUAL, "may i ask something quick", "{may} i", False),
    (CASUAL, "hey honey! running late", "hey {honey}", False),
    (CASUAL, "cheers mate! see you at 6", "cheers {mate}", False),
]


# Cases this round could not fix: (text, where) -> why.
NOT_FIXED: dict[tuple[str, str], str] = {}  # all fixed in round 14 (tests/test_anonymize_round14.py)


@pytest.fixture(scope="module", params=[True, False], ids=["ner", "fast"])
def anonymizer(request: pytest.FixtureRequest) -> NerAnonymizer:
    return NerAnonymizer(use_ner=request.param)


def _param(case: tuple[str, str, str, bool]) -> object:
    kind, text, where, name = case
    marks = []
    if (text, where) in NOT_FIXED:
        marks.append(pytest.mark.xfail(strict=True, reason=NOT_FIXED[text, where]))
    return pytest.param(text, where, name, id=f"{kind}-{'name' if name else 'word'}-{where}", marks=marks)


def test_probe_is_balanced() -> None:
    names = sum(name for *_, name in CASES)
    assert len(CASES) >= 60 and abs(2 * names - len(CASES)) <= len(CASES) // 10
    assert {kind for kind, *_ in CASES} == {LABEL, CONFIG, CASUAL}
    assert all((text, where) in {(t, w) for _, t, w, _ in CASES} for text, where in NOT_FIXED)


@pytest.mark.parametrize(("text", "where", "name"), [_param(case) for case in CASES])
def test_round13_case(anonymizer: NerAnonymizer, text: str, where: str, name: bool) -> None:
    assert removed(anonymizer, text, where) is name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Old value: j.smith\nNew value: a.jones", "Old value:\nNew value:"),
        ("hey will, can you send the notes?", "hey, can you send the notes?"),
        ("thanks, will do!", "thanks, will do!"),
        ("name: Build and Test\non: [push]", "name: Build and Test\non: [push]"),
        ("reviewers:\n  - jsmith\n  - k.tanaka", "reviewers:\n  -\n  -"),
    ],
)
def test_round13_outputs(anonymizer: NerAnonymizer, text: str, expected: str) -> None:
    assert anonymizer.anonymize(text).text == expected


def main() -> None:
    """Count the probe's misses and false positives per kind: ``.venv/bin/python -m tests.test_anonymize_round13``."""
    for use_ner in (True, False):
        anonymizer = NerAnonymizer(use_ner=use_ner)
        counts = {kind: [0, 0, 0, 0] for kind in (LABEL, CONFIG, CASUAL)}  # misses, names, false positives, words
        for kind, text, where, name in CASES:
            got = removed(anonymizer, text, where)
            counts[kind][0 if name else 2] += got is not name
            counts[kind][1 if name else 3] += 1
        total = [sum(c[k] for c in counts.values()) for k in range(4)]
        print("default" if use_ner else "--fast")
        for kind, (miss, names, wrong, words) in [*counts.items(), ("all", total)]:
            print(f"  {kind}: misses {miss}/{names}, false positives {wrong}/{words}")


if __name__ == "__main__":
    main()
