#!/usr/bin/env python3
"""Drives the web app in a real headless Chromium: SKYLIFT_TOKEN=T python3 app_test.py URL ROOT.

URL is the server's base (http://127.0.0.1:PORT), T its token (from the environment, not argv), ROOT the folder it serves (prepared by the
Swift test: `a #%? b.txt`, `ünïcødé 日本.txt`, `sub dir #1/`, `clip.mp4`, `one.png`, `two.png`).
Prints `ok <step>` per step; exits 1 with the reason on the first failure.
Over HTTPS (`skylift serve --tls-self-signed`): SKYLIFT_SPKI is the server's public-key pin in base64 (what serve
prints after `sha256//`), which Chromium is told to trust; SKYLIFT_STEPS (comma-separated step names) runs a subset.
"""
import hashlib
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, ROOT = sys.argv[1].rstrip("/"), sys.argv[2]
TOKEN = os.environ["SKYLIFT_TOKEN"]
SPKI = os.environ.get("SKYLIFT_SPKI")
TMP = tempfile.mkdtemp(prefix="skylift-browser-")


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


def answer_prompt(d, text):
    alert = WebDriverWait(d, 10, ignored_exceptions=(NoAlertPresentException,)).until(lambda d: d.switch_to.alert)
    if text is not None:
        alert.send_keys(text)
    alert.accept()


def manage(d):
    d.find_element(By.ID, "new-folder").click()
    answer_prompt(d, "fresh % folder")
    wait(d, "new folder", lambda d: row(d, "fresh % folder"))
    if not os.path.isdir(os.path.join(ROOT, "fresh % folder")):
        fail("new folder missing on disk")
    row(d, "a #%? b.txt").find_element(By.XPATH, ".//button[text()='Rename']").click()
    answer_prompt(d, "renamed #? %.txt")
    wait(d, "renamed row", lambda d: row(d, "renamed #? %.txt"))
    if not os.path.exists(os.path.join(ROOT, "renamed #? %.txt")) or os.path.exists(os.path.join(ROOT, "a #%? b.txt")):
        fail("rename not on disk")
    row(d, "renamed #? %.txt").find_element(By.XPATH, ".//button[text()='Move']").click()
    answer_prompt(d, "/sub dir #1")
    wait(d, "moved row gone", lambda d: not row(d, "renamed #? %.txt"))
    if not os.path.exists(os.path.join(ROOT, "sub dir #1", "renamed #? %.txt")):
        fail("move not on disk")
    row(d, "fresh % folder").find_element(By.XPATH, ".//button[text()='Delete']").click()
    d.switch_to.alert.dismiss()
    time.sleep(0.3)
    if not os.path.isdir(os.path.join(ROOT, "fresh % folder")):
        fail("delete went ahead although it was not confirmed")
    row(d, "fresh % folder").find_element(By.XPATH, ".//button[text()='Delete']").click()
    answer_prompt(d, None)
    wait(d, "deleted row gone", lambda d: not row(d, "fresh % folder"))
    if os.path.exists(os.path.join(ROOT, "fresh % folder")):
        fail("delete not on disk")
    ok("new folder, rename, move, delete (confirmed)")


def share_link(d, name):
    row(d, name).find_element(By.XPATH, ".//button[text()='Share']").click()
    answer_prompt(d, "2")
    answer_prompt(d, None)
    wait(d, "share link", lambda d: status(d).startswith("Share link: "))
    return status(d)[len("Share link: "):]


def shares(d):
    folder_link = share_link(d, "sub dir #1")
    video_link = share_link(d, "clip.mp4")
    fresh = browser()
    try:
        if fresh.get_cookies():
            fail("the fresh browser has cookies")
        fresh.get(folder_link)
        wait(fresh, "shared folder listed", lambda f: row(f, "inner?.txt"))
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


def sign_out(d):
    d.find_element(By.CSS_SELECTOR, "#signout button").click()
    wait(d, "sign-in page", lambda d: d.find_elements(By.ID, "token"))
    status = d.execute_async_script("fetch('dav/?list').then(r => arguments[0](r.status))")
    if status != 401:
        fail(f"after sign-out the listing answered {status}")
    ok("sign out")


def main():
    steps = [sign_in, browse, upload, upload_folder_and_drop, resume, dropped_connection, play, viewer, manage, shares, sign_out]
    chosen = os.environ.get("SKYLIFT_STEPS")
    if chosen:
        names = chosen.split(",")
        unknown = set(names) - {s.__name__ for s in steps}
        if unknown:
            fail(f"unknown steps {sorted(unknown)}")
        steps = [s for s in steps if s.__name__ in names]
    d = browser()
    try:
        for step in steps:
            step(d)
    finally:
        d.quit()


if __name__ == "__main__":
    main()
