"""What people do with a mailed link, in headless Chromium with JavaScript off: open it twice
and use either tab, reload the page after success, read pages that name the app
(`LINKDOMAIN_BRANDING_APP_NAME`), and see Safari's Smart App Banner."""

import json
import os
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import BINARY, chromium, free_port, wait_for_heading

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"


@pytest.fixture(scope="module")
def server():
    """The binary with its app name from the environment, as a deployer sets it."""
    directory = tempfile.mkdtemp(prefix="linkdomain-people-")
    port = free_port()
    path = os.path.join(directory, "people.json")
    with open(path, "w") as file:
        json.dump({"server": {"port": port}, "authorizedDomains": ["127.0.0.1"],
                   "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]}}, file)
    log = open(os.path.join(directory, "people.log"), "w+")
    process = subprocess.Popen([str(BINARY), "serve", "--config", path], stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "LINKDOMAIN_BRANDING_APP_NAME": "Acme Notes"})
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz")
            break
        except OSError:
            time.sleep(0.1)
    yield base
    process.terminate()
    process.wait(timeout=10)


def reset_link(base, email):
    def admin(operation, body):
        request = urllib.request.Request(f"{base}/identitytoolkit.googleapis.com/v1/projects/demo-linkdomain/{operation}",
                                         data=json.dumps(body).encode(), headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    admin("accounts", {"email": email, "password": "password 1"})
    return admin("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": email, "returnOobLink": True})["oobLink"]


def set_password(driver, password):
    driver.find_element(By.ID, "new-password").send_keys(password)
    driver.find_element(By.ID, "confirm-password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


WORDS = {"en": ("Choose a new password", "Your password has been changed"),
         "it": ("Scegli una nuova password", "La tua password è stata cambiata")}


@pytest.mark.parametrize("language", sorted(WORDS))
def test_a_link_opened_twice_works_in_either_tab_and_a_reload_after_success_shows_success(server, language):
    form, done = WORDS[language]
    link = reset_link(server, f"twice-{language}@example.com").replace("lang=en", f"lang={language}")
    driver = chromium(DESKTOP)
    try:
        driver.get(link)
        first = driver.current_window_handle
        assert wait_for_heading(driver, form)
        driver.switch_to.new_window("tab")
        driver.get(link)  # the same link again: a double tap, or the mail app and then the browser
        assert wait_for_heading(driver, form)
        # The second tab is the one used: the first tab's form must still be good, and the other way round.
        set_password(driver, "second tab wins")
        assert wait_for_heading(driver, done)
        assert "/__/auth/done?" in driver.current_url
        driver.refresh()
        assert wait_for_heading(driver, done)
        driver.back()
        driver.forward()
        assert wait_for_heading(driver, done)
        assert driver.title == f"{done} – Acme Notes"
        driver.switch_to.window(first)
        assert wait_for_heading(driver, form)  # still shown; submitting it now says the link was used, not "expired"
    finally:
        driver.quit()


def test_the_first_tab_works_after_the_link_was_opened_again(server):
    link = reset_link(server, "first-tab@example.com")
    driver = chromium(DESKTOP)
    try:
        driver.get(link)
        first = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(link)
        driver.switch_to.window(first)
        set_password(driver, "first tab wins")
        assert wait_for_heading(driver, WORDS["en"][1])
    finally:
        driver.quit()


def test_every_page_names_the_app_and_iphones_get_the_smart_app_banner(server):
    link = reset_link(server, "named@example.com")
    pages = [link, link + "&d=1", f"{server}/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k",
             f"{server}/__/auth/action", f"{server}/__/auth/links?link=nothing"]
    for url in pages:
        request = urllib.request.Request(url, headers={"User-Agent": DESKTOP})
        try:
            with urllib.request.urlopen(request) as response:
                html = response.read().decode()
        except urllib.error.HTTPError as error:
            html = error.read().decode()
        title = html.split("<title>")[1].split("</title>")[0]
        assert title.endswith(" – Acme Notes"), (url, title)
        assert '<meta name="apple-itunes-app" content="app-id=1234567890' in html
