#!/usr/bin/env python3
"""Drives the web app in a real headless Chromium: SKYLIFT_TOKEN=T python3 app_test.py URL ROOT.

URL is the server's base (http://127.0.0.1:PORT), T its token (from the environment, not argv), ROOT the folder it serves (prepared by the
Swift test: `a #%? b.txt`, `ünïcødé 日本.txt`, `sub dir #1/`, `clip.mp4`, `one.png`, `two.png`).
Prints `ok <step>` per step; exits 1 with the reason on the first failure.
Over HTTPS (`skylift serve --tls-self-signed`): SKYLIFT_SPKI is the server's public-key pin in base64 (what serve
prints after `sha256//`), which Chromium is told to trust; SKYLIFT_STEPS (comma-separated step names) runs a subset.
"""
import hashlib
import urllib.parse
import os
import subprocess
import zipfile
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, ROOT = sys.argv[1].rstrip("/"), sys.argv[2]
TOKEN = os.environ["SKYLIFT_TOKEN"]
SPKI = os.environ.get("SKYLIFT_SPKI")
TMP = tempfile.mkdtemp(prefix="skylift-browser-")
DOWNLOADS = tempfile.mkdtemp(dir=TMP)


def browser():
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900",
                "--autoplay-policy=no-user-gesture-required", f"--user-data-dir={tempfile.mkdtemp(dir=TMP)}"):
        options.add_argument(arg)
    if SPKI:
        # Only this key is accepted despite the unknown issuer: not --ignore-certificate-errors, which accepts any.
        options.add_argument("--ignore-certificate-errors-spki-list=" + SPKI)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, what, condition, timeout=30):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
    except Exception:
        rows = [r.get_attribute("data-name") for r in driver.find_elements(By.CSS_SELECTOR, "#rows .row")]
        fail(f"timed out waiting for {what}; page: {driver.current_url} status: {status(driver)} rows: {rows}")


def status(driver):
    try:
        return driver.find_element(By.ID, "status").text
    except Exception:
        return "?"


def fail(message):
    print("FAIL " + message, flush=True)
    sys.exit(1)


def ok(step):
    print("ok " + step, flush=True)


def row(driver, name):
    """The rendered row of `name`, or None. Rows are re-rendered on every listing, so a stale one is retried."""
    for _ in range(20):
        try:
            rows = [r for r in driver.find_elements(By.CSS_SELECTOR, "#rows .row") if r.get_attribute("data-name") == name]
            return rows[0] if rows else None
        except StaleElementReferenceException:
            time.sleep(0.05)
    return None


def write(rel, text):
    with open(os.path.join(ROOT, *rel), "w", encoding="utf-8") as f:
        f.write(text)


def make_pdf(path, text="Hello PDF"):
    """A one-page PDF with a line of text, written out by hand: objects, then the table of their offsets."""
    stream = f"BT /F1 24 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, table)
    with open(path, "wb") as f:
        f.write(out)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def sign_in(d):
    d.get(URL + "/")
    wait(d, "sign-in form", lambda d: d.find_elements(By.ID, "token"))
    d.get(URL + "/?token=" + TOKEN)
    wait(d, "clean URL after sign-in", lambda d: d.current_url == URL + "/")
    cookie = d.get_cookie("skylift_session")
    if not cookie or not cookie.get("httpOnly") or cookie.get("sameSite") != "Lax":
        fail(f"session cookie missing or not HttpOnly/SameSite=Lax: {cookie}")
    if TOKEN in cookie["value"]:
        fail("the cookie carries the token")
    if URL.startswith("https://") and not cookie.get("secure"):
        fail(f"session cookie over TLS is not Secure: {cookie}")
    ok("sign in through the token URL")


def browse(d):
    for name in ("a #%? b.txt", "ünïcødé 日本.txt", "sub dir #1"):
        wait(d, f"row {name!r}", lambda d: row(d, name))
    row(d, "sub dir #1").find_element(By.CSS_SELECTOR, ".c-name a").click()
    wait(d, "inner file", lambda d: row(d, "inner?.txt"))
    crumbs = d.find_element(By.ID, "crumbs").text
    if "sub dir #1" not in crumbs:
        fail(f"breadcrumbs: {crumbs!r}")
    # A file with '#', '?' and '%' in its name opens by its link (cookie-authenticated GET).
    href = row(d, "inner?.txt").find_element(By.CSS_SELECTOR, ".c-name a").get_attribute("href")
    text = d.execute_async_script("fetch(arguments[0]).then(r => r.text()).then(arguments[1])", href)
    if text != "inner\n":
        fail(f"GET {href} gave {text!r}")
    d.find_element(By.CSS_SELECTOR, "#crumbs a").click()
    wait(d, "back at Home", lambda d: row(d, "clip.mp4"))
    # Sorting by size puts the biggest file last among files, then first when clicked again.
    # From the keyboard: the headings are buttons.
    size_button = d.find_element(By.CSS_SELECTOR, "button[data-sort=size]")
    size_button.send_keys(Keys.ENTER)
    size_button.send_keys(Keys.SPACE)
    first_file = [r.get_attribute("data-name") for r in d.find_elements(By.CSS_SELECTOR, "#rows .row")][1]
    if first_file != "clip.mp4":
        fail(f"descending size sort starts with {first_file!r}")
    ok("list, open a folder, breadcrumbs, sort")


def upload(d):
    path = os.path.join(TMP, "picked ü #1.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(300_000))
    d.find_element(By.ID, "pick-files").send_keys(path)
    wait(d, "upload done", lambda d: d.find_elements(By.CSS_SELECTOR, "#upload-list li[data-state=done]"))
    stored = os.path.join(ROOT, "picked ü #1.bin")
    if not os.path.exists(stored) or sha(stored) != sha(path):
        fail("uploaded file is not byte-exact in the store")
    wait(d, "uploaded file listed", lambda d: row(d, "picked ü #1.bin"))
    ok("upload through the file input, byte-exact")


def upload_folder_and_drop(d):
    tree = os.path.join(TMP, "album #2")
    os.makedirs(os.path.join(tree, "inner ü"))
    payload = {"album #2/a.txt": b"A" * 1000, "album #2/inner ü/b?.bin": os.urandom(50_000)}
    for rel, data in payload.items():
        with open(os.path.join(TMP, rel), "wb") as f:
            f.write(data)
    d.find_element(By.ID, "pick-folder").send_keys(tree)
    wait(d, "folder rows done", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#upload-list li[data-state=done]")) >= 3)
    for rel, data in payload.items():
        with open(os.path.join(ROOT, rel), "rb") as f:
            if f.read() != data:
                fail(f"folder upload: {rel} differs")
    # A drop onto the page (a DataTransfer built in the page: selenium cannot drag from the desktop).
    d.execute_script("""
        const dt = new DataTransfer();
        dt.items.add(new File(['dropped bytes'], 'dropped %1.txt', { type: 'text/plain' }));
        document.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true }));
        document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true }));""")
    wait(d, "dropped file stored", lambda d: os.path.exists(os.path.join(ROOT, "dropped %1.txt"))
         and open(os.path.join(ROOT, "dropped %1.txt"), "rb").read() == b"dropped bytes")
    if d.find_element(By.ID, "drop").is_displayed():
        fail("the drop overlay stayed up")
    ok("upload a whole folder through the folder picker, and a file dropped on the page")


def resume(d):
    path = os.path.join(TMP, "big.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(8 << 20))
    d.execute_script("localStorage.setItem('skylift.chunk', String(256 * 1024))")
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": 1_000_000})
    d.find_element(By.ID, "pick-files").send_keys(path)
    bar = "#upload-list li[data-name='big.bin'] progress"
    wait(d, "upload under way", lambda d: float(d.find_element(By.CSS_SELECTOR, bar).get_attribute("value")) > 1_500_000)
    d.refresh()
    wait(d, "page back", lambda d: row(d, "clip.mp4"))
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    d.find_element(By.ID, "pick-files").send_keys(path)
    item = "#upload-list li[data-name='big.bin']"
    wait(d, "resumed upload done", lambda d: d.find_elements(By.CSS_SELECTOR, item + "[data-state=done]"), timeout=60)
    resumed = int(d.find_element(By.CSS_SELECTOR, item).get_attribute("data-resumed-from") or "0")
    if resumed <= 0:
        fail("the upload after the reload did not resume from the server's offset")
    if sha(os.path.join(ROOT, "big.bin")) != sha(path):
        fail("resumed upload is not byte-exact")
    ok(f"reload mid-upload resumed from byte {resumed} and finished byte-exact")


def dropped_connection(d):
    path = os.path.join(TMP, "flaky.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(4 << 20))
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": 1_000_000})
    d.find_element(By.ID, "pick-files").send_keys(path)
    item = "#upload-list li[data-name='flaky.bin']"
    wait(d, "upload under way", lambda d: float(d.find_element(By.CSS_SELECTOR, item + " progress").get_attribute("value")) > 1_000_000)
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    wait(d, "the upload noticing the lost connection", lambda d: d.find_element(By.CSS_SELECTOR, item).get_attribute("data-retries"))
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    wait(d, "upload done after the connection came back", lambda d: d.find_elements(By.CSS_SELECTOR, item + "[data-state=done]"), timeout=60)
    if sha(os.path.join(ROOT, "flaky.bin")) != sha(path):
        fail("upload after a dropped connection is not byte-exact")
    ok("dropped connection: the upload retried and finished byte-exact")


def cancel_retry(d):
    """An upload shows its speed and time left, can be cancelled (nothing lands) and retried (lands byte-exact)."""
    path = os.path.join(TMP, "cancel me.bin")
    with open(path, "wb") as f:
        f.write(os.urandom(4 << 20))
    d.execute_script("localStorage.setItem('skylift.chunk', String(256 * 1024))")
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": 500_000})
    d.find_element(By.ID, "pick-files").send_keys(path)
    item = "#upload-list li[data-name='cancel me.bin']"
    wait(d, "speed and time left", lambda d: " left" in d.find_element(By.CSS_SELECTOR, item + " .note").text
         and "/s" in d.find_element(By.ID, "upload-total").text)
    d.find_element(By.CSS_SELECTOR, item + " .up-cancel").click()
    wait(d, "cancelled", lambda d: d.find_element(By.CSS_SELECTOR, item).get_attribute("data-state") == "cancelled")
    if os.path.exists(os.path.join(ROOT, "cancel me.bin")):
        fail("a cancelled upload landed")
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    d.find_element(By.CSS_SELECTOR, item + " .up-retry").click()
    wait(d, "retried upload done", lambda d: d.find_elements(By.CSS_SELECTOR, item + "[data-state=done]"), timeout=60)
    if sha(os.path.join(ROOT, "cancel me.bin")) != sha(path):
        fail("retried upload is not byte-exact")
    ok("upload speed and time left shown; cancel leaves nothing, retry lands byte-exact")


def play(d):
    row(d, "clip.mp4").find_element(By.CSS_SELECTOR, ".c-name a").click()
    wait(d, "video element", lambda d: d.find_elements(By.CSS_SELECTOR, "#stage video"))
    result = d.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const v = document.querySelector('#stage video');
        v.muted = true;
        const timer = setTimeout(() => done('timeout: readyState ' + v.readyState + ' t=' + v.currentTime +
            ' error ' + (v.error && v.error.code)), 25000);
        const ready = () => {
          v.addEventListener('seeked', () => {
            const at = v.currentTime;
            v.addEventListener('ended', () => { clearTimeout(timer); done('ended after seek to ' + at); }, { once: true });
            v.play();
          }, { once: true });
          v.currentTime = v.duration - 1.5;
        };
        if (v.readyState >= 1) ready(); else v.addEventListener('loadedmetadata', ready, { once: true });
    """)
    if not result.startswith("ended"):
        fail("video: " + result)
    d.find_element(By.ID, "close").click()
    ok("video plays in the page, seeks, reaches the end (" + result + ")")


def viewer(d):
    row(d, "one.png").find_element(By.CSS_SELECTOR, ".c-name a").send_keys(Keys.ENTER)
    wait(d, "image viewer", lambda d: d.find_elements(By.CSS_SELECTOR, "#stage img"))
    if d.switch_to.active_element.get_attribute("id") != "close":
        fail("the viewer did not take the focus")
    name = d.find_element(By.ID, "viewer-name").text
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    wait(d, "next image", lambda d: d.find_element(By.ID, "viewer-name").text.startswith("two.png"))
    # The 512 px thumbnail first, then the file itself once it has loaded (PNG: the browser draws it).
    wait(d, "the full picture", lambda d: d.find_element(By.CSS_SELECTOR, "#stage img").get_attribute("src").endswith("/dav/two.png"))
    loaded = d.execute_script("const i = document.querySelector('#stage img'); return i.complete && i.naturalWidth")
    if not loaded:
        fail("image did not load in the viewer")
    d.find_element(By.ID, "prev").click()
    wait(d, "previous image", lambda d: d.find_element(By.ID, "viewer-name").text == name)
    d.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(d, "viewer closed", lambda d: not d.find_element(By.ID, "viewer").is_displayed())
    if d.switch_to.active_element.text != "one.png":
        fail("closing the viewer did not give the focus back to the link")
    ok("image viewer with next/previous, from the keyboard")


def open_folder(d, segs):
    d.execute_script("location.hash = arguments[0]", "#/" + "/".join(urllib.parse.quote(x, safe="") for x in segs))
    wait(d, f"crumbs of {segs}", lambda d: d.find_element(By.CSS_SELECTOR, "#crumbs a[aria-current]").text == (segs[-1] if segs else "Home"))


def set_view(d, view):
    d.find_element(By.ID, "view-" + view).click()
    wait(d, f"{view} view", lambda d: d.find_element(By.ID, "view-" + view).get_attribute("aria-pressed") == "true")


def tiles(d):
    for _ in range(20):
        try:
            return [t.get_attribute("data-name") for t in d.find_elements(By.CSS_SELECTOR, "#gitems .tile")]
        except StaleElementReferenceException:
            time.sleep(0.05)
    return []


def preview(d):
    """Text and Markdown open in the viewer as text nodes and built elements, never as the file's HTML; a PDF in
    the browser's own viewer in a frame."""
    write(("notes.md",), "# Notes\n\nSome **bold** and a [link](https://example.com/x) and [bad](javascript:alert(1)).\n\n"
          "- one\n- two\n\n<script>window.pwned = 1</script><img src=x onerror='window.pwned = 2'>\n")
    make_pdf(os.path.join(ROOT, "doc.pdf"))
    d.refresh()
    wait(d, "notes listed", lambda d: row(d, "notes.md"))
    if row(d, "notes.md").find_element(By.CLASS_NAME, "c-type").text != "Markdown" or \
            row(d, "clip.mp4").find_element(By.CLASS_NAME, "c-type").text != "MP4 video":
        fail("the type column does not name types in words")
    row(d, "notes.md").find_element(By.CSS_SELECTOR, ".c-name a").click()
    wait(d, "rendered Markdown", lambda d: d.find_elements(By.CSS_SELECTOR, "#preview h1"))
    p = d.find_element(By.ID, "preview")
    links = [a.get_attribute("href") for a in p.find_elements(By.TAG_NAME, "a")]
    if p.find_element(By.TAG_NAME, "h1").text != "Notes" or p.find_element(By.TAG_NAME, "strong").text != "bold" or \
            len(p.find_elements(By.TAG_NAME, "li")) != 2 or links != ["https://example.com/x"]:
        fail(f"Markdown rendered as {p.get_attribute('innerHTML')!r}")
    if p.find_elements(By.CSS_SELECTOR, "script, img") or d.execute_script("return window.pwned") or "<script>" not in p.text:
        fail("the file's HTML became elements")
    d.find_element(By.ID, "close").click()
    row(d, "doc.pdf").find_element(By.CSS_SELECTOR, ".c-name a").click()
    frame = wait(d, "PDF frame", lambda d: (d.find_elements(By.CSS_SELECTOR, "#stage iframe#preview") or [None])[0])
    if not frame.get_attribute("src").endswith("/dav/doc.pdf"):
        fail(f"PDF frame shows {frame.get_attribute('src')}")
    d.find_element(By.ID, "close").click()
    ok("text and Markdown previews (safe), PDF in a frame, types in words")


def grid(d):
    """The grid shows tiles with thumbnails from ?thumb (or icons), is remembered across a reload, and the
    viewer walks the grid's order."""
    set_view(d, "grid")
    wait(d, "tiles", lambda d: "one.png" in tiles(d) and "sub dir #1" in tiles(d))
    img = d.find_element(By.CSS_SELECTOR, "#gitems .tile[data-name='one.png'] img")
    if "?thumb=256&v=" not in img.get_attribute("src"):
        fail(f"tile image {img.get_attribute('src')}")
    wait(d, "a loaded thumbnail", lambda d: d.execute_script(
        "const i = document.querySelector(\"#gitems .tile[data-name='one.png'] img\"); return i && i.complete && i.naturalWidth > 0"))
    d.refresh()
    wait(d, "grid after a reload", lambda d: d.find_element(By.ID, "gallery").is_displayed() and "one.png" in tiles(d))
    # Arrow keys move between tiles.
    first = d.find_element(By.CSS_SELECTOR, "#gitems .tile[data-name='one.png']")
    index = int(first.get_attribute("data-index"))
    first.find_element(By.TAG_NAME, "a").send_keys(Keys.ARROW_RIGHT)
    wait(d, "focus on the next tile", lambda d: d.execute_script(
        "const t = document.activeElement.closest('.tile'); return t && +t.dataset.index") == index + 1)
    d.find_element(By.CSS_SELECTOR, "#gitems .tile[data-name='one.png'] a").click()
    wait(d, "viewer from the grid", lambda d: d.find_element(By.ID, "viewer-name").text.startswith("one.png"))
    d.find_element(By.ID, "next").click()
    wait(d, "next in the grid's order", lambda d: d.find_element(By.ID, "viewer-name").text.startswith("two.png"))
    d.find_element(By.ID, "close").click()
    icon = d.find_elements(By.CSS_SELECTOR, "#rows .row[data-name='one.png'] .icon img")
    set_view(d, "list")
    icon = d.find_element(By.CSS_SELECTOR, "#rows .row[data-name='one.png'] .icon img")
    if "?thumb=128&v=" not in icon.get_attribute("src"):
        fail(f"list icon {icon.get_attribute('src')}")
    ok("grid of thumbnails, remembered, viewer in its order; list icons from ?thumb=128")


def windowed(d):
    """3,000 entries: only a screenful of rows or tiles is in the page, and the last one appears on scrolling."""
    os.makedirs(os.path.join(ROOT, "many"))
    for i in range(3000):
        open(os.path.join(ROOT, "many", f"f{i:04}.txt"), "w").close()
    open_folder(d, ["many"])
    wait(d, "first rows", lambda d: row(d, "f0000.txt"))
    for view in ("list", "grid"):
        set_view(d, view)
        scroller = "scroller" if view == "list" else "gscroller"
        count = lambda: len(d.find_elements(By.CSS_SELECTOR, "#rows .row" if view == "list" else "#gitems .tile"))
        if not 0 < count() < 300:
            fail(f"{view}: {count()} items in the page for 3,000 entries")
        d.execute_script(f"const s = document.getElementById('{scroller}'); s.scrollTop = s.scrollHeight")
        last = (lambda d: row(d, "f2999.txt")) if view == "list" else (lambda d: "f2999.txt" in tiles(d))
        wait(d, f"{view}: the last entry after scrolling", last)
        if not 0 < count() < 300:
            fail(f"{view}: {count()} items in the page after scrolling")
    set_view(d, "list")
    open_folder(d, [])
    ok("3,000 entries: list and grid render only what is in view")


def timeline(d):
    """Photos of a folder tree by date, newest first, under day headings (with ?timeline: from the folders below
    too; without it, the folder's own)."""
    album = os.path.join(ROOT, "album")
    os.makedirs(os.path.join(album, "2024"))
    for rel, when in (("new.png", 1_750_000_000), ("2024/old.png", 1_710_000_000), ("mid.png", 1_730_000_000)):
        with open(os.path.join(ROOT, "one.png"), "rb") as src, open(os.path.join(album, rel), "wb") as dst:
            dst.write(src.read())
        os.utime(os.path.join(album, rel), (when, when))
    open_folder(d, ["album"])
    set_view(d, "timeline")
    wait(d, "timeline tiles", lambda d: len(tiles(d)) >= 2)
    deep = "folders below" not in d.find_element(By.ID, "count").text
    expected = ["new.png", "mid.png"] + (["2024/old.png"] if deep else [])
    names = [t.get_attribute("title") for t in d.find_elements(By.CSS_SELECTOR, "#gitems .tile")]
    headings = [h.text for h in d.find_elements(By.CSS_SELECTOR, "#gitems h3.group")]
    if names != expected or len(headings) != len(expected):
        fail(f"timeline {names} under {headings}, expected {expected}")
    d.find_element(By.CSS_SELECTOR, "#group option[value=month]").click()
    wait(d, "month headings", lambda d: all(len(h.text.split()) == 2 for h in d.find_elements(By.CSS_SELECTOR, "#gitems h3.group")))
    d.find_element(By.CSS_SELECTOR, "#group option[value=day]").click()
    d.find_element(By.CSS_SELECTOR, "#gitems .tile a").click()
    wait(d, "viewer from the timeline", lambda d: d.find_element(By.ID, "viewer-name").text.startswith("new.png (1 of"))
    d.find_element(By.ID, "close").click()
    set_view(d, "list")
    open_folder(d, [])
    if deep:
        ok("timeline of a folder tree by date, grouped by day and month")
    else:
        ok("timeline of a folder by date, grouped by day and month (skipped: the folders below; the server has no ?timeline)")


def search(d):
    """Names containing the query, in the folder and below; the results open like rows."""
    box = d.find_element(By.ID, "q")
    box.send_keys("INNER")
    box.send_keys(Keys.ENTER)
    wait(d, "search results", lambda d: "found for" in d.find_element(By.ID, "count").text)
    if "folder only" in d.find_element(By.ID, "count").text:
        box.clear()
        box.send_keys(Keys.ENTER)
        wait(d, "listing again", lambda d: row(d, "clip.mp4"))
        ok("search (skipped: the server has no ?search)")
        return
    wait(d, "the inner file found", lambda d: row(d, "sub dir #1/inner?.txt"))
    if row(d, "clip.mp4"):
        fail("a result that does not match")
    row(d, "sub dir #1/inner?.txt").find_element(By.CSS_SELECTOR, ".c-name a").click()
    wait(d, "found file previewed", lambda d: "inner" in d.find_element(By.ID, "stage").text)
    d.find_element(By.ID, "close").click()
    box.clear()
    box.send_keys(Keys.ENTER)
    wait(d, "listing again", lambda d: row(d, "clip.mp4"))
    ok("search by name in the folder and below")


def select(d):
    """Click and shift-click select a range; the selection downloads as a zip of just those, moves through the
    folder picker, and is deleted after a confirmation in the page."""
    os.makedirs(os.path.join(ROOT, "sel", "target"))
    for i in range(1, 6):
        write(("sel", f"s{i} #.txt"), f"s{i}")
    open_folder(d, ["sel"])
    wait(d, "rows", lambda d: row(d, "s5 #.txt"))
    row(d, "s1 #.txt").find_element(By.CSS_SELECTOR, "input.pick").click()
    ActionChains(d).key_down(Keys.SHIFT).click(row(d, "s3 #.txt").find_element(By.CSS_SELECTOR, "input.pick")).key_up(Keys.SHIFT).perform()
    wait(d, "three selected", lambda d: d.find_element(By.ID, "sel-count").text == "3 selected")
    if [r.get_attribute("data-name") for r in d.find_elements(By.CSS_SELECTOR, "#rows .row.selected")] != ["s1 #.txt", "s2 #.txt", "s3 #.txt"]:
        fail("shift-click did not select the range")
    d.find_element(By.ID, "sel-zip").click()
    path = os.path.join(DOWNLOADS, "sel.zip")
    wait(d, "the zip downloaded", lambda d: os.path.exists(path) and zipfile.is_zipfile(path))
    with zipfile.ZipFile(path) as z:
        got = {n: z.read(n).decode() for n in z.namelist()}
    if got != {"s1 #.txt": "s1", "s2 #.txt": "s2", "s3 #.txt": "s3"}:
        fail(f"selection zip holds {got}")
    d.find_element(By.ID, "sel-move").click()
    pick_folder(d, ["target"])
    wait(d, "moved rows gone", lambda d: not row(d, "s1 #.txt") and row(d, "s4 #.txt"))
    if sorted(os.listdir(os.path.join(ROOT, "sel", "target"))) != ["s1 #.txt", "s2 #.txt", "s3 #.txt"]:
        fail("bulk move not on disk")
    d.find_element(By.ID, "scroller").click()
    ActionChains(d).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()
    wait(d, "all selected", lambda d: d.find_element(By.ID, "sel-count").text == "3 selected")
    d.find_element(By.ID, "sel-delete").click()
    answer_dialog(d, None)
    wait(d, "deleted", lambda d: not row(d, "s4 #.txt") and not row(d, "target"))
    if os.listdir(os.path.join(ROOT, "sel")):
        fail("bulk delete not on disk")
    open_folder(d, [])
    ok("select with click, shift-click and Ctrl+A; zip, move and delete the selection")


def dialog(d):
    """The open in-page dialog (the app asks with <dialog>, never prompt() or confirm())."""
    return wait(d, "the dialog", lambda d: (d.find_elements(By.CSS_SELECTOR, "dialog#dialog[open]") or [None])[0])


def answer_dialog(d, text):
    """Types `text` into the dialog's field (when given) and presses its main button."""
    box = dialog(d)
    if text is not None:
        field = box.find_element(By.ID, "dialog-input")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(text)
    box.find_element(By.CSS_SELECTOR, ".dialog-buttons button[type=submit]").click()
    wait(d, "the dialog to close", lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog#dialog[open]"))


def cancel_dialog(d):
    dialog(d).find_element(By.XPATH, ".//button[text()='Cancel']").click()
    wait(d, "the dialog to close", lambda d: not d.find_elements(By.CSS_SELECTOR, "dialog#dialog[open]"))


def manage(d):
    d.find_element(By.ID, "new-folder").click()
    answer_dialog(d, "fresh % folder")
    wait(d, "new folder", lambda d: row(d, "fresh % folder"))
    if not os.path.isdir(os.path.join(ROOT, "fresh % folder")):
        fail("new folder missing on disk")
    # The message outlives the listing that follows it.
    wait(d, "the message", lambda d: status(d) == "Folder created.")
    row(d, "a #%? b.txt").find_element(By.XPATH, ".//button[text()='Rename']").click()
    answer_dialog(d, "renamed #? %.txt")
    wait(d, "renamed row", lambda d: row(d, "renamed #? %.txt"))
    if not os.path.exists(os.path.join(ROOT, "renamed #? %.txt")) or os.path.exists(os.path.join(ROOT, "a #%? b.txt")):
        fail("rename not on disk")
    row(d, "renamed #? %.txt").find_element(By.XPATH, ".//button[text()='Move']").click()
    pick_folder(d, ["sub dir #1"])
    wait(d, "moved row gone", lambda d: not row(d, "renamed #? %.txt"))
    if not os.path.exists(os.path.join(ROOT, "sub dir #1", "renamed #? %.txt")):
        fail("move not on disk")
    row(d, "fresh % folder").find_element(By.XPATH, ".//button[text()='Delete']").click()
    cancel_dialog(d)
    if not os.path.isdir(os.path.join(ROOT, "fresh % folder")) or not row(d, "fresh % folder"):
        fail("delete went ahead although it was not confirmed")
    row(d, "fresh % folder").find_element(By.XPATH, ".//button[text()='Delete']").click()
    answer_dialog(d, None)
    wait(d, "deleted row gone", lambda d: not row(d, "fresh % folder"))
    if os.path.exists(os.path.join(ROOT, "fresh % folder")):
        fail("delete not on disk")
    ok("new folder, rename, move, delete (confirmed)")


def pick_folder(d, path):
    """In the folder picker: opens each folder of `path` from where it starts, then moves there."""
    box = dialog(d)
    for name in path:
        wait(d, f"folder {name!r} in the picker", lambda d: box.find_elements(By.CSS_SELECTOR, f".folder-choice[data-name='{name}']"))
        box.find_element(By.CSS_SELECTOR, f".folder-choice[data-name='{name}']").click()
        wait(d, f"the picker inside {name!r}", lambda d: box.find_element(By.CLASS_NAME, "picker-where").text.endswith("/" + name))
    answer_dialog(d, None)


def share_link(d, name, amount="2", unit="h"):
    """Shares `name` through the dialog; returns the link it shows (after checking copy and the QR code)."""
    row(d, name).find_element(By.XPATH, ".//button[text()='Share']").click()
    box = dialog(d)
    field = box.find_element(By.ID, "share-amount")
    field.clear()
    field.send_keys(amount)
    box.find_element(By.CSS_SELECTOR, f"#share-unit option[value='{unit}']").click()
    box.find_element(By.CSS_SELECTOR, ".dialog-buttons button[type=submit]").click()
    field = wait(d, "the link", lambda d: (d.find_elements(By.ID, "share-link") or [None])[0])
    link = field.get_attribute("value")
    if not link.startswith(URL + "/s/"):
        fail(f"share link {link!r}")
    d.find_element(By.ID, "share-copy").click()
    wait(d, "copied", lambda d: status(d) == "Link copied.")
    copied = d.execute_async_script("navigator.clipboard.readText().then(arguments[0], e => arguments[0]('error ' + e))")
    if copied != link:
        fail(f"the clipboard holds {copied!r}, not the link")
    qr = qr_text(d.find_element(By.ID, "share-qr"))
    if qr != link:
        fail(f"the QR code reads {qr!r}, not {link!r}")
    answer_dialog(d, None)
    return link


def qr_text(element):
    """What zbarimg reads from a screenshot of `element` (SKYLIFT_ZBARIMG is its path)."""
    png = os.path.join(TMP, "qr.png")
    element.screenshot(png)
    out = subprocess.run([os.environ.get("SKYLIFT_ZBARIMG", "zbarimg"), "-q", "--raw", png], capture_output=True, text=True)
    return out.stdout.strip()


def shares(d):
    folder_link = share_link(d, "sub dir #1")
    video_link = share_link(d, "clip.mp4")
    album_link = share_link(d, "album", amount="3", unit="d")
    fresh = browser()
    try:
        # A shared folder of pictures opens as a grid of thumbnails (read through the link), named at the top.
        fresh.get(album_link)
        wait(fresh, "shared album as a grid", lambda f: f.find_element(By.ID, "gallery").is_displayed() and "new.png" in tiles(f))
        wait(fresh, "a shared thumbnail", lambda f: f.execute_script(
            "const i = document.querySelector(\"#gitems .tile[data-name='new.png'] img\"); return i && i.complete && i.naturalWidth > 0"))
        if "?thumb=256" not in fresh.find_element(By.CSS_SELECTOR, "#gitems .tile[data-name='new.png'] img").get_attribute("src") or \
                "Shared: album" not in fresh.find_element(By.ID, "crumbs").text:
            fail("the shared album's page")
        fresh.execute_script("localStorage.setItem('skylift.view', 'list')")
        if fresh.get_cookies():
            fail("the fresh browser has cookies")
        fresh.get(folder_link)
        wait(fresh, "shared folder listed", lambda f: row(f, "inner?.txt"))
        if "sub dir #1" not in fresh.find_element(By.ID, "crumbs").text:
            fail(f"the share page does not name what is shared: {fresh.find_element(By.ID, 'crumbs').text!r}")
        download = row(fresh, "inner?.txt").find_element(By.CSS_SELECTOR, ".c-act a")
        if download.text != "Download" or not download.get_attribute("href").endswith("/inner%3F.txt"):
            fail(f"the share page's action for a file: {download.text!r} {download.get_attribute('href')}")
        if any(b.is_displayed() for b in fresh.find_elements(By.CSS_SELECTOR, "#new-folder, #pick-files, #signout button")):
            fail("the shared folder page offers writes")
        if fresh.find_elements(By.XPATH, "//button[text()='Delete']"):
            fail("the shared folder page offers delete")
        text = fresh.execute_async_script("fetch('inner%3F.txt').then(r => r.text()).then(arguments[0])")
        if text != "inner\n":
            fail(f"shared file read {text!r}")
        for probe in ("../../dav/?list", "../../dav/clip.mp4", "../../"):
            got = fresh.execute_async_script("fetch(arguments[0]).then(r => arguments[1](r.status + ' ' + r.url))", probe)
            if not (got.startswith("401") or (probe == "../../" and "token" in fresh.execute_async_script(
                    "fetch('../../').then(r => r.text()).then(arguments[0])"))):
                fail(f"a share link reached {probe}: {got}")
        put = fresh.execute_async_script("fetch('x.txt', {method: 'PUT', body: 'x'}).then(r => arguments[0](r.status))")
        if put != 405 or os.path.exists(os.path.join(ROOT, "sub dir #1", "x.txt")):
            fail(f"a share link wrote: {put}")
        # A <video> pointing at the file's link, on a page of the server the fresh browser holds no cookie for.
        fresh.execute_script("""
            const v = document.createElement('video'); v.id = 'shared'; v.muted = true; v.src = arguments[0];
            document.body.append(v);""", video_link)
        result = fresh.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const v = document.getElementById('shared');
            const timer = setTimeout(() => done('timeout: readyState ' + v.readyState + ' error ' + (v.error && v.error.code)), 25000);
            const go = () => { v.addEventListener('seeked', () => { v.addEventListener('ended', () => { clearTimeout(timer); done('ended'); }, { once: true }); v.play(); }, { once: true }); v.currentTime = v.duration - 1; };
            if (v.readyState >= 1) go(); else v.addEventListener('loadedmetadata', go, { once: true });""")
        if result != "ended":
            fail("shared video: " + result)
    finally:
        fresh.quit()
    ok("share links: folder read-only in a fresh browser with no cookie, nothing else reachable; shared video plays and seeks")


def share_list(d):
    """The app lists live share links with their expiry; revoking one makes its link refuse."""
    link = share_link(d, "ünïcødé 日本.txt", amount="30", unit="m")
    d.find_element(By.ID, "shares-open").click()
    box = dialog(d)
    wait(d, "share list", lambda d: "live link" in box.text or "cannot list" in box.text)
    if "cannot list" in box.text:
        answer_dialog(d, None)
        ok("share list and revoke (skipped: the server has no GET /api/shares)")
        return
    item = wait(d, "the new share listed", lambda d: (box.find_elements(By.CSS_SELECTOR, "#share-list li[data-path='/ünïcødé 日本.txt']") or [None])[0])
    if "until" not in item.find_element(By.CLASS_NAME, "share-expiry").text:
        fail("the share list shows no expiry")
    item.find_element(By.XPATH, ".//button[text()='Revoke']").click()
    wait(d, "revoked", lambda d: not box.find_elements(By.CSS_SELECTOR, "#share-list li[data-path='/ünïcødé 日本.txt']"))
    answer_dialog(d, None)
    got = d.execute_async_script("fetch(arguments[0]).then(r => arguments[1](r.status))", link)
    if got not in (403, 404, 410):
        fail(f"a revoked link answered {got}")
    ok("share list with expiry, revoke")


def qr_codes(d):
    """The page's QR encoder across its versions (1 to 10, error correction M): each code reads back as its text."""
    for n in (1, 14, 60, 106, 154, 213):
        text = (URL + "/s/" + "abcdefghijklmnopqrstuvwxyz0123456789" * 7)[:n]
        d.execute_async_script("""
            const [text, done] = arguments;
            import(new URL('app/qr.js', location.href).href).then((qr) => {
              document.getElementById('qr-probe')?.remove();
              const box = document.createElement('div');
              box.id = 'qr-probe';
              box.style.cssText = 'position: fixed; top: 0; left: 0; z-index: 99; background: #fff';
              box.append(qr.qrSVG(text, 300));
              document.body.append(box);
              done();
            });""", text)
        got = qr_text(d.find_element(By.ID, "qr-probe"))
        if got != text:
            fail(f"QR code of {n} bytes reads {got!r}")
    d.execute_script("document.getElementById('qr-probe').remove()")
    ok("QR codes of 1 to 213 bytes read back")


def one_time_sign_in(d):
    """The link serve printed signs a fresh browser in once; the same link in another browser is refused."""
    link = os.environ.get("SKYLIFT_SIGNIN_LINK")
    if not link:
        fail("no SKYLIFT_SIGNIN_LINK")
    first, second = browser(), browser()
    try:
        first.get(link)
        wait(first, "signed in by the link", lambda f: row(f, "clip.mp4"))
        if "code=" in first.current_url or not first.get_cookie("skylift_session"):
            fail(f"after the one-time link: {first.current_url} {first.get_cookie('skylift_session')}")
        second.get(link)
        wait(second, "the used link refused", lambda s: s.find_elements(By.ID, "token"))
        if second.get_cookie("skylift_session"):
            fail("a used one-time link signed a second browser in")
    finally:
        first.quit()
        second.quit()
    ok("one-time sign-in link: once, then refused")


FETCH = "fetch(arguments[0]).then(r => arguments[1]([r.status, r.headers.get('cache-control') || '']))"


def sign_out(d):
    # A file read while signed in says it must be revalidated, so the browser's cache never answers for it
    # after sign-out: the same fetch (default cache mode) then reaches the server and gets 401.
    write(["cache-probe.txt"], "cached?")
    before = d.execute_async_script(FETCH, "dav/cache-probe.txt")
    if before[0] != 200 or "private" not in before[1] or "no-cache" not in before[1]:
        fail(f"a file while signed in: {before}")
    d.find_element(By.CSS_SELECTOR, "#signout button").click()
    wait(d, "sign-in page", lambda d: d.find_elements(By.ID, "token"))
    status = d.execute_async_script("fetch('dav/?list').then(r => arguments[0](r.status))")
    if status != 401:
        fail(f"after sign-out the listing answered {status}")
    after = d.execute_async_script(FETCH, "dav/cache-probe.txt")
    if after[0] != 401:
        fail(f"after sign-out the cached file answered {after}")
    ok("sign out (cache headers: nothing answered from the browser's cache afterwards)")


def main():
    steps = [sign_in, browse, upload, upload_folder_and_drop, resume, dropped_connection, cancel_retry, play, viewer, preview, grid, windowed,
             timeline, search, select, manage, shares, share_list, qr_codes, one_time_sign_in, sign_out]
    chosen = os.environ.get("SKYLIFT_STEPS")
    if chosen:
        names = chosen.split(",")
        unknown = set(names) - {s.__name__ for s in steps}
        if unknown:
            fail(f"unknown steps {sorted(unknown)}")
        steps = [s for s in steps if s.__name__ in names]
    d = browser()
    d.execute_cdp_cmd("Browser.grantPermissions", {"origin": URL, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    d.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
    try:
        for step in steps:
            step(d)
    finally:
        d.quit()


if __name__ == "__main__":
    main()
