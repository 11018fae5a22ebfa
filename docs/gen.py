"""The manual's reference pages, written from the tables the code holds.

    python3 docs/gen.py           write docs/reference/{options,rules,formats,cli}.md
    python3 docs/gen.py --check   exit 1 naming each page that differs from what the code gives

The options table is ``citeledger.options.manual.readme_table()``, the findings table
``citeledger.verify.rules.readme_table()``, the formats page the rows of ``citeledger.formats``
and the command-line page every verb's ``--help`` as the command prints it. A verb, option,
rule or format added to the code reaches the manual by running this script again;
tests/docs/test_reference_pages.py fails while a page is stale.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
COMMAND = "python3 docs/gen.py"
STAMP = f"<!-- Written by `{COMMAND}` from the code: edit the code, then run it again. -->"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def options_page() -> str:
    from citeledger.options.manual import readme_table

    return f"""# Options

{STAMP}

Every option is declared once (`citeledger/options/__init__.py`) and enters the same way
wherever it is given: a flag of `convert`, `wiki`, `verify` or `finish` (`--notes endnotes`,
`--min-coverage 0.6`; each command's `--help` lists its own, see the
[command line](cli.md)), the draft's front matter (a `citeledger:` map in the YAML header),
`-M citeledger.<key>=<value>` on a pandoc command line, or the project file
([project settings](../teams/settings.md): the key without its `citeledger.` prefix). A flag
wins over the draft's metadata and `-M`, which win over the project file, which wins over the
default; `citeledger config [DRAFT]` prints every value and where it came from. A value is
checked the same way wherever it enters: `--min-coverage nan` is refused by every command and
by the filter.

{readme_table()}
"""


def rules_page() -> str:
    from citeledger.verify.rules import readme_table

    return f"""# Findings

{STAMP}

The findings of `citeledger verify`, in the order the verifier reports them: a `code` in
`--format json`, a rule id in SARIF (whose `helpUri` links the rule's row here), the title of
a GitHub annotation. A `FAIL` fails the run; a `warn` fails it only under `--strict`; an
`info` never fails it, is counted on the stats line and is listed with `-v`. Every finding
carries its fix, the command or edit that clears it (`[n]` and `N` stand for the ids the
finding names). How verify reads a draft: [Verify](verify.md).

{readme_table()}
"""


def _suffixes(suffixes: tuple[str, ...]) -> str:
    return ", ".join(f"`{s}`" for s in suffixes) or "—"


def formats_page() -> str:
    from citeledger import formats

    rows = [
        "| format | kind | read from | written to | citations placed as | needs pandoc |",
        "|---|---|---|---|---|---|",
    ]
    for row in formats.ROWS:
        since = []
        if row.reads_since:
            since.append("reading " + ".".join(map(str, row.reads_since)))
        if row.writes_since:
            since.append("writing " + ".".join(map(str, row.writes_since)))
        reads = _suffixes(row.suffixes) if row.reads else "—"
        if row.reads and not row.suffixes:
            reads = "`-f " + row.name + "`"
        writes = _suffixes(row.output_suffixes) if row.writes else "—"
        if row.writes and not row.output_suffixes:
            writes = "`-t " + row.name + "`"
        name = f"`{row.name}`" + (" (citeledger's)" if row.own else "")
        rows.append(
            f"| {name} | {row.kind} | {reads} | {writes} | {row.placement} "
            f"| {', '.join(since) or '2.11'} |"
        )
    table = "\n".join(rows)
    return f"""# Formats

{STAMP}

Every reader and writer citeledger knows, one row of `citeledger/formats/__init__.py` each. A
file is read by its suffix (`-f`/`--from` names the reader of any other); `convert -o FILE`
writes by the suffix of FILE (`-t`/`--to` names the writer). "Citations placed as" names the
filter's placement for the format; "needs pandoc" the oldest pandoc that reads or writes it
(2.11 for everything else: the oldest pandoc the filter runs under). How a draft in each
format cites and lists its sources: [Verify](verify.md#how-each-input-format-cites).

{table}
"""


def _help(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        [sys.executable, *args, "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} --help exited {done.returncode}: {done.stderr}")
    return done.stdout.rstrip() + "\n"


# The filter's console script, run from the checkout.
FILTER = "from citeledger.filters.main import main; main()"


def cli_page() -> str:
    from citeledger.commands._app import VERBS

    parts = [
        "# Command line",
        "",
        STAMP,
        "",
        "Every verb's `--help`, as the command prints it. Exit codes: 0 ok, 1 a check failed,"
        " 2 bad input. `citeledger pandoc` hands every argument, `--help` included, to the"
        " embedded pandoc.",
        "",
        "## citeledger",
        "",
        "```text",
        _help("-m", "citeledger").rstrip(),
        "```",
    ]
    for verb in VERBS:
        if verb == "pandoc":
            continue
        usage = _help("-m", "citeledger", verb).rstrip()
        parts += ["", f"## citeledger {verb}", "", "```text", usage, "```"]
    parts += [
        "",
        "## pandoc-citeledger",
        "",
        "The filter's manual (`pandoc-citeledger --help`):",
        "",
        "```text",
        _help("-c", FILTER).strip(),
        "```",
        "",
    ]
    return "\n".join(parts)


PAGES: dict[str, Callable[[], str]] = {
    "options.md": options_page,
    "rules.md": rules_page,
    "formats.md": formats_page,
    "cli.md": cli_page,
}


def stale() -> list[str]:
    """The reference pages whose text differs from what the code gives."""
    out = []
    for name, make in PAGES.items():
        path = REFERENCE / name
        if not path.exists() or path.read_text(encoding="utf-8") != make():
            out.append(f"docs/reference/{name}")
    return out


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        pages = stale()
        for page in pages:
            print(f"{page} is stale: run `{COMMAND}`", file=sys.stderr)
        return 1 if pages else 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for name, make in PAGES.items():
        (REFERENCE / name).write_text(make(), encoding="utf-8")
        print(f"wrote docs/reference/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
