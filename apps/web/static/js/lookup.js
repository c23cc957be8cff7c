// Type-ahead lookups (the `lookup` macro in _macros.html): typing into the box fetches
// `<source>?q=<text>` and lists the matches as options; choosing one (click, or arrow keys and
// Enter) puts its id in the hidden input and its name in the box. Without this script the box
// still posts what was typed and the server resolves the name.
(function () {
  "use strict";

  var cache = new Map();
  var sequence = 0;

  function parts(element) {
    var root = element.closest("[data-lookup]");
    if (!root) return null;
    return {
      root: root,
      box: root.querySelector(".lookup__input"),
      list: root.querySelector(".lookup__options"),
      value: root.querySelector("[data-lookup-value]"),
      chips: root.querySelector(".lookup__chips"),
      multiple: root.hasAttribute("data-multiple"),
    };
  }

  function options(p) {
    return Array.prototype.slice.call(p.list.querySelectorAll("[role=option]:not([aria-disabled=true])"));
  }

  function close(p) {
    p.list.hidden = true;
    p.box.setAttribute("aria-expanded", "false");
    p.box.removeAttribute("aria-activedescendant");
  }

  function render(p, found, text) {
    p.list.textContent = "";
    var chosen = {};
    if (p.multiple) {
      p.chips.querySelectorAll("input[type=hidden]").forEach(function (input) {
        chosen[input.value] = true;
      });
    }
    var shown = 0;
    found.forEach(function (choice) {
      if (chosen[String(choice.id)]) return;
      var option = document.createElement("li");
      option.className = "lookup__option";
      option.id = p.list.id + "-" + shown;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.dataset.id = String(choice.id);
      option.dataset.label = choice.label;
      option.appendChild(document.createTextNode(choice.label));
      if (choice.detail) {
        var detail = document.createElement("span");
        detail.className = "lookup__detail";
        detail.textContent = " — " + choice.detail;
        option.appendChild(detail);
      }
      p.list.appendChild(option);
      shown += 1;
    });
    if (!shown) {
      var empty = document.createElement("li");
      empty.className = "lookup__empty";
      empty.setAttribute("role", "option");
      empty.setAttribute("aria-disabled", "true");
      empty.textContent = text ? "No matches for “" + text + "”" : "No matches";
      p.list.appendChild(empty);
    }
    p.list.hidden = false;
    p.box.setAttribute("aria-expanded", "true");
    p.box.removeAttribute("aria-activedescendant");
  }

  function search(p) {
    var text = p.box.value.trim();
    var url = new URL(p.root.getAttribute("data-source"), window.location.href);
    url.searchParams.set("q", text);
    var key = url.toString();
    var ticket = ++sequence;
    p.root.dataset.ticket = String(ticket);
    var answer = cache.has(key)
      ? Promise.resolve(cache.get(key))
      : fetch(key, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(
          function (response) {
            if (!response.ok) throw new Error("lookup failed: " + response.status);
            return response.json().then(function (found) {
              cache.set(key, found);
              return found;
            });
          }
        );
    answer
      .then(function (found) {
        if (p.root.dataset.ticket !== String(ticket) || document.activeElement !== p.box) return;
        render(p, found, text);
      })
      .catch(function () {
        close(p);
      });
  }

  function choose(p, option) {
    var id = option.dataset.id;
    var label = option.dataset.label;
    if (p.multiple) {
      var chip = document.createElement("li");
      chip.className = "lookup__chip";
      var hidden = document.createElement("input");
      hidden.type = "hidden";
      hidden.name = p.root.getAttribute("data-name");
      hidden.value = id;
      var name = document.createElement("span");
      name.className = "lookup__chip-label";
      name.textContent = label;
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "lookup__remove";
      remove.setAttribute("aria-label", "Remove " + label);
      remove.setAttribute("data-lookup-remove", "");
      remove.textContent = "×";
      chip.append(hidden, name, remove);
      p.chips.appendChild(chip);
      p.box.value = "";
    } else {
      p.value.value = id;
      p.box.value = label;
    }
    close(p);
    p.box.focus();
    p.root.dispatchEvent(new CustomEvent("lookup:change", { bubbles: true, detail: { id: id, label: label } }));
  }

  function move(p, step) {
    var all = options(p);
    if (!all.length) return;
    var current = all.findIndex(function (option) {
      return option.getAttribute("aria-selected") === "true";
    });
    var next = current < 0 ? (step > 0 ? 0 : all.length - 1) : (current + step + all.length) % all.length;
    all.forEach(function (option, index) {
      option.setAttribute("aria-selected", String(index === next));
      option.classList.toggle("is-active", index === next);
    });
    p.box.setAttribute("aria-activedescendant", all[next].id);
    all[next].scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("input", function (event) {
    if (!event.target.matches || !event.target.matches(".lookup__input")) return;
    var p = parts(event.target);
    if (!p.multiple) p.value.value = "";
    if (!p.box.value.trim()) {
      close(p);
      return;
    }
    search(p);
  });

  document.addEventListener("keydown", function (event) {
    if (!event.target.matches || !event.target.matches(".lookup__input")) return;
    var p = parts(event.target);
    var open = !p.list.hidden;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!open) search(p);
      else move(p, event.key === "ArrowDown" ? 1 : -1);
    } else if (event.key === "Enter" && open) {
      var active = p.list.querySelector("[role=option][aria-selected=true]");
      if (active) {
        event.preventDefault();
        choose(p, active);
      } else {
        close(p);
      }
    } else if (event.key === "Escape" && open) {
      event.preventDefault();
      close(p);
    } else if (event.key === "Tab") {
      close(p);
    } else if (event.key === "Backspace" && p.multiple && !p.box.value) {
      var last = p.chips.lastElementChild;
      if (last) last.remove();
    }
  });

  // Keep the focus in the box while an option is pressed, so it doesn't close first.
  document.addEventListener("mousedown", function (event) {
    if (event.target.closest && event.target.closest(".lookup__options")) event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    if (!event.target.closest) return;
    var option = event.target.closest(".lookup__options [role=option]");
    if (option) {
      if (option.getAttribute("aria-disabled") !== "true") choose(parts(option), option);
      return;
    }
    var remove = event.target.closest("[data-lookup-remove]");
    if (remove) {
      var p = parts(remove);
      remove.closest(".lookup__chip").remove();
      p.box.focus();
    }
  });

  document.addEventListener("focusout", function (event) {
    if (!event.target.matches || !event.target.matches(".lookup__input")) return;
    var p = parts(event.target);
    if (!event.relatedTarget || !p.root.contains(event.relatedTarget)) close(p);
  });
})();
