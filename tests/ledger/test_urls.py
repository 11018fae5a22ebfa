"""URL identity: one page, one id, whatever spelling the retrieval tool used."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.errors import BadURL
from citeledger.ledger import normalize_url
from citeledger.ledger.urls import _normalize, is_canonical, url_key

# A loaded CI machine must not turn a slow example into a failure; speed is the benchmarks' job.
no_deadline = settings(deadline=None)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("https://example.com/page#section", "https://example.com/page"),
        ("https://example.com/page/", "https://example.com/page/"),
        ("https://example.com/", "https://example.com"),
        ("HTTPS://Example.COM/page", "https://example.com/page"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://example.com/a?q=1&r=2#frag", "https://example.com/a?q=1&r=2"),
        ("https://example.com/a/?q=1", "https://example.com/a/?q=1"),
        ("https://example.com/CaseSensitive/Path", "https://example.com/CaseSensitive/Path"),
        ("  https://example.com/a  ", "https://example.com/a"),
        ("https://bücher.DE/Straße", "https://xn--bcher-kva.de/Straße"),
        ("https://xn--bcher-kva.de/x", "https://xn--bcher-kva.de/x"),
        ("http://[::1]:80/a", "http://[::1]/a"),
    ],
)
def test_url_identity_rules(raw: str, canonical: str) -> None:
    assert normalize_url(raw) == canonical


@pytest.mark.parametrize(
    ("with_slash", "without"),
    [
        ("https://example.org/docs/", "https://example.org/docs"),
        ("https://example.org/docs/?v=2", "https://example.org/docs?v=2"),
        ("https://example.org/a//", "https://example.org/a"),
    ],
)
def test_a_trailing_slash_is_kept_as_registered_and_folded_in_identity(
    with_slash: str, without: str
) -> None:
    # Many servers answer /docs/ and /docs with different resources: the stored URL, which
    # every output links, is the one registered; the lookup key still makes them one source.
    assert normalize_url(with_slash) == with_slash
    assert normalize_url(normalize_url(with_slash)) == with_slash
    assert url_key(with_slash) == url_key(without) == normalize_url(without)


def test_query_is_significant() -> None:
    assert normalize_url("https://e.org/a?id=1") != normalize_url("https://e.org/a?id=2")


def test_path_case_is_significant() -> None:
    assert normalize_url("https://e.org/Page") != normalize_url("https://e.org/page")


@pytest.mark.parametrize(
    "raw",
    [
        "doi:10.1000/xyz123",
        "DOI: 10.1000/xyz123",
        "https://doi.org/10.1000/xyz123",
        "http://dx.doi.org/10.1000/xyz123/",
        "https://doi.org/10.1000/xyz123#top",
    ],
)
def test_doi_forms_become_one_doi_org_url(raw: str) -> None:
    assert normalize_url(raw) == "https://doi.org/10.1000/xyz123"


def test_doi_with_url_special_characters_is_percent_encoded() -> None:
    assert normalize_url("doi:10.1000/a#b?c") == "https://doi.org/10.1000/a%23b%3Fc"


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("arXiv:2401.01234", "https://arxiv.org/abs/2401.01234"),
        ("arxiv:2401.01234v2", "https://arxiv.org/abs/2401.01234v2"),
        ("arXiv:hep-th/9901001", "https://arxiv.org/abs/hep-th/9901001"),
    ],
)
def test_arxiv_ids_become_abs_urls(raw: str, canonical: str) -> None:
    assert normalize_url(raw) == canonical


@pytest.mark.parametrize(
    "raw",
    [
        "javascript:alert(1)",
        "data:text/html,<b>x</b>",
        "file:///etc/passwd",
        "mailto:someone@example.com",
        "ftp://example.com/file",
        "hello",
        "example.com/page",
        "https://",
        "https:///path",
        "http://example.com:notaport/",
        "https://exa mple.com/",
        "",
        "   ",
        "doi:not-a-doi",
        "arXiv:nonsense",
    ],
)
def test_non_http_and_malformed_urls_are_refused_with_one_line(raw: str) -> None:
    with pytest.raises(BadURL) as caught:
        normalize_url(raw)
    line = caught.value.line()
    assert "\n" not in line and line


def test_refusal_names_the_scheme() -> None:
    with pytest.raises(BadURL, match="javascript"):
        normalize_url("JavaScript:void(0)")


def test_bare_host_refusal_suggests_https() -> None:
    with pytest.raises(BadURL, match="did you mean https://example.com/page"):
        normalize_url("example.com/page")


_url_parts = st.builds(
    lambda scheme, host, port, path, query, frag: (
        f"{scheme}://{host}{port}{path}{'?' + query if query else ''}{'#' + frag if frag else ''}"
    ),
    st.sampled_from(["http", "https", "HTTP", "Https"]),
    st.from_regex(
        r"[A-Za-z0-9]([A-Za-z0-9-]{0,10}[A-Za-z0-9])?(\.[A-Za-zé]{2,6}){1,2}", fullmatch=True
    ),
    st.sampled_from(["", ":80", ":443", ":8080", ":"]),
    st.from_regex(r"(/[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}){0,4}/{0,2}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9=&%/?._-]{0,12}", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9/?#._-]{0,8}", fullmatch=True),
)


@no_deadline
@given(_url_parts)
def test_normalize_url_is_idempotent(url: str) -> None:
    once = normalize_url(url)
    assert normalize_url(once) == once


@no_deadline
@given(st.text(max_size=60))
def test_normalize_url_never_fails_other_than_bad_url(text: str) -> None:
    try:
        once = normalize_url(text)
    except BadURL:
        return
    assert once.startswith(("http://", "https://"))
    assert normalize_url(once) == once


_ascii_urls = st.from_regex(
    r"https?://[a-z0-9.-]{1,14}(/[\x21-\x7e]{0,14})?(\?[\x21-\x7e]{0,8})?", fullmatch=True
)


@no_deadline
@given(st.one_of(_ascii_urls, _url_parts))
def test_canonical_fast_path_agrees_with_the_full_rules(url: str) -> None:
    """URLs the fast path returns unchanged are exactly those the full rules leave unchanged."""
    if is_canonical(url):
        assert _normalize(url) == url
