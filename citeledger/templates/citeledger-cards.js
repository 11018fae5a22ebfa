/* citeledger's evidence cards: hover or focus a citation to see its source's card; Escape or
   leaving closes it. No network; the cards are in the page (escaped by citeledger). */
(function () {
  if (window.citeledgerCards) return;
  window.citeledgerCards = true;
  var open = null, anchor = null, closing = null;
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
    mark(id ? document.getElementById(id) : null);
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
      a.addEventListener("click", function () { hide(); mark(target(this)); });
    }
    var cards = document.querySelectorAll(".citeledger-card");
    for (var j = 0; j < cards.length; j++) {
      cards[j].hidden = true;
      cards[j].addEventListener("mouseenter", function () { clearTimeout(closing); });
      cards[j].addEventListener("mouseleave", later);
    }
    var backs = document.querySelectorAll("a.citeledger-back");
    for (var k = 0; k < backs.length; k++) {
      backs[k].addEventListener("click", function () { mark(target(this)); });
    }
    document.addEventListener("keydown", function (e) {
      if ((e.key === "Escape" || e.key === "Esc") && open) hide();
    });
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
