/* citeledger's evidence cards: hover or focus a citation to see its source's card; Escape or
   leaving closes it. On a touch screen the first tap on a mark opens its card (with links to
   the source and to its Sources entry), a second tap follows the mark. In a reveal.js deck
   only the shown slide's marks are in the Tab order, and the reader may zoom. No network; the
   cards are in the page (escaped by citeledger). */
(function () {
  if (window.citeledgerCards) return;
  window.citeledgerCards = true;
  var open = null, anchor = null, closing = null;
  var touched = false;  // the last pointer down was a finger or a pen: no hover to rely on
  var wasOpen = null;  // the card open when the last pointer went down (before focus opened one)
  var still = false;  // the page jumped: no card on hover or focus until a move or a key
  var slides = document.querySelector(".reveal .slides");
  // reveal.js cuts a slide off at its bottom edge: a Sources list under the last slide's text
  // would never be seen, so it becomes a slide of its own (before reveal.js lays out the deck).
  (function () {
    var list = document.querySelector(".citeledger-sources");
    var slide = slides && list && list.closest(".slides section");
    if (!slide) return;
    var head = list.previousElementSibling;
    var moved = head && /^H[1-6]$/.test(head.tagName) ? [head, list] : [list];
    if (slide.firstElementChild === moved[0]) return;
    var own = document.createElement("section");
    own.className = "slide";
    // As pandoc does for a slide: the heading's id names the slide (#/sources in the address).
    if (moved.length > 1 && head.id) { own.id = head.id; head.removeAttribute("id"); }
    for (var i = 0; i < moved.length; i++) own.appendChild(moved[i]);
    var top = slide.parentNode === slides ? slide : slide.parentNode;
    slides.insertBefore(own, top.nextSibling);
    if (window.Reveal && Reveal.isReady && Reveal.isReady()) Reveal.sync();
  })();
  function cardOf(a) {
    var id = a.getAttribute("aria-describedby");
    return id ? document.getElementById(id) : null;
  }
  // The card goes below its mark, else above, wherever it fits; when it fits neither way it
  // takes the larger side and scrolls inside (as Wikipedia's previews do). It never covers
  // its mark and never leaves the viewport, at any width or text size.
  function place(a, card) {
    card.style.maxHeight = "";
    var r = a.getBoundingClientRect(), gap = 6, edge = 8;
    var vw = document.documentElement.clientWidth || window.innerWidth;
    var vh = window.innerHeight;
    var below = vh - r.bottom - gap - edge, above = r.top - gap - edge;
    var h = card.offsetHeight;
    var top;
    if (h <= below) top = r.bottom + gap;
    else if (h <= above) top = r.top - gap - h;
    else if (below >= above) { card.style.maxHeight = Math.max(below, 48) + "px"; top = r.bottom + gap; }
    else { card.style.maxHeight = Math.max(above, 48) + "px"; top = r.top - gap - card.offsetHeight; }
    var w = card.offsetWidth;
    var left = Math.max(edge, Math.min(r.left, vw - w - edge));
    card.style.left = left + "px";
    card.style.top = Math.max(edge, Math.min(top, vh - card.offsetHeight - edge)) + "px";
  }
  function current() {
    return slides && window.Reveal && Reveal.getCurrentSlide ? Reveal.getCurrentSlide() : null;
  }
  // A deck keeps its neighbouring slides in the page: their marks and back-links leave the Tab
  // order, and never open a card over the slide shown.
  function shownOnly() {
    var cur = current();
    if (!cur) return;
    var links = slides.querySelectorAll("a.citeledger-cite, a.citeledger-back");
    for (var i = 0; i < links.length; i++) {
      if (cur.contains(links[i])) links[i].removeAttribute("tabindex");
      else links[i].setAttribute("tabindex", "-1");
    }
  }
  function offSlide(a) {
    var cur = current();
    return !!(cur && !cur.contains(a));
  }
  function show(a) {
    var card = cardOf(a);
    if (!card || offSlide(a)) return;
    clearTimeout(closing);
    if (open && open !== card) open.hidden = true;
    if (card.parentNode !== document.body) document.body.appendChild(card);
    card.hidden = false;
    place(a, card);
    open = card;
    anchor = a;
  }
  function hide() {
    clearTimeout(closing);
    if (open) open.hidden = true;
    open = anchor = null;
  }
  function later() {
    clearTimeout(closing);
    closing = setTimeout(hide, 250);
  }
  function mark(target) {
    var old = document.querySelectorAll(".citeledger-here");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("citeledger-here");
    if (!target) return;
    if (target.classList.contains("citeledger-cite")) {
      var block = target.closest("p, li, td, dd, blockquote, figcaption");
      if (block) block.classList.add("citeledger-here");
    } else if (target.classList.contains("citeledger-source")) {
      target.classList.add("citeledger-here");
    }
  }
  function target(a) {
    return document.getElementById(decodeURIComponent(a.hash.replace(/^#\/?/, "")));
  }
  function fromHash() {
    var id = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
    var t = id ? document.getElementById(id) : null;
    // reveal.js names the slide in the hash as it moves (#/sources): the mark stays.
    if (slides && !(t && t.matches(".citeledger-cite, .citeledger-source"))) return;
    mark(t);
  }
  // On reveal.js a link goes to the slide that holds its target, whichever version or hash
  // settings the deck has; elsewhere the browser follows the link.
  function go(e) {
    var t = target(this);
    hide();
    mark(t);
    still = true;
    if (!slides || !window.Reveal || !t || !t.closest(".slides section")) return;
    e.preventDefault();
    var at = Reveal.getIndices(t.closest(".slides section"));
    Reveal.slide(at.h, at.v);
  }
  // A tap: the first opens the mark's card, the second (its card open) follows the mark.
  function tap(e) {
    if (touched && cardOf(this) && wasOpen !== cardOf(this)) {
      e.preventDefault();
      this.focus({ preventScroll: true });
      show(this);
      return;
    }
    go.call(this, e);
  }
  function hover() {
    if (!still && !touched) show(this);
  }
  // A table's box takes keyboard focus only when it has something to scroll.
  function tableStops() {
    var boxes = document.querySelectorAll(".citeledger-table");
    for (var i = 0; i < boxes.length; i++) {
      if (boxes[i].scrollWidth > boxes[i].clientWidth + 1) boxes[i].setAttribute("tabindex", "0");
      else boxes[i].removeAttribute("tabindex");
    }
  }
  // pandoc's reveal.js frame forbids zooming (user-scalable=no): a reader may zoom.
  function zoomable() {
    var meta = document.querySelector('meta[name="viewport"]');
    if (meta && /user-scalable\s*=\s*no|maximum-scale/i.test(meta.content)) {
      meta.setAttribute("content", "width=device-width, initial-scale=1");
    }
  }
  function start() {
    var links = document.querySelectorAll("a.citeledger-cite[aria-describedby]");
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      // The card says more than the tooltip: keep the title for scripts off only.
      a.setAttribute("data-citeledger-title", a.getAttribute("title") || "");
      a.removeAttribute("title");
      a.addEventListener("mouseenter", hover);
      a.addEventListener("mouseleave", function () { if (!touched) later(); });
      // A back-link's jump focuses the mark it returns to: no card over that paragraph.
      a.addEventListener("focus", function () { if (!still) show(this); });
      a.addEventListener("blur", function () { if (!touched) hide(); });
      a.addEventListener("click", tap);
    }
    var cards = document.querySelectorAll(".citeledger-card");
    for (var j = 0; j < cards.length; j++) {
      cards[j].hidden = true;
      cards[j].addEventListener("mouseenter", function () { clearTimeout(closing); });
      cards[j].addEventListener("mouseleave", later);
    }
    var backs = document.querySelectorAll("a.citeledger-back, a.citeledger-card-entry");
    for (var k = 0; k < backs.length; k++) {
      backs[k].addEventListener("click", go);
    }
    window.addEventListener("pointerdown", function (e) {
      touched = e.pointerType === "touch" || e.pointerType === "pen";
      wasOpen = open;
      // A tap outside the open card and its mark closes it.
      if (touched && open && !open.contains(e.target) && !(anchor && anchor.contains(e.target))) hide();
    }, true);
    window.addEventListener("mousemove", function (e) {
      if (e.movementX || e.movementY) still = false;
    }, { passive: true });
    window.addEventListener("keydown", function () { still = false; }, true);
    zoomable();
    tableStops();
    if (slides && window.Reveal && Reveal.on) {
      Reveal.on("ready", shownOnly);
      Reveal.on("slidechanged", function () { hide(); shownOnly(); });
      shownOnly();
    }
    // Before reveal.js hears it: Escape that closes a card does not also open the overview.
    window.addEventListener("keydown", function (e) {
      if ((e.key === "Escape" || e.key === "Esc") && open) { hide(); e.stopPropagation(); }
    }, true);
    // The page scrolls under an open card (wheel, arrow keys): the card stays by its citation.
    function follow() { if (open && anchor) place(anchor, open); }
    window.addEventListener("scroll", follow, { passive: true });
    window.addEventListener("resize", function () { follow(); tableStops(); });
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
