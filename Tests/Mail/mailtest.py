"""What the mail tests share: a LinkDomain configured to mail through a test relay, calls to its
APIs, and reading what arrived (Python's `email` package, the way a mail client would)."""

import contextlib
import email
import email.policy
import html
import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request

API_KEY = "demo-api-key"


def call(base, path, body, headers=None, query=None):
    """POSTs JSON; returns (status, decoded JSON answer)."""
    url = base + path + "?" + urllib.parse.urlencode({"key": API_KEY, **(query or {})})
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def send_action(base, body, headers=None, query=None):
    """The email action API: `POST /v1/accounts:sendOobCode`."""
    return call(base, "/v1/accounts:sendOobCode", body, headers, query)


def embedded(base, operation, body):
    """The embedded backend's client API (`accounts:signUp` ...)."""
    status, answer = call(base, f"/identitytoolkit.googleapis.com/v1/{operation}", body)
    assert status == 200, answer
    return answer


def sign_up(base, address, password="first-password"):
    return embedded(base, "accounts:signUp", {"email": address, "password": password, "returnSecureToken": True})


@contextlib.contextmanager
def running_relay(directory):
    """A STARTTLS relay with AUTH, its certificate signed by a throw-away CA (`relay.ca`)."""
    from keys import make_certificate_authority
    from relay import Relay

    ca, leaf, key = make_certificate_authority(directory)
    with Relay(tls=(leaf, key), auth=("linkdomain", "relay-secret")) as relay:
        relay.ca = ca
        yield relay


def mail_configuration(relay, ca, extra=None):
    """A development-mode server mailing through `relay` (STARTTLS with `ca`, AUTH)."""
    user, password = relay.auth
    configuration = {
        "mail": {"smtpURL": f"smtp://{user}:{password}@127.0.0.1:{relay.port}", "from": "noreply@example.com",
                 "trustedCertificatesPath": str(ca), "retryInitialSeconds": 1, "timeoutSeconds": 5,
                 "perClientPerHour": 100000},
        "branding": {"appName": "Example App", "supportEmail": "help@example.com"},
        "authorizedDomains": ["example.com"],
        "limits": {"requestsPerMinute": 1000000, "burst": 1000000},
    }
    for key, value in (extra or {}).items():
        configuration[key] = {**configuration.get(key, {}), **value} if isinstance(value, dict) else value
    return configuration


def parse(received):
    """A relay's message as a mail client reads it."""
    return email.message_from_bytes(received.data, policy=email.policy.default)


def parts(message):
    """The text and HTML bodies of a multipart/alternative message."""
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert text.get_content_charset() == "utf-8" and html.get_content_charset() == "utf-8"
    return text.get_content(), html.get_content()


def link_in(message):
    """The action link of a mail: the first http(s) URL of its text part."""
    text, _ = parts(message)
    match = re.search(r"https?://\S+", text)
    assert match, text
    return match.group(0)


BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"


def open_page(url):
    """The page a desktop browser gets for `url`."""
    request = urllib.request.Request(url, headers={"User-Agent": BROWSER})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.read().decode()


def reset_password_through_page(link, new_password):
    """Opens a reset link as a browser would, fills the form and submits it; returns the answer page."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    opener.addheaders = [("User-Agent", BROWSER)]
    with opener.open(link, timeout=10) as response:
        page = response.read().decode()
        origin = "/".join(response.url.split("/")[:3])
    fields = {html.unescape(name): html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page)}
    assert fields, page
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page).group(1))
    form = urllib.parse.urlencode({**fields, "newPassword": new_password, "confirmPassword": new_password}).encode()
    with opener.open(urllib.request.Request(origin + action, data=form, method="POST"), timeout=10) as response:
        return response.read().decode()


def metric(base, name):
    """The sum of a Prometheus counter's series at `/metrics`."""
    with urllib.request.urlopen(base + "/metrics", timeout=10) as response:
        body = response.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
               if line.startswith(name + "{") or line.startswith(name + " "))
