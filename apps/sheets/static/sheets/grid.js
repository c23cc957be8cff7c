/* The sheet grid: selection, keyboard and mouse like a spreadsheet, in-cell editing, copy and
   paste inside the workbook, and a window of rows fetched as the grid scrolls. Every change goes
   through the sheets JSON API, one at a time and in the order made; the page's forms keep
   working without this script.

   The selection is the block between the active cell (where typing goes and what the formula
   bar shows) and its other corner, which Shift+arrows and dragging move. */
(function () {
  "use strict";
  const app = document.querySelector("[data-grid-app]");
  if (!app) return;
  const table = app.querySelector("[data-grid]");
  const tbody = app.querySelector("[data-rows]");
  const headRow = table.querySelector("thead tr");
  const colgroup = table.querySelector("colgroup");
  const scroller = app.querySelector("[data-grid-scroll]");
  const namebox = app.querySelector("[data-namebox]");
  const formula = app.querySelector("[data-formula]");
  const formulaForm = app.querySelector("[data-formula-form]");
  const nameForm = app.querySelector("[data-namebox-form]");
  const status = app.querySelector("[data-window-status]");
  const canEdit = app.dataset.canEdit === "1";
  const bookId = app.dataset.workbook;
  const sheetId = Number(app.dataset.sheet);
  const sheetApi = app.dataset.api + "/sheets/" + sheetId;
  const bookApi = app.dataset.api;
  const rowsUrl = app.dataset.rowsUrl;
  const size = Number(app.dataset.window);
  const frozen = Number(app.dataset.frozen);
  const MAX_COLS = 200;
  const COPIED = "sheets-copied-" + bookId;
  const ACTIVE_ID = "sheets-active-cell";
  let lastRow = Number(app.dataset.lastRow);
  let lastCol = Number(app.dataset.lastCol);
  let start = Number(app.dataset.start);
  let active = { r: 1, c: 1 };
  let end = { r: 1, c: 1 };
  let tabColumn = null;
  let editor = null;

  // -- addresses ------------------------------------------------------------------------------

  const letters = (n) => {
    let s = "";
    while (n > 0) { const m = (n - 1) % 26; s = String.fromCharCode(65 + m) + s; n = Math.floor((n - 1) / 26); }
    return s;
  };
  const number = (s) => [...s].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
  const addr = (p) => letters(p.c) + p.r;
  const same = (a, b) => a.r === b.r && a.c === b.c;
  const parse = (text) => {
    const m = /^\s*\$?([A-Za-z]{1,3})\$?(\d+)\s*(?::\s*\$?([A-Za-z]{1,3})\$?(\d+)\s*)?$/.exec(text || "");
    if (!m) return null;
    const a = { r: Number(m[2]), c: number(m[1].toUpperCase()) };
    const b = m[3] ? { r: Number(m[4]), c: number(m[3].toUpperCase()) } : { r: a.r, c: a.c };
    if (a.r < 1 || b.r < 1 || a.c > MAX_COLS || b.c > MAX_COLS) return null;
    return [a, b];
  };
  const box = () => ({
    r1: Math.min(active.r, end.r), r2: Math.max(active.r, end.r),
    c1: Math.min(active.c, end.c), c2: Math.max(active.c, end.c),
  });
  const rangeText = () => {
    const b = box();
    return b.r1 === b.r2 && b.c1 === b.c2 ? addr(active) : addr({ r: b.r1, c: b.c1 }) + ":" + addr({ r: b.r2, c: b.c2 });
  };

  // -- the grid's rows and columns ------------------------------------------------------------

  const colCount = () => headRow.querySelectorAll("th[role=columnheader]").length;
  const row = (r) => tbody.querySelector('tr[data-row="' + r + '"]');
  const cellAt = (p) => { const tr = row(p.r); return tr ? tr.children[p.c] || null : null; };
  const rawOf = (td) => (td ? (td.dataset.f !== undefined ? td.dataset.f : td.textContent) : "");
  const loadedRows = () => [...tbody.querySelectorAll("tr[data-row]")].map((tr) => Number(tr.dataset.row));
  const windowRows = () => loadedRows().filter((r) => r > frozen);

  function ensureColumns(n) {
    n = Math.min(MAX_COLS, n);
    let have = colCount();
    if (have >= n) return false;
    for (; have < n; have++) {
      const th = document.createElement("th");
      th.setAttribute("role", "columnheader");
      th.scope = "col";
      th.textContent = letters(have + 1);
      headRow.appendChild(th);
      const col = document.createElement("col");
      col.style.width = "100px";
      colgroup.appendChild(col);
    }
    table.setAttribute("aria-colcount", String(n + 1));
    return true;
  }

  let loadSeq = 0;
  async function load(from) {
    const seq = ++loadSeq;
    start = from;
    const res = await fetch(rowsUrl + "?start=" + from + "&count=" + size + "&cols=" + colCount(), { headers: { Accept: "text/html" } });
    if (!res.ok || seq !== loadSeq) return false;
    const html = await res.text();
    if (seq !== loadSeq) return false;
    tbody.innerHTML = html;
    const rows = windowRows();
    start = rows.length ? rows[0] : from;
    showWindow();
    return true;
  }

  function showWindow() {
    const rows = windowRows();
    const first = rows.length ? rows[0] : start;
    const last = rows.length ? rows[rows.length - 1] : start;
    if (status) status.textContent = "Rows " + first + "–" + last + " of " + lastRow.toLocaleString("en-US");
    table.setAttribute("aria-rowcount", String(Math.max(lastRow, last) + 1));
    app.querySelectorAll("[data-page]").forEach((a) => {
      const back = Number(a.dataset.page) < 0;
      a.hidden = back ? first <= frozen + 1 : last >= lastRow;
      const u = new URL(a.href, location.href);
      u.searchParams.set("start", String(back ? Math.max(1, first - size) : last + 1));
      u.searchParams.delete("cell");
      a.href = u.toString();
    });
  }

  // Load the window holding row `p.r` (and columns up to `p.c`) unless it is on the page.
  async function reveal(p) {
    const wider = ensureColumns(p.c);
    if (p.r > frozen && !row(p.r)) {
      // A step just past the window moves it by half; a jump puts the row near the top.
      const rows = windowRows();
      const first = rows[0], last = rows[rows.length - 1];
      const half = Math.floor(size / 2);
      let from = p.r - 5;
      if (rows.length && p.r > last && p.r - last <= 5) from = first + half;
      else if (rows.length && p.r < first && first - p.r <= 5) from = first - half;
      await load(Math.max(frozen + 1, from));
    } else if (wider) {
      await load(start);
    }
  }

  // -- painting the selection -----------------------------------------------------------------

  function paint(scroll) {
    const b = box();
    tbody.querySelectorAll("td.is-selected, td.is-active").forEach((td) => td.classList.remove("is-selected", "is-active"));
    tbody.querySelectorAll("td[aria-selected]").forEach((td) => td.removeAttribute("aria-selected"));
    const old = document.getElementById(ACTIVE_ID);
    if (old) old.removeAttribute("id");
    for (const tr of tbody.querySelectorAll("tr[data-row]")) {
      const r = Number(tr.dataset.row);
      if (r < b.r1 || r > b.r2) continue;
      for (let c = b.c1; c <= Math.min(b.c2, tr.children.length - 1); c++) {
        tr.children[c].classList.add("is-selected");
        tr.children[c].setAttribute("aria-selected", "true");
      }
    }
    const td = cellAt(active);
    if (td) {
      td.classList.add("is-active");
      td.id = ACTIVE_ID;
      table.setAttribute("aria-activedescendant", ACTIVE_ID);
    } else {
      table.removeAttribute("aria-activedescendant");
    }
    const text = rangeText();
    if (namebox && document.activeElement !== namebox) namebox.value = text;
    if (formula && td && document.activeElement !== formula && !editor) formula.value = rawOf(td);
    app.querySelectorAll("[data-selection-field]").forEach((f) => { f.value = text; });
    app.querySelectorAll("[data-active-field]").forEach((f) => { f.value = addr(active); });
    const manyRows = b.r2 > b.r1;
    const link = (a, name, value) => {
      const u = new URL(a.href, location.href);
      if (value) u.searchParams.set(name, value); else u.searchParams.delete(name);
      a.href = u.toString();
    };
    app.querySelectorAll("[data-link-source]").forEach((a) => link(a, "source", a.dataset.linkSource === "rows" && !manyRows ? "" : text));
    app.querySelectorAll("[data-link-range]").forEach((a) => link(a, "range", manyRows ? text : ""));
    app.querySelectorAll("[data-link-cell]").forEach((a) => link(a, "cell", addr(active)));
    syncToolbar(td);
    const u = new URL(location.href);
    u.searchParams.set("cell", text);
    u.searchParams.delete("start");
    history.replaceState(null, "", u.toString());
    if (scroll) {
      const target = cellAt(end) || td;
      if (target) target.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }

  // The toolbar's Bold and Italic buttons show (and toggle) the active cell's style.
  function syncToolbar(td) {
    if (!td) return;
    for (const [name, cls] of [["bold", "b"], ["italic", "i"]]) {
      const button = app.querySelector('[data-toolbar] button[value="' + name + '"], [data-toolbar] button[value="un' + name + '"]');
      if (!button) continue;
      const on = td.classList.contains(cls);
      button.value = on ? "un" + name : name;
      button.setAttribute("aria-pressed", on ? "true" : "false");
    }
  }

  async function select(a, b) {
    tabColumn = null;
    active = { r: a.r, c: a.c };
    end = { r: b.r, c: b.c };
    await reveal(end);
    paint(true);
  }

  function selectAll() {
    tabColumn = null;
    active = { r: 1, c: 1 };
    end = { r: Math.max(1, lastRow), c: Math.max(1, lastCol) };
    paint(false);
  }

  // -- writes, one at a time ------------------------------------------------------------------

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

  function reloadPage() {
    const u = new URL(location.href);
    u.searchParams.set("cell", rangeText());
    u.searchParams.set("start", String(start));
    location.assign(u.toString());
  }

  let queue = Promise.resolve();
  let pending = 0;
  // Send one change after those before it; redraw the rows (or the whole page when the change
  // can reach beyond them: undo, paste, charts drawn from the cells).
  function write(method, path, body, full) {
    if (!canEdit) return Promise.resolve(null);
    pending++;
    table.setAttribute("aria-busy", "true");
    const job = queue.then(async () => {
      const data = await call(method, path, body);
      if (data) {
        if (data.last_row !== undefined) lastRow = data.last_row;
        if (data.last_col !== undefined) lastCol = data.last_col;
      }
      if (data && (full || app.querySelector(".sheets-charts"))) { reloadPage(); return data; }
      ensureColumns(lastCol + 1);
      await load(start);
      paint(false);
      return data;
    }).finally(() => {
      if (--pending === 0) table.removeAttribute("aria-busy");
    });
    queue = job.catch(() => null);
    return job;
  }

  const commit = (p, raw) => write("PUT", sheetApi + "/range", { ref: addr(p), values: [[raw]] });

  // -- moving ---------------------------------------------------------------------------------

  function move(dr, dc, extend) {
    const from = extend ? end : active;
    const next = { r: Math.max(1, from.r + dr), c: Math.max(1, Math.min(MAX_COLS, from.c + dc)) };
    return extend ? select(active, next) : select(next, next);
  }

  // Enter after Tab goes back to the column the Tabs started from, as a spreadsheet does.
  function tab(back) {
    const column = tabColumn === null ? active.c : tabColumn;
    const done = move(0, back ? -1 : 1, false);
    tabColumn = column;
    return done;
  }

  function enter(back) {
    const column = tabColumn;
    tabColumn = null;
    if (back || column === null) return move(back ? -1 : 1, 0, false);
    const next = { r: active.r + 1, c: column };
    return select(next, next);
  }

  async function jump(direction, extend) {
    const from = extend ? end : active;
    const res = await fetch(sheetApi + "/edge?cell=" + addr(from) + "&direction=" + direction, { headers: { Accept: "application/json" } });
    if (!res.ok) return;
    const found = parse((await res.json()).cell);
    if (!found) return;
    const p = found[0];
    return extend ? select(active, p) : select(p, p);
  }

  // -- in-cell editing ------------------------------------------------------------------------

  // `typed`: the editor opened on a key, replacing the content ("enter" mode: arrows commit
  // and move); otherwise it edits the content in place (F2, double-click: arrows move the caret).
  function openEditor(typed) {
    if (!canEdit) return;
    const td = cellAt(active);
    if (!td) return;
    closeEditor(false);
    editor = document.createElement("input");
    editor.className = "sheets-editor";
    editor.setAttribute("aria-label", "Edit cell " + addr(active));
    editor.autocomplete = "off";
    editor.spellcheck = false;
    editor.dataset.before = rawOf(td);
    editor.dataset.mode = typed === undefined ? "edit" : "enter";
    editor.value = typed === undefined ? rawOf(td) : typed;
    editor.style.top = td.offsetTop + "px";
    editor.style.left = td.offsetLeft + "px";
    editor.style.minWidth = td.offsetWidth + "px";
    editor.style.height = td.offsetHeight + "px";
    editor.dataset.at = addr(active);
    scroller.appendChild(editor);
    editor.focus({ preventScroll: true });
    editor.setSelectionRange(editor.value.length, editor.value.length);
    if (formula) formula.value = editor.value;
    editor.addEventListener("keydown", onEditorKey);
    editor.addEventListener("input", () => { if (formula && editor) formula.value = editor.value; });
    editor.addEventListener("blur", () => { if (editor) finishEdit(0, 0); });
  }

  function closeEditor(refocus) {
    if (!editor) return;
    const el = editor;
    editor = null;
    el.remove();
    if (refocus) table.focus({ preventScroll: true });
  }

  function finishEdit(dr, dc, how) {
    if (!editor) return;
    const p = parse(editor.dataset.at)[0];
    const value = editor.value;
    const before = editor.dataset.before;
    closeEditor(true);
    if (value !== before) commit(p, value);
    if (how === "tab") tab(dc < 0);
    else if (how === "enter") enter(dr < 0);
    else if (dr || dc) move(dr, dc, false);
    else paint(false);
  }

  function onEditorKey(e) {
    const arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (e.key === "Enter") { e.preventDefault(); finishEdit(e.shiftKey ? -1 : 1, 0, "enter"); }
    else if (e.key === "Tab") { e.preventDefault(); finishEdit(0, e.shiftKey ? -1 : 1, "tab"); }
    else if (e.key === "Escape") { e.preventDefault(); closeEditor(true); paint(false); }
    else if (arrows[e.key] && editor.dataset.mode === "enter" && !editor.value.startsWith("=")) {
      e.preventDefault();
      finishEdit(arrows[e.key][0], arrows[e.key][1]);
    }
  }

  // -- copy and paste -------------------------------------------------------------------------

  function copiedRange() {
    try { return JSON.parse(sessionStorage.getItem(COPIED) || "null"); } catch (e) { return null; }
  }

  function markCopied(on) {
    tbody.querySelectorAll("td.is-copied").forEach((td) => td.classList.remove("is-copied"));
    if (on) tbody.querySelectorAll("td.is-selected").forEach((td) => td.classList.add("is-copied"));
  }

  function copy(cut) {
    const b = box();
    try { sessionStorage.setItem(COPIED, JSON.stringify({ sheet: sheetId, range: rangeText(), cut })); } catch (e) { /* private mode: paste still works from the clipboard */ }
    markCopied(true);
    const text = [];
    for (let r = b.r1; r <= b.r2; r++) {
      const line = [];
      for (let c = b.c1; c <= b.c2; c++) { const td = cellAt({ r, c }); line.push(td ? td.textContent : ""); }
      text.push(line.join("\t"));
    }
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text.join("\n")).catch(() => {});
  }

  function pasteCopied() {
    const copied = copiedRange();
    if (!copied) return false;
    const b = box();
    write("POST", sheetApi + "/paste", { source: copied.range, source_sheet_id: copied.sheet, target: addr({ r: b.r1, c: b.c1 }), cut: !!copied.cut }, true);
    if (copied.cut) sessionStorage.removeItem(COPIED);
    return true;
  }

  // Text pasted from outside the workbook (tab-separated, as spreadsheets copy) is typed in.
  document.addEventListener("paste", (e) => {
    if (document.activeElement !== table || !canEdit || !e.clipboardData) return;
    const text = e.clipboardData.getData("text/plain");
    if (!text) return;
    e.preventDefault();
    const values = text.replace(/\r?\n$/, "").split(/\r?\n/).map((line) => line.split("\t"));
    const b = box();
    write("PUT", sheetApi + "/range", { ref: addr({ r: b.r1, c: b.c1 }), values });
  });

  // -- the grid's keyboard --------------------------------------------------------------------

  const ARROWS = { ArrowUp: [-1, 0, "up"], ArrowDown: [1, 0, "down"], ArrowLeft: [0, -1, "left"], ArrowRight: [0, 1, "right"] };

  table.addEventListener("keydown", (e) => {
    if (e.target !== table) return;
    const ctrl = e.ctrlKey || e.metaKey;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (ARROWS[e.key]) {
      e.preventDefault();
      const [dr, dc, dir] = ARROWS[e.key];
      if (ctrl) jump(dir, e.shiftKey); else move(dr, dc, e.shiftKey);
      return;
    }
    const b = box();
    if (ctrl && key === "z" && !e.shiftKey) { e.preventDefault(); write("POST", bookApi + "/undo", {}, true); return; }
    if (ctrl && (key === "y" || (e.shiftKey && key === "z"))) { e.preventDefault(); write("POST", bookApi + "/redo", {}, true); return; }
    if (ctrl && (key === "c" || key === "x")) { e.preventDefault(); copy(key === "x"); return; }
    if (ctrl && key === "v") {
      // Without a copy made in this workbook, the browser's own paste event brings the text.
      if (pasteCopied()) e.preventDefault();
      return;
    }
    if (ctrl && (key === "d" || key === "r")) {
      e.preventDefault();
      const down = key === "d";
      let ref = rangeText();
      // One cell: copy the cell above (or to the left) into it.
      if (b.r1 === b.r2 && b.c1 === b.c2) {
        const from = down ? { r: b.r1 - 1, c: b.c1 } : { r: b.r1, c: b.c1 - 1 };
        if (from.r < 1 || from.c < 1) return;
        ref = addr(from) + ":" + addr(active);
      }
      write("POST", sheetApi + "/fill", { ref, direction: down ? "down" : "right" });
      return;
    }
    if (ctrl && (key === "b" || key === "i")) {
      e.preventDefault();
      const td = cellAt(active);
      const on = td ? !td.classList.contains(key) : true;
      write("POST", sheetApi + "/format", { ref: rangeText(), [key === "b" ? "bold" : "italic"]: on });
      return;
    }
    if (ctrl && key === "f") { e.preventDefault(); const link = app.querySelector("[data-keep-selection]"); if (link) location.assign(link.href); return; }
    if (ctrl && e.key === "Home") { e.preventDefault(); const p = { r: 1, c: 1 }; select(e.shiftKey ? active : p, p); return; }
    if (ctrl && e.key === "End") {
      e.preventDefault();
      const p = { r: Math.max(1, lastRow), c: Math.max(1, lastCol) };
      select(e.shiftKey ? active : p, p);
      return;
    }
    if (ctrl && key === "a") { e.preventDefault(); selectAll(); return; }
    if (ctrl && key === " ") { e.preventDefault(); tabColumn = null; active = { r: 1, c: active.c }; end = { r: Math.max(1, lastRow), c: active.c }; paint(false); return; }
    if (e.shiftKey && key === " ") { e.preventDefault(); tabColumn = null; active = { r: active.r, c: 1 }; end = { r: active.r, c: Math.max(1, colCount()) }; paint(false); return; }
    if (ctrl || e.altKey) return;
    if (e.key === "Tab") { e.preventDefault(); tab(e.shiftKey); return; }
    if (e.key === "Enter") { e.preventDefault(); enter(e.shiftKey); return; }
    if (e.key === "F2") { e.preventDefault(); openEditor(); return; }
    if (e.key === "Escape") { sessionStorage.removeItem(COPIED); markCopied(false); return; }
    if (e.key === "Delete" || e.key === "Backspace") { e.preventDefault(); write("POST", sheetApi + "/clear", { ref: rangeText() }); return; }
    if (e.key === "PageDown") { e.preventDefault(); move(20, 0, e.shiftKey); return; }
    if (e.key === "PageUp") { e.preventDefault(); move(-20, 0, e.shiftKey); return; }
    if (e.key === "Home") { e.preventDefault(); const p = { r: (e.shiftKey ? end : active).r, c: 1 }; select(e.shiftKey ? active : p, p); return; }
    if (e.key.length === 1 && canEdit) { e.preventDefault(); openEditor(e.key); }
  });

  // -- the mouse ------------------------------------------------------------------------------

  let dragging = false;
  const position = (td) => ({ r: Number(td.parentElement.dataset.row), c: td.cellIndex });
  tbody.addEventListener("mousedown", (e) => {
    if (e.button !== 0) return;
    const th = e.target.closest("th[role=rowheader]");
    if (th) {
      e.preventDefault();
      const r = Number(th.parentElement.dataset.row);
      tabColumn = null;
      if (!e.shiftKey) active = { r, c: 1 };
      end = { r, c: Math.max(1, colCount()) };
      table.focus({ preventScroll: true });
      paint(false);
      return;
    }
    const td = e.target.closest("td");
    if (!td) return;
    if (editor) finishEdit(0, 0);
    e.preventDefault();
    tabColumn = null;
    table.focus({ preventScroll: true });
    const p = position(td);
    if (e.shiftKey) end = p; else { active = p; end = p; }
    dragging = true;
    paint(false);
  });
  tbody.addEventListener("mouseover", (e) => {
    if (!dragging) return;
    const td = e.target.closest("td");
    if (td && !same(position(td), end)) { end = position(td); paint(false); }
  });
  document.addEventListener("mouseup", () => { dragging = false; });
  tbody.addEventListener("dblclick", (e) => { if (e.target.closest("td")) openEditor(); });
  table.querySelector("thead").addEventListener("mousedown", (e) => {
    const th = e.target.closest("th");
    if (!th || e.button !== 0) return;
    e.preventDefault();
    if (editor) finishEdit(0, 0);
    table.focus({ preventScroll: true });
    if (th.getAttribute("role") !== "columnheader") { selectAll(); return; }
    const c = th.cellIndex;
    tabColumn = null;
    if (!e.shiftKey) active = { r: 1, c };
    end = { r: Math.max(1, lastRow), c };
    paint(false);
  });

  // -- the name box and the formula bar -------------------------------------------------------

  if (nameForm) nameForm.addEventListener("submit", (e) => {
    const text = namebox.value.trim();
    const found = parse(text);
    e.preventDefault();
    if (!found) {
      // `Sheet name!B4` goes to that sheet of the workbook.
      const bang = text.lastIndexOf("!");
      const sheetName = bang > 0 ? text.slice(0, bang).replace(/^'(.*)'$/, "$1").replace(/''/g, "'") : "";
      const tabLink = [...app.querySelectorAll(".sheets-sheettabs li a")].find((a) => a.textContent.trim().toLowerCase() === sheetName.toLowerCase());
      if (tabLink && parse(text.slice(bang + 1))) {
        const u = new URL(tabLink.href, location.href);
        u.searchParams.set("cell", text.slice(bang + 1).trim().toUpperCase());
        location.assign(u.toString());
        return;
      }
      say("Type a cell like B12 or a range like A1:C3 in the name box.");
      return;
    }
    say("");
    tabColumn = null;
    table.focus({ preventScroll: true });
    select(found[0], found[1]);
  });
  if (namebox) {
    namebox.addEventListener("focus", () => namebox.select());
    namebox.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { e.preventDefault(); namebox.value = rangeText(); table.focus({ preventScroll: true }); }
    });
  }
  if (formulaForm) formulaForm.addEventListener("submit", (e) => {
    if (!canEdit) return;
    e.preventDefault();
    const p = { r: active.r, c: active.c };
    if (formula.value !== rawOf(cellAt(p))) commit(p, formula.value);
    table.focus({ preventScroll: true });
    move(1, 0, false);
  });
  if (formula) formula.addEventListener("keydown", (e) => {
    if (e.key === "Escape") { e.preventDefault(); formula.value = rawOf(cellAt(active)); table.focus({ preventScroll: true }); }
  });

  // -- windowed scrolling ---------------------------------------------------------------------

  // The row at the top (or bottom) edge of the visible grid and its distance from the top, so
  // a new window of rows can be put back where the eye was.
  function edgeRow(bottom) {
    const view = bottom ? scroller.scrollTop + scroller.clientHeight : scroller.scrollTop + 23 * (frozen + 1);
    const rows = [...tbody.querySelectorAll("tr[data-row]")].filter((tr) => Number(tr.dataset.row) > frozen);
    const found = bottom ? rows.filter((tr) => tr.offsetTop < view).pop() : rows.find((tr) => tr.offsetTop + tr.offsetHeight > view);
    return found ? { r: Number(found.dataset.row), at: found.offsetTop - scroller.scrollTop } : null;
  }

  async function shift(from, bottom) {
    const mark = edgeRow(bottom);
    if (!(await load(Math.max(frozen + 1, from)))) return;
    const tr = mark && row(mark.r);
    if (tr) scroller.scrollTop = tr.offsetTop - mark.at;
    paint(false);
  }

  // Near an edge of the loaded rows (or pushing against one with the wheel, which scrolls
  // nothing), the next half window is fetched.
  let scrolling = false;
  async function scrolled(push) {
    if (scrolling || editor) return;
    const rows = windowRows();
    if (!rows.length) return;
    const nearEnd = scroller.scrollTop + scroller.clientHeight > scroller.scrollHeight - 46;
    const nearTop = scroller.scrollTop < 23;
    scrolling = true;
    try {
      if (nearEnd && push >= 0 && rows[rows.length - 1] < lastRow) await shift(start + Math.floor(size / 2), true);
      else if (nearTop && push <= 0 && start > frozen + 1) await shift(start - Math.floor(size / 2), false);
    } finally {
      scrolling = false;
    }
  }
  scroller.addEventListener("scroll", () => scrolled(0), { passive: true });
  scroller.addEventListener("wheel", (e) => { if (e.deltaY) scrolled(Math.sign(e.deltaY)); }, { passive: true });
  app.querySelectorAll("[data-page]").forEach((a) => a.addEventListener("click", async (e) => {
    e.preventDefault();
    const back = Number(a.dataset.page) < 0;
    const rows = windowRows();
    const from = back ? Math.max(frozen + 1, (rows[0] || start) - size) : (rows[rows.length - 1] || start) + 1;
    if (await load(from)) { scroller.scrollTop = 0; paint(false); }
  }));

  // -- the grid fills the window's height -----------------------------------------------------

  function fit() {
    const below = [...app.children].filter((el) => el.compareDocumentPosition(scroller) & Node.DOCUMENT_POSITION_PRECEDING && !el.classList.contains("sheets-charts"));
    const rest = below.reduce((h, el) => h + el.offsetHeight + 6, 0) + 16;
    const top = scroller.getBoundingClientRect().top + window.scrollY;
    scroller.style.maxHeight = Math.max(240, window.innerHeight - top - rest) + "px";
  }
  window.addEventListener("resize", fit);

  // -- start ----------------------------------------------------------------------------------

  scroller.style.setProperty("--frozen", String(frozen));
  fit();
  const initial = parse(namebox ? namebox.value : "A1") || [{ r: 1, c: 1 }, { r: 1, c: 1 }];
  active = initial[0];
  end = initial[1];
  showWindow();
  paint(true);
  if (!document.querySelector("[role=alert]")) table.focus({ preventScroll: true });
})();
