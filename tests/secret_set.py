"""A labelled set for measuring redaction: fake secrets of many kinds, and secret-shaped values
that are not secrets.

Every secret is generated here from fragments and a seeded random generator, so no file in the
repository holds a credential-shaped string (push protection stays quiet) and the values are
the same on every run. None of them is, or was, a live credential.
"""
from __future__ import annotations

import base64
import hashlib
import random
import string
import uuid

_random = random.Random(20261123)
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def _pick(alphabet: str, length: int) -> str:
    return "".join(_random.choice(alphabet) for _ in range(length))


def _p(*fragments: str) -> str:
    """Prefixes are joined from fragments so the source never spells a full token prefix."""
    return "".join(fragments)


def _pem() -> str:
    body = base64.b64encode(bytes(_random.randrange(256) for _ in range(600))).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    kind = _p("RSA PRI", "VATE KEY")
    return "\n".join([f"-----BEGIN {kind}-----", *lines, f"-----END {kind}-----"])


def _jwt() -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")
    header = part(b'{"alg":"HS256","typ":"JWT"}')
    claims = part(('{"sub":"%s","name":"dev","iat":1767225600}' % _pick(string.digits, 10)).encode())
    return f"{header}.{claims}.{part(bytes(_random.randrange(256) for _ in range(32)))}"


# kind -> the secret value (what must vanish from the site)
SECRETS: dict[str, str] = {
    "aws-access-key-id": _p("AK", "IA") + _pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
    "aws-secret-access-key": _pick(ALNUM + "/+", 40),
    "github-pat": _p("gh", "p_") + _pick(ALNUM, 36),
    "github-fine-grained-pat": _p("github", "_pat_") + _pick(ALNUM, 22) + "_" + _pick(ALNUM, 59),
    "github-oauth": _p("gh", "o_") + _pick(ALNUM, 36),
    "gitlab-pat": _p("gl", "pat-") + _pick(ALNUM + "-_", 20),
    "huggingface": _p("h", "f_") + _pick(string.ascii_letters, 34),
    "npm": _p("n", "pm_") + _pick(ALNUM, 36),
    "sendgrid": _p("S", "G.") + _pick(ALNUM + "-_", 22) + "." + _pick(ALNUM + "-_", 43),
    "slack-bot": _p("xo", "xb-") + _pick(string.digits, 12) + "-" + _pick(string.digits, 13) + "-" + _pick(ALNUM, 24),
    "slack-webhook": _p("https://hooks.sl", "ack.com/services/T") + _pick(UPPER_DIGITS, 10) + "/B" + _pick(UPPER_DIGITS, 10) + "/" + _pick(ALNUM, 24),
    "stripe-live": _p("sk", "_live_") + _pick(ALNUM, 99),
    "openai": _p("sk", "-proj-") + _pick(ALNUM + "-_", 74) + _p("T3Blb", "kFJ") + _pick(ALNUM + "-_", 74),
    "anthropic": _p("sk-", "ant-api03-") + _pick(ALNUM + "-_", 93) + "AA",
    "google-api-key": _p("AI", "za") + _pick(ALNUM + "-_", 35),
    "jwt": _jwt(),
    "private-key": _pem(),
    "azure-storage-key": _pick(ALNUM + "+/", 86) + "==",
    "twilio": _p("S", "K") + _pick(HEX, 32),
    "digitalocean": _p("dop", "_v1_") + _pick(HEX, 64),
    "shopify": _p("shp", "at_") + _pick(HEX, 32),
    "pypi": _p("pypi-AgEIc", "HlwaS5vcmc") + _pick(ALNUM + "-_", 70),
    "telegram-bot": _pick(string.digits, 10) + ":" + _p("AA") + _pick(ALNUM + "-_", 33),
    "databricks": _p("da", "pi") + _pick(HEX, 32),
    "doppler": _p("dp.", "pt.") + _pick(ALNUM, 43),
    "linear": _p("lin", "_api_") + _pick(ALNUM, 40),
    "groq": _p("gs", "k_") + _pick(ALNUM, 52),
    "postgres-url-password": _pick(ALNUM, 18),
    "authorization-basic": base64.b64encode(b"deploy:" + _pick(ALNUM, 16).encode()).decode(),
    "db-password-env": _pick(ALNUM + "!@#%^", 16),
    "app-secret-env": _pick(ALNUM, 32),
    "query-access-token": _pick(ALNUM, 40),
    "mysql-password-flag": _pick(ALNUM, 14),
    "cli-password-flag": _pick(ALNUM, 15),
    "mailgun": _p("key", "-") + _pick(HEX, 32),
    "datadog-api-key-env": _pick(HEX, 32),
    "heroku-api-key-env": str(uuid.UUID(int=_random.getrandbits(128))),
    "pem-in-json": _pem(),
    "json-password": _pick(ALNUM, 20),
    "bearer-token": _pick(ALNUM + "-_", 48),
    "discord-bot": _pick("MN", 1) + _pick(ALNUM, 23) + "." + _pick(ALNUM + "-_", 6) + "." + _pick(ALNUM + "-_", 38),
    "url-token-in-link": _pick(ALNUM, 32),
    "vault": _p("hv", "s.") + _pick(ALNUM, 90),
    # A Kubernetes Secret manifest holds values base64-encoded.
    "kubernetes-secret-base64": base64.b64encode((_p("gh", "p_") + _pick(ALNUM, 36)).encode()).decode(),
}

# Secret-shaped values that are not secrets: kept readable.
NON_SECRETS: dict[str, str] = {
    "git-sha": hashlib.sha1(b"commit one").hexdigest(),
    "git-sha-2": hashlib.sha1(b"commit two").hexdigest(),
    "git-short-sha": hashlib.sha1(b"commit three").hexdigest()[:12],
    "sha256-digest": "sha256:" + hashlib.sha256(b"layer").hexdigest(),
    "sha256-plain": hashlib.sha256(b"file").hexdigest(),
    "md5": hashlib.md5(b"file").hexdigest(),
    "sha512-integrity": "sha512-" + base64.b64encode(hashlib.sha512(b"pkg").digest()).decode(),
    "pip-hash": "--hash=sha256:" + hashlib.sha256(b"wheel").hexdigest(),
    "go-sum": "h1:" + base64.b64encode(hashlib.sha256(b"mod").digest()).decode(),
    "cargo-checksum": hashlib.sha256(b"crate").hexdigest(),
    "uuid4": str(uuid.UUID(int=_random.getrandbits(128), version=4)),
    "uuid-2": str(uuid.UUID(int=_random.getrandbits(128), version=4)),
    "docker-image-id": hashlib.sha256(b"image").hexdigest()[:12],
    "ssh-fingerprint": "SHA256:" + base64.b64encode(hashlib.sha256(b"host").digest()).decode().rstrip("="),
    "base64-png": "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(200))).decode(),
    "aws-example-key-id": _p("AKIA", "IOSFODNN7", "EXAMPLE"),
    "aws-example-secret": _p("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCY", "EXAMPLEKEY"),
    "placeholder-your": _p("sk", "-your-api-key-here"),
    "placeholder-angle": "<your-github-token>",
    "placeholder-env": "${GITHUB_TOKEN}",
    "placeholder-stars": "API_KEY=****************",
    "placeholder-ref": "DB_PASSWORD=$DB_PASSWORD",
    "placeholder-example": "postgres://user:example@localhost/db",
    "npm-version": "npm@10.8.2",
    "semver-build": "1.2.3+build.20260101",
    "k8s-pod": "web-7d9c6b5f4d-x2x9z",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "timestamp-id": "20260101T120000Z-" + hashlib.sha1(b"run").hexdigest()[:8],
    "css-hash": "main." + hashlib.md5(b"css").hexdigest()[:20] + ".css",
    "long-word": "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "camel-identifier": "AbstractSingletonProxyFactoryBeanConfigurationHandler",
    "blake2": hashlib.blake2b(b"x", digest_size=32).hexdigest(),
    "yarn-lock-resolved": "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#" + hashlib.sha1(b"lp").hexdigest(),
    "password-word": "the password field is required",
    # Code that names secrets without holding one.
    "code-env-reference": "env.OPENAI_API_KEY = env.OPENAI_API_KEY || 'proxy-handled';",
    "code-object-key": "spawn(cmd, { env: { GITHUB_TOKEN: process.env.GITHUB_TOKEN } })",
    "code-variable": "config.SERVICE_API_KEY = apiKeyValue;",
    "code-test-value": "setEnv({ APP_API_KEY: 'test-key' })",
}
