// CRM page behaviours. Everything here only enhances plain forms that work without it.
(function () {
  "use strict";

  // "Select all" checkboxes in list views.
  document.addEventListener("change", function (event) {
    var all = event.target.closest("[data-select-all]");
    if (all) {
      var form = all.form || all.closest("form");
      var name = all.getAttribute("data-select-all");
      form.querySelectorAll("input[type=checkbox][name='" + name + "']").forEach(function (box) {
        box.checked = all.checked;
      });
      return;
    }
    // Merge page: choosing another record to keep moves the untouched field picks with it.
    if (event.target.name === "master_id") {
      var master = event.target.value;
      document.querySelectorAll("input[type=radio][name^='pick_']").forEach(function (radio) {
        if (radio.dataset.touched !== "1" && radio.value === master) {
          radio.checked = true;
        }
      });
      return;
    }
    if (event.target.name && event.target.name.indexOf("pick_") === 0) {
      document.querySelectorAll("input[name='" + event.target.name + "']").forEach(function (radio) {
        radio.dataset.touched = "1";
      });
    }
  });

  // Pipeline board: dropping a card on a column presses that stage's button in the card's Move menu.
  var dragged = null;
  document.addEventListener("dragstart", function (event) {
    var card = event.target.closest && event.target.closest("[data-deal]");
    if (!card) return;
    dragged = card;
    card.classList.add("is-dragging");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", card.getAttribute("data-deal"));
  });
  document.addEventListener("dragend", function () {
    if (dragged) dragged.classList.remove("is-dragging");
    dragged = null;
    document.querySelectorAll(".board__column.is-over").forEach(function (column) {
      column.classList.remove("is-over");
    });
  });
  document.addEventListener("dragover", function (event) {
    var column = event.target.closest && event.target.closest("[data-stage]");
    if (!column || !dragged) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    column.classList.add("is-over");
  });
  document.addEventListener("dragleave", function (event) {
    var column = event.target.closest && event.target.closest("[data-stage]");
    if (column && !column.contains(event.relatedTarget)) column.classList.remove("is-over");
  });
  document.addEventListener("drop", function (event) {
    var column = event.target.closest && event.target.closest("[data-stage]");
    if (!column || !dragged) return;
    event.preventDefault();
    var stage = column.getAttribute("data-stage");
    var button = Array.prototype.find.call(dragged.querySelectorAll("button[name=stage]"), function (b) {
      return b.value === stage;
    });
    if (!button) return;
    column.querySelector(".board__cards").appendChild(dragged);
    button.form.requestSubmit(button);
  });
})();
