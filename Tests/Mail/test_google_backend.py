"""The Google path, offline: LinkDomain authenticates as a service account (an RS256 assertion
exchanged at the key file's token_uri, here a token endpoint that verifies it with google-auth)
and asks the admin API for the link; an embedded LinkDomain stands in for Identity Toolkit and
takes the access token as an admin key. The mail's link is on LinkDomain's own host and its code
is one the backend accepts."""

import pytest

from conftest import Server
from keys import make_service_account
from mailtest import running_relay, call, link_in, mail_configuration, parse, reset_password_through_page, send_action, sign_up
from token_endpoint import TokenEndpoint

ACCESS_TOKEN = "ya29.offline-test-access-token-0123456789abcdef"


@pytest.fixture(scope="module")
def google(tmp_path_factory):
    """The stand-in for Identity Toolkit, the token endpoint and the service account's key file."""
    directory = tmp_path_factory.mktemp("google")
    endpoint = TokenEndpoint({}, client_email="", access_token=ACCESS_TOKEN)
    key_file, certificate, key_id = make_service_account(directory, endpoint.url)
    endpoint.public_keys[key_id] = certificate
    endpoint.client_email = "linkdomain-test@demo-linkdomain.iam.gserviceaccount.com"
    endpoint.start()
    identity_toolkit = Server(directory, "identity-toolkit", {"backend": {"adminKeys": [ACCESS_TOKEN]}})
    yield identity_toolkit, endpoint, key_file
    identity_toolkit.stop()
    endpoint.stop()


@pytest.fixture(scope="module")
def relay(tmp_path_factory):
    with running_relay(tmp_path_factory.mktemp("ca")) as relay:
        yield relay


def google_configuration(relay, identity_toolkit, key_file):
    """LinkDomain in front of the stand-in, as in front of Google: its admin API, its published ID-token keys."""
    return mail_configuration(relay, relay.ca, {"backend": {
        "kind": "identityToolkit", "url": identity_toolkit.base + "/identitytoolkit.googleapis.com", "serviceAccountFile": str(key_file),
        "idTokenKeysURL": identity_toolkit.base + "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"}})


def test_reset_mail_through_google_admin_api(tmp_path, google, relay):
    identity_toolkit, endpoint, key_file = google
    configuration = google_configuration(relay, identity_toolkit, key_file)
    server = Server(tmp_path, "link-domain", configuration)
    try:
        sign_up(identity_toolkit.base, "google-user@example.com")
        for _ in range(2):
            status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "google-user@example.com"})
            assert status == 200, answer
        messages = relay.wait_for(2, timeout=15)
        # One exchange serves both calls: the token is kept until shortly before it expires.
        assert endpoint.requests == 1 and len(endpoint.assertions) == 1
        claims = endpoint.assertions[0]
        assert claims["iss"] == endpoint.client_email and claims["aud"] == endpoint.url
        assert "https://www.googleapis.com/auth/identitytoolkit" in claims["scope"].split()

        link = link_in(parse(messages[-1]))
        assert link.startswith(server.base + "/__/auth/action?") and "mode=resetPassword" in link
        page = reset_password_through_page(link, "second-password")
        assert "Your password has been changed" in page
        status, signed_in = call(identity_toolkit.base, "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                                 {"email": "google-user@example.com", "password": "second-password", "returnSecureToken": True})
        assert status == 200, signed_in

        # An unknown address: the same answer, no mail, as Google's EMAIL_NOT_FOUND is not passed on.
        status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "stranger@example.com"})
        assert status == 200 and answer["email"] == "stranger@example.com"
    finally:
        server.stop()


def test_verify_email_with_an_id_token_checked_against_the_published_keys(tmp_path, google, relay):
    identity_toolkit, endpoint, key_file = google
    server = Server(tmp_path, "verify", google_configuration(relay, identity_toolkit, key_file))
    try:
        account = sign_up(identity_toolkit.base, "verify-me@example.com")
        before = len(relay.messages)
        status, answer = send_action(server.base, {"requestType": "VERIFY_EMAIL", "idToken": account["idToken"]})
        assert status == 200 and answer["email"] == "verify-me@example.com", answer
        message = parse(relay.wait_for(before + 1, timeout=15)[before])
        assert message["To"].addresses[0].addr_spec == "verify-me@example.com"
        link = link_in(message)
        assert link.startswith(server.base) and "mode=verifyEmail" in link

        # A token whose signature does not match a published key is refused before any mail.
        header, payload, signature = account["idToken"].split(".")
        forged = ".".join([header, payload, signature[:-4] + ("AAAA" if not signature.endswith("AAAA") else "BBBB")])
        status, answer = send_action(server.base, {"requestType": "VERIFY_EMAIL", "idToken": forged})
        assert status == 400 and answer["error"]["message"].startswith("INVALID_ID_TOKEN")
        assert len(relay.messages) == before + 1
    finally:
        server.stop()


def test_a_refused_assertion_is_an_error_not_a_mail(tmp_path, google, relay):
    identity_toolkit, endpoint, key_file = google
    saved = dict(endpoint.public_keys)
    endpoint.public_keys.clear()  # the key was deleted in the Cloud console
    server = Server(tmp_path, "refused", google_configuration(relay, identity_toolkit, key_file))
    try:
        before = len(relay.messages)
        status, answer = send_action(server.base, {"requestType": "PASSWORD_RESET", "email": "google-user@example.com"})
        assert status == 400 and answer["error"]["message"].startswith("INSUFFICIENT_PERMISSION")
        assert len(relay.messages) == before
    finally:
        endpoint.public_keys.update(saved)
        server.stop()
