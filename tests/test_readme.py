"""The README's quickstart runs as written (so it cannot rot)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_setup_commands():
    first_block = re.search(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    assert [line.split()[:2] for line in first_block.strip().splitlines()] == [["make", "demo"], ["make", "test"]]


def test_quickstart_runs(tmp_path, monkeypatch, capsys):
    code = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    assert len(code.strip().splitlines()) <= 12
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    lines = capsys.readouterr().out.strip().splitlines()
    assert sorted(line.split()[1] for line in lines) == ["f", "m", "n"]
    assert (tmp_path / "my-index" / "manifest.json").is_file()


def test_anonymization_example_gives_what_its_comment_says():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    code = next(b for b in blocks if "get_anonymizer" in b)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert result.text == "quickly ran to the store to buy a cold drink."
    assert [e.to_dict() for e in result.entities] == [{"text": "Alejandro", "label": "PERSON", "start": 0, "end": 9}]
