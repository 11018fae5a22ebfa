"""Fonts in WordprocessingML: the font a run shows its digits in, resolved as Word resolves it
(a ledger-id mark drawn as ``w:sym`` names it), and the theme fonts a named font must shed."""

from __future__ import annotations

from lxml import etree

from ._oxml import (
    W_RPR,
    Element,
    attr,
    qn,
    run_style,
    xpath,
)

_W_RFONTS = qn("w:rFonts")
_W_P = qn("w:p")
_W_PPR = qn("w:pPr")
_W_PSTYLE = qn("w:pStyle")
_W_VAL = qn("w:val")

# Word's own font when neither the run, its styles nor the document defaults name one.
DEFAULT_FONT = "Times New Roman"
_THEME_NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}


class MarkFont:
    """The Latin font a run shows its digits in, resolved the way Word resolves it: the run's
    own ``w:rFonts``, its character style and the styles that one is based on, the paragraph's
    style chain (or the default paragraph style), then the document defaults; a theme font
    (``w:asciiTheme``, which wins over ``w:ascii``) is looked up in the theme part."""

    def __init__(self, styles: Element | None, theme: Element | None) -> None:
        self.styles = styles
        self.theme = theme
        self.by_id: dict[str, Element] = {}
        self.defaults: dict[str, Element] = {}
        # A report's notes ask for the same few style chains thousands of times, and the
        # styles do not change while the marks are drawn: each chain is resolved once.
        self.chains: dict[tuple[str | None, str], str | None] = {}
        self.themes: dict[str, str | None] = {}
        self.fallback: str | None = None
        for style in xpath(styles, "w:style") if styles is not None else []:
            self.by_id.setdefault(attr(style, "w:styleId") or "", style)
            if attr(style, "w:default") in ("1", "true", "on"):
                self.defaults.setdefault(attr(style, "w:type") or "", style)

    def _style(self, style_id: str | None, kind: str) -> Element | None:
        return self.defaults.get(kind) if style_id is None else self.by_id.get(style_id)

    def _theme_font(self, name: str) -> str | None:
        if name not in self.themes:
            self.themes[name] = self._find_theme_font(name)
        return self.themes[name]

    def _find_theme_font(self, name: str) -> str | None:
        if self.theme is None:
            return None
        which = "a:majorFont" if name.startswith("major") else "a:minorFont"
        hits = etree.XPath(f".//{which}/a:latin/@typeface", namespaces=_THEME_NS)(self.theme)
        return str(hits[0]) if hits and str(hits[0]) else None

    def _from_rpr(self, holder: Element | None) -> str | None:
        if holder is None:
            return None
        for fonts in (f for rpr in holder.iterchildren(W_RPR) for f in rpr.iterchildren(_W_RFONTS)):
            theme = attr(fonts, "w:asciiTheme")
            if theme:
                found = self._theme_font(theme)
                if found:
                    return found
            ascii_font = attr(fonts, "w:ascii")
            if ascii_font:
                return ascii_font
        return None

    def _chain(self, style_id: str | None, kind: str) -> str | None:
        key = (style_id, kind)
        if key not in self.chains:
            self.chains[key] = self._walk_chain(style_id, kind)
        return self.chains[key]

    def _walk_chain(self, style_id: str | None, kind: str) -> str | None:
        seen: set[str] = set()
        style = self._style(style_id, kind)
        while style is not None:
            found = self._from_rpr(style)
            if found:
                return found
            sid = attr(style, "w:styleId") or ""
            seen.add(sid)
            based = xpath(style, "w:basedOn/@w:val")
            if not based or str(based[0]) in seen:
                return None
            style = self._style(str(based[0]), kind)
        return None

    def of(self, run: Element) -> str:
        found = self._from_rpr(run) or self._chain(run_style(run), "character")
        if found:
            return found
        para = run.getparent()
        while para is not None and para.tag != _W_P:
            para = para.getparent()
        pstyle = [
            value
            for ppr in (para.iterchildren(_W_PPR) if para is not None else ())
            for style in ppr.iterchildren(_W_PSTYLE)
            if (value := style.get(_W_VAL)) is not None
        ]
        found = self._chain(str(pstyle[0]) if pstyle else None, "paragraph")
        if found:
            return found
        if self.fallback is None:
            defaults = (
                xpath(self.styles, "w:docDefaults/w:rPrDefault") if self.styles is not None else []
            )
            self.fallback = (defaults and self._from_rpr(defaults[0])) or DEFAULT_FONT
        return self.fallback


def drop_theme_fonts(element: Element) -> None:
    """Remove the theme font attributes for Latin text under ``element``: Word lets
    ``w:asciiTheme`` win over an explicit ``w:ascii``, so a named font needs them gone."""
    for fonts in xpath(element, ".//w:rFonts"):
        for name in ("w:asciiTheme", "w:hAnsiTheme"):
            fonts.attrib.pop(qn(name), None)
