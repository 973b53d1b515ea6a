"""SVG pictures of demo entities: furniture items and people.

One picture is drawn per distinct *appearance* (every attribute except location), so
the same picture serves an entity wherever it stands on the grid. Drawings are
simple but show every attribute:

* furniture: the shape of a chair, desk, fan or sofa in its colour; ``small`` items
  are drawn at 60 % of the size of ``large`` ones, anchored at the floor line; the
  shape is seen from the front, the back or the side it faces;
* people: a head and shoulders; hair (dark or light, or a bald head with a fringe),
  beard, glasses, a shirt collar, a suit jacket and a tie when present; old people
  have forehead wrinkles and greying hair; the face turns to the side it faces.

Every picture also carries an orientation badge in its top left corner (an arrow for
left and right, a dot for front and a cross for back, the usual "towards/away from
the viewer" signs), a ``<title>`` for accessibility, and a 100 × 100 ``viewBox``.
Output is plain text built from fixed templates with fixed number formatting, so
the same appearance always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.sax.saxutils import escape

__all__ = ["FURNITURE_COLOURS", "describe_appearance", "image_name", "render_svg"]

#: Fill colours of the four furniture colours.
FURNITURE_COLOURS = {
    "blue": "#3a6fd8",
    "green": "#3a9a48",
    "grey": "#8c8c8c",
    "red": "#d23c3c",
}
_INK = "#222222"
_SKIN = "#f1c9a5"
_HAIR = {
    ("dark", "young"): "#3a2a1c",
    ("dark", "old"): "#5a524a",
    ("light", "young"): "#e0c068",
    ("light", "old"): "#dcdcdc",
}
_SMALL_SCALE = 0.6


def _n(value: float) -> str:
    """Format a coordinate with at most two decimals and no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def image_name(appearance: Mapping[str, str]) -> str:
    """Return the file name of the picture of *appearance* (location is ignored).

    Examples
    --------
    >>> image_name({"type": "chair", "colour": "red", "size": "large",
    ...             "orientation": "left", "x-dimension": "2"})
    'chair-red-large-left.svg'
    >>> image_name({"type": "person", "age": "old", "hairColour": "dark",
    ...             "hasHair": "0", "hasBeard": "1", "hasGlasses": "0",
    ...             "hasShirt": "1", "hasSuit": "0", "hasTie": "1",
    ...             "orientation": "front"})
    'person-old-darkhair-bald-beard-shirt-tie-front.svg'
    """
    a = appearance
    if a["type"] != "person":
        return f"{a['type']}-{a['colour']}-{a['size']}-{a['orientation']}.svg"
    parts = ["person", a["age"], f"{a['hairColour']}hair"]
    if a["hasHair"] == "0":
        parts.append("bald")
    for name, word in (
        ("hasBeard", "beard"),
        ("hasGlasses", "glasses"),
        ("hasShirt", "shirt"),
        ("hasSuit", "suit"),
        ("hasTie", "tie"),
    ):
        if a[name] == "1":
            parts.append(word)
    parts.append(a["orientation"])
    return "-".join(parts) + ".svg"


def describe_appearance(appearance: Mapping[str, str]) -> str:
    """Describe an appearance in plain words (the picture's title).

    >>> describe_appearance({"type": "fan", "colour": "grey", "size": "small",
    ...                      "orientation": "back"})
    'small grey fan, seen from the back'
    """
    a = appearance
    facing = {
        "front": "facing the viewer",
        "back": "seen from the back",
        "left": "facing left",
        "right": "facing right",
    }[a["orientation"]]
    if a["type"] != "person":
        return f"{a['size']} {a['colour']} {a['type']}, {facing}"
    hair = "bald, with a " + a["hairColour"] + " fringe"
    if a["hasHair"] == "1":
        hair = "with " + a["hairColour"] + " hair"
    extras = [
        word
        for name, word in (("hasBeard", "a beard"), ("hasGlasses", "glasses"))
        if a[name] == "1"
    ]
    clothes = [
        word
        for name, word in (
            ("hasShirt", "a shirt"),
            ("hasSuit", "a suit"),
            ("hasTie", "a tie"),
        )
        if a[name] == "1"
    ]
    text = f"{a['age']} man {hair}"
    if extras:
        text += ", with " + " and ".join(extras)
    text += ", wearing " + (", ".join(clothes) if clothes else "a jumper")
    return f"{text}, {facing}"


def _badge(orientation: str) -> str:
    style = f'fill="none" stroke="{_INK}" stroke-width="1.5"'
    if orientation == "left":
        return f'<path d="M16 9H4M9 4L4 9L9 14" {style}/>'
    if orientation == "right":
        return f'<path d="M4 9H16M11 4L16 9L11 14" {style}/>'
    circle = f'<circle cx="10" cy="9" r="6" {style}/>'
    if orientation == "front":
        return circle + f'<circle cx="10" cy="9" r="1.8" fill="{_INK}"/>'
    return circle + f'<path d="M6 5L14 13M14 5L6 13" {style}/>'


def _rect(x: float, y: float, w: float, h: float, fill: str, extra: str = "") -> str:
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
        f'fill="{fill}"{extra}/>'
    )


def _chair(view: str, fill: str) -> list[str]:
    if view == "front":
        return [
            _rect(30, 20, 40, 35, fill),
            _rect(27, 55, 46, 8, fill),
            _rect(30, 63, 5, 25, fill),
            _rect(65, 63, 5, 25, fill),
        ]
    if view == "back":
        return [
            _rect(30, 20, 40, 43, fill),
            _path("M34 28H66M34 36H66M34 44H66M34 52H66", "none", ' stroke-width="1"'),
            _rect(30, 63, 5, 25, fill),
            _rect(65, 63, 5, 25, fill),
        ]
    # Side view facing left: seat towards the left, backrest on the right.
    return [
        _rect(64, 18, 7, 44, fill),
        _rect(24, 55, 47, 8, fill),
        _rect(26, 63, 5, 25, fill),
        _rect(64, 63, 5, 25, fill),
    ]


def _desk(view: str, fill: str) -> list[str]:
    if view == "front":
        parts = [
            _rect(12, 40, 76, 7, fill),
            _rect(58, 47, 26, 41, fill),
            _rect(16, 47, 6, 41, fill),
        ]
        for y in (52, 65, 78):
            parts.append(_rect(66, y, 10, 2, _INK, ""))
        return parts
    if view == "back":
        return [
            _rect(12, 40, 76, 7, fill),
            _rect(16, 47, 68, 30, fill),
            _rect(16, 77, 6, 11, fill),
            _rect(78, 77, 6, 11, fill),
        ]
    # Side view facing left: knee space on the left, drawer pedestal on the right.
    return [
        _rect(22, 40, 56, 7, fill),
        _rect(58, 47, 18, 41, fill),
        _rect(24, 47, 5, 41, fill),
        _rect(56, 52, 3, 10, _INK),
    ]


def _fan(view: str, fill: str) -> list[str]:
    stand = [
        _rect(48, 55, 4, 30, fill),
        f'<ellipse cx="50" cy="86" rx="16" ry="3.5" fill="{fill}"/>',
    ]
    if view == "front":
        blades = [
            f'<ellipse cx="50" cy="24" rx="6" ry="11" fill="{fill}" '
            f'transform="rotate({angle} 50 35)"/>'
            for angle in (0, 120, 240)
        ]
        return [
            *stand,
            '<circle cx="50" cy="35" r="22" fill="#ffffff" '
            f'stroke="{fill}" stroke-width="3"/>',
            *blades,
            f'<circle cx="50" cy="35" r="4" fill="{_INK}"/>',
        ]
    if view == "back":
        return [
            *stand,
            '<circle cx="50" cy="35" r="22" fill="#ffffff" '
            f'stroke="{fill}" stroke-width="3"/>',
            f'<circle cx="50" cy="35" r="14" fill="none" stroke="{fill}" '
            'stroke-width="1.5"/>',
            f'<circle cx="50" cy="35" r="9" fill="{fill}"/>',
        ]
    # Side view facing left: the blade guard on the left, the motor behind it.
    return [
        *stand,
        _rect(47, 29, 14, 12, fill),
        f'<ellipse cx="42" cy="35" rx="6" ry="22" fill="#ffffff" '
        f'stroke="{fill}" stroke-width="3"/>',
    ]


def _sofa(view: str, fill: str) -> list[str]:
    feet = [_rect(16, 76, 5, 8, _INK), _rect(79, 76, 5, 8, _INK)]
    if view == "front":
        return [
            *feet,
            _rect(16, 38, 68, 24, fill),
            _rect(16, 60, 68, 16, fill, ' stroke="#ffffff" stroke-width="1"'),
            _rect(8, 48, 12, 28, fill),
            _rect(80, 48, 12, 28, fill),
        ]
    if view == "back":
        return [*feet, _rect(8, 38, 84, 38, fill)]
    # Side view facing left: backrest on the right, one arm towards the viewer.
    return [
        _rect(24, 76, 5, 8, _INK),
        _rect(68, 76, 5, 8, _INK),
        _rect(66, 36, 12, 40, fill),
        _rect(22, 58, 56, 18, fill),
        _rect(18, 52, 14, 24, fill, ' stroke="#ffffff" stroke-width="1"'),
    ]


def _path(d: str, fill: str, extra: str = "") -> str:
    return f'<path d="{d}" fill="{fill}" stroke="{_INK}"{extra}/>'


_FURNITURE = {"chair": _chair, "desk": _desk, "fan": _fan, "sofa": _sofa}


def _furniture(a: Mapping[str, str]) -> list[str]:
    view = a["orientation"]
    shapes = _FURNITURE[a["type"]](view, FURNITURE_COLOURS[a["colour"]])
    transforms = []
    if view == "right":  # mirror the left-facing side view
        transforms.append("translate(100 0) scale(-1 1)")
    if a["size"] == "small":
        s = _n(_SMALL_SCALE)
        transforms.append(f"translate(50 88) scale({s}) translate(-50 -88)")
    group = f'<g stroke="{_INK}" stroke-width="1.2"'
    if transforms:
        group += f' transform="{" ".join(transforms)}"'
    return [group + ">", *shapes, "</g>", '<path d="M6 88H94" stroke="#bbbbbb"/>']


def _person(a: Mapping[str, str]) -> list[str]:
    hair = _HAIR[(a["hairColour"], a["age"])]
    turn = {"front": 0, "left": -4, "right": 4}[a["orientation"]]
    parts: list[str] = []
    # Torso: a suit jacket, a shirt, or a plain jumper.
    body = (
        "#2f3b52"
        if a["hasSuit"] == "1"
        else "#cfe0f5"
        if a["hasShirt"] == "1"
        else "#8a6d9e"
    )
    parts.append(_path("M12 100C14 84 26 78 50 78C74 78 86 84 88 100Z", body))
    if a["hasSuit"] == "1":
        parts.append(_path("M42 78L50 98L58 78Z", "#ffffff"))
    if a["hasShirt"] == "1":
        parts.append(_path("M42 78L50 86L38 88Z", "#ffffff"))
        parts.append(_path("M58 78L50 86L62 88Z", "#ffffff"))
    if a["hasTie"] == "1":
        parts.append(_path("M48 86L52 86L54 98L50 100L46 98Z", "#a02a2a"))
    # Neck and head; the ears show the turn of the head.
    parts.append(_rect(44, 64, 12, 16, _SKIN))
    if turn <= 0:
        parts.append(
            f'<ellipse cx="67" cy="46" rx="3" ry="6" fill="{_SKIN}" stroke="{_INK}"/>'
        )
    if turn >= 0:
        parts.append(
            f'<ellipse cx="33" cy="46" rx="3" ry="6" fill="{_SKIN}" stroke="{_INK}"/>'
        )
    parts.append(
        f'<ellipse cx="50" cy="44" rx="17" ry="21" fill="{_SKIN}" stroke="{_INK}"/>'
    )
    if a["hasHair"] == "1":
        parts.append(
            _path("M33 42C31 20 43 19 50 19C57 19 69 20 67 42C63 30 37 30 33 42Z", hair)
        )
    else:  # bald: a fringe over the ears
        parts.append(_path("M33 38C33 44 34 48 35 50L37 38Z", hair))
        parts.append(_path("M67 38C67 44 66 48 65 50L63 38Z", hair))
    if a["age"] == "old":
        parts.append(
            '<path d="M43 34Q50 32.5 57 34M44 37Q50 35.5 56 37" fill="none" '
            'stroke="#a0704a" stroke-width="0.8"/>'
        )
    if a["hasBeard"] == "1":
        parts.append(
            _path(
                f"M34 48C35 64 44 67 {_n(50 + turn / 2)} 67C56 67 65 64 66 48"
                f"C60 56 40 56 34 48Z",
                hair,
            )
        )
    # Face: eyes, nose and mouth shift towards the side the person faces.
    for eye in (43, 57):
        parts.append(f'<circle cx="{_n(eye + turn)}" cy="44" r="1.6" fill="{_INK}"/>')
    if a["age"] == "old":
        for eye in (43, 57):
            x = eye + turn
            parts.append(
                f'<path d="M{_n(x - 3)} 48Q{_n(x)} 50 {_n(x + 3)} 48" fill="none" '
                f'stroke="#a0704a" stroke-width="0.6"/>'
            )
    nose = 50 + turn
    parts.append(
        f'<path d="M{_n(nose)} 46L{_n(nose + turn / 3 - 1.5)} 53H{_n(nose + 1)}" '
        f'fill="none" stroke="{_INK}"/>'
    )
    parts.append(
        f'<path d="M{_n(nose - 5)} 58Q{_n(nose)} 61 {_n(nose + 5)} 58" fill="none" '
        f'stroke="{_INK}"/>'
    )
    if a["hasGlasses"] == "1":
        style = f'fill="none" stroke="{_INK}" stroke-width="1.4"'
        for eye in (43, 57):
            parts.append(f'<circle cx="{_n(eye + turn)}" cy="44" r="5" {style}/>')
        parts.append(f'<path d="M{_n(48 + turn)} 44H{_n(52 + turn)}" {style}/>')
    return parts


def render_svg(appearance: Mapping[str, str]) -> str:
    """Draw an entity appearance as a small, self-contained SVG document.

    Parameters
    ----------
    appearance
        Attribute name -> value (furniture or people vocabulary of the demo corpus;
        location attributes are ignored).

    Returns
    -------
    str
        The SVG text, ending with a newline; identical for identical appearances.

    Examples
    --------
    >>> svg = render_svg({"type": "sofa", "colour": "green", "size": "large",
    ...                   "orientation": "front"})
    >>> svg.splitlines()[1]
    '<title>large green sofa, facing the viewer</title>'
    """
    drawing = (
        _furniture(appearance)
        if appearance["type"] != "person"
        else _person(appearance)
    )
    title = escape(describe_appearance(appearance))
    lines = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
        'width="100" height="100" role="img">',
        f"<title>{title}</title>",
        *drawing,
        _badge(appearance["orientation"]),
        "</svg>",
    ]
    return "\n".join(lines) + "\n"
