// Chat enhancements. Every action works without this file (plain forms and links); here we add
// Enter to send, @/# autocomplete, the attached-files list, the emoji picker, scroll position
// and closing open action menus.
(function () {
  "use strict";

  var API = "/chat/api/autocomplete/";

  function scrollHistory() {
    var history = document.querySelector("[data-history]");
    if (!history) return;
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    var highlighted = document.querySelector(".history .msg.is-highlighted");
    target = target && history.contains(target) ? target : highlighted;
    if (target) {
      target.scrollIntoView({ block: "center" });
    } else {
      history.scrollTop = history.scrollHeight;
    }
    var threadTarget = location.hash ? document.querySelector(".thread " + CSS.escape(location.hash)) : null;
    if (threadTarget) threadTarget.scrollIntoView({ block: "center" });
  }

  function autoGrow(textarea) {
    textarea.style.height = "auto";
    textarea.style.height = Math.min(textarea.scrollHeight, 240) + "px";
  }

  // ---- autocomplete ------------------------------------------------------------------------

  function tokenBefore(textarea) {
    var text = textarea.value.slice(0, textarea.selectionStart);
    var match = /(^|\s)([@#])([^\s@#]*(?: [^\s@#]*)?)$/.exec(text);
    if (!match) return null;
    return { trigger: match[2], prefix: match[3], start: text.length - match[3].length - 1 };
  }

  function Autocomplete(form, textarea) {
    this.form = form;
    this.textarea = textarea;
    this.list = form.querySelector("[data-autocomplete-list]");
    this.items = [];
    this.index = 0;
    this.token = null;
    this.seq = 0;
  }

  Autocomplete.prototype.open = function () {
    return this.list && !this.list.hidden && this.items.length > 0;
  };

  Autocomplete.prototype.close = function () {
    if (!this.list) return;
    this.list.hidden = true;
    this.items = [];
    this.textarea.removeAttribute("aria-activedescendant");
  };

  Autocomplete.prototype.update = function () {
    var self = this;
    var token = tokenBefore(this.textarea);
    if (!token || !this.list) return this.close();
    // "@Ana Lo" may run over a space; a second word only counts while a name could match.
    this.token = token;
    var kind = token.trigger === "@" ? "people" : "channels";
    var seq = ++this.seq;
    fetch(API + kind + "?prefix=" + encodeURIComponent(token.prefix) + "&limit=8", {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    })
      .then(function (response) { return response.ok ? response.json() : []; })
      .then(function (data) {
        if (seq !== self.seq) return;
        var rows = Array.isArray(data) ? data : data.items || data.data || [];
        self.render(kind, rows);
      })
      .catch(function () { self.close(); });
  };

  Autocomplete.prototype.render = function (kind, rows) {
    var self = this;
    this.list.textContent = "";
    this.items = rows.map(function (row, i) {
      var li = document.createElement("li");
      li.id = self.textarea.id + "-option-" + i;
      li.setAttribute("role", "option");
      var dot = document.createElement("span");
      dot.className = "autocomplete__dot";
      var name = document.createElement("span");
      var meta = document.createElement("span");
      meta.className = "autocomplete__meta";
      if (kind === "people") {
        dot.style.background = row.avatar_color || "#1264a3";
        dot.textContent = (row.display_name || "?").split(/\s+/).map(function (w) { return w[0]; }).join("").slice(0, 2).toUpperCase();
        name.textContent = row.display_name;
        meta.textContent = row.title || "";
        li.dataset.insert = "@" + row.display_name + " ";
      } else {
        dot.style.background = "#616061";
        dot.textContent = row.is_private ? "🔒" : "#";
        name.textContent = row.name;
        li.dataset.insert = "#" + row.name + " ";
      }
      li.append(dot, name, meta);
      li.addEventListener("mousedown", function (event) {
        event.preventDefault();
        self.choose(i);
      });
      self.list.appendChild(li);
      return li;
    });
    this.index = 0;
    this.list.hidden = this.items.length === 0;
    this.highlight();
  };

  Autocomplete.prototype.highlight = function () {
    var self = this;
    this.items.forEach(function (li, i) { li.setAttribute("aria-selected", String(i === self.index)); });
    if (this.items[this.index]) {
      this.textarea.setAttribute("aria-activedescendant", this.items[this.index].id);
      this.items[this.index].scrollIntoView({ block: "nearest" });
    }
  };

  Autocomplete.prototype.move = function (step) {
    this.index = (this.index + step + this.items.length) % this.items.length;
    this.highlight();
  };

  Autocomplete.prototype.choose = function (i) {
    var li = this.items[i];
    if (!li || !this.token) return;
    var value = this.textarea.value;
    var caret = this.textarea.selectionStart;
    var insert = li.dataset.insert;
    this.textarea.value = value.slice(0, this.token.start) + insert + value.slice(caret);
    var at = this.token.start + insert.length;
    this.textarea.setSelectionRange(at, at);
    this.close();
    this.textarea.focus();
  };

  // ---- composer ----------------------------------------------------------------------------

  function setupComposer(form) {
    var textarea = form.querySelector("textarea[name=body]");
    if (!textarea) return;
    var complete = new Autocomplete(form, textarea);
    var sending = false;
    autoGrow(textarea);

    textarea.addEventListener("input", function () {
      autoGrow(textarea);
      complete.update();
    });

    textarea.addEventListener("keydown", function (event) {
      if (complete.open()) {
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          complete.move(event.key === "ArrowDown" ? 1 : -1);
          return;
        }
        if (event.key === "Enter" || event.key === "Tab") {
          event.preventDefault();
          complete.choose(complete.index);
          return;
        }
        if (event.key === "Escape") {
          event.preventDefault();
          complete.close();
          return;
        }
      }
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        var files = form.querySelector("[data-file-input]");
        var hasFiles = files && files.files && files.files.length > 0;
        if (!textarea.value.trim() && !hasFiles) return;
        if (sending) return;
        sending = true;
        form.requestSubmit ? form.requestSubmit() : form.submit();
      }
    });

    textarea.addEventListener("blur", function () {
      window.setTimeout(function () { complete.close(); }, 150);
    });

    var input = form.querySelector("[data-file-input]");
    var list = form.querySelector("[data-file-list]");
    if (input && list) {
      input.addEventListener("change", function () {
        list.textContent = "";
        Array.prototype.forEach.call(input.files, function (file) {
          var chip = document.createElement("span");
          chip.textContent = "📎 " + file.name;
          list.appendChild(chip);
        });
        list.hidden = input.files.length === 0;
        textarea.focus();
      });
    }
  }

  // ---- reaction picker: one shared panel, opened next to the button that asked -------------

  function setupPicker() {
    var picker = document.querySelector("[data-picker]");
    if (!picker) return;
    document.addEventListener("click", function (event) {
      var opener = event.target.closest("[data-picker-for]");
      if (opener) {
        event.preventDefault();
        picker.action = opener.getAttribute("data-picker-for");
        picker.hidden = false;
        var box = opener.getBoundingClientRect();
        var width = picker.offsetWidth;
        var height = picker.offsetHeight;
        var left = Math.max(8, Math.min(box.right - width, window.innerWidth - width - 8));
        var top = box.bottom + 4;
        if (top + height > window.innerHeight - 8) top = Math.max(8, box.top - height - 4);
        picker.style.left = left + "px";
        picker.style.top = top + "px";
        var first = picker.querySelector("button");
        if (first) first.focus();
        return;
      }
      if (!picker.contains(event.target)) picker.hidden = true;
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") picker.hidden = true;
    });
  }

  // ---- menus -------------------------------------------------------------------------------

  document.addEventListener("click", function (event) {
    document.querySelectorAll("details.act-menu[open]").forEach(function (menu) {
      if (!menu.contains(event.target)) menu.open = false;
    });
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    document.querySelectorAll("details.act-menu[open]").forEach(function (menu) {
      menu.open = false;
      var summary = menu.querySelector("summary");
      if (summary) summary.focus();
    });
  });

  // Reading a channel moves the reader's marker up to the newest message the page showed. The
  // page itself is a plain GET that changes nothing; this POST carries the API's header.
  function markRead() {
    var history = document.querySelector("[data-history][data-read-url]");
    if (!history) return;
    fetch(history.getAttribute("data-read-url"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Requested-With": "officegym" },
      body: JSON.stringify({ message_id: Number(history.getAttribute("data-read-upto")) }),
    }).catch(function () {});
  }

  function init() {
    markRead();
    document.querySelectorAll("form[data-composer]").forEach(setupComposer);
    setupPicker();
    scrollHistory();
    var composer = document.querySelector(".thread form[data-composer] textarea") ||
      document.querySelector(".channel form[data-composer] textarea");
    if (composer && !location.hash) composer.focus({ preventScroll: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
