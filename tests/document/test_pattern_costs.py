"""What a one-page verify compiles, and the rewrites that keep it cheap.

sre compiles a character class holding a character above U+00FF that is not one or two runs
as a 64K-entry bitmap, built twice in Python: about 2.4 million instructions a class, as much
as a dozen other patterns. A one-page verify compiled six (the sentence splitter's full stop,
its closing quotes, the abbreviation before a stop and its letters ignoring case, the Sources
entry's dash). The splitter's and the Sources line's patterns are written with those
characters apart, and the abbreviation check is written out in Python (issue 33). Each is held
here to what the pattern it replaced finds, on generated text heavy in the characters that
matter, so the sentences and coverage a draft gets stay the same.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from citeledger.document import sentences, sources_block
from tests.helpers import ROOT, run_citeledger

# The patterns as they were written before the rewrite.
_PH_CLASS = "\U000f0000-\U000ffffd"
OLD_BOUNDARY = re.compile(
    r"(?:(?<!\.)[.!?](?!\.)|(?P<cjk>[\u3002\uff01\uff1f\uff1b]))"
    r"[\"'\u201d\u2019)\]\u00bb]*"
    rf"(?:[ \t\r\n]*[{_PH_CLASS}])*"
    r"(?(cjk)|(?=[ \t\r\n]|\Z))"
)
OLD_ABBR_TAIL = re.compile(
    r"(?<![^\s(\[\"'\u201c\u2018\u00ab\u00a0])"
    r"(?:(?:[A-Za-z]\.)*[A-Za-z]|"
    + "|".join(re.escape(a) for a in sorted(sentences._ABBREVIATIONS, key=len, reverse=True))
    + r")\Z",
    re.IGNORECASE,
)
OLD_ENTRY = re.compile(r"^\s*\[([0-9]{1,6})\]\s*[-\u2013:]?\s*(\S+)")

# Letters, the case-folding odd ones (İ ı ſ K), stops, closers, openers, spaces, CJK stops,
# marker placeholders, and pieces of the abbreviations.
ALPHABET = [
    *"aAeEgGiIsSkKxXvV.!?,;:()[]\"' \t\n-",
    *"\u0130\u0131\u017f\u212a\u00e9\u00df",
    *"\u201c\u201d\u2018\u2019\u00ab\u00bb\u00a0\u2013\u3002\uff01\uff1f\uff1b\u2026",
    "\U000f0000",
    "\U000f0001",
    *("e.g", "i.e", "Dr", "vs", "approx", "Fig", "U.S", "ca", "no", "1", "3.5", "[1]"),
]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(ALPHABET, k=rng.randint(1, 30))) for _ in range(count)]


def test_the_abbreviation_check_finds_what_the_pattern_found() -> None:
    for text in _texts(20000, 1):
        for dot in (k for k, c in enumerate(text) if c == "."):
            found = OLD_ABBR_TAIL.search(text, max(0, dot - sentences._ABBR_WINDOW), dot)
            assert sentences._abbreviated(text, dot) == bool(found), (text, dot)


def test_a_long_documents_abbreviation_pattern_is_the_old_one() -> None:
    # Past a page's full stops the pattern takes over (its C-level search): the same test.
    assert sentences._ABBR_TAIL.flags & re.IGNORECASE
    for text in _texts(20000, 2):
        for dot in (k for k, c in enumerate(text) if c == "."):
            low = max(0, dot - sentences._ABBR_WINDOW)
            found = sentences._ABBR_TAIL.search(text, low, dot)
            assert bool(found) == bool(OLD_ABBR_TAIL.search(text, low, dot)), (text, dot)


def test_a_letter_is_what_the_pattern_took_for_one() -> None:
    for char in map(chr, [*range(0x80, 0x3000), 0x212A, 0xFF21, 0x1D400]):
        for text in (f"{char}.", f"A.{char}.", f"({char}.", f"x{char}."):
            dot = len(text) - 1
            found = OLD_ABBR_TAIL.search(text, max(0, dot - sentences._ABBR_WINDOW), dot)
            assert sentences._abbreviated(text, dot) == bool(found), text


def test_a_word_count_without_cjk_is_the_patterns_count() -> None:
    from citeledger.ledger import quotes

    cjk = re.compile(f"[{quotes._CJK_RANGES}]")
    wordish = re.compile(rf"[^\W{quotes._CJK_RANGES}]+")
    for text in [*_texts(5000, 4), "caf\u00e9 na\u00efve \u2013 _ \u00b2 \u0660", "\uff01 \u3000"]:
        counted = sum(1 for t in text.split() if wordish.search(t)) + len(cjk.findall(text)) // 2
        assert quotes.word_count(text) == counted, text


def test_the_sentence_stops_are_those_the_pattern_found() -> None:
    for text in _texts(20000, 2):
        old = [(m.span(), m.group("cjk")) for m in OLD_BOUNDARY.finditer(text)]
        new = [(m.span(), m.group("cjk")) for m in sentences._BOUNDARY.finditer(text)]
        assert new == old, text


def test_a_sources_entry_is_read_as_the_pattern_read_it() -> None:
    for text in _texts(20000, 3):
        line = f"[{len(text)}]{text}"
        old, new = OLD_ENTRY.match(line), sources_block._ENTRY.match(line)
        assert (new and new.groups()) == (old and old.groups()), line


def test_a_one_page_verify_builds_no_big_character_set(tmp_path: Path) -> None:
    """Every pattern a clean one-page verify compiles is built without sre's 64K bitmap."""
    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(
        "Sea ice floats, e.g. on lakes \u201cin winter.\u201d[1] The U.S. agency says so.[1]\n\n"
        "## Sources\n\n[1] \u2013 https://example.org/a\n",
        encoding="utf-8",
    )
    probe = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}]
        sys.path.append({sysconfig.get_paths()["purelib"]!r})
        import re._compiler as compiler
        from re._constants import BIGCHARSET
        built, optimize = [], compiler._optimize_charset

        def watching(charset, *args):
            out = optimize(charset, *args)
            if any(op is BIGCHARSET for op, _ in out[0]):
                built.append(charset)
            return out

        compiler._optimize_charset = watching
        from citeledger.cli import main
        try:
            main(["verify", "draft.md"])
        finally:
            print("built", len(built), built)
        """
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "citations OK" in done.stdout, done.stdout
    assert done.stdout.splitlines()[-1] == "built 0 []", done.stdout
