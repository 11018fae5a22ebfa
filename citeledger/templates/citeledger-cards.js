/* citeledger's evidence cards: hover or focus a citation to see its source's card; Escape or
   leaving closes it. No network; the cards are in the page (escaped by citeledger). */
(function () {
  if (window.citeledgerCards) return;
  window.citeledgerCards = true;
  var open = null, anchor = null, closing = null;
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
  function place(a, card) {
    var r = a.getBoundingClientRect(), w = card.offsetWidth, h = card.offsetHeight;
    var left = Math.max(8, Math.min(r.left, window.innerWidth - w - 8));
    var top = r.bottom + 6;
    if (top + h > window.innerHeight - 8 && r.top - h - 6 > 8) top = r.top - h - 6;
    card.style.left = left + "px";
    card.style.top = top + "px";
  }
  function show(a) {
    var card = cardOf(a);
    if (!card) return;
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
    if (!slides || !window.Reveal || !t || !t.closest(".slides section")) return;
    e.preventDefault();
    var at = Reveal.getIndices(t.closest(".slides section"));
    Reveal.slide(at.h, at.v);
  }
  function start() {
    var links = document.querySelectorAll("a.citeledger-cite[aria-describedby]");
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      // The card says more than the tooltip: keep the title for scripts off only.
      a.setAttribute("data-citeledger-title", a.getAttribute("title") || "");
      a.removeAttribute("title");
      a.addEventListener("mouseenter", function () { show(this); });
      a.addEventListener("mouseleave", later);
      a.addEventListener("focus", function () { show(this); });
      a.addEventListener("blur", hide);
      a.addEventListener("click", go);
    }
    var cards = document.querySelectorAll(".citeledger-card");
    for (var j = 0; j < cards.length; j++) {
      cards[j].hidden = true;
      cards[j].addEventListener("mouseenter", function () { clearTimeout(closing); });
      cards[j].addEventListener("mouseleave", later);
    }
    var backs = document.querySelectorAll("a.citeledger-back");
    for (var k = 0; k < backs.length; k++) {
      backs[k].addEventListener("click", go);
    }
    // Before reveal.js hears it: Escape that closes a card does not also open the overview.
    window.addEventListener("keydown", function (e) {
      if ((e.key === "Escape" || e.key === "Esc") && open) { hide(); e.stopPropagation(); }
    }, true);
    // The page scrolls under an open card (wheel, arrow keys): the card stays by its citation.
    function follow() { if (open && anchor) place(anchor, open); }
    window.addEventListener("scroll", follow, { passive: true });
    window.addEventListener("resize", follow);
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
