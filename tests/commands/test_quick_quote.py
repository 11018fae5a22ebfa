"""``quote ID --text ... --from FILE`` runs without typer, as ``add`` and ``list`` do: an agent
attaches a quote at every retrieval. Its lines, exit codes and ledger are the typer command's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from citeledger.ledger import load_ledger

PAGE = "Sea ice floats on the ocean because frozen water is less dense than liquid water.\n"


def test_quote_starts_without_typer_or_the_other_verbs(tmp_path: Path) -> None:
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    probe = (
        "import sys\n"
        "from citeledger.cli import main\n"
        "main(['--ledger', 'l.json', 'add', 'https://a.org'])\n"
        "try:\n"
        "    main(['--ledger', 'l.json', 'quote', '1', '--text', 'frozen water is less dense',"
        " '--from', 'page.txt'])\n"
        "finally:\n"
        "    wanted = ('pydantic', 'typer', 'click', 'citeledger.commands.quote_cmd')\n"
        "    loaded = [m for m in sys.modules if m.startswith(wanted)]\n"
        "    print(' '.join(sorted(loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.split() == []
    assert done.stdout.splitlines() == ["[1] https://a.org", "[1] evidence attached (1 quote(s))"]
    assert [q.text for q in load_ledger(tmp_path / "l.json").source(1).quotes] == [
        "frozen water is less dense"
    ]


def test_quick_and_typer_quote_say_the_same(cli, tmp_path: Path) -> None:
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    assert cli("add", "https://a.org", "https://b.org").code == 0
    quick = cli("quote", "1", "--text", "frozen water is less dense", "--from", "page.txt")
    typed = cli("quote", "[2]", "--text=frozen water is less dense", "--from", "page.txt")
    assert (quick.code, quick.out) == (0, "[1] evidence attached (1 quote(s))\n")
    assert (typed.code, typed.out) == (0, "[2] evidence attached (1 quote(s))\n")
    bad_id = cli("quote", "x", "--text", "frozen water is less dense", "--from", "page.txt")
    assert bad_id.code == 2 and "'x' is not a ledger id" in bad_id.err
    missing = cli("quote", "1", "--from", "page.txt")
    assert missing.code == 2 and "--text" in missing.err
    refused = cli("quote", "1", "--text", "frozen fire is very hot", "--from", "page.txt")
    assert refused.code != 0 and "not found verbatim" in refused.err
