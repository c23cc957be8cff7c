"""Listing photos: small SVG pictures drawn from a property's id and type, so every stay has
its own look (walls, floors, windows, furniture) without an image from anywhere else.

A photo's address names everything it is drawn from (`/booking/photos/<kind>/<id>/<n>.svg`),
so it needs no world and never changes: it is served with a year-long cache. Each listing
shows `COUNT` photos: outside first, then the rooms; `gallery` gives their addresses and alt
text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from flask import Response, abort, url_for

from .blueprint import bp

COUNT = 5
WIDTH, HEIGHT = 400, 300
CACHE = "public, max-age=31536000, immutable"

# What each photo of a listing shows, by property kind.
SUBJECTS = {
    "hotel": ("Outside", "Room", "Bathroom", "Lobby", "Room by night"),
    "home": ("Outside", "Living room", "Bedroom", "Kitchen", "Bathroom"),
}
_WALLS = ("#f3ede2", "#e9eef2", "#f6efe9", "#e7ece4", "#efe6dc", "#e3e8f0", "#f4f1ea", "#eadfd6")
_FLOORS = ("#b48a5e", "#9c7a57", "#c9a77c", "#8d6e4f", "#d1c2ad", "#a3a3a0", "#7d6450")
_ACCENTS = ("#2f6f8f", "#a4493d", "#5b7f4a", "#c08a2d", "#6b5b95", "#3e7c7b", "#b5651d", "#44607a")
_FACADES = ("#d9c7a7", "#c98f6b", "#e6e1d6", "#9fb3c8", "#b9a18c", "#d4d0c8", "#a86f5a", "#cbbfa4")
_SKIES = ("#bfdcf2", "#cfe3f5", "#f5d7b8", "#d7e7f0", "#c4d9ea")


@dataclass(frozen=True)
class Photo:
    url: str
    alt: str


def gallery(kind: str, property_id: int, property_type: str) -> list[Photo]:
    """The listing's photos with alt text saying what each shows ("Bedroom of the Loft")."""
    key = _key(kind)
    what = (property_type or ("Hotel" if key == "hotel" else "Home")).lower()
    return [
        Photo(
            url_for("booking.photo", kind=key, property_id=property_id, n=n),
            f"{subject} of the {what}",
        )
        for n, subject in enumerate(SUBJECTS[key])
    ]


def cover(kind: str, property_id: int) -> str:
    """The address of the listing's first photo (search results show 20 at once, so it is
    built from the route's prefix rather than looked up each time)."""
    prefix = url_for("booking.photo", kind="home", property_id=0, n=0)[: -len("home/0/0.svg")]
    return f"{prefix}{_key(kind)}/{property_id}/0.svg"


def _key(kind: str) -> str:
    return "hotel" if kind in ("hotel", "hotel_room") else "home"


@bp.get("/photos/<any(hotel,home):kind>/<int:property_id>/<int:n>.svg")
def photo(kind: str, property_id: int, n: int):
    """One listing photo as SVG, cached for a year (it is drawn from its address alone)."""
    if n >= COUNT:
        abort(404)
    response = Response(draw(kind, property_id, n), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = CACHE
    return response


def draw(kind: str, property_id: int, n: int) -> str:
    """The SVG text of photo `n` of a property (the same every time)."""
    rng = random.Random(f"{kind}:{property_id}")
    palette = {
        "wall": rng.choice(_WALLS),
        "floor": rng.choice(_FLOORS),
        "accent": rng.choice(_ACCENTS),
        "accent2": rng.choice(_ACCENTS),
        "facade": rng.choice(_FACADES),
        "sky": rng.choice(_SKIES),
    }
    scene = random.Random(f"{kind}:{property_id}:{n}")
    subject = SUBJECTS[kind][n]
    painters = {
        "Outside": _outside_hotel if kind == "hotel" else _outside_home,
        "Room": _bedroom,
        "Room by night": _bedroom,
        "Bedroom": _bedroom,
        "Living room": _living_room,
        "Kitchen": _kitchen,
        "Bathroom": _bathroom,
        "Lobby": _lobby,
    }
    night = subject == "Room by night"
    shapes = painters[subject](scene, palette, night)
    body = "".join(shapes)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img">{body}</svg>'
    )


# -- drawing ------------------------------------------------------------------------------------


def _rect(x, y, w, h, fill, rx=0, extra="") -> str:
    r = f' rx="{rx}"' if rx else ""
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}"{r}{extra}/>'


def _circle(cx, cy, r, fill, extra="") -> str:
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}"{extra}/>'


def _poly(points, fill) -> str:
    return f'<polygon points="{" ".join(f"{x},{y}" for x, y in points)}" fill="{fill}"/>'


def _room(palette, night=False) -> list[str]:
    wall = "#4a4f63" if night else palette["wall"]
    return [
        _rect(0, 0, WIDTH, HEIGHT, wall),
        _rect(0, 220, WIDTH, 80, palette["floor"]),
        _rect(0, 216, WIDTH, 6, "#ffffff", extra=' fill-opacity=".5"'),
    ]


def _window(x, y, w, h, palette, night=False, panes=2) -> list[str]:
    sky = "#1d2a4a" if night else palette["sky"]
    out = [_rect(x - 6, y - 6, w + 12, h + 12, "#ffffff"), _rect(x, y, w, h, sky)]
    if night:
        out.append(_circle(x + w * 0.7, y + h * 0.3, 8, "#f4f1d0"))
    else:
        out.append(_circle(x + w * 0.25, y + h * 0.3, 10, "#ffffff", ' fill-opacity=".8"'))
    for i in range(1, panes):
        out.append(_rect(x + w * i / panes - 2, y, 4, h, "#ffffff"))
    out.append(_rect(x, y + h / 2 - 2, w, 4, "#ffffff"))
    return out


def _plant(x, y, rng, palette) -> list[str]:
    leaf = rng.choice(("#4f7d45", "#3d6b4f", "#6a8f3f"))
    return [
        _circle(x, y - 38, 18, leaf),
        _circle(x - 14, y - 26, 14, leaf),
        _circle(x + 14, y - 24, 13, leaf),
        _poly([(x - 14, y - 16), (x + 14, y - 16), (x + 10, y + 8), (x - 10, y + 8)], "#b86b4b"),
    ]


def _frame(x, y, w, h, rng, palette) -> list[str]:
    return [
        _rect(x - 4, y - 4, w + 8, h + 8, "#3b3b3b"),
        _rect(x, y, w, h, "#fbfaf6"),
        _circle(x + w * rng.uniform(0.3, 0.7), y + h * 0.5, min(w, h) * 0.3, palette["accent2"]),
    ]


def _lamp(x, y, lit) -> list[str]:
    return [
        _rect(x - 2, y - 60, 4, 60, "#444"),
        _poly([(x - 16, y - 60), (x + 16, y - 60), (x + 10, y - 84), (x - 10, y - 84)], "#f2e3b3"),
        *([_circle(x, y - 70, 34, "#fff3c4", ' fill-opacity=".25"')] if lit else []),
    ]


def _bedroom(rng, palette, night=False) -> list[str]:
    out = _room(palette, night)
    wx = rng.choice((40, 250))
    out += _window(wx, 50, 110, 100, palette, night)
    bx = 200 - 90 if wx == 250 else 170
    out += [
        _rect(bx, 120, 180, 70, palette["accent"], rx=6),
        _rect(bx + 6, 170, 168, 50, "#ffffff", rx=4),
        _rect(bx + 16, 158, 60, 22, "#f5f5f5", rx=8),
        _rect(bx + 104, 158, 60, 22, "#f5f5f5", rx=8),
        _rect(bx + 6, 192, 168, 40, palette["accent2"], rx=4),
        _rect(bx + 10, 232, 8, 16, "#5a4634"),
        _rect(bx + 162, 232, 8, 16, "#5a4634"),
    ]
    side = bx + 196 if bx + 240 < WIDTH else bx - 40
    out += [_rect(side, 190, 32, 40, "#8a6a4f")] + _lamp(side + 16, 190, night)
    if not night and rng.random() < 0.6:
        out += _frame(bx + 60, 60, 60, 44, rng, palette)
    return out


def _living_room(rng, palette, night=False) -> list[str]:
    out = _room(palette)
    out += _window(rng.choice((30, 260)), 40, 110, 110, palette, panes=3)
    sofa = palette["accent"]
    out += [
        _rect(120, 150, 170, 50, sofa, rx=10),
        _rect(110, 175, 190, 50, sofa, rx=10),
        _rect(104, 170, 24, 60, sofa, rx=8),
        _rect(282, 170, 24, 60, sofa, rx=8),
        _rect(140, 160, 40, 26, palette["accent2"], rx=6),
        _rect(230, 160, 40, 26, "#f0e6d2", rx=6),
        _rect(150, 245, 110, 10, "#6d5240", rx=3),
        _rect(160, 255, 6, 20, "#6d5240"),
        _rect(244, 255, 6, 20, "#6d5240"),
    ]
    out += _plant(rng.choice((60, 350)), 232, rng, palette)
    out += _frame(180, 60, 54, 40, rng, palette)
    return out


def _kitchen(rng, palette, night=False) -> list[str]:
    out = _room(palette)
    out += _window(150, 40, 100, 80, palette)
    cabinet = palette["accent"]
    out += [_rect(20, 40, 110, 70, cabinet, rx=3), _rect(270, 40, 110, 70, cabinet, rx=3)]
    for x in (20, 75, 270, 325):
        out.append(_rect(x + 50, 70, 3, 14, "#dddddd"))
    out += [
        _rect(10, 150, 380, 12, "#e8e4dc"),
        _rect(10, 162, 380, 80, cabinet),
        _rect(160, 150, 80, 12, "#2d2d2d"),
        _circle(180, 156, 5, "#555"),
        _circle(220, 156, 5, "#555"),
    ]
    for x in range(20, 390, 62):
        out.append(_rect(x, 172, 52, 60, "#ffffff", extra=' fill-opacity=".12"'))
    out += [_rect(60, 128, 30, 22, "#f5f5f5", rx=4), _rect(310, 120, 14, 30, palette["accent2"])]
    out += [_rect(198, 0, 4, 20, "#333"), _circle(200, 26, 12, "#f2d480")]
    return out


def _bathroom(rng, palette, night=False) -> list[str]:
    tile = rng.choice(("#e4eef0", "#f1efe9", "#e6e9ef", "#eef0e6"))
    out = [_rect(0, 0, WIDTH, HEIGHT, tile)]
    for x in range(0, WIDTH, 40):
        out.append(_rect(x, 0, 1, HEIGHT, "#c8ced2"))
    for y in range(0, HEIGHT, 40):
        out.append(_rect(0, y, WIDTH, 1, "#c8ced2"))
    out += [
        _rect(0, 240, WIDTH, 60, palette["floor"]),
        _rect(30, 170, 200, 70, "#ffffff", rx=20),
        _rect(40, 176, 180, 14, "#cfe6ef", rx=6),
        _rect(210, 120, 6, 60, "#b0b0b0"),
        _rect(270, 60, 80, 90, "#dfeaf0", rx=6, extra=' stroke="#999" stroke-width="4"'),
        _rect(265, 175, 90, 16, "#ffffff", rx=4),
        _rect(280, 191, 60, 50, palette["accent"], rx=3),
        _rect(120, 40, 16, 100, palette["accent2"], rx=3),
    ]
    return out


def _lobby(rng, palette, night=False) -> list[str]:
    out = [_rect(0, 0, WIDTH, HEIGHT, palette["wall"]), _rect(0, 230, WIDTH, 70, "#d8d2c4")]
    for x in range(0, WIDTH, 50):
        out.append(_rect(x, 230, 2, 70, "#c4bcac"))
    out += [
        _rect(40, 30, 320, 14, palette["accent"]),
        _rect(120, 150, 160, 80, "#6b4f3a", rx=4),
        _rect(110, 140, 180, 14, "#e9e1d0", rx=3),
        _circle(200, 95, 26, "#f2d480", ' fill-opacity=".9"'),
        _rect(198, 44, 4, 26, "#777"),
    ]
    out += _plant(50, 230, rng, palette) + _plant(350, 230, rng, palette)
    return out


def _outside_home(rng, palette, night=False) -> list[str]:
    out = [_rect(0, 0, WIDTH, HEIGHT, palette["sky"]), _rect(0, 235, WIDTH, 65, "#7fa661")]
    out.append(_circle(rng.randint(40, 360), 40, 18, "#fff6c9"))
    facade = palette["facade"]
    tall = rng.random() < 0.4
    if tall:
        out += [_rect(110, 40, 180, 200, facade), _rect(104, 34, 192, 10, "#5f5f5f")]
        for row in range(4):
            for col in range(3):
                out.append(_rect(126 + col * 56, 56 + row * 44, 36, 28, "#dbe9f4"))
        out += [_rect(182, 205, 36, 35, palette["accent"])]
    else:
        out += [
            _rect(110, 130, 180, 110, facade),
            _poly([(96, 134), (200, 60), (304, 134)], palette["accent"]),
            _rect(182, 185, 36, 55, palette["accent2"]),
            _rect(130, 160, 36, 30, "#dbe9f4"),
            _rect(234, 160, 36, 30, "#dbe9f4"),
        ]
    out += _plant(50, 240, rng, palette) + _plant(352, 240, rng, palette)
    return out


def _outside_hotel(rng, palette, night=False) -> list[str]:
    out = [_rect(0, 0, WIDTH, HEIGHT, palette["sky"]), _rect(0, 262, WIDTH, 38, "#8c8c8c")]
    facade = palette["facade"]
    floors = rng.randint(6, 9)
    top = 262 - floors * 24 - 20
    out += [_rect(100, top, 200, 262 - top, facade), _rect(94, top - 8, 212, 10, "#4f4f4f")]
    for f in range(floors):
        for col in range(6):
            lit = rng.random() < 0.25
            y = top + 12 + f * 24
            out.append(_rect(112 + col * 31, y, 20, 14, "#f6df9a" if lit else "#cfe0ee"))
    out += [
        _rect(170, 236, 60, 26, palette["accent"]),
        _rect(150, 228, 100, 8, palette["accent2"]),
        _rect(20, 200, 60, 62, "#b9b3a7"),
        _rect(320, 180, 60, 82, "#a9aab0"),
    ]
    return out


__all__ = ["COUNT", "Photo", "cover", "draw", "gallery", "photo"]
