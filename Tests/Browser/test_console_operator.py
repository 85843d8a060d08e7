"""The console's doctor findings in headless Chromium, JavaScript off. In development (a loopback
server, http://127.0.0.1:PORT, no sign-in) "Run the checks now" fetches the server itself: plain
http is a finding every developer's laptop gets, so it is marked "(expected in development)", while
a real problem (short links no app claims) is not. A deployment marks nothing. Its server here
serves plain http at http://127.0.0.1:PORT but listens on every address (0.0.0.0, as in a
container), which makes it a deployment whose doctor can fetch it and finds the same "not HTTPS"
to leave unmarked. test_console.py's deployment (https://links.example.com) cannot be fetched from
a test: its doctor spends 10 s on each of five fetches and finds nothing that could be marked."""

import re

import pytest

from conftest import Server, chromium, free_port, page_heading
from test_console import ADMIN_KEY, API_KEY, DESKTOP, password_hash, sign_in, submit

APPLE = {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app", "appStoreID": "1234567890"}]}
EXPECTED = "(expected in development)"
SHORT_LINKS = ("apple-app-site-association: short links (such as /Ab3dE9) open the browser, not the app: "
               "no app claims them")


@pytest.fixture(scope="module")
def development(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("console-development"), "development", {
        "apple": APPLE, "authorizedDomains": ["example.com"], "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    })
    yield server
    server.stop()


def findings(driver):
    """The doctor findings listed on the current page: (class, text, the expected tag's text or None)."""
    listed = []
    for item in driver.find_elements("css selector", "ul.findings li"):
        tags = item.find_elements("css selector", "em.expected")
        assert len(tags) <= 1, item.get_attribute("outerHTML")
        listed.append((item.get_attribute("class"), " ".join(item.text.split()), tags[0].text if tags else None))
    return listed


def run_the_checks(driver, base):
    """"Run the checks now" on the Association page; the findings it then lists."""
    driver.get(f"{base}/__/console/association")
    submit(driver, "/__/console/association/doctor")
    assert "The checks ran: their findings are below." in driver.page_source
    listed = findings(driver)
    assert listed, driver.page_source
    return listed


def test_development_marks_the_findings_every_laptop_gets_as_expected(development):
    base = development.base
    driver = chromium(DESKTOP)
    try:
        # Development: the console opens with no sign-in.
        driver.get(f"{base}/__/console")
        assert driver.current_url == f"{base}/__/console" and page_heading(driver) == "Overview"

        listed = run_the_checks(driver, base)
        not_https = [finding for finding in listed if re.search(rf"\bsite: {re.escape(base)} is not HTTPS\b", finding[1])]
        assert len(not_https) == 1, listed
        severity, text, tag = not_https[0]
        assert severity == "finding-error" and tag == EXPECTED and text.startswith(f"error {EXPECTED} site: "), not_https
        # Only that one: the short links no app claims are a real finding, a warning, unmarked.
        assert [finding for finding in listed if finding[2] is not None] == not_https, listed
        short_links = [finding for finding in listed if SHORT_LINKS in finding[1]]
        assert len(short_links) == 1, listed
        assert short_links[0][0] == "finding-warning" and short_links[0][1].startswith(f"warning {SHORT_LINKS}") and short_links[0][2] is None

        # The overview lists the same findings, marked the same way.
        driver.get(f"{base}/__/console")
        assert findings(driver) == listed
    finally:
        driver.quit()


def test_a_deployment_marks_no_finding_as_expected(tmp_path):
    port = free_port()
    public = f"http://127.0.0.1:{port}"
    server = Server(tmp_path, "plain-http-deployment", {
        "publicBaseURL": public, "server": {"host": "0.0.0.0", "port": port},
        "backend": {"apiKeys": [API_KEY], "adminKeys": [ADMIN_KEY]},
        "console": {"users": [{"name": "ops", "passwordHash": password_hash()}]},
        "apple": APPLE, "authorizedDomains": ["example.com"], "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    })
    driver = chromium(DESKTOP)
    try:
        assert re.search(r"^\s*mode:\s+deployment:", server.output(), re.MULTILINE), server.output()
        sign_in(driver, server.base)  # a deployment: the console asks who you are
        listed = run_the_checks(driver, server.base)
        assert any(re.search(rf"\bsite: {re.escape(public)} is not HTTPS\b", text) for _, text, _ in listed), listed
        assert any(SHORT_LINKS in text for _, text, _ in listed), listed  # the doctor fetched the server itself
        assert not [finding for finding in listed if finding[2] is not None or EXPECTED in finding[1]], listed
        assert "expected in development" not in driver.page_source
    finally:
        driver.quit()
        server.stop()
