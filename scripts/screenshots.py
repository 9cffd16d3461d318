#!/usr/bin/env python3
"""Takes the web app's screenshots: SKYLIFT_TOKEN=T python3 screenshots.py URL ROOT OUTDIR (see screenshots.sh)."""
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

URL, ROOT, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
TOKEN = os.environ["SKYLIFT_TOKEN"]


def browser(width, height, mobile=False):
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--hide-scrollbars",
                f"--window-size={width},{height}", f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(arg)
    if mobile:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2}})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def until(d, fn, timeout=20):
    WebDriverWait(d, timeout, poll_frequency=0.1).until(lambda d: fn(d))


def rows(d):
    return d.find_elements(By.CSS_SELECTOR, "#rows .row")


def shot(d, name):
    time.sleep(0.4)
    d.save_screenshot(os.path.join(OUT, name))
    print("wrote", name)


d = browser(1280, 800)
try:
    d.get(URL + "/")
    until(d, lambda d: d.find_elements(By.ID, "token"))
    shot(d, "signin.png")
    d.get(URL + "/?token=" + TOKEN)
    until(d, lambda d: len(rows(d)) >= 5)
    shot(d, "browse.png")
    d.get(URL + "/#/Pictures/2026%20Lisbon")
    until(d, lambda d: len(rows(d)) >= 8 and d.execute_script(
        "return [...document.querySelectorAll('#rows img')].every(i => i.complete && i.naturalWidth > 0)"))
    shot(d, "pictures.png")
    rows(d)[2].find_element(By.CSS_SELECTOR, ".c-name a").click()
    until(d, lambda d: d.execute_script("const i = document.querySelector('#stage img'); return i && i.complete && i.naturalWidth > 0"))
    shot(d, "viewer.png")
    d.find_element(By.ID, "close").click()
    d.get(URL + "/#/Videos")
    until(d, lambda d: len(rows(d)) >= 1)
    rows(d)[0].find_element(By.CSS_SELECTOR, ".c-name a").click()
    until(d, lambda d: d.execute_script("const v = document.querySelector('#stage video'); return v && v.readyState >= 2"))
    d.execute_script("const v = document.querySelector('#stage video'); v.pause(); v.currentTime = 2.5;")
    time.sleep(0.5)
    shot(d, "video.png")
    d.find_element(By.ID, "close").click()
    # An upload in progress: a large file sent through a throttled connection.
    d.get(URL + "/#/Videos")
    until(d, lambda d: len(rows(d)) >= 1)
    big = os.path.join(tempfile.mkdtemp(), "Holiday raw footage.mov")
    with open(big, "wb") as f:
        f.write(os.urandom(6 << 20))
    d.execute_script("localStorage.setItem('skylift.chunk', String(256 * 1024))")
    d.execute_cdp_cmd("Network.enable", {})
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 5, "downloadThroughput": -1, "uploadThroughput": 1_500_000})
    d.find_element(By.ID, "pick-files").send_keys(big)
    until(d, lambda d: float(d.find_element(By.ID, "upload-total-bar").get_attribute("value")) > 2_500_000)
    shot(d, "upload.png")
    d.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    until(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#upload-list li[data-state=done]"), timeout=60)
    d.execute_script("localStorage.removeItem('skylift.chunk')")
    os.remove(os.path.join(ROOT, "Videos", "Holiday raw footage.mov"))
finally:
    d.quit()

p = browser(390, 844, mobile=True)
try:
    p.get(URL + "/?token=" + TOKEN)
    p.get(URL + "/#/Pictures/2026%20Lisbon")
    until(p, lambda p: len(rows(p)) >= 5)
    shot(p, "phone.png")
finally:
    p.quit()
