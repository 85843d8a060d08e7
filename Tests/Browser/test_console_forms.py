"""The console's forms in headless Chromium, in test_console.py's deployment configuration (its
`server` and `relay` fixtures, imported: this module gets a server and a relay of its own): a short
link made with a chosen suffix, a chat preview and fallbacks, and what a chat app and a computer get
from it; refusals in plain words (a deep link outside authorizedDomains, a suffix taken, a path the
service keeps); a link changed from its page; an import whose report page reloads without importing
again; search with whatever is pasted; "I never got the mail"; an account found by the start of its
address; the QR code's PNG sizes; and axe-core on the pages that show a refusal. Each flow runs with
JavaScript off and on, in one signed-in browser per setting (starting a browser and signing in
costs seconds a test)."""

import html.parser
import http.client
import re
import subprocess
import urllib.parse

import pytest

from conftest import chromium, click_and_wait_for_next_page, page_heading
from test_console import (  # noqa: F401 (server and relay are fixtures: pytest finds them here)
    DESKTOP, api, download, relay, send_reset, server, sign_in, submit, violations, wait_until)

PUBLIC = "https://links.example.com"
SLACKBOT = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
CREATE = "/__/console/links"


class Console:
    """A signed-in browser, and whether it runs JavaScript."""

    def __init__(self, driver, javascript, base):
        self.driver, self.javascript, self.base = driver, javascript, base
        # Keeps what each setting makes apart: the two runs share one server.
        self.mode = "on" if javascript else "off"


@pytest.fixture(scope="module", params=[False, True], ids=["javascript off", "javascript on"])
def console(request, server):  # noqa: F811
    driver = chromium(DESKTOP, javascript=request.param)
    try:
        sign_in(driver, server.base)
        yield Console(driver, request.param, server.base)
    finally:
        driver.quit()


def visit(base, path, agent):
    """(status, headers, body) of a GET as `agent`, redirects not followed."""
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", path, headers={"User-Agent": agent})
        response = connection.getresponse()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


class MetaTags(html.parser.HTMLParser):
    """A page's <meta property|name=... content=...>, unescaped as a chat app reads them."""

    def __init__(self, page):
        super().__init__()
        self.tags = {}
        self.feed(page)

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "meta" and "content" in attributes:
            self.tags.setdefault(attributes.get("property") or attributes.get("name"), attributes["content"])


def text_of(element):
    """An element's text content, whitespace collapsed (columns hidden at narrow widths included)."""
    return " ".join((element.get_attribute("textContent") or "").split())


def fill(driver, fields):
    for field, value in fields.items():
        element = driver.find_element("id", field)
        element.clear()
        if value:
            element.send_keys(value)


def create(console, link, **fields):
    """Fills the create form at the top of the links page (`fields` by id: suffix, st, sd, si, afl,
    ifl, ofl) and submits it; the page that follows."""
    driver = console.driver
    driver.get(console.base + CREATE)
    fill(driver, {"link": link, **fields})
    submit(driver, CREATE)


def problem(driver):
    """The page's refusal (`p.error`, an alert), or None."""
    found = driver.find_elements("css selector", "main p.error[role=alert]")
    return text_of(found[0]) if found else None


def notice(driver):
    found = driver.find_elements("css selector", "main p.notice[role=status]")
    return text_of(found[0]) if found else None


def parameters(driver):
    """The link page's Parameters table: {name: value}."""
    rows = driver.find_elements("css selector", "table.parameters tbody tr")
    return {text_of(row.find_element("css selector", "th")): text_of(row.find_element("css selector", "td")) for row in rows}


def destinations(driver):
    """The link page's "Where each device goes": {device: where}."""
    table = driver.find_element("xpath", "//h2[normalize-space()='Where each device goes']/following-sibling::table[1]")
    return {text_of(row.find_element("css selector", "th")): text_of(row.find_element("css selector", "td"))
            for row in table.find_elements("css selector", "tbody tr")}


def listed(console, query):
    """The suffixes the links page lists for `query`, typed into its search box and searched."""
    driver = console.driver
    # Any links page has the search box (a search's answer too): only another page is left.
    if not driver.find_elements("css selector", "form.search[action='/__/console/links'] #q"):
        driver.get(console.base + CREATE)
    box = driver.find_element("id", "q")
    box.clear()
    box.send_keys(query)
    click_and_wait_for_next_page(driver, driver.find_element("css selector", "form.search[action='/__/console/links'] button[type=submit]"))
    # The box keeps what was searched for.
    assert driver.find_element("id", "q").get_attribute("value") == query
    return [text_of(a).removeprefix("/") for a in driver.find_elements("css selector", "table.listing tbody tr td:first-child a")]


def test_a_link_with_a_chosen_suffix_a_chat_preview_and_fallbacks(console):
    driver, base, mode = console.driver, console.base, console.mode
    suffix = f"Spring-Sale-{mode}"
    chosen = {"suffix": suffix, "st": f"Spring sale – 20% off & \"free\" delivery ({mode})", "sd": "Boots, coats <and> scarves",
              "si": "https://example.com/cards/spring.png", "afl": "https://example.com/android-fallback",
              "ifl": "https://example.com/ios-fallback", "ofl": "https://example.com/desktop-fallback"}
    deep_link = f"https://example.com/sale/spring?from={mode}"

    # The create form comes first on the page, before the search and the listing.
    driver.get(base + CREATE)
    form = driver.find_element("css selector", f"form[method=post][action='{CREATE}']")
    search = driver.find_element("css selector", "form.search[role=search]")
    assert form.location["y"] < search.location["y"], (form.location, search.location)
    for listing in driver.find_elements("css selector", "table.listing"):
        assert search.location["y"] < listing.location["y"]

    create(console, deep_link, **chosen)
    assert urllib.parse.urlsplit(driver.current_url).path == f"/__/console/links/{suffix}", driver.current_url
    assert page_heading(driver) == f"Short link /{suffix}"
    assert notice(driver) == f"Created {PUBLIC}/{suffix}."
    assert driver.find_element("css selector", f"main a[href='{PUBLIC}/{suffix}']").text == f"{PUBLIC}/{suffix}"
    shown = parameters(driver)
    assert shown["link"] == deep_link, shown
    for name in ["st", "sd", "si", "afl", "ifl", "ofl"]:
        assert shown.get(name) == chosen[name], (name, shown)
    # The router's own decisions, in plain words.
    where = destinations(driver)
    assert where["Computer"] == f"Straight to {chosen['ofl']}", where
    assert where["Link preview (chat apps, search engines)"] == "A preview card (title, description, image)", where

    # A chat app unfurling the link gets the preview as entered (escaped in the HTML, read back whole).
    status, headers, page = visit(base, f"/{suffix}", SLACKBOT)
    assert status == 200 and headers["content-type"].startswith("text/html"), (status, headers)
    tags = MetaTags(page).tags
    assert tags.get("og:title") == chosen["st"], tags
    assert tags.get("og:description") == chosen["sd"] and tags.get("og:image") == chosen["si"], tags
    assert "<and>" not in page
    # A computer goes to the computers' fallback (ofl before the deep link), as the page said.
    status, headers, _ = visit(base, f"/{suffix}", DESKTOP)
    assert status == 302 and headers["location"] == chosen["ofl"], (status, headers)


def test_refusals_say_what_is_wrong_and_create_nothing(console):
    driver, base, mode = console.driver, console.base, console.mode

    # A deep link outside authorizedDomains: the host, and the key to change.
    create(console, "https://shop.acme.example/spring", st="Acme")
    said = problem(driver)
    assert said and "shop.acme.example" in said and "authorizedDomains" in said, said
    assert "INVALID_ARGUMENT" not in said
    # Said on the links page, whose create form is there to try again.
    assert page_heading(driver) == "Short links"
    assert driver.find_elements("css selector", f"form[method=post][action='{CREATE}'] #link")
    # The form holds what was typed, to correct rather than type again.
    assert driver.find_element("css selector", f"form[method=post][action='{CREATE}'] #link").get_attribute("value") == "https://shop.acme.example/spring"
    assert driver.find_element("css selector", f"form[method=post][action='{CREATE}'] #st").get_attribute("value") == "Acme"
    assert listed(console, "shop.acme.example") == []
    assert "No short links match." in driver.find_element("css selector", "main").text

    # A fallback outside it, named as the fallback.
    create(console, "https://example.com/fine", ofl="https://elsewhere.example.net/desktop")
    said = problem(driver)
    assert said and "(ofl)" in said and "elsewhere.example.net" in said and "authorizedDomains" in said, said
    assert listed(console, "example.com/fine") == []

    # A suffix already taken: refused, and the link it stands for is left as it was.
    taken = f"Taken-{mode}"
    create(console, "https://example.com/first", suffix=taken)
    assert page_heading(driver) == f"Short link /{taken}"
    create(console, "https://example.com/second", suffix=taken)
    said = problem(driver)
    assert said and taken in said and "taken" in said, said
    assert listed(console, f"/{taken}") == [taken]
    assert text_of(driver.find_element("css selector", "table.listing tbody td.long")) == "https://example.com/first"

    # Paths the service keeps for itself, of a suffix's shape, are refused by the server.
    for reserved in ["__x", "healthz"]:
        create(console, "https://example.com/reserved", suffix=reserved)
        said = problem(driver)
        assert said and f"/{reserved}" in said and "keeps for itself" in said, (reserved, said)

    # Others (`__/x`, `.well-known`) are not of a suffix's shape: the browser itself refuses to send
    # the form (the field's pattern), and the server refuses them when they are sent anyway.
    for reserved in ["__/x", ".well-known"]:
        driver.get(base + CREATE)
        fill(driver, {"suffix": reserved, "link": "https://example.com/reserved"})
        field = driver.find_element("id", "suffix")
        assert driver.execute_script("return arguments[0].validity.patternMismatch", field), reserved
        assert field.get_attribute("validationMessage"), reserved
        # The focus is in the link field; a click on Create moves it to the field the browser
        # stopped at (interactive validation), and nothing is sent.
        assert driver.switch_to.active_element == driver.find_element("id", "link")
        driver.find_element("css selector", f"form[method=post][action='{CREATE}'] button[type=submit]").click()
        assert driver.switch_to.active_element == field, reserved
        driver.execute_script("arguments[0].removeAttribute('pattern')", field)
        submit(driver, CREATE)
        said = problem(driver)
        assert said and "may hold only the letters A-Z and a-z, digits, - and _" in said, (reserved, said)
    # None of the refused suffixes made a link.
    assert listed(console, "example.com/reserved") == []


def test_a_link_changed_from_its_page(console):
    driver, base, mode = console.driver, console.base, console.mode
    before, after = f"https://example.com/before/{mode}", f"https://example.com/after/{mode}"
    create(console, before, st="Before")
    suffix = urllib.parse.urlsplit(driver.current_url).path.rsplit("/", 1)[1]
    page = f"/__/console/links/{suffix}"
    assert status_and_location(base, suffix) == (302, before)

    # The form is filled with what the link holds now.
    assert driver.find_element("css selector", f"form[action='{page}/edit'] #link").get_attribute("value") == before
    assert driver.find_element("css selector", f"form[action='{page}/edit'] #st").get_attribute("value") == "Before"
    fill(driver, {"link": after, "st": f"After {mode}"})
    submit(driver, f"{page}/edit")
    assert urllib.parse.urlsplit(driver.current_url).path == page
    assert notice(driver) == "Saved. The link now leads where you set, on every server within a second."
    shown = parameters(driver)
    assert shown["link"] == after and shown["st"] == f"After {mode}", shown
    assert driver.find_element("css selector", f"form[action='{page}/edit'] #link").get_attribute("value") == after
    assert destinations(driver)["Computer"] == f"Straight to {after}"
    assert status_and_location(base, suffix) == (302, after)
    assert MetaTags(visit(base, f"/{suffix}", SLACKBOT)[2]).tags.get("og:title") == f"After {mode}"

    # A change to a host outside authorizedDomains is refused, in words naming it; the link stays.
    fill(driver, {"link": "https://shop.acme.example/spring", "st": "Acme"})
    submit(driver, f"{page}/edit")
    said = problem(driver)
    assert said and "shop.acme.example" in said and "authorizedDomains" in said, said
    # Said on the link's page, above its form, which holds what was typed to correct it.
    assert page_heading(driver) == f"Short link /{suffix}"
    form = f"form[action='{page}/edit']"
    assert driver.find_element("css selector", f"{form} #link").get_attribute("value") == "https://shop.acme.example/spring"
    assert driver.find_element("css selector", f"{form} #st").get_attribute("value") == "Acme"
    # What the link holds did not change.
    shown = parameters(driver)
    assert shown["link"] == after and shown["st"] == f"After {mode}", shown
    assert status_and_location(base, suffix) == (302, after)


def status_and_location(base, suffix):
    status, headers, _ = visit(base, f"/{suffix}", DESKTOP)
    return status, headers.get("location")


def test_an_import_reported_once_and_a_reload_does_not_import_again(console, server):  # noqa: F811
    driver, base, mode = console.driver, console.base, console.mode
    suffix = f"promoXYZ{mode}"
    driver.get(base + CREATE)
    driver.find_element("id", "csv").send_keys(f"shortLink,longLink\n{PUBLIC}/{suffix},{PUBLIC}/?link=https://example.com/p/{mode}\n")
    submit(driver, "/__/console/links/import")
    report = "Imported 1, skipped 0 already there, refused 0."
    assert notice(driver) == report and problem(driver) is None, (notice(driver), problem(driver))
    # Post/Redirect/Get: the report is a page of its own, which a reload asks for again.
    reported = driver.current_url
    assert urllib.parse.urlsplit(reported).path == CREATE
    driver.execute_script("window.__linkdomainOldPage = true")
    driver.refresh()
    wait_until(driver, lambda d: d.execute_script("return window.__linkdomainOldPage !== true && document.readyState === 'complete'"),
               message="the report page was not loaded again")
    assert driver.current_url == reported
    assert notice(driver) == report, notice(driver)
    assert listed(console, suffix) == [suffix]
    assert text_of(driver.find_element("css selector", "table.listing tbody td.long")) == f"https://example.com/p/{mode}"
    imports = [line for line in server.output().splitlines() if "action=shortLink.import" in line and f"object={suffix}" in line]
    assert len(imports) == 1, imports

    # The same file again is skipped, and said so.
    driver.find_element("id", "csv").send_keys(f"shortLink,longLink\n{PUBLIC}/{suffix},{PUBLIC}/?link=https://example.com/p/{mode}\n")
    submit(driver, "/__/console/links/import")
    assert notice(driver) == "Imported 0, skipped 1 already there, refused 0."


def test_search_finds_a_link_by_whatever_is_pasted(console):
    mode = console.mode
    suffix = f"Find-Me-{mode.upper()}"
    create(console, f"https://example.com/catalogue/winter-boots-{mode}", suffix=suffix)
    # One more whose suffix starts the same, and which leads elsewhere.
    create(console, f"https://example.com/catalogue/summer-hats-{mode}", suffix=f"{suffix}-Too")
    # The short link, with or without its scheme, with a query, and `/suffix`: that link only.
    for pasted in [f"{PUBLIC}/{suffix}", f"links.example.com/{suffix}?utm_source=mail", f"/{suffix}"]:
        assert listed(console, pasted) == [suffix], pasted
    # The suffix in another case: every suffix containing it.
    assert sorted(listed(console, suffix.lower())) == sorted([suffix, f"{suffix}-Too"])
    # Part of where it leads, slashes and all.
    assert listed(console, f"catalogue/winter-boots-{mode}") == [suffix]
    assert listed(console, f"https://example.com/catalogue/winter-boots-{mode}") == [suffix]


def test_search_finds_a_link_pasted_with_spaces_around_it(console):
    suffix = f"Pasted-{console.mode}"
    create(console, f"https://example.com/pasted/{console.mode}", suffix=suffix)
    assert listed(console, f" {PUBLIC}/{suffix} ") == [suffix]


def mail_rows(driver):
    """The mail page's table: its rows as {column: cell}; none without a table."""
    tables = driver.find_elements("css selector", "table.listing")
    if not tables:
        return []
    columns = [text_of(cell) for cell in tables[0].find_elements("css selector", "thead th")]
    return [dict(zip(columns, [text_of(cell) for cell in row.find_elements("css selector", "td")]))
            for row in tables[0].find_elements("css selector", "tbody tr")]


def search_mail(console, text):
    driver = console.driver
    driver.get(console.base + "/__/console/mail")
    box = driver.find_element("id", "to")
    box.send_keys(text)
    click_and_wait_for_next_page(driver, driver.find_element("css selector", "form.search[action='/__/console/mail'] button[type=submit]"))
    assert driver.find_element("id", "to").get_attribute("value") == text
    return mail_rows(driver)


def test_mails_to_an_address_someone_says_never_came(console, relay, server):  # noqa: F811
    driver, base, mode = console.driver, console.base, console.mode
    address = f"never-got-it-{mode}@example.com"
    api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": address, "password": "first password"})
    delivered = len(relay.messages)
    send_reset(base, address)
    relay.wait_for(delivered + 1)
    searches = server.output().count("action=mail.searchRecipient")

    # Part of the address, in another case, as someone might spell it out.
    def sent(d):
        rows = search_mail(console, f"NEVER-GOT-IT-{mode.upper()}")
        return rows if rows and all(row.get("State") == "Sent" for row in rows) else None
    rows = wait_until(driver, sent, message="the mail was never listed as sent")
    assert len(rows) == 1, rows
    assert list(rows[0])[:6] == ["Recipient", "Kind", "Language", "State", "Queued", "Next attempt"], rows
    row = rows[0]
    # The address shown whole, not masked.
    assert row["Recipient"] == address and row["Kind"] == "reset-password" and row["State"] == "Sent", row
    assert re.search(r"\d{4}-\d\d-\d\d", row["Queued"]) and row["Next attempt"] == "", row
    # The search is audited, without the address.
    audit = [line for line in server.output().splitlines() if "action=mail.searchRecipient" in line]
    assert len(audit) > searches and not any("never-got-it" in line for line in audit), audit

    # An address nothing was sent to.
    assert search_mail(console, f"nobody-{mode}@example.org") == []
    assert "No mails here." in driver.find_element("css selector", "main").text


def test_an_account_found_by_the_start_of_its_address(console):
    driver, base, mode = console.driver, console.base, console.mode
    address = f"zq{mode}-account-holder@example.com"
    user = api(base, "/identitytoolkit.googleapis.com/v1/accounts:signUp", {"email": address, "password": "first password"})

    def found(text):
        driver.get(base + "/__/console/accounts")
        driver.find_element("id", "q").send_keys(text)
        click_and_wait_for_next_page(driver, driver.find_element("css selector", "form.search[action='/__/console/accounts'] button[type=submit]"))
        return {text_of(row.find_element("css selector", "td a")): row for row in driver.find_elements("css selector", "table.listing tbody tr")}

    rows = found(address[:4])
    assert user["localId"] in rows, list(rows)
    assert address in rows[user["localId"]].text
    click_and_wait_for_next_page(driver, rows[user["localId"]].find_element("css selector", "td a"))
    assert page_heading(driver) == f"Account {user['localId']}"
    # The start of another address finds not this one.
    assert user["localId"] not in found(f"zq{'off' if mode == 'on' else 'on'}-")
    assert found("zz-nobody-") == {}
    assert "No account matches." in driver.find_element("css selector", "main").text


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("size", [256, 1024, 2048])
def test_the_qr_code_pngs_are_about_the_size_asked(console, tmp_path, size):
    driver, base = console.driver, console.base
    suffix = urllib.parse.urlsplit(create_short(console)).path.rsplit("/", 1)[1]
    link = driver.find_element("css selector", f"figure.qr a[href='/__/console/links/{suffix}/qr.png?size={size}']")
    assert text_of(link) == f"{size} px" and link.get_attribute("download") == f"{suffix}-{size}.png"
    status, png = download(driver, base, f"/__/console/links/{suffix}/qr.png?size={size}")
    assert status == 200 and png[:8] == PNG_SIGNATURE and png[12:16] == b"IHDR", png[:16]
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    image = tmp_path / f"{size}.png"
    image.write_bytes(png)
    decoded = subprocess.run(["zbarimg", "--raw", "-q", str(image)], capture_output=True, text=True)
    assert decoded.returncode == 0 and decoded.stdout.strip() == f"{PUBLIC}/{suffix}", decoded
    # Exactly the size asked: whole pixels a module, what is left widens the quiet zone.
    assert width == height == size, (size, width, height)


def create_short(console):
    """A short link made for the QR tests, one per setting; its page's URL (the browser is on it)."""
    driver = console.driver
    made = getattr(console, "qr_page", None)
    if made:
        driver.get(made)
    else:
        create(console, f"https://example.com/qr/{console.mode}")
        console.qr_page = driver.current_url.split("?", 1)[0]
    return console.qr_page


def test_pages_showing_a_refusal_have_no_accessibility_violations(server):  # noqa: F811
    """axe-core (WCAG A and AA) on the links page refusing a deep link outside authorizedDomains
    (its alert above the form) and on the page refusing a link's change, with JavaScript on, at a
    phone's width (320 CSS pixels, where the long refusals must wrap: nothing may be wider than the
    screen) in light and dark."""
    base = server.base
    driver = chromium(DESKTOP, javascript=True)
    try:
        driver.set_window_size(320, 720)
        sign_in(driver, base)
        console = Console(driver, True, base)
        create(console, "https://example.com/axe")
        suffix = urllib.parse.urlsplit(driver.current_url).path.rsplit("/", 1)[1]
        outside = f"https://shop.acme.example/spring/{'a-long-path-segment/' * 6}"

        def refused_create():
            create(console, outside)
            assert "authorizedDomains" in (problem(driver) or "")

        def refused_change():
            driver.get(f"{base}/__/console/links/{suffix}")
            fill(driver, {"link": outside})
            submit(driver, f"/__/console/links/{suffix}/edit")
            assert "authorizedDomains" in driver.find_element("css selector", "main").text

        failures = []
        for name, show in {"links, create refused": refused_create, "link, change refused": refused_change}.items():
            show()
            # The same page (a POST's answer) in each scheme, without sending the form again.
            for scheme in ["light", "dark"]:
                driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
                assert driver.execute_script(f"return matchMedia('(prefers-color-scheme: {scheme})').matches")
                failures += violations(driver, f"{name} ({scheme}, 320 px)")
                wide = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                if wide > 1:
                    failures.append(f"{name} ({scheme}, 320 px): {wide} px wider than the screen")
        assert not failures, "\n".join(failures)
    finally:
        driver.quit()
