// Booking page behaviours. Everything here enhances plain forms that work without it.
//
// Date ranges ([data-date-range]): two real date inputs, check-in ([data-range-start]) and
// check-out ([data-range-end]). Typing or filling them always works; this script keeps
// check-out's minimum a day after check-in and adds a "Choose dates on a calendar" button
// that opens a two-month popover: arrow keys move a day or a week, Page Up/Down a month,
// Home/End the start/end of the week, Enter or Space picks check-in then check-out, and
// Escape closes it.
(function () {
  "use strict";

  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December"];
  var SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
    "Nov", "Dec"];
  var DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  var serial = 0;

  function parse(text) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || "");
    if (!m) return null;
    var d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    return isNaN(d.getTime()) ? null : d;
  }

  function iso(d) {
    return d.toISOString().slice(0, 10);
  }

  function addDays(d, n) {
    return new Date(d.getTime() + n * 86400000);
  }

  function addMonths(d, n) {
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
  }

  function spoken(d) {
    return DAYS[d.getUTCDay()] + " " + d.getUTCDate() + " " + SHORT_MONTHS[d.getUTCMonth()] +
      " " + d.getUTCFullYear();
  }

  function setValue(input, value) {
    if (input.value === value) return;
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function DateRange(root) {
    this.root = root;
    this.start = root.querySelector("[data-range-start]");
    this.end = root.querySelector("[data-range-end]");
    this.min = parse(root.getAttribute("data-min"));
    this.id = "range-pop-" + (++serial);
    this.picking = "start";
    this.focusDay = null;
    this.view = null;
    this.build();
    this.syncMin();
    var self = this;
    this.start.addEventListener("change", function () {
      self.syncMin();
      var s = parse(self.start.value);
      var e = parse(self.end.value);
      if (s && e && e <= s) setValue(self.end, "");
    });
  }

  DateRange.prototype.syncMin = function () {
    var s = parse(this.start.value);
    var floor = s ? addDays(s, 1) : this.min;
    if (floor) this.end.min = iso(floor);
  };

  DateRange.prototype.build = function () {
    var self = this;
    var toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "button button--small range-toggle";
    toggle.textContent = "Choose dates on a calendar";
    toggle.setAttribute("aria-expanded", "false");
    toggle.setAttribute("aria-controls", this.id);
    this.toggle = toggle;
    var pop = document.createElement("div");
    pop.className = "range-pop";
    pop.id = this.id;
    pop.hidden = true;
    pop.setAttribute("role", "dialog");
    pop.setAttribute("aria-label", "Stay calendar");
    this.pop = pop;
    this.root.appendChild(toggle);
    this.root.appendChild(pop);
    toggle.addEventListener("click", function () {
      if (self.pop.hidden) self.open(); else self.close(false);
    });
    pop.addEventListener("click", function (event) {
      var day = event.target.closest("[data-day]");
      if (day && !day.disabled) {
        self.pick(parse(day.getAttribute("data-day")));
        return;
      }
      var nav = event.target.closest("[data-months]");
      if (nav) {
        self.view = addMonths(self.view, +nav.getAttribute("data-months"));
        self.render(false);
      }
    });
    pop.addEventListener("keydown", function (event) { self.key(event); });
    document.addEventListener("mousedown", function (event) {
      if (!self.pop.hidden && !self.root.contains(event.target)) self.close(false);
    });
  };

  DateRange.prototype.open = function () {
    var s = parse(this.start.value);
    var e = parse(this.end.value);
    this.picking = s && !e ? "end" : "start";
    this.focusDay = (this.picking === "end" ? addDays(s, 1) : s) || this.min || new Date();
    if (this.min && this.focusDay < this.min) this.focusDay = this.min;
    this.view = addMonths(this.focusDay, 0);
    this.pop.hidden = false;
    this.toggle.setAttribute("aria-expanded", "true");
    this.render(true);
  };

  DateRange.prototype.close = function (refocus) {
    this.pop.hidden = true;
    this.toggle.setAttribute("aria-expanded", "false");
    if (refocus) this.toggle.focus();
  };

  DateRange.prototype.pick = function (day) {
    var s = parse(this.start.value);
    if (this.picking === "start" || !s || day <= s) {
      setValue(this.start, iso(day));
      setValue(this.end, "");
      this.syncMin();
      this.picking = "end";
      this.focusDay = addDays(day, 1);
      this.render(true);
      return;
    }
    setValue(this.end, iso(day));
    this.picking = "start";
    this.close(false);
    this.end.focus();
  };

  DateRange.prototype.key = function (event) {
    if (event.key === "Escape") {
      event.preventDefault();
      this.close(true);
      return;
    }
    if (!event.target.hasAttribute("data-day")) return;
    var d = this.focusDay;
    var moves = {
      ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7,
    };
    if (event.key in moves) {
      d = addDays(d, moves[event.key]);
    } else if (event.key === "PageUp" || event.key === "PageDown") {
      var n = event.key === "PageUp" ? -1 : 1;
      var target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));
      var last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0));
      d = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth(),
        Math.min(d.getUTCDate(), last.getUTCDate())));
    } else if (event.key === "Home") {
      d = addDays(d, -((d.getUTCDay() + 6) % 7));
    } else if (event.key === "End") {
      d = addDays(d, 6 - ((d.getUTCDay() + 6) % 7));
    } else {
      return;
    }
    event.preventDefault();
    if (this.min && d < this.min) d = this.min;
    this.focusDay = d;
    var first = this.view;
    var after = addMonths(first, 2);
    if (d < first) this.view = addMonths(d, 0);
    else if (d >= after) this.view = addMonths(d, -1);
    this.render(true);
  };

  DateRange.prototype.render = function (focus) {
    var s = parse(this.start.value);
    var e = parse(this.end.value);
    var pop = this.pop;
    pop.textContent = "";
    var head = document.createElement("div");
    head.className = "range-pop__head";
    var prev = document.createElement("button");
    prev.type = "button";
    prev.className = "button button--small";
    prev.setAttribute("data-months", "-1");
    prev.textContent = "Previous month";
    var hint = document.createElement("p");
    hint.className = "range-pop__hint";
    hint.setAttribute("aria-live", "polite");
    hint.textContent = this.picking === "end" ? "Now pick check-out" : "Pick check-in";
    var next = document.createElement("button");
    next.type = "button";
    next.className = "button button--small";
    next.setAttribute("data-months", "1");
    next.textContent = "Next month";
    head.appendChild(prev);
    head.appendChild(hint);
    head.appendChild(next);
    pop.appendChild(head);
    var focusIso = this.focusDay ? iso(this.focusDay) : "";
    var focusButton = null;
    for (var m = 0; m < 2; m++) {
      var month = addMonths(this.view, m);
      var table = document.createElement("table");
      var caption = document.createElement("caption");
      caption.textContent = MONTHS[month.getUTCMonth()] + " " + month.getUTCFullYear();
      table.appendChild(caption);
      var thead = document.createElement("thead");
      var hr = document.createElement("tr");
      ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].forEach(function (label) {
        var th = document.createElement("th");
        th.scope = "col";
        th.textContent = label;
        hr.appendChild(th);
      });
      thead.appendChild(hr);
      table.appendChild(thead);
      var tbody = document.createElement("tbody");
      var row = document.createElement("tr");
      var lead = (month.getUTCDay() + 6) % 7;
      for (var i = 0; i < lead; i++) row.appendChild(document.createElement("td"));
      var day = month;
      while (day.getUTCMonth() === month.getUTCMonth()) {
        var td = document.createElement("td");
        var b = document.createElement("button");
        b.type = "button";
        b.className = "range-pop__day";
        b.textContent = String(day.getUTCDate());
        b.setAttribute("data-day", iso(day));
        var label = spoken(day);
        if (s && iso(day) === iso(s)) { b.classList.add("is-edge"); label += ", arrival"; }
        if (e && iso(day) === iso(e)) { b.classList.add("is-edge"); label += ", departure"; }
        if (s && e && day > s && day < e) b.classList.add("is-in");
        b.setAttribute("aria-label", label);
        if (this.min && day < this.min) b.disabled = true;
        b.tabIndex = iso(day) === focusIso ? 0 : -1;
        if (iso(day) === focusIso) focusButton = b;
        td.appendChild(b);
        row.appendChild(td);
        if (row.children.length === 7) {
          tbody.appendChild(row);
          row = document.createElement("tr");
        }
        day = addDays(day, 1);
      }
      if (row.children.length) tbody.appendChild(row);
      table.appendChild(tbody);
      pop.appendChild(table);
    }
    if (focus && focusButton) focusButton.focus();
  };

  document.querySelectorAll("[data-date-range]").forEach(function (root) {
    new DateRange(root);
  });
})();
