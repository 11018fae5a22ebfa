"""The verbs an agent calls at every retrieval, ``add``, ``quote`` and ``list``, in their plain
forms, run without typer.

typer (with its own click) is the largest import of a run, and these verbs need nothing of it:
a command line made only of the flags this module knows runs here, through the same code the
typer command runs; anything else (``--help``, an unknown flag, a missing value, a value that
starts with ``-``, ``--opt=value``, no URL) returns False and goes to the typer command, which
parses it as it always did. Standard library and the ledger core only.
"""

from __future__ import annotations

# Read by type checkers only: ``typing`` and ``pathlib`` are no cost of a quick verb.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# The group's flags this module reads before the verb, and those it lets pass (they change
# nothing a quick verb prints).
_GLOBAL_FLAGS = ("-q", "--quiet", "-v", "--verbose")


def where_ledger(explicit: str | None, global_value: str | None) -> tuple[Path, str]:
    """The ledger a command works on and why: its own ``--ledger``, else the one given before
    the verb, else the project file's, else the environment and default (``locate_ledger``)."""
    from pathlib import Path

    from ..ledger.store import locate_ledger

    if explicit:
        return locate_ledger(explicit)
    if global_value:
        return locate_ledger(global_value)
    # The options table loads only when no --ledger is given: most of an agent's calls give one.
    from ..options.project import load_project

    project = load_project()
    if project.options.ledger:
        return Path(project.options.ledger), f"given by the project file {project.path}"
    return locate_ledger(None)


def list_lines(path: Path, why: str, as_json: bool) -> list[str]:
    """What ``citeledger list`` prints: ``[n] url  title  (k quotes)`` a source, or the JSON."""
    import json

    from ..ledger import load_ledger
    from ..ledger.layout import TextLedger

    book = load_ledger(path, missing_ok=True)
    text = book.loaded_text
    if not as_json and isinstance(book, TextLedger) and not book.whole and text:
        # A ledger the one-pass pattern took (layout.TextLedger): listed from its JSON, no
        # source object built (a 50,000-source list spent most of its time building them).
        from ..ledger.lane import list_text

        return list_text(json.loads(text)["sources"])
    # In id order, as ``render``'s pick_sources gives them: the renderers are no cost of a list.
    sources = sorted(book.sources, key=lambda s: s.id)
    if as_json:
        return [json.dumps([s.to_dict() for s in sources], indent=2, ensure_ascii=False)]
    if not sources:
        # Which ledger and why: an agent that expected sources learns it is looking elsewhere.
        return [f"ledger is empty: {path} ({why})"]
    lines = []
    for s in sources:
        title = f"  {s.display_title}" if s.title else ""
        n = len(s.quotes)
        mark = f"  ({n} quote{'s' if n != 1 else ''})" if n else ""
        lines.append(f"[{s.id}] {s.url}{title}{mark}")
    return lines


def _split(args: list[str]) -> tuple[str | None, set[str], str, list[str]] | None:
    """The ledger given before the verb, the other group flags given, the verb and its words;
    None for a form this module leaves to typer."""
    global_ledger = None
    flags: set[str] = set()
    words = list(args)
    while words and words[0].startswith("-"):
        flag = words.pop(0)
        if flag == "--ledger" and words and not words[0].startswith("-"):
            global_ledger = words.pop(0)
        elif flag in _GLOBAL_FLAGS:
            flags.add(flag)
        else:
            return None
    if not words:
        return None
    return global_ledger, flags, words[0], words[1:]


# Each quick verb's flags: those that take one value (the last given wins, as in click), those
# given once per value, and the switches.
_FLAGS = {
    "list": ((), (), ("--json",)),
    "quote": (("--text", "--from"), (), ()),
    "add": (
        ("--accessed", "--author", "--issued", "--site", "--key", "--archived"),
        ("--title",),
        ("--json",),
    ),
}


def _parse(verb: str, words: list[str]) -> tuple[list[str], dict[str, list[str]]] | None:
    """The verb's arguments and flags (each flag's values in order, a switch's as ``[""]``),
    or None for a form this module leaves to typer."""
    single, many, switches = _FLAGS[verb]
    arguments: list[str] = []
    given: dict[str, list[str]] = {}
    rest = iter(words)
    for word in rest:
        if word in switches:
            given[word] = [""]
        elif word in (*single, *many, "--ledger"):
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None
            given.setdefault(word, []).append(value)
        elif word == "-" or not word.startswith("-"):
            arguments.append(word)
        else:
            return None
    return arguments, given


def _last(given: dict[str, list[str]], flag: str) -> str | None:
    values = given.get(flag)
    return values[-1] if values else None


def run_quick(args: list[str], *, ending: bool = False) -> int | None:
    """Run ``args`` here when this module knows every word of them and return the exit code;
    None leaves them to typer. Errors are raised as the typer command raises them (the CLI's
    edge prints them). ``ending``: the process ends with the run (the console's own), so
    what a verify paused for its run need not be restored."""
    split = _split(args)
    if split is None:
        return None
    global_ledger, flags, verb, words = split
    if verb == "verify":
        from ._quick_verify import quick_verify

        quiet = bool(flags & {"-q", "--quiet"})
        verbose = bool(flags & {"-v", "--verbose"})
        return quick_verify(words, global_ledger, quiet, verbose, ending=ending)
    if verb not in _FLAGS:
        return None
    return 0 if _run_verb(verb, words, global_ledger) else None


def _run_verb(verb: str, words: list[str], global_ledger: str | None) -> bool:
    """``add``, ``quote`` or ``list`` with ``words``; False for a form left to typer."""
    parsed = _parse(verb, words)
    if parsed is None:
        return False
    arguments, given = parsed
    explicit = _last(given, "--ledger")
    lines = _in_lane(verb, arguments, given, explicit or global_ledger)
    if lines is not None:
        if lines:  # one write: a 50,000-line list is not 100,000 calls to the terminal filter
            print("\n".join(lines))
        return True
    from ._io import echo

    if verb == "list":
        if arguments:
            return False
        path, why = where_ledger(explicit, global_ledger)
        echo("\n".join(list_lines(path, why, "--json" in given)))
        return True
    if not arguments:  # click's "Missing argument" line
        return False
    if verb == "quote":
        return _quote(arguments, given, explicit, global_ledger)
    from ._add_sources import add_sources

    add_sources(
        lambda: where_ledger(explicit, global_ledger)[0],
        arguments,
        given.get("--title", []),
        accessed=_last(given, "--accessed"),
        author=_last(given, "--author"),
        issued=_last(given, "--issued"),
        site=_last(given, "--site"),
        key=_last(given, "--key"),
        archived=_last(given, "--archived"),
        as_json="--json" in given,
    )
    return True


def _quote(
    arguments: list[str], given: dict[str, list[str]], explicit: str | None, glob: str | None
) -> bool:
    """``quote ID --text TEXT [--from FILE|-]``, as the typer command runs it."""
    text = _last(given, "--text")
    if len(arguments) != 1 or text is None:
        return False
    # Loaded here: the page readers are no cost of add and list.
    from ..ledger.attach import attach_quote
    from ._io import echo, parse_id

    path = where_ledger(explicit, glob)[0]
    done = attach_quote(path, parse_id(arguments[0]), text, _last(given, "--from"))
    echo(f"[{done.id}] evidence attached ({done.count} quote(s))")
    return True


def _in_lane(
    verb: str, arguments: list[str], given: dict[str, list[str]], ledger: str | None
) -> list[str] | None:
    """What ``add``, ``list`` or ``quote`` prints when the ledger core's fast lane
    (:mod:`citeledger.ledger.lane`, :mod:`~citeledger.ledger.lane_quote`) takes the call, done;
    None for the general way."""
    if verb == "list" and not arguments and not given.keys() - {"--ledger"}:
        from ..ledger.lane import listed

        shown = listed(ledger)  # its lines already joined: printed as one line
        return None if shown is None else [shown]
    if verb == "add" and arguments and not given.keys() - {"--ledger", "--title"}:
        from ..ledger.lane import add

        return add(ledger, arguments, given.get("--title", []))
    text, evidence = given.get("--text"), given.get("--from")
    if verb == "quote" and len(arguments) == 1 and text and evidence:
        if given.keys() - {"--ledger", "--text", "--from"}:
            return None
        from ..ledger.lane_quote import quote

        return quote(ledger, arguments[0], text[-1], evidence[-1])
    return None
