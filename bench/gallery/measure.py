#!/usr/bin/env python3
"""Times the gallery's first screen in headless Chromium: python3 measure.py URL (SKYLIFT_TOKEN in the
environment). See run.sh for what each figure means."""
import os
import statistics
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

URL = sys.argv[1]
TOKEN = os.environ["SKYLIFT_TOKEN"]

# Resolves with performance.now() (ms since the navigation started) once every tile that intersects the
# viewport holds an image that finished loading; checked at every animation frame.
FIRST_SCREEN = """
const done = arguments[arguments.length - 1];
function check() {
  const tiles = [...document.querySelectorAll('#gitems .tile')].filter((t) => {
    const r = t.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
  });
  const imgs = tiles.map((t) => t.querySelector('img'));
  if (tiles.length && imgs.every((i) => i && i.complete && i.naturalWidth > 0)) {
    done({ ms: performance.now(), tiles: tiles.length, imgs: document.querySelectorAll('#gitems img').length,
           width: imgs[0].naturalWidth, height: imgs[0].naturalHeight });
  } else requestAnimationFrame(check);
}
check();
"""


# Scrolls the grid from top to bottom, 600 px an animation frame, and returns the frames' durations (ms).
SCROLL = """
const done = arguments[arguments.length - 1];
const s = document.getElementById('gscroller');
const times = [];
let last = performance.now();
function frame(now) {
  times.push(now - last);
  last = now;
  if (s.scrollTop + s.clientHeight >= s.scrollHeight - 1) {
    done({ times, imgs: document.querySelectorAll('#gitems img').length, height: s.scrollHeight });
    return;
  }
  s.scrollTop += 600;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
"""


def browser():
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    d.set_script_timeout(120)
    d.get(URL + "/?token=" + TOKEN)
    WebDriverWait(d, 30).until(lambda d: d.execute_script("return document.querySelectorAll('#rows .row').length > 0"))
    d.execute_script("localStorage.setItem('skylift.view', 'grid')")
    return d


def visit(d, reload=False):
    if reload:
        d.refresh()
    else:
        d.get(URL + "/?v=" + str(os.urandom(4).hex()) + "#/photos")
    return d.execute_async_script(FIRST_SCREEN)


d = browser()
try:
    cold = visit(d)
    print(f"cold (server makes the thumbnails): {cold['ms']:.0f} ms for {cold['tiles']} tiles "
          f"({cold['imgs']} <img> in the page, images {cold['width']}x{cold['height']})")
    scroll = d.execute_async_script(SCROLL)
    t = sorted(scroll["times"][1:])
    print(f"scroll through the grid ({scroll['height']} px, 600 px a frame): {len(t)} frames, median {statistics.median(t):.0f} ms, "
          f"95th percentile {t[int(len(t) * 0.95)]:.0f} ms, longest {t[-1]:.0f} ms, {sum(1 for x in t if x > 50)} over 50 ms; "
          f"{scroll['imgs']} <img> in the page at the end")
finally:
    d.quit()
warm_server, warm_browser = [], []
for _ in range(5):
    d = browser()
    try:
        warm_server.append(visit(d)["ms"])
        warm_browser.append(visit(d, reload=True)["ms"])
    finally:
        d.quit()
print(f"warm server, empty browser cache: median {statistics.median(warm_server):.0f} ms "
      f"(min {min(warm_server):.0f}, max {max(warm_server):.0f}, 5 runs)")
print(f"warm browser cache (reload):      median {statistics.median(warm_browser):.0f} ms "
      f"(min {min(warm_browser):.0f}, max {max(warm_browser):.0f}, 5 runs)")
