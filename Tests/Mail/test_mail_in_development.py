"""Mail in development without a relay: one behaviour whoever asks for a mail (the SDKs'
`sendOobCode`, the pages' "Send me a new link", the console's "Send a password-reset mail"): the
mail is made, logged with its link, not sent, and listed in the console as "Logged, not sent"."""

import html
import http.client
import re
import time
import urllib.parse

from conftest import Server
from mailtest import call, sign_up

DESKTOP = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"


def exchange(base, path, method="GET", body=None, headers=None):
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request(method, path, body=body.encode() if body else None, headers={"User-Agent": DESKTOP, **(headers or {})})
        response = connection.getresponse()
        return response.status, response.headers, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def logged_mails(server, count):
    """The `mail logged, not sent` lines once `count` are there (the queue is read twice a second)."""
    for _ in range(200):
        lines = [line for line in server.output().splitlines() if "mail logged, not sent" in line]
        if len(lines) >= count:
            return lines
        time.sleep(0.1)
    raise AssertionError(server.output()[-3000:])


def test_every_mail_is_logged_not_sent_and_listed(tmp_path):
    server = Server(tmp_path, "no-relay", {"branding": {"appName": "Example App"}, "authorizedDomains": ["example.com"]})
    try:
        user = sign_up(server.base, "dev@example.com")
        # 1. The SDKs' call: the code's link logged (the emulator's line) and the mail logged with it.
        status, answer = call(server.base, "/identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                              {"requestType": "PASSWORD_RESET", "email": "dev@example.com"})
        assert status == 200, answer
        first = logged_mails(server, 1)[0]
        link = re.search(r"(http://127\.0\.0\.1:\d+/__/auth/action\?[^\s\"\\]+)", first).group(1)
        assert "mode=resetPassword" in link and "oobCode=" in link
        assert "expires in 1 hour" in first

        # 2. The console's "Send a password-reset mail" works the same way, and says so.
        page = f"/__/console/accounts/{user['localId']}"
        status, _, text = exchange(server.base, page)
        assert status == 200, text
        action = f"{page}/send-reset"
        csrf = html.unescape(re.search(r'name="csrf" value="([^"]*)"', text[text.index(f'action="{action}"'):]).group(1))
        status, headers, _ = exchange(server.base, action, "POST", urllib.parse.urlencode({"csrf": csrf}),
                                      {"Content-Type": "application/x-www-form-urlencoded", "Origin": server.base})
        assert status == 303 and headers["Location"] == f"{page}?done=logged", (status, headers)
        status, _, text = exchange(server.base, headers["Location"])
        assert "logged, not sent" in text
        logged_mails(server, 2)

        # 3. Both are listed, first thing on the console's Mail page, as logged rather than sent.
        status, _, text = exchange(server.base, "/__/console/mail")
        assert status == 200
        assert "Logged, not sent" in text and text.count("reset-password") >= 2, text
        assert ">Sent<" not in text
        status, _, text = exchange(server.base, "/__/console")
        assert status == 200 and "Mails logged, not sent" in text and "Mails sent" not in text
    finally:
        server.stop()
