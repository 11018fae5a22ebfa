"""The error tree. Inside the package errors are exceptions; the CLI edge turns each into
one line of text and one exit code (the grounded-citations convention: 0 ok, 1 verification
failed, 2 bad input).

    CiteledgerError                 exit 2, the base: something the user can fix
    ├── BadInput                    exit 2
    │   ├── LedgerError             missing, unreadable, corrupt or wrongly shaped ledger
    │   │   └── LedgerShapeError    the JSON parsed but is not a ledger (says where: sources[3].id)
    │   │       └── UnsafeLedgerEntry   a URL no reader should open (javascript:, a hidden host)
    │   ├── BadURL                  not http(s), not a DOI or arXiv id
    │   ├── EvidenceError           an evidence file that cannot be read or is too large
    │   ├── DraftError              a draft that does not exist or cannot be read
    │   │   ├── ResourceRefused     a file the draft names outside the folders a build may read
    │   │   └── AmbiguousBlock      raw lines and pandoc's tree disagree on the Sources block
    │   ├── OutputError             an output that must not or cannot be written
    │   ├── FetchRefused            an image a build did not fetch (a warning, never at the edge)
    │   ├── ToolMissing             pandoc, a TeX engine, LibreOffice or a template is absent
    │   └── JudgeError              a support judge (model folder, command) missing or unreadable
    ├── PandocError                 exit 2: pandoc ran and refused the input
    └── CheckFailed                 exit 1: a check ran and said no
        ├── QuoteNotFound           the quote is not in the evidence
        ├── NothingFound            ingest found no URL
        └── VerificationFailed      the verifier found failures

Every message is one line: what, where, and how to fix it. The two shape errors stay inside
the ledger core: its store re-raises them as a ``LedgerError`` that names the file.
"""

from __future__ import annotations


class CiteledgerError(Exception):
    exit_code = 2

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = " ".join(message.split())
        self.hint = " ".join(hint.split()) if hint else None
        super().__init__(self.line())

    def line(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class BadInput(CiteledgerError):
    exit_code = 2


class LedgerError(BadInput):
    pass


class LedgerShapeError(LedgerError):
    """The JSON parsed but is not a ledger; the message says where (``sources[3].id``)."""


class UnsafeLedgerEntry(LedgerShapeError):
    """An entry whose URL a reader could not safely open (``javascript:``, a hidden host)."""


class BadURL(BadInput):
    pass


class EvidenceError(BadInput):
    pass


class DraftError(BadInput):
    pass


class ResourceRefused(DraftError):
    """A file a draft names outside the folders a build may read."""


class AmbiguousBlock(DraftError):
    """The draft's raw lines and pandoc's tree disagree about its Sources block: replacing
    anything would be a guess. The message says what disagreed; ``render --replace-in`` says
    it in its own line."""


class OutputError(BadInput):
    """An output that must not or cannot be written."""


class FetchRefused(BadInput):
    """Why one image was not fetched, in words a warning line can carry: the build writes the
    image's alt text instead and goes on."""


class ToolMissing(BadInput):
    pass


class JudgeError(BadInput):
    """The support judge a run was given (``--support-model DIR``, ``--support-judge CMD``)
    is missing, cannot be loaded or answered out of shape: one line, never a silent run
    without it."""


class PandocError(CiteledgerError):
    exit_code = 2


class CheckFailed(CiteledgerError):
    exit_code = 1


class QuoteNotFound(CheckFailed):
    pass


class NothingFound(CheckFailed):
    pass


class VerificationFailed(CheckFailed):
    pass
