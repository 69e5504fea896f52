"""An independent measure of redaction: fake secrets written from each provider's documented
token format (never from our rules or the scanner's), and secret-shaped values that are not
secrets.

Each `Fake` names the page that documents its format (`doc`); the value is built from that
description with a seeded generator, so no file here spells a whole credential (prefixes are
joined from fragments, which keeps push protection quiet) and every run makes the same values.
None of them is, or was, a live credential. `test_redact_independent.py` places them in every
field a log has and measures what reaches a built site.
"""
from __future__ import annotations

import base64
import hashlib
import os
import random
import string
import uuid
from dataclasses import dataclass

# FAKE_SECRETS_SEED: a fresh set of the same kinds, to measure recall on values no rule was tuned
# with (the tests use the fixed seed, so their figures are the same on every run).
_random = random.Random(int(os.environ.get("FAKE_SECRETS_SEED", "182026")))
LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
BASE32 = UPPER + "234567"


def _pick(alphabet: str, length: int) -> str:
    return "".join(_random.choice(alphabet) for _ in range(length))


def _p(*fragments: str) -> str:
    return "".join(fragments)


def _b64(size: int) -> str:
    return base64.b64encode(bytes(_random.randrange(256) for _ in range(size))).decode()


@dataclass(frozen=True)
class Fake:
    provider: str  # who issues it (recall is also counted per provider)
    kind: str  # which of the provider's credentials
    value: str  # what must not reach the site
    doc: str  # where the format is documented
    context: str = ""  # a value with no shape of its own is only found by where it stands (see placements)


def _pem(kind: str) -> str:
    body = _b64(600)
    return "\n".join([f"-----BEGIN {kind}-----", *(body[i:i + 64] for i in range(0, len(body), 64)), f"-----END {kind}-----"])


def _discord() -> str:
    # A bot token: base64 of the bot's user id (a snowflake), a timestamp part, an HMAC part.
    user_id = str(_random.randrange(10**17, 10**19)).encode()
    return f"{base64.b64encode(user_id).decode().rstrip('=')}.{_pick(URLSAFE, 6)}.{_pick(URLSAFE, 38)}"


def _jwt(claims: bytes = b"") -> str:
    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")
    claims = claims or b'{"sub":"' + _pick(DIGITS, 12).encode() + b'"}'
    return ".".join([part(b'{"alg":"RS256","typ":"JWT"}'), part(claims), part(bytes(_random.randrange(256) for _ in range(64)))])


FAKES: list[Fake] = [
    # --- source hosting, CI, registries
    Fake("github", "classic-pat", _p("gh", "p_") + _pick(ALNUM, 36),
         "github.blog/2021-04-05-behind-githubs-new-authentication-token-formats (ghp_ + 36 base62)"),
    Fake("github", "oauth", _p("gh", "o_") + _pick(ALNUM, 36), "same post: gho_ OAuth access tokens"),
    Fake("github", "user-to-server", _p("gh", "u_") + _pick(ALNUM, 36), "same post: ghu_ GitHub App user-to-server"),
    Fake("github", "server-to-server", _p("gh", "s_") + _pick(ALNUM, 36), "same post: ghs_ installation tokens"),
    Fake("github", "refresh", _p("gh", "r_") + _pick(ALNUM, 36), "same post: ghr_ refresh tokens"),
    Fake("github", "fine-grained-pat", _p("github", "_pat_") + _pick(ALNUM, 22) + "_" + _pick(ALNUM, 59),
         "docs.github.com/authentication: fine-grained tokens start github_pat_"),
    Fake("gitlab", "pat", _p("gl", "pat-") + _pick(URLSAFE, 20),
         "docs.gitlab.com/ee/security/tokens: personal access token prefix glpat-"),
    Fake("gitlab", "pipeline-trigger", _p("gl", "ptt-") + _pick(HEX, 40), "docs.gitlab.com/ee/security/tokens: glptt-"),
    Fake("gitlab", "runner-auth", _p("gl", "rt-") + _pick(URLSAFE, 20), "docs.gitlab.com/ee/security/tokens: glrt-"),
    Fake("npm", "access-token", _p("n", "pm_") + _pick(ALNUM, 36),
         "github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format (npm_ + 36)"),
    Fake("pypi", "api-token", _p("pypi-AgEIc", "HlwaS5vcmc") + _pick(URLSAFE, 120),
         "pypi.org/help/#apitoken: tokens are macaroons prefixed pypi-"),
    Fake("rubygems", "api-key", _p("ruby", "gems_") + _pick(HEX, 48), "guides.rubygems.org/api-key-scopes: rubygems_ + 48 hex"),
    Fake("docker", "hub-pat", _p("dck", "r_pat_") + _pick(URLSAFE, 27), "docs.docker.com/security/access-tokens: dckr_pat_"),
    Fake("clojars", "deploy-token", _p("CLOJ", "ARS_") + _pick(HEX, 60), "github.com/clojars/clojars-web/wiki/Deploy-Tokens: CLOJARS_"),
    Fake("buildkite", "api-token", _p("bku", "a_") + _pick(HEX, 40), "buildkite.com/docs/apis/managing-api-tokens: bkua_"),
    Fake("circleci", "personal-token", _p("CCIP", "AT_") + _pick(ALNUM, 22) + "_" + _pick(HEX, 40),
         "circleci.com/docs/managing-api-tokens: CCIPAT_ personal tokens"),
    Fake("bitbucket", "app-password", _p("AT", "BB") + _pick(ALNUM, 32),
         "support.atlassian.com/bitbucket-cloud/docs/app-passwords: ATBB prefix"),
    Fake("sourcegraph", "access-token", _p("sg", "p_") + _pick(HEX, 40), "sourcegraph.com/docs/cli/how-tos/creating_an_access_token: sgp_"),
    Fake("jfrog", "api-key", _p("AK", "Cp") + _pick(ALNUM, 69), "jfrog.com/help: API keys start AKCp"),
    # --- clouds and infrastructure
    Fake("aws", "access-key-id", _p("AK", "IA") + _pick(BASE32, 16),
         "docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html: AKIA + 16 (unique ID prefixes)"),
    Fake("aws", "temporary-key-id", _p("AS", "IA") + _pick(BASE32, 16), "same page: ASIA temporary (STS) keys"),
    Fake("aws", "secret-access-key", _pick(ALNUM + "/+", 40),
         "docs.aws.amazon.com/cli/latest/userguide/cli-configure-files.html: 40 characters, aws_secret_access_key",
         context="aws_secret_access_key"),
    Fake("aws", "secret-access-key-env", _pick(ALNUM + "/+", 40), "same page: AWS_SECRET_ACCESS_KEY", context="AWS_SECRET_ACCESS_KEY"),
    Fake("google", "api-key", _p("AI", "za") + _pick(URLSAFE, 35), "cloud.google.com/docs/authentication/api-keys: AIza + 35"),
    Fake("google", "oauth-client-secret", _p("GOC", "SPX-") + _pick(URLSAFE, 28),
         "developers.google.com/identity: client secrets prefixed GOCSPX-"),
    Fake("google", "service-account-key", _pem(_p("PRI", "VATE KEY")), "cloud.google.com/iam/docs/keys-create-delete: PKCS#8 PEM"),
    Fake("azure", "storage-account-key", _b64(64),
         "learn.microsoft.com/azure/storage/common/storage-configure-connection-string: AccountKey=<88 base64>",
         context="AccountKey"),
    Fake("azure", "client-secret", _pick(ALNUM, 3) + "8Q~" + _pick(URLSAFE + ".~", 34),
         "learn.microsoft.com/entra: client secrets carry Q~ after 3 characters", context="AZURE_CLIENT_SECRET"),
    Fake("azure", "devops-pat", _pick(LOWER + "234567", 52), "learn.microsoft.com/azure/devops: 52 character PAT",
         context="AZURE_DEVOPS_EXT_PAT"),
    Fake("digitalocean", "pat", _p("do", "p_v1_") + _pick(HEX, 64),
         "docs.digitalocean.com/reference/api/create-personal-access-token: dop_v1_"),
    Fake("digitalocean", "oauth", _p("do", "o_v1_") + _pick(HEX, 64), "same page: doo_v1_ OAuth tokens"),
    Fake("alibaba", "access-key-id", _p("LT", "AI") + _pick(ALNUM, 20), "alibabacloud.com/help/ram: AccessKey ids start LTAI"),
    Fake("hashicorp-vault", "service-token", _p("hv", "s.") + _pick(URLSAFE, 90),
         "developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes: hvs."),
    Fake("hashicorp-vault", "batch-token", _p("hv", "b.") + _pick(URLSAFE, 120), "same page: hvb. batch tokens"),
    Fake("terraform-cloud", "api-token", _pick(ALNUM, 14) + _p(".atla", "sv1.") + _pick(ALNUM, 67),
         "developer.hashicorp.com/terraform/cloud-docs/users-teams-organizations/api-tokens: <id>.atlasv1.<secret>"),
    Fake("pulumi", "access-token", _p("pu", "l-") + _pick(HEX, 40), "pulumi.com/docs/pulumi-cloud/access-management/access-tokens: pul-"),
    Fake("doppler", "personal-token", _p("dp.", "pt.") + _pick(ALNUM, 43), "docs.doppler.com/reference/auth-token-formats: dp.pt."),
    Fake("doppler", "service-token", _p("dp.", "st.") + _pick(LOWER, 6) + "." + _pick(ALNUM, 40), "same page: dp.st."),
    Fake("heroku", "api-key", _p("HR", "KU-") + "AA" + _pick(URLSAFE, 58), "devcenter.heroku.com/articles/authentication: HRKU- keys"),
    Fake("cloudflare", "api-token", _pick(URLSAFE, 40), "developers.cloudflare.com/fundamentals/api/get-started/create-token: 40 characters",
         context="CLOUDFLARE_API_TOKEN"),
    Fake("tailscale", "auth-key", _p("tsk", "ey-auth-") + _pick(ALNUM, 17) + "-" + _pick(ALNUM, 33),
         "tailscale.com/kb/1085/auth-keys: tskey-auth-"),
    Fake("fly", "api-token", _p("Fly", "V1 fm2_") + _pick(URLSAFE + "/+=", 120),
         "fly.io/docs/security/tokens: tokens are macaroons written FlyV1 fm2_…", context="FLY_API_TOKEN"),
    Fake("databricks", "pat", _p("da", "pi") + _pick(HEX, 32), "docs.databricks.com/dev-tools/auth/pat.html: dapi + 32 hex"),
    Fake("planetscale", "service-token", _p("psc", "ale_tkn_") + _pick(URLSAFE, 43), "planetscale.com/docs/concepts/service-tokens: pscale_tkn_"),
    Fake("planetscale", "password", _p("psc", "ale_pw_") + _pick(URLSAFE, 43), "same docs: connection passwords pscale_pw_"),
    Fake("supabase", "management-token", _p("sb", "p_") + _pick(HEX, 40), "supabase.com/docs/reference/api: access tokens sbp_"),
    Fake("1password", "service-account", _p("ops", "_eyJ") + _pick(URLSAFE, 250),
         "developer.1password.com/docs/service-accounts: tokens start ops_"),
    Fake("age", "secret-key", _p("AGE-SEC", "RET-KEY-1") + _pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
         "age-encryption.org/v1: Bech32 secret keys, HRP AGE-SECRET-KEY-"),
    Fake("openssh", "private-key", _pem(_p("OPENSSH PRI", "VATE KEY")), "RFC 7468 / openssh PROTOCOL.key: PEM armour"),
    Fake("rsa", "private-key", _pem(_p("RSA PRI", "VATE KEY")), "RFC 7468 section 10: PKCS#1 PEM"),
    Fake("ec", "private-key", _pem(_p("EC PRI", "VATE KEY")), "RFC 5915: EC private key PEM"),
    Fake("dynatrace", "api-token", _p("dt0", "c01.") + _pick(BASE32, 24) + "." + _pick(BASE32, 64),
         "docs.dynatrace.com/docs/manage/access-control/access-tokens: dt0c01.<public>.<secret>"),
    Fake("grafana", "cloud-token", _p("gl", "c_") + _pick(ALNUM, 80) + "==", "grafana.com/docs/grafana-cloud/account-management/authentication-and-permissions/access-policies: glc_"),
    Fake("grafana", "service-account", _p("gl", "sa_") + _pick(ALNUM, 32) + "_" + _pick(HEX, 8),
         "grafana.com/docs/grafana/latest/administration/service-accounts: glsa_"),
    Fake("newrelic", "user-key", _p("NR", "AK-") + _pick(UPPER + DIGITS, 27), "docs.newrelic.com/docs/apis/intro-apis/new-relic-api-keys: NRAK-"),
    Fake("newrelic", "insert-key", _p("NR", "II-") + _pick(URLSAFE, 32), "same page: NRII- insert keys"),
    Fake("datadog", "api-key", _pick(HEX, 32), "docs.datadoghq.com/account_management/api-app-keys: 32 hex", context="DD_API_KEY"),
    Fake("sentry", "user-token", _p("sntr", "yu_") + _pick(HEX, 64), "docs.sentry.io/account/auth-tokens: sntryu_"),
    Fake("sentry", "org-token", _p("sntr", "ys_") + "eyJ" + _pick(ALNUM, 120) + "_" + _pick(URLSAFE, 43), "same page: sntrys_"),
    # --- AI providers
    Fake("openai", "project-key", _p("sk", "-proj-") + _pick(URLSAFE, 74) + _p("T3Blb", "kFJ") + _pick(URLSAFE, 74),
         "platform.openai.com/docs/api-reference/authentication: project keys sk-proj-"),
    Fake("openai", "service-account-key", _p("sk", "-svcacct-") + _pick(URLSAFE, 74) + _p("T3Blb", "kFJ") + _pick(URLSAFE, 74),
         "platform.openai.com/docs: service account keys sk-svcacct-"),
    Fake("anthropic", "api-key", _p("sk-", "ant-api03-") + _pick(URLSAFE, 93) + "AA",
         "docs.anthropic.com/en/api/getting-started: keys sk-ant-api03-"),
    Fake("anthropic", "admin-key", _p("sk-", "ant-admin01-") + _pick(URLSAFE, 93) + "AA", "docs.anthropic.com/en/api/administration-api: sk-ant-admin01-"),
    Fake("huggingface", "user-token", _p("h", "f_") + _pick(string.ascii_letters, 34), "huggingface.co/docs/hub/security-tokens: hf_"),
    Fake("groq", "api-key", _p("gs", "k_") + _pick(ALNUM, 52), "console.groq.com/docs/quickstart: gsk_"),
    Fake("replicate", "api-token", _p("r", "8_") + _pick(ALNUM, 37), "replicate.com/docs/reference/http#authentication: r8_"),
    Fake("perplexity", "api-key", _p("ppl", "x-") + _pick(ALNUM, 48), "docs.perplexity.ai/guides/getting-started: pplx-"),
    Fake("xai", "api-key", _p("xa", "i-") + _pick(ALNUM, 80), "docs.x.ai/docs/overview: xai-"),
    Fake("langsmith", "pat", _p("lsv", "2_pt_") + _pick(HEX, 32) + "_" + _pick(HEX, 10), "docs.smith.langchain.com/administration/how_to_guides: lsv2_pt_"),
    Fake("pinecone", "api-key", _p("pcs", "k_") + _pick(ALNUM, 5) + "_" + _pick(ALNUM, 64), "docs.pinecone.io/guides/projects/manage-api-keys: pcsk_"),
    Fake("mistral", "api-key", _pick(ALNUM, 32), "docs.mistral.ai/getting-started/quickstart: 32 characters", context="MISTRAL_API_KEY"),
    # --- payments, commerce, messaging
    Fake("stripe", "secret-key", _p("sk", "_live_") + _pick(ALNUM, 99), "docs.stripe.com/keys: secret keys sk_live_"),
    Fake("stripe", "restricted-key", _p("rk", "_live_") + _pick(ALNUM, 99), "docs.stripe.com/keys: restricted keys rk_live_"),
    Fake("stripe", "webhook-secret", _p("wh", "sec_") + _pick(ALNUM, 32), "docs.stripe.com/webhooks: signing secrets whsec_"),
    Fake("square", "access-token", _p("EA", "AA") + _pick(URLSAFE, 60), "developer.squareup.com/docs/build-basics/access-tokens: EAAA"),
    Fake("shopify", "admin-token", _p("shp", "at_") + _pick(HEX, 32), "shopify.dev/docs/apps/auth: shpat_ admin API tokens"),
    Fake("shopify", "shared-secret", _p("shp", "ss_") + _pick(HEX, 32), "same docs: shpss_ shared secrets"),
    Fake("shippo", "live-token", _p("ship", "po_live_") + _pick(HEX, 40), "docs.goshippo.com/docs/guides_general/authentication: shippo_live_"),
    Fake("slack", "bot-token", _p("xo", "xb-") + _pick(DIGITS, 12) + "-" + _pick(DIGITS, 13) + "-" + _pick(ALNUM, 24),
         "api.slack.com/authentication/token-types: xoxb-"),
    Fake("slack", "user-token", _p("xo", "xp-") + _pick(DIGITS, 12) + "-" + _pick(DIGITS, 12) + "-" + _pick(DIGITS, 13) + "-" + _pick(HEX, 32),
         "same page: xoxp- user tokens"),
    Fake("slack", "webhook", _p("https://hooks.sl", "ack.com/services/T") + _pick(UPPER + DIGITS, 10) + "/B" + _pick(UPPER + DIGITS, 10) + "/" + _pick(ALNUM, 24),
         "api.slack.com/messaging/webhooks: https://hooks.slack.com/services/T…/B…/…"),
    Fake("discord", "bot-token", _discord(), "discord.com/developers/docs/reference#authentication: base64(id).timestamp.hmac"),
    Fake("discord", "webhook", _p("https://discord.com/api/web", "hooks/") + _pick(DIGITS, 19) + "/" + _pick(URLSAFE, 68),
         "discord.com/developers/docs/resources/webhook: /api/webhooks/{id}/{token}"),
    Fake("telegram", "bot-token", _pick(DIGITS, 10) + ":" + "AA" + _pick(URLSAFE, 33),
         "core.telegram.org/bots/api#authorizing-your-bot: <bot id>:<35 characters>"),
    Fake("twilio", "api-key-sid", _p("S", "K") + _pick(HEX, 32), "twilio.com/docs/iam/api-keys: SK + 32 hex"),
    Fake("twilio", "auth-token", _pick(HEX, 32), "twilio.com/docs/iam/credentials: 32 hex auth token", context="TWILIO_AUTH_TOKEN"),
    Fake("sendgrid", "api-key", _p("S", "G.") + _pick(URLSAFE, 22) + "." + _pick(URLSAFE, 43), "docs.sendgrid.com/ui/account-and-settings/api-keys: SG.<22>.<43>"),
    Fake("mailgun", "api-key", _p("ke", "y-") + _pick(HEX, 32), "documentation.mailgun.com/docs/mailgun/api-reference/authentication: key-<32 hex>"),
    Fake("mailchimp", "api-key", _pick(HEX, 32) + "-us" + str(_random.randrange(1, 21)), "mailchimp.com/developer/marketing/guides/quick-start: <32 hex>-<dc>"),
    Fake("postmark", "server-token", str(uuid.UUID(int=_random.getrandbits(128), version=4)), "postmarkapp.com/developer/api/overview#authentication: UUID token",
         context="POSTMARK_SERVER_TOKEN"),
    # --- productivity and SaaS
    Fake("atlassian", "api-token", _p("ATA", "TT3xFfGF0") + _pick(URLSAFE, 180) + "=" + _pick(HEX.upper(), 8),
         "support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account: ATATT"),
    Fake("linear", "api-key", _p("li", "n_api_") + _pick(ALNUM, 40), "developers.linear.app/docs/graphql/working-with-the-graphql-api: lin_api_"),
    Fake("notion", "integration-secret", _p("nt", "n_") + _pick(DIGITS, 11) + _pick(ALNUM, 35), "developers.notion.com/docs/authorization: ntn_ tokens"),
    Fake("notion", "legacy-secret", _p("sec", "ret_") + _pick(ALNUM, 43), "developers.notion.com (before 2024): secret_ + 43"),
    Fake("airtable", "pat", _p("p", "at") + _pick(ALNUM, 14) + "." + _pick(HEX, 64), "airtable.com/developers/web/guides/personal-access-tokens: pat<id>.<secret>"),
    Fake("figma", "pat", _p("fi", "gd_") + _pick(URLSAFE, 40), "figma.com/developers/api#access-tokens: figd_"),
    Fake("postman", "api-key", _p("PM", "AK-") + _pick(HEX, 24) + "-" + _pick(HEX, 34), "learning.postman.com/docs/developer/postman-api/authentication: PMAK-"),
    Fake("contentful", "management-token", _p("CF", "PAT-") + _pick(URLSAFE, 43), "contentful.com/developers/docs/references/authentication: CFPAT-"),
    Fake("dropbox", "short-lived", _p("s", "l.") + _pick(URLSAFE, 138), "dropbox.com/developers/reference/oauth-guide: short-lived tokens sl."),
    Fake("asana", "pat", "2/" + _pick(DIGITS, 16) + "/" + _pick(DIGITS, 16) + ":" + _pick(HEX, 32),
         "developers.asana.com/docs/personal-access-token: 2/<user>/<id>:<secret>", context="ASANA_TOKEN"),
    Fake("typeform", "pat", _p("tf", "p_") + _pick(URLSAFE, 44) + "_" + _pick(URLSAFE, 14), "developer.typeform.com/get-started/personal-access-token: tfp_"),
    Fake("mapbox", "secret-token", _p("s", "k.eyJ1") + _pick(URLSAFE, 60) + "." + _pick(URLSAFE, 22), "docs.mapbox.com/accounts/guides/tokens: secret tokens sk.eyJ1…"),
    Fake("readme", "api-key", _p("rd", "me_") + _pick(HEX, 70), "docs.readme.com/main/reference/authentication: rdme_"),
    Fake("prefect", "api-key", _p("pn", "u_") + _pick(ALNUM, 36), "docs.prefect.io/v3/manage/cloud/manage-users/api-keys: pnu_"),
    Fake("adafruit", "io-key", _p("ai", "o_") + _pick(ALNUM, 28), "io.adafruit.com/api/docs/#authentication: aio_"),
    Fake("octopus", "api-key", _p("AP", "I-") + _pick(UPPER + DIGITS, 26), "octopus.com/docs/octopus-rest-api/how-to-create-an-api-key: API- + 26"),
    Fake("okta", "api-token", "00" + _pick(URLSAFE, 40), "developer.okta.com/docs/guides/create-an-api-token: 42 characters starting 00",
         context="OKTA_API_TOKEN"),
    Fake("algolia", "admin-key", _pick(HEX, 32), "algolia.com/doc/guides/security/api-keys: 32 hex admin key", context="ALGOLIA_ADMIN_KEY"),
    # --- credentials in connection strings, headers and config files
    Fake("postgres", "url-password", _pick(ALNUM, 20), "postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS: user:password@host",
         context="postgres-url"),
    Fake("mongodb", "srv-password", _pick(ALNUM, 20), "mongodb.com/docs/manual/reference/connection-string: mongodb+srv://user:password@",
         context="mongodb-url"),
    Fake("redis", "url-password", _pick(ALNUM, 20), "iana.org/assignments/uri-schemes/prov/redis: redis://:password@host", context="redis-url"),
    Fake("http", "basic-auth", base64.b64encode(b"deploy:" + _pick(ALNUM, 18).encode()).decode(),
         "RFC 7617: Authorization: Basic base64(user:password)", context="basic"),
    Fake("http", "bearer-jwt", _jwt(), "RFC 6750 + RFC 7519: Authorization: Bearer <JWT>", context="bearer"),
    Fake("ini", "password", _pick(ALNUM + "!#%", 18), "my.cnf / pip.conf [section] password = …", context="ini-password"),
    Fake("yaml", "password", _pick(ALNUM, 18), "docker-compose / Spring application.yml password: …", context="yaml-password"),
    Fake("toml", "api-key", _pick(ALNUM, 32), "TOML config files: api_key = \"…\"", context="toml-api-key"),
    Fake("python", "password", _pick(ALNUM + "!#%", 16), "Django settings DATABASES PASSWORD / scripts: password = '…'", context="python-password"),
    Fake("shell", "token", _pick(ALNUM, 30), "shell profiles: export db_token='…'", context="shell-token"),
    Fake("netrc", "password", _pick(ALNUM, 22), "gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html: machine … login … password …",
         context="netrc"),
    # --- more of the formats providers document, written before any rule was looked at
    Fake("slack", "app-token", _p("xa", "pp-1-A") + _pick(UPPER + DIGITS, 10) + "-" + _pick(DIGITS, 13) + "-" + _pick(HEX, 64),
         "api.slack.com/authentication/token-types#app: xapp- app-level tokens"),
    Fake("slack", "workflow-webhook", _p("https://hooks.sl", "ack.com/workflows/T") + _pick(UPPER + DIGITS, 10) + "/A"
         + _pick(UPPER + DIGITS, 10) + "/" + _pick(DIGITS, 18) + "/" + _pick(ALNUM, 24), "slack.com/help/articles/360041352714: workflow webhooks"),
    Fake("stripe", "test-secret-key", _p("sk", "_test_") + _pick(ALNUM, 99), "docs.stripe.com/keys: test mode secret keys sk_test_"),
    Fake("stripe", "test-restricted-key", _p("rk", "_test_") + _pick(ALNUM, 99), "docs.stripe.com/keys: rk_test_"),
    Fake("twilio", "account-sid", _p("A", "C") + _pick(HEX, 32), "twilio.com/docs/iam/api/account: AC + 32 hex", context="TWILIO_ACCOUNT_SID"),
    Fake("braintree", "access-token", _p("access_to", "ken$production$") + _pick(LOWER + DIGITS, 16) + "$" + _pick(HEX, 32),
         "developer.paypal.com/braintree/docs/guides/authorization/access-token: access_token$production$<id>$<secret>"),
    Fake("paypal", "client-secret", "E" + _pick(URLSAFE, 79), "developer.paypal.com/api/rest: 80-character client secret",
         context="PAYPAL_CLIENT_SECRET"),
    Fake("square", "oauth-secret", _p("sq0", "csp-") + _pick(URLSAFE, 43), "developer.squareup.com/docs/oauth-api/overview: application secrets sq0csp-"),
    Fake("shopify", "custom-app-token", _p("shp", "ca_") + _pick(HEX, 32), "shopify.dev/docs/apps/auth: shpca_ custom app tokens"),
    Fake("shopify", "private-app-token", _p("shp", "pa_") + _pick(HEX, 32), "shopify.dev/docs/apps/auth: shppa_ private app tokens"),
    Fake("gitlab", "deploy-token", _p("gl", "dt-") + _pick(URLSAFE, 20), "docs.gitlab.com/ee/security/tokens: deploy tokens gldt-"),
    Fake("gitlab", "runner-registration", _p("GR13", "48941") + _pick(URLSAFE, 20), "docs.gitlab.com/ee/security/tokens: GR1348941"),
    Fake("openai", "legacy-key", _p("s", "k-") + _pick(ALNUM, 20) + _p("T3Blb", "kFJ") + _pick(ALNUM, 20),
         "platform.openai.com/docs (before 2024): sk- + 20 + T3BlbkFJ + 20"),
    Fake("openrouter", "api-key", _p("sk-", "or-v1-") + _pick(HEX, 64), "openrouter.ai/docs/api-reference/authentication: sk-or-v1-"),
    Fake("okta", "api-token-bare", "00" + _pick(URLSAFE, 40), "developer.okta.com/docs/guides/create-an-api-token: 00 + 40"),
    Fake("supabase", "service-role-jwt", _jwt(b'{"iss":"supabase","ref":"' + _pick(LOWER, 20).encode() + b'","role":"service_role"}'),
         "supabase.com/docs/guides/api/api-keys: the service_role key is a JWT"),
    Fake("azure", "connection-string-key", _b64(64), "learn.microsoft.com/azure/storage/common/storage-configure-connection-string",
         context="azure-connection-string"),
    Fake("azure", "sas-signature", _b64(32), "learn.microsoft.com/azure/storage/common/storage-sas-overview: sig= in a SAS URL",
         context="azure-sas"),
    Fake("docker", "config-auth", base64.b64encode(b"dev:" + (_p("dck", "r_pat_") + _pick(URLSAFE, 27)).encode()).decode(),
         "docs.docker.com/reference/cli/docker/login: ~/.docker/config.json auths.*.auth = base64(user:token)", context="docker-config"),
    Fake("docker", "org-access-token", _p("dck", "r_oat_") + _pick(URLSAFE, 32), "docs.docker.com/security/for-admins/access-tokens: dckr_oat_"),
    Fake("pypi", "test-pypi-token", _p("pypi-AgENd", "GVzdC5weXBpLm9yZw") + _pick(URLSAFE, 120), "test.pypi.org/help/#apitoken: pypi- macaroons"),
    Fake("huggingface", "org-token", _p("api", "_org_") + _pick(string.ascii_letters, 34), "huggingface.co/docs/hub/security-tokens: api_org_ (legacy)"),
    Fake("digitalocean", "refresh-token", _p("do", "r_v1_") + _pick(HEX, 64), "docs.digitalocean.com/reference/api/oauth-api: dor_v1_"),
    Fake("linear", "oauth-token", _p("lin", "_oauth_") + _pick(HEX, 64), "developers.linear.app/docs/oauth/authentication: lin_oauth_"),
    Fake("doppler", "service-account-token", _p("dp.", "sa.") + _pick(ALNUM, 43), "docs.doppler.com/reference/auth-token-formats: dp.sa."),
    Fake("hashicorp-vault", "recovery-token", _p("hv", "r.") + _pick(URLSAFE, 90), "developer.hashicorp.com/vault/docs/concepts/tokens: hvr."),
    Fake("postman", "collection-token", _p("PM", "AT-") + _pick(UPPER + DIGITS, 26), "learning.postman.com/docs/developer/postman-api/authentication: PMAT-"),
    Fake("google", "oauth-access-token", _p("ya", "29.") + _pick(URLSAFE, 150), "developers.google.com/identity/protocols/oauth2: access tokens ya29."),
    Fake("google", "oauth-refresh-token", "1//0" + _pick(URLSAFE, 100), "developers.google.com/identity/protocols/oauth2: refresh tokens 1//",
         context="GOOGLE_REFRESH_TOKEN"),
    Fake("firebase", "fcm-server-key", "AAAA" + _pick(URLSAFE, 7) + _p(":AP", "A91b") + _pick(URLSAFE, 134),
         "firebase.google.com/docs/cloud-messaging/auth-server: legacy server keys AAAA…:APA91b…"),
    Fake("cloudflare", "origin-ca-key", _p("v1", ".0-") + _pick(HEX, 24) + "-" + _pick(HEX, 146),
         "developers.cloudflare.com/fundamentals/api/get-started/ca-keys: v1.0-"),
    Fake("netlify", "pat", _p("nf", "p_") + _pick(ALNUM, 36), "docs.netlify.com/api/get-started: personal access tokens nfp_"),
    Fake("resend", "api-key", _p("r", "e_") + _pick(ALNUM, 8) + "_" + _pick(ALNUM, 24), "resend.com/docs/dashboard/api-keys: re_"),
    Fake("atlassian", "legacy-api-token", _pick(ALNUM, 24), "support.atlassian.com: 24-character API tokens", context="JIRA_API_TOKEN"),
    Fake("aws", "session-token", "IQoJb3JpZ2luX2Vj" + _pick(ALNUM + "/+", 300), "docs.aws.amazon.com/STS: aws_session_token",
         context="AWS_SESSION_TOKEN"),
    Fake("wireguard", "private-key", _b64(32), "wireguard.com/quickstart: PrivateKey = <base64 of 32 bytes>", context="wireguard"),
    Fake("openssh", "encrypted-pkcs8", _pem(_p("ENCRYPTED PRI", "VATE KEY")), "RFC 5958: encrypted PKCS#8 PEM"),
    Fake("dsa", "private-key", _pem(_p("DSA PRI", "VATE KEY")), "openssl dsa: DSA private key PEM"),
    Fake("amqp", "url-password", _pick(ALNUM, 24), "rabbitmq.com/docs/uri-spec: amqp://user:password@host/vhost", context="amqp-url"),
    Fake("git", "credential-url", _pick(ALNUM, 20), "git-scm.com/docs/git-credential-store: https://user:pass@host", context="git-credentials"),
]

PROVIDERS = sorted({fake.provider for fake in FAKES})


def _lockfile_hash(seed: str) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(seed.encode()).digest()).decode()


# Secret-shaped values a reader must still see (name -> text placed as-is).
NON_SECRETS: dict[str, str] = {
    **{f"git-sha-{n}": hashlib.sha1(f"commit {n}".encode()).hexdigest() for n in range(4)},
    **{f"uuid-{n}": str(uuid.UUID(int=_random.getrandbits(128), version=4)) for n in range(4)},
    **{f"sha256-{n}": hashlib.sha256(f"blob {n}".encode()).hexdigest() for n in range(3)},
    **{f"npm-integrity-{n}": _lockfile_hash(f"pkg {n}") for n in range(2)},
    "md5": hashlib.md5(b"file").hexdigest(),
    "docker-digest": "sha256:" + hashlib.sha256(b"layer").hexdigest(),
    "pip-hash": "--hash=sha256:" + hashlib.sha256(b"wheel").hexdigest(),
    "go-sum": "h1:" + base64.b64encode(hashlib.sha256(b"mod").digest()).decode(),
    "ssh-fingerprint": "SHA256:" + base64.b64encode(hashlib.sha256(b"host").digest()).decode().rstrip("="),
    "ssh-public-key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA" + base64.b64encode(hashlib.sha256(b"pub").digest()).decode().rstrip("=") + " dev@laptop",
    "base64-png": "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(120))).decode(),
    "aws-example-key-id": _p("AKIA", "IOSFODNN7", "EXAMPLE"),
    "aws-example-secret": _p("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCY", "EXAMPLEKEY"),
    "aws-arn": "arn:aws:iam::123456789012:role/ci-deploy",
    "aws-request-id": "x-amz-request-id: " + _pick(UPPER + DIGITS, 16),
    "s3-url": "s3://build-artifacts-7f3a/releases/v2.4.1/app.tar.gz",
    "stripe-customer-id": _p("cu", "s_") + "NffrFeUfNV2Hib",
    "stripe-publishable-test": _p("pk", "_test_") + "TYooMQauvdEDq54NiTphI7jx",
    "openai-request-id": "req_" + hashlib.md5(b"req").hexdigest(),
    "anthropic-message-id": "msg_01" + _pick(ALNUM, 22),
    "tool-use-id": "toolu_01" + _pick(ALNUM, 22),
    "slack-channel-id": "C0" + _pick(UPPER + DIGITS, 9),
    "github-run-url": "https://github.com/acme/app/actions/runs/9876543210/job/27182818284",
    "k8s-pod": "web-7d9c6b5f4d-x2x9z",
    "ipv6": "2001:db8:85a3::8a2e:370:7334",
    "mac-address": "3c:22:fb:9a:1e:07",
    "semver-build": "1.2.3+build.20260101",
    "css-bundle": "main." + hashlib.md5(b"css").hexdigest()[:20] + ".css",
    "webpack-chunk": "chunk-vendors." + hashlib.sha1(b"chunk").hexdigest()[:8] + ".js",
    "long-word": "Pneumonoultramicroscopicsilicovolcanoconiosis",
    "camel-identifier": "AbstractSingletonProxyFactoryBeanConfigurationHandler",
    "test-name": "test_token_refresh_rejects_expired_credentials_after_rotation",
    "placeholder-your": _p("sk", "-your-api-key-here"),
    "placeholder-angle": "<your-github-token>",
    "placeholder-env": "${GITHUB_TOKEN}",
    "placeholder-actions": "token: ${{ secrets.NPM_TOKEN }}",
    "placeholder-stars": "API_KEY=****************",
    "placeholder-ref": "DB_PASSWORD=$DB_PASSWORD",
    "placeholder-xxx": _p("gh", "p_") + "x" * 36,
    "placeholder-url": "postgres://user:password@localhost:5432/app",
    "placeholder-changeme": "password: changeme",
    # Code and config that name a secret without holding one.
    "code-getenv": 'password = os.environ["DB_PASSWORD"]',
    "code-call": "token = get_token(scope='repo')",
    "code-type-hint": "def login(user: str, password: str) -> Session:",
    "code-optional": "api_key: Optional[str] = None",
    "code-settings": "secret_key = settings.SECRET_KEY",
    "code-js-env": "const apiKey = process.env.STRIPE_SECRET_KEY;",
    "code-empty": 'password = ""',
    "code-none": "token = None",
    "config-token-type": 'token_type = "bearer"',
    "config-min-length": "password_min_length = 12",
    "config-secret-name": "secret_name: prod/db/credentials",
    "config-key-file": "api_key_file = /run/secrets/api_key",
    "config-keyring": "password_command = pass show mail/work",
    "package-json-version": '"@aws-sdk/credential-providers": "^3.949.0"',
    "prose-password": "the password field is required",
    "prose-token": "tokens: 128000 input, 2048 output",
    "grep-line": "src/auth.py:42:    if token is None:",
    "jwt-header-only": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    "hex-color-list": "#1f77b4 #ff7f0e #2ca02c #d62728",
    "sri-hash": "sha384-" + base64.b64encode(hashlib.sha384(b"script").digest()).decode(),
    "cargo-lock": 'checksum = "' + hashlib.sha256(b"crate").hexdigest() + '"',
    "yarn-resolved": "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#" + hashlib.sha1(b"lp").hexdigest(),
}
