"""What the agent sees of a live page: element ids, accessibility tree, pruned DOM, screenshots.

`mark_elements(page)` gives every element of the page a `bid` attribute (BrowserGym's element
id attribute, so `page.locator('[bid="12"]')` finds it). `observe(page)` marks, then reads the
accessibility tree over the Chrome DevTools Protocol and renders it as BrowserGym-style text,
one node a line, indented with a tab per level:

    RootWebArea '#sales · Ridgeline Analytics'
        [3] link 'Skip to main content'
        [2197] textbox 'Message #sales' value='Draft', focused
        [35] checkbox 'Private', checked=true

Only the top document is observed (and open shadow roots are marked): the apps have no iframes.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import time
import weakref
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

BID_ATTRIBUTE = "bid"


class ObservationError(RuntimeError):
    """The page could not be observed: it is closed, or it navigated while being read.

    Observe again once the page has settled (e.g. after `page.wait_for_load_state()`).
    """


@dataclass(frozen=True)
class AXNode:
    """One line of `axtree_txt`: an accessibility node that survived pruning.

    `depth` is the indentation depth in the text (collapsed wrappers don't count). `states` are
    the line's flags in order, e.g. `("focused", "required")` or `("checked=false",)`.
    `description` (e.g. from a `title`) is kept here but not printed, as in BrowserGym.
    """

    bid: str | None
    role: str
    name: str
    value: str | None
    depth: int
    states: tuple[str, ...] = ()
    description: str | None = None

    def line(self) -> str:
        """The node's `axtree_txt` line, without indentation."""
        parts = [f"[{self.bid}] {self.role}" if self.bid is not None else self.role]
        if self.name:
            parts.append(f" {self.name!r}")
        if self.value is not None:
            parts.append(f" value={self.value!r}")
        for state in self.states:
            parts.append(f", {state}")
        return "".join(parts)


@dataclass(frozen=True, eq=False)
class PageObservation:
    """A page as the agent sees it after one step.

    `nodes` are in the order of the lines of `axtree_txt`. Images are H×W×3 uint8 arrays of the
    viewport; `screenshot_png` is the encoded screenshot (for recordings). Parts that were not
    asked for are empty (`""`, `()`, `None`). `timings_ms` has one entry per phase that ran:
    `fetch` (marking, page script, AX tree, DOM snapshot and screenshot, concurrently),
    `axtree` (pruning and formatting), `objects` (BrowserGym's objects), `images` (decoding,
    set-of-marks). The phases are sequential, so their sum is the observation's wall time.

    `axtree_object`, `dom_object` and `extra_element_properties` are BrowserGym's raw page
    objects (see `axtree_object`, `dom_object`, `extra_element_properties`), None unless asked
    for.
    """

    axtree_txt: str = ""
    dom_txt: str = ""
    nodes: tuple[AXNode, ...] = ()
    focused_element_bid: str = ""
    screenshot: np.ndarray | None = field(default=None, repr=False)
    som_screenshot: np.ndarray | None = field(default=None, repr=False)
    screenshot_png: bytes | None = field(default=None, repr=False)
    axtree_object: dict[str, Any] | None = field(default=None, repr=False)
    dom_object: dict[str, Any] | None = field(default=None, repr=False)
    extra_element_properties: dict[str, dict[str, Any]] | None = field(default=None, repr=False)
    timings_ms: dict[str, float] = field(default_factory=dict)


# -- in the page ------------------------------------------------------------------------------

# One function does everything that runs in the page, so an observation costs one round trip.
# It marks elements, reports the focused bid, and (on request) serializes the pruned DOM and
# collects the rectangles of visible interactive elements for set-of-marks.
_PAGE_SCRIPT = r"""
(opts) => {
  const KEY = "__officegymNextBid";
  const SKIP = new Set(["script", "style", "meta", "link", "head", "title", "noscript",
                        "template", "base"]);
  const SVG = "http://www.w3.org/2000/svg";
  const elements = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (SKIP.has(el.localName) || (el.namespaceURI === SVG && el.localName !== "svg")) continue;
      elements.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);
  let next = window[KEY] || 1;
  for (const el of elements) {
    const n = Number(el.getAttribute("bid"));
    if (Number.isInteger(n) && n >= next) next = n + 1;
  }
  const seen = new Set();
  let fresh = 0;
  for (const el of elements) {
    let bid = el.getAttribute("bid");
    if (bid === null || seen.has(bid)) {
      bid = String(next++);
      el.setAttribute("bid", bid);
      fresh++;
    }
    seen.add(bid);
  }
  Object.defineProperty(window, KEY, {value: next, writable: true, configurable: true,
                                      enumerable: false});

  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) {
    active = active.shadowRoot.activeElement;
  }
  const focused = active && active !== document.body && active !== document.documentElement
    ? (active.getAttribute("bid") || "") : "";

  let dom = null;
  if (opts.dom && document.body) {
    const ATTRS = new Set(["id", "role", "name", "type", "value", "placeholder", "href", "title",
                           "alt", "for", "disabled", "required", "readonly", "contenteditable",
                           "open", "label", "multiple"]);
    const VOID = new Set(["input", "img", "br", "hr", "area", "col", "embed", "source", "track",
                          "wbr"]);
    const KEEP_EMPTY = new Set(["a", "button", "input", "select", "textarea", "option", "img",
                                "iframe", "summary", "video", "audio", "canvas"]);
    const LABELS = ["role", "aria-label", "title", "contenteditable", "tabindex"];
    const text = (s) => /[&<>]/.test(s)
      ? s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;") : s;
    const quote = (s) => {
      if (s.length > 500) s = s.slice(0, 500) + "…";
      return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
    };
    const out = [];
    const element = (el) => {
      const tag = el.localName;
      if (SKIP.has(tag) || el.hasAttribute("hidden")) return;
      if (tag === "input" && el.type === "hidden") return;
      const svg = el.namespaceURI === SVG;
      if (svg && tag !== "svg") return;
      let head = "<" + tag;
      const bid = el.getAttribute("bid");
      if (bid !== null) head += ' bid="' + quote(bid) + '"';
      const check = tag === "input" && (el.type === "checkbox" || el.type === "radio");
      const typed = tag === "input" && !check;
      for (const attr of el.attributes) {
        const a = attr.name;
        if (!(ATTRS.has(a) || a.startsWith("aria-"))) continue;
        if (a === "value" && typed) continue;
        head += attr.value === "" ? " " + a : " " + a + '="' + quote(attr.value) + '"';
      }
      if (typed && el.value !== "") {
        const value = el.type === "password" ? "•".repeat(el.value.length) : el.value;
        head += ' value="' + quote(value) + '"';
      }
      if (check && el.checked) head += " checked";
      if (tag === "option" && el.selected) head += " selected";
      head += ">";
      if (VOID.has(tag)) {
        if (tag !== "br" && tag !== "hr") out.push(head);
        return;
      }
      const start = out.length;
      out.push(head);
      let inner = false;
      if (tag === "textarea") {
        if (el.value) { out.push(text(el.value)); inner = true; }
      } else if (!svg) {
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 1) {
            const before = out.length;
            element(c);
            if (out.length > before) inner = true;
          } else if (c.nodeType === 3) {
            const t = c.data.replace(/\s+/g, " ");
            if (t !== " " && t !== "") { out.push(text(t)); inner = true; }
          }
        }
      }
      if (!inner && !KEEP_EMPTY.has(tag) && !LABELS.some((a) => el.hasAttribute(a))) {
        out.length = start;
        return;
      }
      out.push("</" + tag + ">");
    };
    element(document.body);
    dom = out.join("");
  }

  let boxes = null;
  if (opts.som || opts.objects) {
    const W = window.innerWidth, H = window.innerHeight;
    const TAGS = new Set(["a", "button", "input", "select", "textarea", "summary"]);
    const ROLES = new Set(["button", "link", "checkbox", "radio", "switch", "tab", "menuitem",
                           "menuitemcheckbox", "menuitemradio", "option", "combobox", "textbox",
                           "searchbox", "slider", "spinbutton", "treeitem"]);
    const interactive = (el) => {
      const tag = el.localName;
      if (TAGS.has(tag)) {
        if (tag === "a") return el.hasAttribute("href");
        return !(tag === "input" && el.type === "hidden");
      }
      if (ROLES.has(el.getAttribute("role"))) return true;
      // A label stands in for a control it draws over (a styled file or checkbox input).
      if (tag === "label" && el.control) {
        return !el.control.checkVisibility({checkOpacity: true});
      }
      const editable = el.getAttribute("contenteditable");
      if (editable !== null && editable !== "false") return true;
      return el.hasAttribute("tabindex") && el.tabIndex >= 0;
    };
    boxes = [];
    for (const el of elements) {
      if (!interactive(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.left >= W
          || r.top >= H) continue;
      if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
      const x = Math.min(Math.max((r.left + r.right) / 2, 0), W - 1);
      const y = Math.min(Math.max((r.top + r.bottom) / 2, 0), H - 1);
      const hit = document.elementFromPoint(x, y);
      if (hit && !el.contains(hit)) continue;
      boxes.push([el.getAttribute("bid"), r.left, r.top, r.width, r.height]);
    }
  }
  const result = {focused, dom, boxes, fresh, width: window.innerWidth, visibility: null};
  if (!opts.objects) return result;
  // BrowserGym's visibility: the fraction of each element inside the viewport (and the
  // clips of its scrolling ancestors), as an IntersectionObserver reports it on its first call.
  return new Promise((resolve) => {
    const visibility = {};
    const pending = new Set(elements);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      result.visibility = visibility;
      resolve(result);
    };
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        visibility[entry.target.getAttribute("bid")] =
          Math.round(entry.intersectionRatio * 100) / 100;
        pending.delete(entry.target);
      }
      if (pending.size === 0) finish();
    }, {threshold: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]});
    for (const el of elements) observer.observe(el);
    if (pending.size === 0) finish();
    setTimeout(finish, opts.visibilityTimeoutMs);
  });
}
"""


async def mark_elements(page: Page) -> None:
    """Give every element of the page's top document (and open shadow roots) a `bid`.

    Elements that have a bid keep it; new ones get the next number of a per-document counter,
    in document order, so an identical page loads with identical bids and the bids the agent
    saw stay valid while the page changes. `<script>`, `<style>`, `<head>` and its contents,
    `<noscript>`, `<template>` and the insides of `<svg>` are not marked; iframes are not
    entered (the apps have none).
    """
    await _run_page_script(page, dom=False, som=False)


# Elements the IntersectionObserver has not reported by then count as invisible (BrowserGym
# waits as long).
VISIBILITY_TIMEOUT_MS = 1000


async def _run_page_script(
    page: Page, *, dom: bool, som: bool, objects: bool = False
) -> dict[str, Any]:
    if page.is_closed():
        raise ObservationError("cannot observe the page: it is closed")
    options = {"dom": dom, "som": som, "objects": objects}
    options["visibilityTimeoutMs"] = VISIBILITY_TIMEOUT_MS
    try:
        return await page.evaluate(_PAGE_SCRIPT, options)
    except PlaywrightError as error:
        raise _observation_error(page, error) from error


def _observation_error(page: Page, error: Exception) -> ObservationError:
    if page.is_closed() or "has been closed" in str(error):
        return ObservationError("cannot observe the page: it was closed during the observation")
    return ObservationError(
        f"cannot observe {page.url!r}; it is probably navigating, observe again once it has "
        f"settled ({str(error).splitlines()[0]})"
    )


# -- CDP --------------------------------------------------------------------------------------

_sessions: weakref.WeakKeyDictionary[Page, asyncio.Task[CDPSession]] = weakref.WeakKeyDictionary()


async def cdp_session(page: Page) -> CDPSession:
    """The page's DevTools session for observations (one per page, created on first use)."""
    task = _sessions.get(page)
    if task is None or (task.done() and (task.cancelled() or task.exception() is not None)):
        task = asyncio.ensure_future(page.context.new_cdp_session(page))
        _sessions[page] = task
    return await task


_send_takes_timeout: bool | None = None

# Per page: the document's backend node id and the bid of each element's backend node id, as
# read by the last DOM snapshot. Backend ids and bids of an element never change while its
# document lives, so the snapshot is skipped when no element got a new bid since.
_known_bids: weakref.WeakKeyDictionary[Page, tuple[int | None, dict[int, str]]] = (
    weakref.WeakKeyDictionary()
)


async def _cdp_send(cdp: CDPSession, method: str, params: dict[str, Any] | None = None) -> Any:
    """`cdp.send(method, params)`, skipping the public wrapper's walk over the result.

    The async API wrapper copies every dict and list of a result looking for Playwright
    objects; for a full accessibility tree (megabytes of plain JSON) that walk costs more than
    Chromium takes to build the tree. CDP results never hold Playwright objects, so the
    implementation object's result is returned as it is.
    """
    global _send_takes_timeout
    impl = getattr(cdp, "_impl_obj", None)
    if impl is None:
        return await cdp.send(method, params)
    if _send_takes_timeout is None:
        _send_takes_timeout = "timeout" in inspect.signature(impl.send).parameters
    if _send_takes_timeout:
        return await impl.send(method, params, None)
    return await impl.send(method, params)


# -- accessibility tree -----------------------------------------------------------------------

_DROPPED_ROLES = frozenset({"InlineTextBox", "LineBreak"})
_WRAPPER_ROLES = frozenset({"none", "generic", "presentation"})
_FLAGS = (
    "focused",
    "disabled",
    "required",
    "readonly",
    "selected",
    "modal",
    "multiselectable",
    "hidden",
)
_TRISTATES = ("checked", "pressed", "expanded")


def _states(properties: Sequence[dict[str, Any]]) -> tuple[str, ...]:
    found: dict[str, Any] = {}
    for prop in properties:
        value = prop.get("value")
        if value is not None and "value" in value:
            found[prop["name"]] = value["value"]
    if not found:
        return ()
    states = [name for name in _FLAGS if found.get(name) is True]
    for name in _TRISTATES:
        if name in found:
            states.append(f"{name}={str(found[name]).lower()}")
    invalid = found.get("invalid")
    if invalid not in (None, "false", False):
        states.append("invalid" if invalid in ("true", True) else f"invalid={invalid}")
    popup = found.get("hasPopup")
    if popup not in (None, "false", False):
        states.append(f"haspopup={popup}")
    if found.get("busy") is True:
        states.append("busy")
    return tuple(states)


def build_axtree(
    ax_nodes: Sequence[dict[str, Any]], bids: dict[int, str]
) -> tuple[tuple[AXNode, ...], str]:
    """Prune a CDP `Accessibility.getFullAXTree` node list into `(nodes, axtree_txt)`.

    Ignored nodes, `InlineTextBox`/`LineBreak`, and unnamed stateless `none`/`generic` nodes
    are left out (their children move up); `StaticText` already contained in the name or value
    of its nearest shown ancestor is dropped. `bids` maps a backend DOM node id to its bid.
    """
    if not ax_nodes:
        return (), ""
    by_id = {node["nodeId"]: node for node in ax_nodes}
    out: list[AXNode] = []
    lines: list[str] = []
    # (node, depth, name and value of the nearest shown ancestor), visited in preorder.
    stack: list[tuple[dict[str, Any], int, str]] = [(ax_nodes[0], 0, "")]
    while stack:
        node, depth, parent_name = stack.pop()
        role = node["role"]["value"] if "role" in node else ""
        shown = False
        name = parent_name
        if not node.get("ignored") and role not in _DROPPED_ROLES:
            name = str(node["name"]["value"]).strip() if "name" in node else ""
            states = _states(node["properties"]) if "properties" in node else ()
            if role == "StaticText":
                shown = bool(name) and name not in parent_name
            else:
                shown = bool(name or states) or role not in _WRAPPER_ROLES
            if shown:
                value = node["value"].get("value") if "value" in node else None
                description = node["description"].get("value") if "description" in node else None
                ax = AXNode(
                    bid=bids.get(node.get("backendDOMNodeId", -1)),
                    role=role,
                    name=name,
                    value=None if value is None else str(value),
                    depth=depth,
                    states=states,
                    description=description if description and description != name else None,
                )
                out.append(ax)
                lines.append("\t" * depth + ax.line())
                if ax.value:
                    name = f"{name}\n{ax.value}"
            else:
                name = parent_name
        child_depth = depth + 1 if shown else depth
        children = node.get("childIds")
        if children:
            for child_id in reversed(children):
                child = by_id.get(child_id)
                if child is not None and child is not node:
                    stack.append((child, child_depth, name))
    return tuple(out), "\n".join(lines)


def _bids_by_backend_id(snapshot: dict[str, Any]) -> tuple[int | None, dict[int, str]]:
    """From `DOMSnapshot.captureSnapshot`: the document's backend id and each element's bid."""
    strings: list[str] = snapshot["strings"]
    documents = snapshot["documents"]
    if not documents:
        return None, {}
    nodes = documents[0]["nodes"]
    backend_ids: list[int] = nodes["backendNodeId"]
    try:
        key = strings.index(BID_ATTRIBUTE)
    except ValueError:
        return backend_ids[0] if backend_ids else None, {}
    bids: dict[int, str] = {}
    for backend_id, attributes in zip(backend_ids, nodes["attributes"], strict=False):
        if key in attributes:
            for i in range(0, len(attributes), 2):
                if attributes[i] == key:
                    bids[backend_id] = strings[attributes[i + 1]]
                    break
    return backend_ids[0] if backend_ids else None, bids


# -- BrowserGym's page objects ---------------------------------------------------------------

# What BrowserGym's `extract_dom_snapshot` asks Chromium for.
SNAPSHOT_PARAMS = {"computedStyles": [], "includeDOMRects": True, "includePaintOrder": True}


def axtree_object(ax_nodes: list[dict[str, Any]], bids: dict[int, str]) -> dict[str, Any]:
    """BrowserGym's `axtree_object`: the CDP `Accessibility.getFullAXTree` nodes, each node of
    an element with a bid carrying it as `browsergym_id` (updates `ax_nodes` in place)."""
    for node in ax_nodes:
        bid = bids.get(node.get("backendDOMNodeId", -1))
        if bid is not None:
            node["browsergym_id"] = bid
    return {"nodes": ax_nodes}


def _string_id(strings: list[str], index: dict[str, int], text: str) -> int:
    found = index.get(text)
    if found is None:
        found = index[text] = len(strings)
        strings.append(text)
    return found


def dom_object(snapshot: dict[str, Any]) -> dict[str, Any]:
    """BrowserGym's `dom_object`: the CDP `DOMSnapshot.captureSnapshot` result, with each
    text field's current value and each checkbox's and radio's current state written into its
    `value` and `checked` attributes, as BrowserGym's marking writes them into the page
    (passwords masked, as in `dom_txt`). Updates `snapshot` in place."""
    strings: list[str] = snapshot["strings"]
    index = {text: i for i, text in reversed(list(enumerate(strings)))}
    value_key = _string_id(strings, index, "value")
    checked_key = _string_id(strings, index, "checked")
    empty = _string_id(strings, index, "")
    type_key = index.get("type", -2)
    for document in snapshot["documents"]:
        nodes = document["nodes"]
        attributes: list[list[int]] = nodes["attributes"]
        types = {}
        for node, attrs in enumerate(attributes):
            for i in range(0, len(attrs), 2):
                if attrs[i] == type_key:
                    types[node] = strings[attrs[i + 1]].lower()
        for rare in ("inputValue", "textValue"):  # inputs' and textareas' current values
            values = nodes.get(rare, {"index": [], "value": []})
            for node, value in zip(values["index"], values["value"], strict=False):
                if value >= 0 and types.get(node) == "password":
                    value = _string_id(strings, index, "•" * len(strings[value]))
                _set_attribute(attributes[node], value_key, empty if value < 0 else value)
        checked = set(nodes.get("inputChecked", {"index": []})["index"])
        for node, kind in types.items():
            if kind in ("checkbox", "radio"):
                _set_attribute(attributes[node], checked_key, empty if node in checked else None)
    return snapshot


def _set_attribute(attrs: list[int], key: int, value: int | None) -> None:
    """Set (or with None remove) one attribute of a snapshot node's flat name/value list."""
    for i in range(0, len(attrs), 2):
        if attrs[i] == key:
            if value is None:
                del attrs[i : i + 2]
            else:
                attrs[i + 1] = value
            return
    if value is not None:
        attrs.extend((key, value))


def extra_element_properties(
    snapshot: dict[str, Any], visibility: dict[str, float], marks: set[str]
) -> dict[str, dict[str, Any]]:
    """BrowserGym's `extra_element_properties`, bid -> `{"visibility", "bbox", "clickable",
    "set_of_marks"}`: the fraction of the element in view, its `[x, y, width, height]` in
    viewport CSS pixels (None when not rendered), whether Chromium finds it clickable, and
    whether it is one of the elements `som_screenshot` numbers (`marks`)."""
    strings: list[str] = snapshot["strings"]
    try:
        bid_key = strings.index(BID_ATTRIBUTE)
    except ValueError:
        return {}
    documents = snapshot["documents"]
    # Each document's offset in the top viewport, found walking down from the top document.
    offsets: dict[int, tuple[float, float]] = {}
    stack: list[tuple[int, float, float]] = [(0, 0.0, 0.0)] if documents else []
    properties: dict[str, dict[str, Any]] = {}
    while stack:
        doc, parent_x, parent_y = stack.pop()
        document = documents[doc]
        x, y = parent_x - document["scrollOffsetX"], parent_y - document["scrollOffsetY"]
        offsets[doc] = (x, y)
        nodes, layout = document["nodes"], document["layout"]
        boxes: dict[int, list[float] | None] = {}
        for node, bounds, rects in zip(
            layout["nodeIndex"], layout["bounds"], layout["clientRects"], strict=False
        ):
            boxes[node] = [bounds[0] + x, bounds[1] + y, bounds[2], bounds[3]] if rects else None
        frames = nodes.get("contentDocumentIndex", {"index": [], "value": []})
        for node, child in zip(frames["index"], frames["value"], strict=False):
            box = boxes.get(node)
            stack.append((child, box[0], box[1]) if box else (child, 0.0, 0.0))
        clickable = set(nodes["isClickable"]["index"])
        for node, attrs in enumerate(nodes["attributes"]):
            for i in range(0, len(attrs), 2):
                if attrs[i] == bid_key:
                    bid = strings[attrs[i + 1]]
                    properties[bid] = {
                        "visibility": float(visibility.get(bid, 0.0)),
                        "bbox": boxes.get(node),
                        "clickable": node in clickable,
                        "set_of_marks": bid in marks,
                    }
                    break
    return properties


# -- screenshots ------------------------------------------------------------------------------

_PALETTE = (
    (230, 25, 75),
    (60, 140, 60),
    (0, 90, 200),
    (200, 110, 0),
    (145, 30, 180),
    (0, 130, 140),
    (190, 20, 140),
    (110, 90, 20),
)


def _decode_png(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB")


def draw_marks(image: Image.Image, boxes: Sequence[Sequence[Any]], scale: float) -> Image.Image:
    """A copy of `image` with a numbered box per `[bid, x, y, width, height]` (CSS pixels)."""
    marked = image.copy()
    draw = ImageDraw.Draw(marked)
    font = ImageFont.load_default()
    for bid, x, y, width, height in boxes:
        label = str(bid)
        color = _PALETTE[int(label) % len(_PALETTE)] if label.isdigit() else _PALETTE[0]
        left, top = round(x * scale), round(y * scale)
        right, bottom = round((x + width) * scale) - 1, round((y + height) * scale) - 1
        draw.rectangle((left, top, right, bottom), outline=color, width=2)
        tl, tt, tr, tb = draw.textbbox((0, 0), label, font=font)
        w, h = tr - tl + 4, tb - tt + 2
        ly = top - h if top - h >= 0 else top
        draw.rectangle((left, ly, left + w, ly + h), fill=color)
        draw.text((left + 2 - tl, ly + 1 - tt), label, fill=(255, 255, 255), font=font)
    return marked


# -- observe ----------------------------------------------------------------------------------


def _lap(timings: dict[str, float], key: str, since: float) -> float:
    now = time.perf_counter()
    timings[key] = (now - since) * 1000
    return now


async def observe(
    page: Page,
    *,
    axtree: bool = True,
    dom: bool = True,
    screenshot: bool = False,
    som: bool = False,
    objects: bool = False,
    cdp: CDPSession | None = None,
) -> PageObservation:
    """Mark the page's elements and observe it; parts not asked for are not computed.

    One page script marks elements and (for `dom`) serializes the pruned DOM, then a DOM
    snapshot reads the bids back; the accessibility tree and the screenshot are fetched at the
    same time. `objects` adds BrowserGym's `axtree_object`, `dom_object` and
    `extra_element_properties`, built from the same tree and a snapshot with layout (taken at
    every observation then). `cdp` is the page's DevTools session (default: one cached per
    page). Raises `ObservationError` if the page is closed or navigates meanwhile.
    """
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    session = None
    axtree = axtree or objects
    if axtree:
        if page.is_closed():
            raise ObservationError("cannot observe the page: it is closed")
        try:
            session = cdp if cdp is not None else await cdp_session(page)
        except PlaywrightError as error:
            raise _observation_error(page, error) from error

    cached = _known_bids.get(page)

    async def mark_then_snapshot() -> tuple[dict[str, Any], Any]:
        data = await _run_page_script(page, dom=dom, som=som, objects=objects)
        if session is None or (data["fresh"] == 0 and cached is not None and not objects):
            # No element got a new bid since the last snapshot of this document: every bid
            # the tree can refer to is known already (checked against the document below).
            return data, None
        # The snapshot must follow the marking: it is where the AX nodes' bids are read.
        params = SNAPSHOT_PARAMS if objects else {"computedStyles": []}
        return data, await _cdp_send(session, "DOMSnapshot.captureSnapshot", params)

    jobs: list[Awaitable[Any]] = [mark_then_snapshot()]
    if session is not None:
        # The tree needs no bids itself, so Chromium can build it while the page script runs.
        jobs.append(_cdp_send(session, "Accessibility.getFullAXTree"))
    if screenshot or som:
        jobs.append(page.screenshot(type="png"))
    try:
        results = await asyncio.gather(*jobs)
    except PlaywrightError as error:
        if cdp is None:
            _sessions.pop(page, None)  # a detached session would fail every later observation
        raise _observation_error(page, error) from error
    page_data, snapshot = results[0]
    clock = _lap(timings, "fetch", clock)

    nodes: tuple[AXNode, ...] = ()
    axtree_txt = ""
    ax_object = dom_snapshot = extra = None
    if axtree:
        ax_nodes = results[1].get("nodes", [])
        root_id = ax_nodes[0].get("backendDOMNodeId") if ax_nodes else None
        if snapshot is None and (cached is None or cached[0] != root_id):
            try:
                snapshot = await _cdp_send(
                    session, "DOMSnapshot.captureSnapshot", {"computedStyles": []}
                )
            except PlaywrightError as error:
                raise _observation_error(page, error) from error
        if snapshot is None:
            document_id, bids = cached
        else:
            document_id, bids = _bids_by_backend_id(snapshot)
            _known_bids[page] = (document_id, bids)
        if not bids or root_id != document_id:
            raise ObservationError(
                f"cannot observe {page.url!r}: the document changed during the observation; "
                "observe again once the page has settled"
            )
        nodes, axtree_txt = build_axtree(ax_nodes, bids)
        clock = _lap(timings, "axtree", clock)
        if objects:
            marks = {box[0] for box in page_data["boxes"]}
            extra = extra_element_properties(snapshot, page_data["visibility"] or {}, marks)
            ax_object, dom_snapshot = axtree_object(ax_nodes, bids), dom_object(snapshot)
            clock = _lap(timings, "objects", clock)

    png: bytes | None = results[-1] if screenshot or som else None
    image_array = som_array = None
    if png is not None:
        image = _decode_png(png)
        if screenshot:
            image_array = np.array(image, dtype=np.uint8)
        if som:
            scale = image.width / page_data["width"] if page_data["width"] else 1.0
            som_array = np.array(draw_marks(image, page_data["boxes"], scale), dtype=np.uint8)
        _lap(timings, "images", clock)

    return PageObservation(
        axtree_txt=axtree_txt,
        dom_txt=page_data["dom"] or "",
        nodes=nodes,
        focused_element_bid=page_data["focused"],
        screenshot=image_array,
        som_screenshot=som_array,
        screenshot_png=png,
        axtree_object=ax_object,
        dom_object=dom_snapshot,
        extra_element_properties=extra,
        timings_ms=timings,
    )


__all__ = [
    "BID_ATTRIBUTE",
    "AXNode",
    "ObservationError",
    "PageObservation",
    "axtree_object",
    "build_axtree",
    "cdp_session",
    "dom_object",
    "draw_marks",
    "extra_element_properties",
    "mark_elements",
    "observe",
]
