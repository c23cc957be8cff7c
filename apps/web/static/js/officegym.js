// Small behaviours shared by every page: disclosure menus and the login page's demo accounts.
(function () {
  "use strict";

  function closeMenus(except) {
    document.querySelectorAll("[data-menu-button][aria-expanded='true']").forEach(function (button) {
      if (button === except) return;
      button.setAttribute("aria-expanded", "false");
      var menu = document.getElementById(button.getAttribute("aria-controls"));
      if (menu) menu.hidden = true;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-menu-button]");
    if (button) {
      var menu = document.getElementById(button.getAttribute("aria-controls"));
      var open = button.getAttribute("aria-expanded") !== "true";
      closeMenus(button);
      button.setAttribute("aria-expanded", String(open));
      if (menu) menu.hidden = !open;
      return;
    }
    if (!event.target.closest(".menu")) closeMenus(null);

    var account = event.target.closest("[data-fill-email]");
    if (account) {
      var email = document.getElementById("email");
      var password = document.getElementById("password");
      if (email) email.value = account.getAttribute("data-fill-email");
      if (password) password.focus();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = document.querySelector("[data-menu-button][aria-expanded='true']");
    if (open) {
      closeMenus(null);
      open.focus();
    }
  });
})();
