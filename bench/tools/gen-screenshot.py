#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A deterministic 3840 × 2160 'screenshot' for the image benchmarks: a desktop gradient, windows with title
bars, toolbars and many lines of text, a code editor, coloured icons and a photograph-like region (smoothed
noise), so that PNG compresses it as it compresses a real screenshot (a few MiB, not a few KiB).

usage: gen-screenshot.py OUT.png [OUT.jpg]   (the JPEG, quality 90, for the JPEG → PNG row)"""
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

random.seed(20261201)
W, H = 3840, 2160
image = Image.new("RGB", (W, H))
draw = ImageDraw.Draw(image)
for y in range(H):
    draw.line([(0, y), (W, y)], fill=(30 + y * 40 // H, 60 + y * 50 // H, 110 + y * 60 // H))
font = ImageFont.load_default()
words = ("pasteboard clipboard selection owner requestor target property incremental transfer daemon image "
         "convert paste copy window atom timestamp format picture screenshot").split()

# A photograph-like region: smoothed noise with a sun and hills.
photo = Image.effect_noise((1200, 800), 60).convert("RGB").filter(ImageFilter.GaussianBlur(1))
pd = ImageDraw.Draw(photo)
pd.ellipse([820, 80, 1020, 280], fill=(250, 210, 90))
for i in range(6):
    pd.polygon([(i * 260 - 200, 800), (i * 260 + 60, 380 + random.randint(0, 150)), (i * 260 + 320, 800)],
               fill=(40 + i * 15, 110 + i * 10, 50))
photo = Image.blend(photo, Image.new("RGB", photo.size, (90, 140, 200)), 0.2)

for index, (x, y, w, h) in enumerate([(80, 80, 1700, 1300), (1900, 120, 1860, 900), (1950, 1100, 1800, 980), (300, 1450, 1500, 660)]):
    draw.rectangle([x + 8, y + 8, x + w + 8, y + h + 8], fill=(20, 20, 30))
    draw.rectangle([x, y, x + w, y + h], fill=(248, 248, 246) if index != 2 else (40, 42, 54))
    draw.rectangle([x, y, x + w, y + 44], fill=(222, 222, 226))
    for b, colour in enumerate([(240, 90, 80), (240, 190, 60), (90, 200, 90)]):
        draw.ellipse([x + 14 + b * 30, y + 12, x + 34 + b * 30, y + 32], fill=colour)
    draw.text((x + 120, y + 15), f"window {index}: {' '.join(random.choice(words) for _ in range(5))}", fill=(40, 40, 40), font=font)
    draw.rectangle([x, y + 44, x + w, y + 90], fill=(236, 236, 240))
    for t in range(14):
        draw.rounded_rectangle([x + 12 + t * 48, y + 52, x + 50 + t * 48, y + 84], 6,
                               fill=(random.randint(60, 220), random.randint(60, 220), random.randint(60, 220)))
    if index == 1:
        image.paste(photo.resize((w - 40, h - 120)), (x + 20, y + 100))
        continue
    colour = (210, 210, 220) if index == 2 else (30, 30, 30)
    for line, ty in enumerate(range(y + 104, y + h - 20, 22)):
        indent = (line % 7) * 16 if index == 2 else 0
        text = " ".join(random.choice(words) for _ in range(random.randint(6, (w - 60) // 70)))
        draw.text((x + 24 + indent, ty), text, fill=colour if line % 9 else (200, 60, 60), font=font)
image.save(sys.argv[1], "PNG")
if len(sys.argv) > 2:
    image.save(sys.argv[2], "JPEG", quality=90)
