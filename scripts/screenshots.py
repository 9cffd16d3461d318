#!/usr/bin/env python3
"""Takes the web app's screenshots: SKYLIFT_TOKEN=T python3 screenshots.py URL ROOT OUTDIR (see screenshots.sh).

Every view twice: NAME.png with the light colour scheme and NAME-dark.png with the dark one (the browser's
prefers-color-scheme, emulated through the DevTools protocol), except the viewer's, which is dark in both.
"""
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

URL, ROOT, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
TOKEN = os.environ["SKYLIFT_TOKEN"]
LISBON = "/#/Pictures/2026%20Lisbon"


def browser(scheme, width=1200, height=760, mobile=False):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={width},{height}", f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(arg)
    if mobile:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2}})
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
    d.scheme = scheme
    return d


def until(d, fn, timeout=30):
    WebDriverWait(d, timeout, poll_frequency=0.1).until(lambda d: fn(d))


def rows(d):
    return d.find_elements(By.CSS_SELECTOR, "#rows .row")


def images_loaded(d, selector):
    return d.execute_script(f"const i = [...document.querySelectorAll('{selector}')]; return i.length > 0 && i.every(x => x.complete)")


def shot(d, name, schemes=("light", "dark")):
    """Saves the page as NAME.png (light) or NAME-dark.png; views drawn the same in both take only the first."""
    if d.scheme not in schemes:
        return
    time.sleep(0.4)
    name = name + ("-dark" if d.scheme == "dark" else "") + ".png"
    d.save_screenshot(os.path.join(OUT, name))
    print("wrote", name)


def view(d, which):
    d.find_element(By.ID, "view-" + which).click()
    until(d, lambda d: d.find_element(By.ID, "view-" + which).get_attribute("aria-pressed") == "true")


def browse_views(d):
    d.get(URL + "/")
    until(d, lambda d: d.find_elements(By.ID, "token"))
    shot(d, "signin")
    d.get(URL + "/?token=" + TOKEN)
    until(d, lambda d: len(rows(d)) >= 5)
    shot(d, "browse")
    d.get(URL + LISBON)
    until(d, lambda d: len(rows(d)) >= 8 and images_loaded(d, "#rows img"))
    shot(d, "pictures")
    view(d, "grid")
    until(d, lambda d: images_loaded(d, "#gitems img"))
    shot(d, "grid")
    d.get(URL + "/#/Pictures")
    view(d, "timeline")
    until(d, lambda d: "photos and videos" in d.find_element(By.ID, "count").text)
    if "folders below" in d.find_element(By.ID, "count").text:
        d.get(URL + LISBON)  # a server without ?timeline: the folder's own pictures
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#gitems h3.group") and images_loaded(d, "#gitems img"))
    shot(d, "timeline")
    view(d, "list")
    d.get(URL + "/#/")
    until(d, lambda d: len(rows(d)) >= 5)
    box = d.find_element(By.ID, "q")
    box.send_keys("img_201")
    box.send_keys(Keys.ENTER)
    until(d, lambda d: "found for" in d.find_element(By.ID, "count").text and d.execute_script(
        "return [...document.querySelectorAll('#rows img')].every(x => x.complete)"))
    shot(d, "search")
    box.clear()
    box.send_keys(Keys.ENTER)


def act_views(d):
    d.get(URL + LISBON)
    until(d, lambda d: len(rows(d)) >= 8 and images_loaded(d, "#rows img"))
    view(d, "grid")
    until(d, lambda d: images_loaded(d, "#gitems img"))
    for i in (1, 2, 3):  # the grid is drawn again when the selection bar appears: find each box anew
        d.execute_script("document.querySelectorAll('#gitems .tile input.pick')[arguments[0]].click()", i)
        until(d, lambda d: d.find_element(By.ID, "sel-count").text == f"{i} selected")
    shot(d, "selection")
    d.find_element(By.ID, "sel-clear").click()
    view(d, "list")
    rows(d)[0].find_element(By.XPATH, ".//button[text()='Share']").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open] #share-amount"))
    d.find_element(By.CSS_SELECTOR, "dialog[open] .dialog-buttons button[type=submit]").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open] #share-qr svg"))
    shot(d, "share")
    d.find_element(By.CSS_SELECTOR, "dialog[open] .dialog-buttons button[type=submit]").click()
    d.find_element(By.ID, "shares-open").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open] #share-list li") or "cannot list" in d.find_element(By.ID, "dialog").text)
    shot(d, "shares")
    d.find_element(By.CSS_SELECTOR, "dialog[open] .dialog-buttons button[type=submit]").click()
    rows(d)[0].find_element(By.XPATH, ".//button[text()='Delete']").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog[open] button.danger"))
    shot(d, "confirm")
    d.find_element(By.XPATH, "//dialog//button[text()='Cancel']").click()


def viewer_views(d):
    d.get(URL + LISBON)
    until(d, lambda d: len(rows(d)) >= 8)
    rows(d)[2].find_element(By.CSS_SELECTOR, ".c-name a").click()
    until(d, lambda d: d.execute_script("const i = document.querySelector('#stage img'); return i && i.complete && i.naturalWidth > 0"))
    shot(d, "viewer", ("light",))  # the viewer is dark in both schemes
    d.find_element(By.ID, "close").click()
    d.get(URL + "/#/")
    until(d, lambda d: len(rows(d)) >= 5)
    [r for r in rows(d) if r.get_attribute("data-name") == "Trip notes.md"][0].find_element(By.CSS_SELECTOR, ".c-name a").click()
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview h1"))
    shot(d, "markdown")
    d.find_element(By.ID, "close").click()
    d.get(URL + "/#/Videos")
    until(d, lambda d: len(rows(d)) >= 1)
    rows(d)[0].find_element(By.CSS_SELECTOR, ".c-name a").click()
    until(d, lambda d: d.execute_script("const v = document.querySelector('#stage video'); return v && v.readyState >= 2"))
    d.execute_script("const v = document.querySelector('#stage video'); v.pause(); v.currentTime = 2.5;")
    time.sleep(0.5)
    shot(d, "video", ("light",))
    d.find_element(By.ID, "close").click()


def upload_view(d):
    d.get(URL + "/#/Videos")
    until(d, lambda d: len(rows(d)) >= 1)
    big = os.path.join(tempfile.mkdtemp(), "Holiday raw footage.mov")
    with open(big, "wb") as f:
        f.write(os.urandom(6 << 20))
    d.execute_script("localStorage.setItem('skylift.chunk', String(256 * 1024))")
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": 1_500_000})
    d.find_element(By.ID, "pick-files").send_keys(big)
    until(d, lambda d: float(d.find_element(By.ID, "upload-total-bar").get_attribute("value")) > 2_500_000
          and " left" in d.find_element(By.ID, "upload-total").text)
    shot(d, "upload")
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#upload-list li[data-state=done]"), timeout=60)
    d.execute_script("localStorage.removeItem('skylift.chunk')")
    os.remove(os.path.join(ROOT, "Videos", "Holiday raw footage.mov"))


def share_page(d, scheme):
    """The page a share link opens, in a browser with no session, in the grid view."""
    d.get(URL + "/#/Pictures")
    until(d, lambda d: len(rows(d)) >= 1)
    link = d.execute_async_script("""
        fetch('api/share', {method: 'POST', headers: {'Content-Type': 'application/json'},
          body: JSON.stringify({path: '/Pictures/2026 Lisbon', expires: '1h'})}).then(r => r.json()).then(j => arguments[0](j.link))""")
    s = browser(scheme)
    try:
        s.get(URL + "/" + link)
        s.execute_script("localStorage.setItem('skylift.view', 'grid')")
        s.refresh()
        until(s, lambda s: images_loaded(s, "#gitems img"))
        shot(s, "shared")
    finally:
        s.quit()


def phone(scheme):
    p = browser(scheme, 390, 844, mobile=True)
    try:
        p.get(URL + "/?token=" + TOKEN)
        p.get(URL + LISBON)
        until(p, lambda p: len(rows(p)) >= 5)
        shot(p, "phone")
    finally:
        p.quit()


for scheme in ("light", "dark"):
    d = browser(scheme)
    try:
        browse_views(d)
        act_views(d)
        viewer_views(d)
        upload_view(d)
        share_page(d, scheme)
    finally:
        d.quit()
    phone(scheme)
