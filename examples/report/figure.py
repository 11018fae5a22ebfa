"""Draws figure.png (run once; the PNG is committed). Values: source [2], pages/02-*.txt."""

from PIL import Image, ImageDraw, ImageFont

W, H = 640, 400
img = Image.new("RGB", (W, H), "white")
d = ImageDraw.Draw(img)
try:
    font = ImageFont.truetype("DejaVuSans.ttf", 18)
    small = ImageFont.truetype("DejaVuSans.ttf", 15)
except OSError:
    font = small = ImageFont.load_default()
base, top = 340, 40
scale = (base - top) / 80
d.line((70, top, 70, base), fill="black", width=2)
d.line((70, base, W - 30, base), fill="black", width=2)
for t in range(0, 81, 20):
    y = base - t * scale
    d.line((64, y, 70, y), fill="black", width=2)
    d.text((28, y - 9), f"{t}", fill="black", font=small)
d.text((8, 8), "°C", fill="black", font=font)
bars = [("Dark membrane", 75, "#3b3b3b"), ("White membrane", 42, "#e8b84a")]
for i, (label, value, colour) in enumerate(bars):
    x0 = 140 + i * 230
    d.rectangle((x0, base - value * scale, x0 + 140, base), fill=colour, outline="black")
    d.text((x0 + 50, base - value * scale - 26), f"{value} °C", fill="black", font=font)
    d.text((x0 + 5, base + 12), label, fill="black", font=font)
img.save("figure.png", optimize=True)
