"""``--resolve``: a grounding redirect followed to the page's own URL while it still works.

Gemini grounds an answer on ``vertexaisearch.cloud.google.com/grounding-api-redirect/...``
addresses that expire within days; a ledger id must name a page a reader can open for good.
Each such address is asked for once (a ``HEAD``, then a ``GET`` if the server refuses it)
without following the answer, and the ``Location`` it redirects to is what the ledger stores.
Only those redirect addresses are asked for (``draft.py`` calls this for them alone), at most
:data:`TIMEOUT` seconds each; one that fails is kept, with the warning every expiring address
gets, and what went wrong is said.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from urllib.parse import urljoin

TIMEOUT = 10.0
_AGENT = "citeledger-import (resolving a grounding redirect)"


class _Stay(urllib.request.HTTPRedirectHandler):
    """Hand a redirect back instead of following it."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def make_resolver(warn: Callable[[str], None]) -> Callable[[str], str]:
    """A function from a redirect address to where it leads (the address itself when it
    cannot be followed, said to ``warn``)."""
    opener = urllib.request.build_opener(_Stay)
    seen: dict[str, str] = {}

    def resolve(url: str) -> str:
        if url not in seen:
            seen[url] = _follow(opener, url, warn)
        return seen[url]

    return resolve


def _follow(opener: urllib.request.OpenerDirector, url: str, warn: Callable[[str], None]) -> str:
    problem = ""
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers={"User-Agent": _AGENT})
        try:
            with opener.open(request, timeout=TIMEOUT) as response:
                problem = f"it answered {response.status} without redirecting"
        except urllib.error.HTTPError as exc:
            moved = exc.code in (301, 302, 303, 307, 308)
            location = exc.headers.get("Location") if moved else None
            if location:
                return urljoin(url, location)
            problem = f"it answered {exc.code}"
            if exc.code != 405:
                break
        except (urllib.error.URLError, OSError, ValueError) as exc:
            problem = f"no answer ({getattr(exc, 'reason', exc)})"
            break
    warn(f"could not resolve {url}: {problem}")
    return url
