/* The sheet grid: selection, keyboard and mouse like a spreadsheet, in-cell editing, copy and
   paste inside the grid, and a window of rows fetched as the grid scrolls. Every change goes
   through the sheets JSON API; the page's forms keep working without this script. */
(function () {
  "use strict";
  const app = document.querySelector("[data-grid-app]");
  if (!app) return;
  const table = app.querySelector("[data-grid]");
  const tbody = app.querySelector("[data-rows]");
  const scroller = app.querySelector("[data-grid-scroll]");
  const namebox = app.querySelector("[data-namebox]");
  const formula = app.querySelector("[data-formula]");
  const formulaForm = app.querySelector("[data-formula-form]");
  const nameForm = app.querySelector("[data-namebox-form]");
  const status = app.querySelector("[data-window-status]");
  const canEdit = app.dataset.canEdit === "1";
  const sheetApi = app.dataset.api + "/sheets/" + app.dataset.sheet;
  const bookApi = app.dataset.api;
  const rowsUrl = app.dataset.rowsUrl;
  const size = Number(app.dataset.window);
  const frozen = Number(app.dataset.frozen);
  let lastRow = Number(app.dataset.lastRow);
  let lastCol = Number(app.dataset.lastCol);
  let start = Number(app.dataset.start);
  let anchor = { r: 1, c: 1 };
  let focus = { r: 1, c: 1 };
  let copied = null;
  let editor = null;
  let busy = false;

  const letters = (n) => {
    let s = "";
    while (n > 0) { const m = (n - 1) % 26; s = String.fromCharCode(65 + m) + s; n = Math.floor((n - 1) / 26); }
    return s;
  };
  const number = (s) => [...s].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  const addr = (p) => letters(p.c) + p.r;
  const parse = (text) => {
    const m = /^\s*\$?([A-Za-z]{1,3})\$?(\d+)\s*(?::\s*\$?([A-Za-z]{1,3})\$?(\d+)\s*)?$/.exec(text || "");
    if (!m) return null;
    const a = { r: Number(m[2]), c: number(m[1].toUpperCase()) };
    const b = m[3] ? { r: Number(m[4]), c: number(m[3].toUpperCase()) } : a;
    if (a.r < 1 || b.r < 1) return null;
    return [a, b];
  };
  const box = () => ({
    r1: Math.min(anchor.r, focus.r), r2: Math.max(anchor.r, focus.r),
    c1: Math.min(anchor.c, focus.c), c2: Math.max(anchor.c, focus.c),
  });
  const rangeText = () => {
    const b = box();
    return b.r1 === b.r2 && b.c1 === b.c2 ? addr(focus) : addr({ r: b.r1, c: b.c1 }) + ":" + addr({ r: b.r2, c: b.c2 });
  };
  const colCount = () => table.querySelectorAll("thead th[role=columnheader]").length;
  const row = (r) => tbody.querySelector('tr[data-row="' + r + '"]');
  const cellAt = (p) => { const tr = row(p.r); return tr ? tr.children[p.c] || null : null; };
  const rawOf = (td) => (td ? (td.dataset.f !== undefined ? td.dataset.f : td.textContent) : "");
  const loadedRows = () => [...tbody.querySelectorAll("tr[data-row]")].map((tr) => Number(tr.dataset.row));

  function say(message) {
    let el = app.querySelector("[data-grid-message]");
    if (!el) {
      el = document.createElement("div");
      el.className = "alert alert--error";
      el.setAttribute("role", "alert");
      el.dataset.gridMessage = "";
      scroller.before(el);
    }
    el.textContent = message;
    el.hidden = !message;
  }

  function paint() {
    const b = box();
    tbody.querySelectorAll("td.is-selected, td.is-active").forEach((td) => td.classList.remove("is-selected", "is-active"));
    tbody.querySelectorAll("td[aria-selected]").forEach((td) => td.removeAttribute("aria-selected"));
    for (const tr of tbody.querySelectorAll("tr[data-row]")) {
      const r = Number(tr.dataset.row);
      if (r < b.r1 || r > b.r2) continue;
      for (let c = b.c1; c <= Math.min(b.c2, tr.children.length - 1); c++) {
        tr.children[c].classList.add("is-selected");
        tr.children[c].setAttribute("aria-selected", "true");
      }
    }
    const td = cellAt(focus);
    if (td) td.classList.add("is-active");
    const text = rangeText();
    if (namebox) namebox.value = text;
    if (formula && document.activeElement !== formula) formula.value = rawOf(td);
    app.querySelectorAll("[data-selection-field]").forEach((f) => { f.value = text; });
    app.querySelectorAll("[data-active-field]").forEach((f) => { f.value = addr(focus); });
    app.querySelectorAll("[data-link-source]").forEach((a) => {
      const u = new URL(a.href, location.href); u.searchParams.set("source", text); a.href = u.toString();
    });
    app.querySelectorAll("[data-link-cell]").forEach((a) => {
      const u = new URL(a.href, location.href); u.searchParams.set("cell", addr(focus)); a.href = u.toString();
    });
    const u = new URL(location.href);
    u.searchParams.set("cell", text);
    u.searchParams.delete("start");
    history.replaceState(null, "", u.toString());
    if (td) {
      table.setAttribute("aria-activedescendant", "");
      const top = td.offsetTop, left = td.offsetLeft;
      if (top < scroller.scrollTop + 23 * (frozen + 1)) scroller.scrollTop = Math.max(0, top - 23 * (frozen + 1));
      else if (top + td.offsetHeight > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + td.offsetHeight - scroller.clientHeight;
      if (left < scroller.scrollLeft + 48) scroller.scrollLeft = Math.max(0, left - 48);
      else if (left + td.offsetWidth > scroller.scrollLeft + scroller.clientWidth) scroller.scrollLeft = left + td.offsetWidth - scroller.clientWidth;
    }
  }

  async function loadWindow(from) {
    const res = await fetch(rowsUrl + "?start=" + from + "&count=" + size, { headers: { Accept: "text/html" } });
    if (!res.ok) return;
    tbody.innerHTML = await res.text();
    const rows = loadedRows().filter((r) => r > frozen);
    start = rows.length ? rows[0] : from;
    if (status) status.textContent = "Rows " + start + "–" + (rows.length ? rows[rows.length - 1] : start) + " of " + lastRow.toLocaleString("en-US");
  }

  async function reveal(p) {
    if (p.r > frozen && !row(p.r)) await loadWindow(Math.max(1, p.r - 5));
  }

  async function select(a, b, extend) {
    if (!extend) anchor = a;
    focus = b;
    await reveal(focus);
    paint();
  }

  async function call(method, path, body) {
    const res = await fetch(path, {
      method,
      headers: { "Content-Type": "application/json", "X-Requested-With": "officegym", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      say((data && data.error && data.error.message) || "That change could not be made.");
      return null;
    }
    say("");
    return data || {};
  }

  async function refresh(full) {
    if (full) {
      const u = new URL(location.href);
      u.searchParams.set("cell", rangeText());
      u.searchParams.set("start", String(start));
      location.assign(u.toString());
      return;
    }
    await loadWindow(start);
    paint();
  }

  async function write(method, path, body, full) {
    if (!canEdit || busy) return null;
    busy = true;
    try {
      const data = await call(method, path, body);
      if (data) {
        if (data.last_row !== undefined) lastRow = data.last_row;
        if (data.last_col !== undefined) lastCol = data.last_col;
        const needsColumns = lastCol + 1 > colCount();
        await refresh(full || needsColumns || app.querySelector(".sheets-charts") !== null);
      }
      return data;
    } finally {
      busy = false;
    }
  }

  const commit = (p, raw) => write("PUT", sheetApi + "/range", { ref: addr(p), values: [[raw]] });

  function move(dr, dc, extend) {
    const base = extend ? focus : focus;
    const next = { r: Math.max(1, base.r + dr), c: Math.max(1, Math.min(colCount(), base.c + dc)) };
    select(extend ? anchor : next, next, extend);
  }

  async function jump(direction, extend) {
    const res = await fetch(sheetApi + "/edge?cell=" + addr(focus) + "&direction=" + direction, { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const data = await res.json();
    const p = parse(data.cell)[0];
    p.c = Math.min(p.c, colCount());
    select(extend ? anchor : p, p, extend);
  }

  // -- in-cell editing -------------------------------------------------------------------------

  function openEditor(initial) {
    if (!canEdit) return;
    const td = cellAt(focus);
    if (!td) return;
    closeEditor(false);
    editor = document.createElement("input");
    editor.className = "sheets-editor";
    editor.setAttribute("aria-label", "Edit cell " + addr(focus));
    editor.value = initial === undefined ? rawOf(td) : initial;
    editor.style.top = td.offsetTop + "px";
    editor.style.left = td.offsetLeft + "px";
    editor.style.width = Math.max(td.offsetWidth, 120) + "px";
    editor.style.height = td.offsetHeight + "px";
    editor.dataset.at = addr(focus);
    scroller.appendChild(editor);
    editor.focus();
    editor.setSelectionRange(editor.value.length, editor.value.length);
    editor.addEventListener("keydown", onEditorKey);
    editor.addEventListener("input", () => { if (formula) formula.value = editor.value; });
    editor.addEventListener("blur", () => { if (editor) finishEdit(0, 0); });
  }

  function closeEditor(refocus) {
    if (!editor) return;
    const el = editor;
    editor = null;
    el.remove();
    if (refocus) table.focus();
  }

  async function finishEdit(dr, dc) {
    if (!editor) return;
    const p = parse(editor.dataset.at)[0];
    const value = editor.value;
    const before = rawOf(cellAt(p));
    closeEditor(true);
    if (value !== before) await commit(p, value);
    if (dr || dc) move(dr, dc, false);
  }

  function onEditorKey(e) {
    if (e.key === "Enter") { e.preventDefault(); finishEdit(e.shiftKey ? -1 : 1, 0); }
    else if (e.key === "Tab") { e.preventDefault(); finishEdit(0, e.shiftKey ? -1 : 1); }
    else if (e.key === "Escape") { e.preventDefault(); closeEditor(true); paint(); }
  }

  // -- the grid's keyboard --------------------------------------------------------------------

  table.addEventListener("keydown", (e) => {
    if (e.target !== table) return;
    const ctrl = e.ctrlKey || e.metaKey;
    const arrows = { ArrowUp: [-1, 0, "up"], ArrowDown: [1, 0, "down"], ArrowLeft: [0, -1, "left"], ArrowRight: [0, 1, "right"] };
    if (arrows[e.key]) {
      e.preventDefault();
      const [dr, dc, dir] = arrows[e.key];
      if (ctrl) jump(dir, e.shiftKey); else move(dr, dc, e.shiftKey);
      return;
    }
    const b = box();
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (ctrl && key === "z") { e.preventDefault(); write("POST", bookApi + "/undo", {}, true); return; }
    if (ctrl && (key === "y" || (e.shiftKey && key === "z"))) { e.preventDefault(); write("POST", bookApi + "/redo", {}, true); return; }
    if (ctrl && (key === "c" || key === "x")) {
      e.preventDefault();
      copied = { range: rangeText(), cut: key === "x" };
      tbody.querySelectorAll("td.is-copied").forEach((td) => td.classList.remove("is-copied"));
      tbody.querySelectorAll("td.is-selected").forEach((td) => td.classList.add("is-copied"));
      const text = [];
      for (let r = b.r1; r <= b.r2; r++) {
        const line = [];
        for (let c = b.c1; c <= b.c2; c++) { const td = cellAt({ r, c }); line.push(td ? td.textContent : ""); }
        text.push(line.join("\t"));
      }
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text.join("\n")).catch(() => {});
      return;
    }
    if (ctrl && key === "v") {
      e.preventDefault();
      if (copied) write("POST", sheetApi + "/paste", { source: copied.range, target: addr({ r: b.r1, c: b.c1 }), cut: copied.cut }, true);
      if (copied && copied.cut) copied = null;
      return;
    }
    if (ctrl && key === "d") { e.preventDefault(); write("POST", sheetApi + "/fill", { ref: rangeText(), direction: "down" }); return; }
    if (ctrl && key === "r") { e.preventDefault(); write("POST", sheetApi + "/fill", { ref: rangeText(), direction: "right" }); return; }
    if (ctrl && (key === "b" || key === "i")) {
      e.preventDefault();
      const td = cellAt(focus);
      const on = td ? !td.classList.contains(key) : true;
      write("POST", sheetApi + "/format", { ref: rangeText(), [key === "b" ? "bold" : "italic"]: on });
      return;
    }
    if (ctrl && key === "f") { e.preventDefault(); const link = app.querySelector("[data-keep-selection]"); if (link) location.assign(link.href); return; }
    if (ctrl && e.key === "Home") { e.preventDefault(); select({ r: 1, c: 1 }, { r: 1, c: 1 }, false); return; }
    if (ctrl && key === "a") { e.preventDefault(); anchor = { r: 1, c: 1 }; focus = { r: Math.max(1, lastRow), c: Math.max(1, lastCol) }; paint(); return; }
    if (ctrl || e.altKey) return;
    if (e.key === "Tab") { e.preventDefault(); move(0, e.shiftKey ? -1 : 1, false); return; }
    if (e.key === "Enter") { e.preventDefault(); if (e.shiftKey) move(-1, 0, false); else move(1, 0, false); return; }
    if (e.key === "F2") { e.preventDefault(); openEditor(); return; }
    if (e.key === "Escape") {
      copied = null;
      tbody.querySelectorAll("td.is-copied").forEach((td) => td.classList.remove("is-copied"));
      return;
    }
    if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); write("POST", sheetApi + "/clear", { ref: rangeText() }); return; }
    if (e.key === "PageDown") { e.preventDefault(); move(20, 0, e.shiftKey); return; }
    if (e.key === "PageUp") { e.preventDefault(); move(-20, 0, e.shiftKey); return; }
    if (e.key === "Home") { e.preventDefault(); select({ r: focus.r, c: 1 }, { r: focus.r, c: 1 }, false); return; }
    if (e.key.length === 1 && canEdit) { e.preventDefault(); openEditor(e.key); }
  });

  // -- the mouse ------------------------------------------------------------------------------

  let dragging = false;
  const position = (td) => ({ r: Number(td.parentElement.dataset.row), c: td.cellIndex });
  tbody.addEventListener("mousedown", (e) => {
    const td = e.target.closest("td");
    if (!td) return;
    if (editor) finishEdit(0, 0);
    e.preventDefault();
    table.focus();
    const p = position(td);
    if (e.shiftKey) { focus = p; } else { anchor = p; focus = p; }
    dragging = true;
    paint();
  });
  tbody.addEventListener("mouseover", (e) => {
    if (!dragging) return;
    const td = e.target.closest("td");
    if (td) { focus = position(td); paint(); }
  });
  document.addEventListener("mouseup", () => { dragging = false; });
  tbody.addEventListener("dblclick", (e) => { if (e.target.closest("td")) openEditor(); });
  table.querySelector("thead").addEventListener("mousedown", (e) => {
    const th = e.target.closest("th[role=columnheader]");
    if (!th) return;
    e.preventDefault();
    table.focus();
    const c = th.cellIndex;
    anchor = { r: 1, c };
    focus = { r: Math.max(1, lastRow), c };
    paint();
  });
  tbody.addEventListener("click", (e) => {
    const th = e.target.closest("th[role=rowheader]");
    if (!th) return;
    const r = Number(th.parentElement.dataset.row);
    anchor = { r, c: 1 };
    focus = { r, c: Math.max(1, colCount()) };
    paint();
  });

  // -- the name box and the formula bar -------------------------------------------------------

  if (nameForm) nameForm.addEventListener("submit", (e) => {
    const found = parse(namebox.value);
    if (!found) return;
    e.preventDefault();
    found[1].c = Math.min(found[1].c, colCount());
    found[0].c = Math.min(found[0].c, colCount());
    select(found[0], found[1], false).then(() => table.focus());
  });
  if (formulaForm) formulaForm.addEventListener("submit", (e) => {
    if (!canEdit) return;
    e.preventDefault();
    const p = { r: focus.r, c: focus.c };
    commit(p, formula.value).then(() => { move(1, 0, false); table.focus(); });
  });
  if (formula) formula.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); formula.value = rawOf(cellAt(focus)); table.focus(); }
  });

  // -- windowed scrolling ---------------------------------------------------------------------

  let loading = false;
  scroller.addEventListener("scroll", async () => {
    if (loading || editor) return;
    const rows = loadedRows().filter((r) => r > frozen);
    if (!rows.length) return;
    const nearEnd = scroller.scrollTop + scroller.clientHeight > scroller.scrollHeight - 46;
    const nearTop = scroller.scrollTop < 23 * (frozen + 1);
    if (nearEnd && rows[rows.length - 1] < lastRow) {
      loading = true;
      await loadWindow(start + Math.floor(size / 2));
      scroller.scrollTop = scroller.scrollHeight / 2 - scroller.clientHeight / 2;
      paint();
      loading = false;
    } else if (nearTop && start > frozen + 1) {
      loading = true;
      await loadWindow(Math.max(1, start - Math.floor(size / 2)));
      scroller.scrollTop = scroller.scrollHeight / 2 - scroller.clientHeight / 2;
      paint();
      loading = false;
    }
  });
  app.querySelectorAll("[data-page]").forEach((a) => a.addEventListener("click", async (e) => {
    e.preventDefault();
    const dir = Number(a.dataset.page);
    await loadWindow(Math.max(1, start + dir * size));
    paint();
  }));

  const initial = parse(namebox ? namebox.value : "A1") || [{ r: 1, c: 1 }, { r: 1, c: 1 }];
  anchor = initial[0];
  focus = initial[1].r === initial[0].r && initial[1].c === initial[0].c ? initial[0] : initial[1];
  if (initial[1] !== initial[0]) { anchor = initial[0]; focus = initial[1]; }
  paint();
  if (!document.querySelector("[role=alert]")) table.focus({ preventScroll: true });
})();
