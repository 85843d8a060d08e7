"""A mail's link, opened in headless Chromium (JavaScript off) the way its recipient opens it,
completes the flow: a password reset in Italian, an email verification."""

import pytest
from selenium.webdriver.common.by import By

from conftest import Server, chromium, wait_for_heading
from keys import make_certificate_authority
from mailtest import BROWSER, call, link_in, mail_configuration, parse, send_action, sign_up
from relay import Relay


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    directory = tmp_path_factory.mktemp("browser-mail")
    ca, leaf, key = make_certificate_authority(directory)
    with Relay(tls=(leaf, key), auth=("linkdomain", "relay-secret")) as relay:
        server = Server(directory, "browser-mail", mail_configuration(relay, ca))
        driver = chromium(BROWSER)
        yield server, relay, driver
        driver.quit()
        server.stop()


def mailed_link(server, relay, body, language="en"):
    before = len(relay.messages)
    status, answer = send_action(server.base, body, {"X-Firebase-Locale": language})
    assert status == 200, answer
    return link_in(parse(relay.wait_for(before + 1, timeout=15)[before]))


def test_reset_password_from_the_mail_in_italian(setup):
    server, relay, driver = setup
    sign_up(server.base, "lettore@example.com")
    driver.get(mailed_link(server, relay, {"requestType": "PASSWORD_RESET", "email": "lettore@example.com"}, "it"))
    assert wait_for_heading(driver, "Scegli una nuova password")
    driver.find_element(By.ID, "new-password").send_keys("nuova password")
    driver.find_element(By.ID, "confirm-password").send_keys("nuova password")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(driver, "La tua password è stata cambiata")
    status, _ = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                     {"email": "lettore@example.com", "password": "nuova password", "returnSecureToken": True})
    assert status == 200


def test_verify_email_from_the_mail(setup):
    server, relay, driver = setup
    account = sign_up(server.base, "reader@example.com")
    driver.get(mailed_link(server, relay, {"requestType": "VERIFY_EMAIL", "idToken": account["idToken"]}))
    assert wait_for_heading(driver, "Verify your email address")
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(driver, "Your email address has been verified")
    status, looked_up = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:lookup", {"idToken": account["idToken"]})
    assert status == 200 and looked_up["users"][0]["emailVerified"] is True


def test_after_restoring_an_address_the_page_mails_a_password_change(setup):
    """The recover page says to change the password: its result page has the button that does it."""
    server, relay, driver = setup
    account = sign_up(server.base, "restored@example.com")
    change = mailed_link(server, relay, {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": account["idToken"],
                                         "newEmail": "taken-over@example.com"})
    before = len(relay.messages)
    call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:update", {"oobCode": change.split("oobCode=")[1].split("&")[0]})
    recover = link_in(parse(relay.wait_for(before + 1, timeout=15)[before]))
    driver.get(recover)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    assert wait_for_heading(driver, "Your email address has been restored")
    driver.refresh()  # the result page, reloaded, still offers the change
    before = len(relay.messages)
    driver.find_element(By.CSS_SELECTOR, "form[action='/__/auth/reset-request'] button").click()
    assert wait_for_heading(driver, "Check your email")
    reset = parse(relay.wait_for(before + 1, timeout=15)[before])
    assert reset["To"].addresses[0].addr_spec == "restored@example.com"
    assert "mode=resetPassword" in link_in(reset)
