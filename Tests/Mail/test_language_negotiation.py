"""Which language a person gets, end to end against the binary (docs/design/languages.md): a page
from the link's `lang`, then the browser's `Accept-Language`, then `pages.defaultLanguage`; a mail
from the request's `X-Firebase-Locale`, then the language the account's app last asked in, then
the default, said in `Content-Language`; the console in the operator's browser language."""

import json
import re
import urllib.error
import urllib.request

import pytest

from conftest import ROOT, Server
from mailtest import BROWSER, call, embedded, mail_configuration, parse, running_relay, send_action

MAIL = {language: json.loads((ROOT / "Public" / "mail" / "locales" / f"{language}.json").read_text()) for language in ["de", "fr", "ja"]}
OOB = "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode"


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    with running_relay(tmp_path_factory.mktemp("relay")) as relay:
        yield relay


@pytest.fixture(scope="module")
def server(tmp_path_factory, relay):
    configuration = mail_configuration(relay, relay.ca, {"pages": {"defaultLanguage": "de"}, "mail": {"perRecipientPerHour": 1000}})
    server = Server(tmp_path_factory.mktemp("server"), "languages", configuration)
    yield server
    server.stop()


def page(url, accept_language=None):
    headers = {"User-Agent": BROWSER}
    if accept_language:
        headers["Accept-Language"] = accept_language
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:  # an unknown code's page is a 400, in the same language
        return error.read().decode()


def html_tag(text):
    return re.search(r"<html [^>]*>", text).group(0)


def mailed(relay, before):
    message = parse(relay.wait_for(before + 1, timeout=15)[before])
    return message, message["Content-Language"]


def test_pages_fall_back_to_the_configured_language(server):
    reset = server.base + "/__/auth/action?mode=resetPassword&oobCode=unknown-code&apiKey=demo-api-key"
    assert html_tag(page(reset)) == '<html lang="de" dir="ltr">'
    # The browser's language before the default, Firebase's regional fallback on the way.
    assert html_tag(page(reset, "sw, es-MX;q=0.8")) == '<html lang="es-419" dir="ltr">'
    # The link's own language before both.
    assert html_tag(page(reset + "&lang=he", "fr")) == '<html lang="he" dir="rtl">'
    # A language spoken nowhere here falls through to the default, never echoed.
    assert html_tag(page(reset + "&lang=xx-evil", "sw")) == '<html lang="de" dir="ltr">'


def test_a_mail_speaks_the_request_then_the_account_then_the_default(server, relay):
    # An account signed up from an app speaking French: its mails are French when a later request names no language.
    status, account = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:signUp",
                           {"email": "amelie@example.com", "password": "first-password", "returnSecureToken": True},
                           {"X-Firebase-Locale": "fr-CA"})
    assert status == 200
    before = len(relay.messages)
    status, answer = call(server.base, OOB, {"requestType": "PASSWORD_RESET", "email": "amelie@example.com"})
    assert status == 200, answer
    message, language = mailed(relay, before)
    assert language == "fr" and message["Subject"] == MAIL["fr"]["reset_password_subject"].replace("{app}", "Example App")
    # The email action API too: the mail and the page its link opens speak the account's language.
    before = len(relay.messages)
    status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "amelie@example.com"})
    assert status == 200, answer
    message, language = mailed(relay, before)
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert language == "fr" and ("lang=fr" in text or "lang%3Dfr" in text), text

    # A request that names a language is answered in it; one anybody may make leaves the account's alone.
    before = len(relay.messages)
    status, answer = call(server.base, OOB, {"requestType": "PASSWORD_RESET", "email": "amelie@example.com"}, {"X-Firebase-Locale": "ja"})
    assert status == 200, answer
    assert mailed(relay, before)[1] == "ja"
    before = len(relay.messages)
    call(server.base, OOB, {"requestType": "PASSWORD_RESET", "email": "amelie@example.com"})
    assert mailed(relay, before)[1] == "fr"

    # The account's own signed-in app asking in Japanese makes Japanese its language.
    before = len(relay.messages)
    status, answer = call(server.base, OOB, {"requestType": "VERIFY_EMAIL", "idToken": account["idToken"]}, {"X-Firebase-Locale": "ja"})
    assert status == 200, answer
    message, language = mailed(relay, before)
    assert language == "ja" and "lang=ja" in message.get_body(preferencelist=("plain",)).get_content()
    before = len(relay.messages)
    call(server.base, OOB, {"requestType": "PASSWORD_RESET", "email": "amelie@example.com"})
    message, language = mailed(relay, before)
    assert language == "ja" and "lang=ja" in message.get_body(preferencelist=("plain",)).get_content()

    # An account that never named one gets the configured default.
    embedded(server.base, "accounts:signUp", {"email": "bernd@example.com", "password": "first-password"})
    before = len(relay.messages)
    call(server.base, OOB, {"requestType": "PASSWORD_RESET", "email": "bernd@example.com"})
    message, language = mailed(relay, before)
    assert language == "de" and message["Subject"] == MAIL["de"]["reset_password_subject"].replace("{app}", "Example App")


def test_the_console_follows_the_operators_browser(server):
    console = server.base + "/__/console"
    strings = {language: json.loads((ROOT / "Public" / "console" / "locales" / f"{language}.json").read_text())
               for language in ["de", "ar", "ja"]}
    text = page(console)
    assert html_tag(text) == '<html lang="de" dir="ltr">' and strings["de"]["nav_overview"] in text
    text = page(console, "ar-EG, en;q=0.5")
    assert html_tag(text) == '<html lang="ar" dir="rtl">' and strings["ar"]["nav_overview"] in text
    text = page(console + "/links", "ja")
    assert html_tag(text) == '<html lang="ja" dir="ltr">' and strings["ja"]["create_link"] in text
