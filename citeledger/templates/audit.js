(function () {
  "use strict";
  var items = document.querySelectorAll(".claim");
  var status = document.getElementById("shown");
  var onlyLook = document.getElementById("show-look");
  function show() {
    var look = onlyLook.checked;
    var count = 0;
    items.forEach(function (item) {
      var hide = look && item.getAttribute("data-look") === "no";
      item.hidden = hide;
      if (!hide) count += 1;
    });
    status.textContent = look
      ? "Showing the " + count + " cited sentences needing a look."
      : "Showing all " + count + " cited sentences.";
  }
  document.querySelectorAll('input[name="show"]').forEach(function (radio) {
    radio.addEventListener("change", show);
  });
  show();
})();
