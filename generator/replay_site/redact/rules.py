"""Our rules, for what the catalogue (kingfisher) misses: secrets known by where they stand
(a password in a URL, `password = …` in any config syntax, an `Authorization:` value), and a
few provider formats the catalogue lacks or finds only next to the provider's name (each
written from the provider's documented format; worth contributing upstream).
"""
from __future__ import annotations

import re
import zlib
from typing import Any


class LazyPattern:
    """A rule's regex, compiled the first time a text needs it: a rule runs only where its
    words stand (NEEDS), so a build tries few of them, and compiling all ~40 on import cost a
    rebuild after one appended turn ~10 ms. Used as the compiled pattern it stands for."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(self.source)
        return getattr(self._compiled, name)


# What a value after a name may hold: not quotes, separators or brackets (an expression's),
# nor a JSON string's escape (`\n` ends a line of a file held in a JSON string).
_VALUE = r"(?:[^\s\"'`,;()\[\]{}<>\\]|\\(?![nrtu\"\\/]))"
# A name is read as its words (`DB_PASSWORD`, `dbPassword`, `AWSSecretKey`, `api-key`): an
# upper-case run, a capitalised or lower-case word, digits.
_NAME_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# A word that says the value is a credential; a word ending in one of the first (`dbpassword`,
# `authtoken`, `clientsecret`: a name written without separators) says so too. `key` only as a
# word of its own: `keyboard`, `keylayout` and `monkey` hold no key.
_CREDENTIAL_ENDINGS = ("password", "passwd", "passphrase", "secret", "token")
_CREDENTIAL_WORDS = {"key", "apikey", "accesskey", "secretkey", "privatekey", "pat", "pwd", "pass", "credential", "credentials"}
# Providers whose credentials include a `…_SID` (Twilio's account and API key SIDs).
_SID_PROVIDERS = {"twilio"}
# A last word that says the value is about a credential, not the credential: its name, type,
# file, length, header, lifetime, where it is kept (`secret_name: prod/db`, `token_type`,
# `api_key_file`, `password_min_length`, `api_key_header`, `token_url`, `key_id`).
_ABOUT_WORDS = {"name", "names", "type", "types", "kind", "file", "files", "path", "paths", "dir", "folder", "field",
                "fields", "length", "len", "min", "max", "count", "size", "bits", "header", "headers", "command", "cmd",
                "prefix", "suffix", "format", "env", "var", "variable", "id", "ids", "url", "uri", "endpoint", "host",
                "mode", "policy", "version", "label", "description", "hint", "help", "placeholder", "expiry", "expires",
                "expiration", "ttl", "timeout", "lifetime", "rotation", "days", "seconds", "enabled", "required", "regex",
                "pattern", "hash", "algorithm", "algo", "source", "provider", "backend", "store", "location", "scope",
                "scopes", "ref", "arn", "usage", "budget", "limit", "symbol", "layout", "map", "index", "column", "attribute",
                "param", "parameter", "option", "flag", "manager", "helper", "class", "schema", "template", "prompt",
                "message", "error", "reset", "style", "vault", "keys"}


def names_a_secret(name: str) -> bool:
    """Whether a name (`DB_PASSWORD`, `aws_secret_access_key`, `TWILIO_ACCOUNT_SID`, any case)
    says its value is a credential."""
    words = [word.lower() for word in _NAME_WORD.findall(name)]
    if not words or words[-1] in _ABOUT_WORDS or "public" in words or "publishable" in words:
        return False
    if "sid" in words and _SID_PROVIDERS.intersection(words):
        return True
    return any(word in _CREDENTIAL_WORDS or word.endswith(_CREDENTIAL_ENDINGS) for word in words)


# Words, however joined (`sessionid`, `proxy-handled`, `com.apple.keylayout.Thai`, `X-Api-Key`,
# `AbstractSingletonProxyFactoryBean`): each part between separators lower-case, UPPER-case,
# Capitalised or camelCase (`tenantId`, `parseJSONString`, `isLiteLLM`), at most 64 letters;
# the last may end in a version's digits (`password1`).
# A random token has parts no word has: upper-case letters together after lower-case ones,
# digits inside a part (`cl100k`, `Zx9vQ2mK`, `lfmZIcQWQ`).
_SEPARATORS = re.compile(r"[-_.:/\\ ]+")
_WORD_PART = re.compile(r"[A-Z]*[a-z]*(?:[A-Z][a-z]+|[A-Z]{2,}(?=[A-Z][a-z]))*[A-Z]*")


def wordy(value: str) -> bool:
    """Whether `value` reads as words or an identifier (_WORD_PART), not a token."""
    parts = [part for part in _SEPARATORS.split(value) if part]
    if not parts:
        return True
    last = parts[-1].rstrip("0123456789")
    if len(parts[-1]) - len(last) <= 3:
        parts[-1] = last
    return all(len(part) <= 64 and _WORD_PART.fullmatch(part) for part in parts)


# Rules whose named group `name` must name a secret (names_a_secret, checked after the match:
# a regex asking for the words inside a name backtracks without end on long words).
NAMED_RULES = {"assignment-secret"}
# A part every name names_a_secret takes holds, lower-cased (`passw` for `password` and
# `passwd`, `key` for `api_key` and `privateKey`, `_pat`, `sid`): a name holding none is not
# tried. `pass` and `pat` only after a separator (`DB_PASS`, `GITLAB_PAT`): alone they stand in
# test output's PASSED and every `path`, far more often than in a secret's name. A part found
# one character earlier (`_pat`) gives the same name start, except in names longer than the
# rule's 64 characters, which never match.
NAME_ROOTS = ("passw", "passp", "secret", "token", "key", "credential", "_pat", "-pat", "pwd", "_pass", "-pass", "sid")

# Between the lines of a PEM block: white space, or line breaks JSON-escaped (once or more).
_PEM_BREAK = r"(?:\s|\\+[rn])+"
# A line of its body: base64 (a short one only last, before the END line or ending in `=`), or a header.
_PEM_LINE = (rf"(?:[A-Za-z0-9+/]{{16,}}={{0,2}}|[A-Za-z0-9+/]{{1,15}}(?:=+|(?={_PEM_BREAK}-----END ))"
             r"|[A-Z][A-Za-z-]+: [\w,. -]+)")

# An argument key naming a secret (its value is looked at with the key before it).
SECRET_KEY = re.compile(r"[A-Za-z][\w.-]{0,63}")

# (kind, pattern); the named group `secret` (or `flag`, `sshpass`) is what is replaced, else the whole match.
CONTEXT_RULES: list[tuple[str, LazyPattern]] = [
    # The armour, the lines of the body (base64, or `Proc-Type:`-like headers) and the END line
    # when it is there: a block cut short (`head -5 id_rsa`) ends where its body does, not at
    # the text's end. Lines may be broken by `\n` written inside a JSON string.
    ("private-key", LazyPattern(rf"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:{_PEM_BREAK}{_PEM_LINE})*"
                               rf"(?:{_PEM_BREAK}-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?")),
    ("url-password", LazyPattern(r"(?<=://)[^/\s:@\"'<>]*:(?P<secret>[^/\s@\"'<>]{3,})(?=@[\w.\[-])")),
    ("authorization", LazyPattern(r"(?i)\b(?:proxy-)?authorization\b[\"']?\s*[:=]\s*[\"']?"
                                 r"(?:(?:bearer|basic|token|digest|apikey)\s+)?(?P<secret>[^\s\"',;]{8,})")),
    ("bearer-token", LazyPattern(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-.=+/~]{20,})")),
    # `NAME=value`, `name: value`, `"name": "value"`, `name = 'value'`: env files, ini, YAML,
    # TOML, JSON, Python, shell. The name must end at the separator (`token_type = …` is not a token),
    # and starts after a JSON string's `\n` (a file's lines held in one), not with its `n`.
    ("assignment-secret", LazyPattern(rf"(?:(?<![\w.\\-])|(?<=\\[nrt]))(?P<name>[\w.-]{{1,64}})[\"']?\s*(?:=|:|:=)\s*[\"']?(?P<secret>{_VALUE}{{4,}})")),
    # netrc and ~/.pgpass-like files: `password VALUE` (the literal first: the regex engine then skips ahead).
    ("netrc-password", LazyPattern(rf"password(?<![\w.-]password)[ \t]+(?P<secret>{_VALUE}{{6,}})")),
    ("connection-string-key", LazyPattern(r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)="
                                         r"(?P<secret>[A-Za-z0-9+/=%]{20,})")),
    ("query-secret", LazyPattern(r"(?i)[?&;](?:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|"
                                r"secret|client_secret|password|passwd|pwd|auth|sig|signature|x-amz-signature|"
                                r"x-amz-security-token|x-goog-signature)=(?P<secret>[^&\s#\"'<>()]{6,})")),
    ("password-flag", LazyPattern(r"(?:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]*?\s-p(?P<secret>[^\s-]\S{2,})"
                                 r"|--password[= ](?P<flag>[^\s-]\S{2,})|\bsshpass\s+-p\s*(?P<sshpass>\S{3,}))")),
    ("aws-access-key-id", LazyPattern(r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z2-7]{16}\b")),
]

# Provider formats, from each provider's documentation: (kind, prefix the text must hold, pattern).
_TOKEN_END = r"(?![A-Za-z0-9])"
PROVIDER_RULES: list[tuple[str, str, str]] = [
    ("bitbucket-app-password", "ATBB", r"ATBB[A-Za-z0-9_=.-]{28,}"),
    ("jfrog-api-key", "AKCp", r"AKCp[A-Za-z0-9]{60,}"),
    ("google-oauth-client-secret", "GOCSPX-", r"GOCSPX-[A-Za-z0-9_-]{24,}"),
    ("alibaba-access-key-id", "LTAI", r"LTAI[A-Za-z0-9]{12,24}"),
    ("vault-token", "hv", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("doppler-token", "dp.", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._-]{40,}"),
    ("tailscale-key", "tskey-", r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),
    ("planetscale-token", "pscale_", r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}"),
    ("1password-service-account", "ops_eyJ", r"ops_eyJ[A-Za-z0-9_+/=-]{50,}"),
    ("newrelic-key", "NR", r"NR(?:AK|AA|II|JS|RA)-[A-Za-z0-9_-]{20,}"),
    ("sentry-org-token", "sntrys_", r"sntrys_eyJ[A-Za-z0-9_=+/-]{30,}"),
    ("pinecone-api-key", "pcsk_", r"pcsk_[A-Za-z0-9]{4,}_[A-Za-z0-9]{40,}"),
    ("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{32,}"),
    ("discord-bot-token", ".", r"[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
    ("discord-webhook", "/webhooks/", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,}"),
    ("mailgun-api-key", "key-", r"(?<![\w-])key-[0-9a-f]{32}"),
    ("mailchimp-api-key", "-us", r"[0-9a-f]{32}-us\d{1,2}"),
    ("notion-secret", "secret_", r"secret_[A-Za-z0-9]{43}"),
    ("contentful-token", "CFPAT-", r"CFPAT-[A-Za-z0-9_-]{43}"),
    ("dropbox-token", "sl.", r"sl\.[A-Za-z0-9._-]{100,}"),
    ("typeform-token", "tfp_", r"tfp_[A-Za-z0-9_-]{40,}"),
    ("mapbox-secret-token", "sk.eyJ", r"sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"),
    ("adafruit-io-key", "aio_", r"aio_[A-Za-z0-9]{28}"),
    ("fly-token", "FlyV1 ", r"FlyV1 fm\d_[A-Za-z0-9_+/=,-]{40,}"),
    # Found by the catalogue too; written here so that no format of the list depends on it alone.
    # A macaroon whose first bytes say where it is used: `AgEI` pypi.org, `AgEN` test.pypi.org.
    ("pypi-token", "pypi-AgE", r"pypi-AgE[IN][A-Za-z0-9_-]{50,}"),
    ("slack-token", "xox", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    ("langsmith-key", "lsv2_", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"),
    ("stripe-secret-key", "k_live_", r"[sr]k_live_[A-Za-z0-9]{24,}"),
    ("stripe-test-secret-key", "k_test_", r"[sr]k_test_[A-Za-z0-9]{24,}"),
    ("square-oauth-secret", "sq0csp-", r"sq0csp-[A-Za-z0-9_-]{43}"),
    ("square-access-token", "sq0atp-", r"sq0atp-[A-Za-z0-9_-]{22}"),
    ("braintree-access-token", "access_token$", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    ("resend-api-key", "re_", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    ("netlify-token", "nfp_", r"nfp_[A-Za-z0-9]{36}"),
    ("linear-oauth-token", "lin_oauth_", r"lin_oauth_[0-9a-f]{64}"),
    ("google-oauth-access-token", "ya29.", r"ya29\.[A-Za-z0-9_-]{50,}"),
    ("firebase-fcm-server-key", ":APA91b", r"AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"),
    # developer.okta.com: API tokens are 42 characters starting `00` (checked for a random mix, CHECKS).
    ("okta-api-token", "00", r"00[A-Za-z0-9_-]{40}"),
]
# A pattern starting with a lookbehind is tried at every position of a text, one starting with
# a character only where that character stands (~30 times faster over text without it). So a
# token's start is checked after its first character when the pattern begins with one:
# `(?<![A-Za-z0-9])ATBB…` matches what `A(?<![A-Za-z0-9].)TBB…` matches.
_FIRST_CHARACTER = re.compile(r"(?:\[[^\]]*\]|[A-Za-z0-9_])(?![{*+?])")


def _token(pattern: str) -> str:
    first = _FIRST_CHARACTER.match(pattern)
    if first is None:
        return rf"(?<![A-Za-z0-9]){pattern}{_TOKEN_END}"
    return rf"{first.group(0)}(?<![A-Za-z0-9].){pattern[first.end():]}{_TOKEN_END}"


CONTEXT_RULES += [(kind, LazyPattern(_token(pattern))) for kind, _prefix, pattern in PROVIDER_RULES]
# core.telegram.org/bots/api: `<bot id>:<35 characters>`, also inside `/bot<token>/` URL paths.
CONTEXT_RULES.append(("telegram-bot-token", LazyPattern(rf"(?:(?<=bot)|(?<![A-Za-z0-9:]))\d{{8,10}}:AA[A-Za-z0-9_-]{{33}}{_TOKEN_END}")))
# GitHub's tokens (github.blog, 2021-04-05: prefix, 30 random base62 characters, the CRC32 of
# those in 6 base62 characters) and npm's, which follow the same scheme: a token whose
# checksum holds is one wherever it stands, glued to a word before it too (the catalogue wants
# a word boundary there). Without a checksum that holds, the catalogue finds them at a boundary.
CONTEXT_RULES += [("github-token", LazyPattern(rf"gh[pousr]_[A-Za-z0-9]{{36}}{_TOKEN_END}")),
                  ("npm-token", LazyPattern(rf"npm_[A-Za-z0-9]{{36}}{_TOKEN_END}"))]
# twilio.com/docs/iam: account SIDs (AC) and API key SIDs (SK) are 34 characters, 32 of them
# hex; an account SID is an identifier too, so it counts only in a text naming Twilio.
CONTEXT_RULES.append(("twilio-sid", LazyPattern(rf"(?<![A-Za-z0-9])(?:AC|SK)[0-9a-f]{{32}}{_TOKEN_END}")))
SECRET_GROUPS = ("secret", "flag", "sshpass")

# What each rule cannot match without: a text holding none of these words skips the rule's
# regex (most texts hold none, and the regexes cost more than everything else redaction does).
# Lower-case words are looked for in the lower-cased text, as their rules ignore case.
NEEDS: dict[str, tuple[str, ...]] = {
    "private-key": ("PRIVATE KEY",),
    "url-password": ("://",),
    "authorization": ("authorization",),
    "bearer-token": ("bearer",),
    "assignment-secret": NAME_ROOTS,
    "netrc-password": ("password",),
    "connection-string-key": ("accountkey", "sharedaccess"),
    "query-secret": ("token=", "key=", "secret=", "password=", "passwd=", "pwd=", "auth=", "sig=", "signature="),
    "password-flag": ("mysql", "mariadb", "--password", "sshpass"),
    "aws-access-key-id": ("AKIA", "ASIA", "ABIA", "ACCA", "AROA", "AIDA"),
    **{kind: (prefix,) for kind, prefix, _pattern in PROVIDER_RULES},
    "telegram-bot-token": (":AA",),
    "github-token": ("gh",),
    "npm-token": ("npm_",),
    "twilio-sid": ("twilio",),
    "newrelic-key": ("NRAK-", "NRAA-", "NRII-", "NRJS-", "NRRA-"),
}
# What a rule's match must hold where its words tell too little: a Discord token's only
# literal is a dot, which every session holds, and its regex (led by a character class) cost
# a cold build of the medium corpus 0.14 s over the sessions' joined texts; this one, led by
# a literal character, skips ahead as a word search does (0.02 s).
SHAPES: dict[str, re.Pattern[str]] = {"discord-bot-token": re.compile(r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}")}
CASELESS = {"authorization", "bearer-token", "assignment-secret", "connection-string-key", "query-secret", "twilio-sid"}


_BASE62 = ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
           "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _crc32_holds(token: str) -> bool:
    """Whether the last 6 characters of `token` are the CRC32 of the 30 before them, in base62
    (either order of the alphabet: implementations differ in which case comes first)."""
    body = token.split("_", 1)[1]
    checksum = zlib.crc32(body[:30].encode())
    for alphabet in _BASE62:
        digits, value = "", checksum
        while value:
            value, digit = divmod(value, 62)
            digits = alphabet[digit] + digits
        if digits.rjust(6, "0") == body[30:]:
            return True
    return False


def _mixed(token: str) -> bool:
    """Upper- and lower-case after the `00`, in no word's order: a random token, not a number,
    a layout id or an identifier (one in a thousand of Okta's tokens holds no digit)."""
    rest = token[2:]
    return any(c.isupper() for c in rest) and any(c.islower() for c in rest) and not wordy(rest)


# A rule's match is a secret only when its check holds.
CHECKS = {"github-token": _crc32_holds, "npm-token": _crc32_holds, "okta-api-token": _mixed}
# Rules that take whatever follows a name: in code the "value" is often an expression
# (`OPENAI_API_KEY: env.OPENAI_API_KEY`, `= apiKeyValue;`) or a word (`'proxy-handled'`).
VALUE_RULES = {"assignment-secret", "netrc-password", "authorization", "password-flag"}
# Rules whose value may run on into a sentence's punctuation (`password: hunter2hunter2.`,
# `Bearer eyJ….`): a value's last characters of these are the text's, not the secret's.
TRIMMED = VALUE_RULES | {"bearer-token", "query-secret"}
TRAILING = ".,:;!?"
