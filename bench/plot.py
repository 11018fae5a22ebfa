"""The growth plot: each measure's ratio against its baseline at growing sizes, one line per
measure, as a standalone SVG (no plotting library: a few dozen elements).

x is the size relative to the measure's smallest (log scale, so 1x, 10x, 100x sit evenly); y is
the ratio. A flat line is cost that grows as the work does.
"""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

from measure import Row, Sample

WIDTH, HEIGHT = 960, 520
LEFT, RIGHT, TOP, BOTTOM = 70, 370, 40, 60
COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)


def series(rows: list[Row]) -> dict[str, list[Row]]:
    """The rows of each measure taken at two sizes or more, smallest first."""
    found: dict[str, list[Row]] = {}
    for row in rows:
        if row.series:
            found.setdefault(row.series, []).append(row)
    return {k: sorted(v, key=lambda r: r.x) for k, v in found.items() if len(v) > 1}


def load_rows(path: Path) -> list[Row]:
    """The rows ``run.py --record`` kept in ``results.json``."""
    rows = []
    for r in json.loads(path.read_text(encoding="utf-8")):
        base, ours = Sample(**r.pop("base")), Sample(**r.pop("ours"))
        rows.append(Row(base=base, ours=ours, **r))
    return rows


def growth_svg(rows: list[Row], title: str) -> str:
    lines = series(rows)
    points = {name: [(r.x / rs[0].x, r.ratio) for r in rs] for name, rs in lines.items()}
    xmax = max((x for pts in points.values() for x, _ in pts), default=10.0)
    ymax = max((y for pts in points.values() for _, y in pts), default=1.0)
    xmax = 10 ** math.ceil(math.log10(max(xmax, 10)))
    ymax = math.ceil(ymax * 1.1 * 2) / 2
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + plot_w * math.log10(x) / math.log10(xmax)

    def py(y: float) -> float:
        return TOP + plot_h * (1 - y / ymax)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{escape(title)}</text>',
    ]
    step = 0.5 if ymax <= 4 else 1.0 if ymax <= 10 else 5.0 if ymax <= 40 else 10.0
    tick = 0.0
    while tick <= ymax + 1e-9:
        y = py(tick)
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#e5e5e5"/>'
        )
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:g}x</text>')
        tick += step
    decade = 1
    while decade <= xmax:
        x = px(decade)
        out.append(
            f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + plot_h}" stroke="#e5e5e5"/>'
        )
        out.append(
            f'<text x="{x:.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{decade:g}x</text>'
        )
        decade *= 10
    out.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 18}" text-anchor="middle">'
        "size, relative to the measure's smallest (log scale)</text>"
    )
    out.append(
        f'<text x="18" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {TOP + plot_h / 2})">ratio to its baseline</text>'
    )
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444"/>'
    )
    for k, (name, pts) in enumerate(points.items()):
        colour = COLOURS[k % len(COLOURS)]
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in pts:
            out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{colour}"/>')
        ly = TOP + 14 + 20 * k
        lx = LEFT + plot_w + 16
        out.append(
            f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 22}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        rs = lines[name]
        label = f"{name} ({rs[0].size.split(', ')[0]} to {rs[-1].size.split(', ')[0]})"
        out.append(f'<text x="{lx + 28}" y="{ly}" font-size="11">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
