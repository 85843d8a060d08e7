"""Helpers shared by the Python tests (firebase-admin, browser, replicas): start the built
`linkdomain` binary with a configuration and wait until it answers."""

import glob
import html
import json
import os
import re
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The debug build of scripts/release's flags, unless TEST_BINARY names another (the release
# build, to measure it with the same tests).
BINARY = Path(os.environ.get("TEST_BINARY", ROOT / ".build" / "debug" / "linkdomain"))
# scripts/test starts PostgreSQL and says where.
POSTGRES = os.environ.get("TEST_POSTGRES_URL")


def chromium(user_agent, javascript=False):
    """Headless Chromium as `user_agent`, with JavaScript off (the pages must work without it)
    unless a test injects its own script (axe-core)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=480,860", "--lang=en-US"]:
        options.add_argument(argument)
    options.add_argument(f"--user-agent={user_agent}")
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    # Starting a browser on a busy machine now and then fails before any page is asked for
    # (chromedriver's start-up times out); that says nothing about the service, so it is tried again.
    from selenium.common.exceptions import SessionNotCreatedException, WebDriverException
    for attempt in range(3):
        try:
            return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        except (SessionNotCreatedException, WebDriverException):
            if attempt == 2:
                raise


def page_heading(driver):
    """The page's first <h1> as a reader sees it, read from one snapshot of the page so a click's
    navigation replacing the document cannot invalidate it halfway (element handles can)."""
    match = re.search(r"<h1\b[^>]*>(.*?)</h1>", driver.page_source, re.DOTALL | re.IGNORECASE)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).split()) if match else None


def wait_for_heading(driver, text, timeout=10):
    """Waits until the page's heading is `text` (the navigation a click starts may still be loading)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(lambda d: page_heading(d) == text)
    return True


def click_and_wait_for_next_page(driver, element, timeout=30):
    """Clicks `element` (a submit button or link) and waits until the page it leads to has replaced
    this one and finished loading. Staleness of an old element handle is not a safe sign: while the
    document is being swapped Chromium may answer "node does not belong to the document" instead of
    "stale", so a marker set on this page's window is watched instead (a new page has none)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("window.__linkdomainOldPage = true")
    element.click()

    def next_page_loaded(d):
        return d.execute_script("return window.__linkdomainOldPage !== true && document.readyState === 'complete'")

    WebDriverWait(driver, timeout, ignored_exceptions=(WebDriverException,)).until(next_page_loaded)


def fresh_database():
    """A new, empty database on the test server, so nothing another test stored leaks in."""
    server = urllib.parse.urlsplit(POSTGRES)
    name = f"replicas_{uuid.uuid4().hex[:12]}"
    createdb = sorted(glob.glob("/usr/lib/postgresql/*/bin/createdb"))[-1]
    subprocess.run([createdb, "-h", server.hostname, "-p", str(server.port or 5432), "-U", server.username, name], check=True)
    return server._replace(path=f"/{name}").geturl()


def post_json(url, body, headers=None, timeout=60):
    """(status, decoded JSON answer) of a JSON POST; an error status is an answer like any other."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **(headers or {})},
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A running `linkdomain serve`; its output goes to a log file shown if it fails to start."""

    def __init__(self, directory, name, configuration, ca=None):
        """`ca`: the CA file that signed the configured TLS certificate; the server is then reached over HTTPS."""
        self.port = configuration.get("server", {}).get("port") or free_port()
        configuration = {**configuration,
                         "server": {"host": "127.0.0.1", "port": self.port, **configuration.get("server", {})}}
        path = Path(directory) / f"{name}.json"
        path.write_text(json.dumps(configuration))
        self.log = open(Path(directory) / f"{name}.log", "w+")
        self.process = subprocess.Popen([str(BINARY), "serve", "--config", str(path)], stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}"
        self.ssl_context = ssl.create_default_context(cafile=str(ca)) if ca else None
        for _ in range(300):
            if self.process.poll() is not None:
                self.log.seek(0)
                pytest.fail(f"linkdomain exited: {self.log.read()}")
            try:
                urllib.request.urlopen(self.base + "/healthz", context=self.ssl_context)
                return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        pytest.fail(f"linkdomain did not answer on {self.base}")

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # Killed, so no server outlives its test; the failure shows what it was doing.
            self.process.kill()
            self.process.wait()
            tail = "\n".join(self.output().splitlines()[-40:])
            pytest.fail(f"linkdomain did not exit within 10 s of SIGTERM; its last lines:\n{tail}")
