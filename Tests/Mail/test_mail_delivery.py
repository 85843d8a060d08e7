"""Mails for every action and language, delivered to a real SMTP relay (aiosmtpd) over STARTTLS
with AUTH, read back with Python's `email` package, their DKIM signatures checked with dkimpy,
their links opened."""

import json

import pytest

from conftest import ROOT, Server
from keys import dkim_verify, make_certificate_authority, make_dkim_key
from mailtest import call, embedded, link_in, mail_configuration, open_page, parse, parts, send_action, sign_up
from relay import Relay

LANGUAGES = ["en", "it", "pt", "ru", "tr", "vi"]
STRINGS = {language: json.loads((ROOT / "Public" / "mail" / "locales" / f"{language}.json").read_text()) for language in LANGUAGES}


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificate_authority(tmp_path_factory.mktemp("ca"))


@pytest.fixture(scope="module")
def relay(certificates):
    ca, leaf, key = certificates
    with Relay(tls=(leaf, key), auth=("linkdomain", "relay-secret")) as relay:
        yield relay


@pytest.fixture(scope="module", params=["rsa", "ed25519"])
def server(request, tmp_path_factory, relay, certificates):
    directory = tmp_path_factory.mktemp("server")
    key, record = make_dkim_key(directory, request.param)
    configuration = mail_configuration(relay, certificates[0], {"mail": {"dkim": {"privateKeyPath": str(key), "selector": "sel"}}})
    server = Server(directory, "mail", configuration)
    server.dkim_records = {"sel._domainkey.example.com": record}
    yield server
    server.stop()


def deliver(relay, server, body, headers=None):
    """Sends through the API and waits for the mail; returns it parsed (with the raw bytes)."""
    before = len(relay.messages)
    status, answer = send_action(server.base, body, headers)
    assert status == 200, answer
    received = relay.wait_for(before + 1, timeout=15)[before]
    assert received.tls and received.authenticated_as == "linkdomain"
    return parse(received), received


def check_headers(message, raw, server, recipient):
    assert message["From"].addresses[0].addr_spec == "noreply@example.com"
    assert message["From"].addresses[0].display_name == "Example App"
    assert message["To"].addresses[0].addr_spec == recipient
    assert message["Date"].datetime is not None
    assert message["Message-ID"].endswith("@example.com>")
    assert message["MIME-Version"] == "1.0"
    assert all(len(line) <= 998 for line in raw.data.split(b"\r\n"))
    assert dkim_verify(raw.data, server.dkim_records)


@pytest.mark.parametrize("language", LANGUAGES)
def test_password_reset_in_every_language(relay, server, language):
    address = f"reset-{language}-{server.port}@example.com"
    sign_up(server.base, address)
    message, raw = deliver(relay, server, {"requestType": "PASSWORD_RESET", "email": address}, {"X-Firebase-Locale": language})
    check_headers(message, raw, server, address)
    # Non-ASCII subjects arrive RFC 2047-encoded and decode to the language's own words.
    assert message["Subject"] == STRINGS[language]["reset_password_subject"].replace("{app}", "Example App")
    text, html = parts(message)
    assert address in text and "help@example.com" in text
    link = link_in(message)
    assert link.startswith(server.base + "/__/auth/action?") and "mode=resetPassword" in link and f"lang={language}" in link
    assert f'href="{link.replace("&", "&amp;")}"' in html
    status, page = open_page(link)
    assert status == 200 and 'type="password"' in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_sign_in_verify_and_change_email_in_every_language(relay, server, language):
    address = f"flows-{language}-{server.port}@example.com"
    account = sign_up(server.base, address)
    headers = {"X-Firebase-Locale": language}
    message, raw = deliver(relay, server, {"requestType": "EMAIL_SIGNIN", "email": address, "continueUrl": "https://example.com/done",
                                           "canHandleCodeInApp": True}, headers)
    check_headers(message, raw, server, address)
    link = link_in(message)
    assert link.startswith(server.base + "/__/auth/links?link=") and "signIn" in link

    message, raw = deliver(relay, server, {"requestType": "VERIFY_EMAIL", "idToken": account["idToken"]}, headers)
    check_headers(message, raw, server, address)
    assert "mode=verifyEmail" in link_in(message)

    new_address = f"changed-{language}-{server.port}@example.com"
    message, raw = deliver(relay, server, {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": account["idToken"], "newEmail": new_address},
                           headers)
    check_headers(message, raw, server, new_address)
    text, _ = parts(message)
    assert address in text and new_address in text
    change_link = link_in(message)
    assert "mode=verifyAndChangeEmail" in change_link

    # Confirming the change makes the embedded backend mail the old address its recover link.
    code = change_link.split("oobCode=")[1].split("&")[0]
    before = len(relay.messages)
    embedded(server.base, "accounts:update", {"oobCode": code})
    notice = parse(relay.wait_for(before + 1, timeout=15)[before])
    assert notice["To"].addresses[0].addr_spec == address
    recover_link = link_in(notice)
    # The notice, and the page its link opens, speak the language the change was confirmed in.
    assert "mode=recoverEmail" in recover_link and f"lang={language}" in recover_link
    assert notice["Subject"] == STRINGS[language]["recover_email_subject"].replace("{app}", "Example App")


def test_unknown_address_gets_the_same_answer_and_no_mail(relay, server):
    known = f"known-{server.port}@example.com"
    sign_up(server.base, known)
    unknown_status, unknown = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": f"nobody-{server.port}@example.com"})
    message, _ = deliver(relay, server, {"requestType": "PASSWORD_RESET", "email": known})
    assert unknown_status == 200 and set(unknown) == {"kind", "email"}
    assert message["To"].addresses[0].addr_spec == known
    assert all(f"nobody-{server.port}" not in " ".join(m.rcpt_tos) for m in relay.messages)


def test_refusals_in_identity_toolkit_words(server):
    status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "a@example.com"}, query={"key": "wrong"})
    assert status == 400 and answer["error"]["message"].startswith("API key not valid")
    status, answer = send_action(server.base, {"requestType": "EMAIL_SIGNIN", "email": "a@example.com"})
    assert status == 400 and answer["error"]["message"] == "MISSING_CONTINUE_URI"
    status, answer = send_action(server.base, {"requestType": "VERIFY_EMAIL", "idToken": "forged"})
    assert status == 400 and answer["error"]["message"].startswith("INVALID_ID_TOKEN")
    status, answer = send_action(server.base, {"requestType": "RECOVER_EMAIL", "email": "a@example.com"})
    assert status == 400 and answer["error"]["message"].startswith("INVALID_REQ_TYPE")


def test_a_mail_bomb_stops_at_the_recipient_limit(relay, server):
    target = f"victim-{server.port}@example.com"
    answers = [send_action(server.base, {"requestType": "EMAIL_SIGNIN", "email": target, "continueUrl": "https://example.com/"})
               for _ in range(8)]
    assert [status for status, _ in answers] == [200] * 5 + [400] * 3
    assert answers[-1][1]["error"]["message"].startswith("TOO_MANY_ATTEMPTS_TRY_LATER")


def test_the_sdk_call_meets_the_same_limit_for_known_and_unknown_addresses(server):
    known = f"limited-{server.port}@example.com"
    sign_up(server.base, known)
    for address in [known, f"unknown-{server.port}@example.com"]:
        statuses = [call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                         {"requestType": "PASSWORD_RESET", "email": address})[0] for _ in range(7)]
        assert statuses == [200] * 5 + [400] * 2, address
