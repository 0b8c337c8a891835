//! The secrets corpus: fake secrets of many kinds, generated here (never
//! literal in the source), shared by the tests that must refuse them
//! (tests/secrets.rs: the write path and `check`; tests/team_secrets.rs:
//! promotion into the team tier).

/// A deterministic generator (xorshift64*), so the corpus is the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn from(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| a[(self.next() % a.len() as u64) as usize] as char)
            .collect()
    }
}

const UPPER_DIGIT: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// One fake secret: its kind, the text as it appears in a file or a
/// message (`line`, may span lines), and the part that must never reach a
/// memory (`mark`).
pub struct Secret {
    /// The kind (e.g. `github-token`).
    pub kind: &'static str,
    /// The text as it appears in a file or message (may span lines).
    pub line: String,
    /// The part that must never reach a memory.
    pub mark: String,
}

/// The corpus: every kind, deterministic.
pub fn corpus() -> Vec<Secret> {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = Vec::new();
    let mut add =
        |kind: &'static str, line: String, mark: String| v.push(Secret { kind, line, mark });
    // AWS access key ids (two prefixes)
    for p in ["AKIA", "ASIA"] {
        let t = r.from(UPPER_DIGIT, 16);
        add("aws-access-key-id", format!("{p}{t}"), format!("{p}{t}"));
    }
    // AWS secret keys: .env and JSON spellings
    let t = r.from(B64, 40);
    add(
        "aws-secret-access-key",
        format!("AWS_SECRET_ACCESS_KEY={t}"),
        t,
    );
    let t = r.from(B64, 40);
    add(
        "aws-secret-access-key",
        format!(
            "{{\"AccessKeyId\": \"AKIA{}\", \"SecretAccessKey\": \"{t}\"}}",
            r.from(UPPER_DIGIT, 16)
        ),
        t,
    );
    // GitHub classic tokens
    for p in ["ghp_", "gho_"] {
        let t = r.from(ALNUM, 36);
        add("github-token", format!("{p}{t}"), t);
    }
    // GitHub fine-grained
    let t = format!("{}_{}", r.from(ALNUM, 22), r.from(ALNUM, 59));
    add("github-fine-grained", format!("github_pat_{t}"), t);
    // Slack bot and user tokens
    for p in ["xoxb", "xoxp"] {
        let t = format!(
            "{}-{}-{}",
            r.from(DIGITS, 12),
            r.from(DIGITS, 13),
            r.from(ALNUM, 24)
        );
        add("slack-token", format!("{p}-{t}"), t);
    }
    // Slack webhook
    let t = r.from(ALNUM, 24);
    add(
        "slack-webhook",
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{t}",
            r.from(UPPER_DIGIT, 8),
            r.from(UPPER_DIGIT, 10)
        ),
        t,
    );
    // Stripe live secret and restricted keys
    for p in ["sk_live_", "rk_live_"] {
        let t = r.from(ALNUM, 24);
        add("stripe-key", format!("{p}{t}"), t);
    }
    // Google API keys
    for _ in 0..2 {
        let t = r.from(URLSAFE, 35);
        add("google-api-key", format!("AIza{t}"), t);
    }
    // OpenAI: legacy and project keys
    let t = format!("{}T3BlbkFJ{}", r.from(ALNUM, 20), r.from(ALNUM, 20));
    add("openai-key", format!("sk-{t}"), t);
    let t = r.from(URLSAFE, 74);
    add("openai-key", format!("sk-proj-{t}"), t);
    // Anthropic
    let t = r.from(URLSAFE, 93);
    add("anthropic-key", format!("sk-ant-api03-{t}AA"), t);
    // Private key blocks
    for (label, n) in [
        ("RSA PRIVATE KEY", 5),
        ("OPENSSH PRIVATE KEY", 4),
        ("EC PRIVATE KEY", 3),
    ] {
        let body: Vec<String> = (0..n).map(|_| r.from(B64, 64)).collect();
        let mark = body[1].clone();
        add(
            "private-key",
            format!(
                "-----BEGIN {label}-----\n{}\n-----END {label}-----",
                body.join("\n")
            ),
            mark,
        );
    }
    // JWTs
    for _ in 0..2 {
        let sig = r.from(URLSAFE, 43);
        let payload = format!("eyJzdWIiOiIx{}", r.from(URLSAFE, 30));
        add(
            "jwt",
            format!("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{payload}.{sig}"),
            sig,
        );
    }
    // Connection strings with passwords
    for (scheme, user, host) in [
        ("postgres", "app", "db.internal:5432/app"),
        ("mysql", "root", "mysql.internal:3306/shop"),
        (
            "mongodb+srv",
            "svc",
            "cluster0.example.net/prod?retryWrites=true",
        ),
        ("redis", "", "cache.internal:6379/0"),
        ("amqp", "rabbit", "mq.internal:5672/%2f"),
    ] {
        let pw = r.from(ALNUM, 18);
        add(
            "connection-string",
            format!("{scheme}://{user}:{pw}@{host}"),
            pw,
        );
    }
    // Basic auth in a URL
    let pw = r.from(ALNUM, 16);
    add(
        "basic-auth-url",
        format!("https://deploy:{pw}@git.example.com/team/app.git"),
        pw,
    );
    // Passwords in .env / YAML
    let pw = format!("{}!{}", r.from(ALNUM, 10), r.from(ALNUM, 6));
    add("env-password", format!("DB_PASSWORD={pw}"), pw);
    let pw = r.from(ALNUM, 14);
    add("env-password", format!("smtp_password: \"{pw}\""), pw);
    // High-entropy values after key names (.env and JSON)
    let t = r.from(ALNUM, 32);
    add("high-entropy-env", format!("API_KEY={t}"), t);
    let t = r.from(URLSAFE, 40);
    add(
        "high-entropy-json",
        format!("{{\"client_id\": \"web\", \"client_secret\": \"{t}\"}}"),
        t,
    );
    // Bearer token
    let t = r.from(URLSAFE, 40);
    add("bearer-token", format!("Authorization: Bearer {t}"), t);
    // npm tokens (bare and in .npmrc)
    let t = r.from(ALNUM, 36);
    add("npm-token", format!("npm_{t}"), t);
    let t = r.from(ALNUM, 36);
    add(
        "npm-token",
        format!("//registry.npmjs.org/:_authToken=npm_{t}"),
        t,
    );
    // SendGrid
    let t = r.from(URLSAFE, 43);
    add("sendgrid-key", format!("SG.{}.{t}", r.from(URLSAFE, 22)), t);
    // Twilio: API key SID (bare) and auth token (.env)
    let t = r.from(HEX, 32);
    add("twilio", format!("SK{t}"), t);
    let t = r.from(HEX, 32);
    add("twilio", format!("TWILIO_AUTH_TOKEN={t}"), t);
    // GitLab personal access token
    let t = r.from(URLSAFE, 20);
    add("gitlab-token", format!("glpat-{t}"), t);
    // Hugging Face
    let t = r.from(ALNUM, 34);
    add("huggingface-token", format!("hf_{t}"), t);
    // PyPI, DigitalOcean, Shopify
    let t = r.from(URLSAFE, 60);
    add("pypi-token", format!("pypi-AgEIcHlwaS5vcmc{t}"), t);
    let t = r.from(HEX, 64);
    add("digitalocean-token", format!("dop_v1_{t}"), t);
    let t = r.from(HEX, 32);
    add("shopify-token", format!("shpat_{t}"), t);
    // Azure storage connection string
    let t = format!("{}==", r.from(B64, 86));
    add(
        "azure-storage-key",
        format!(
            "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={t};EndpointSuffix=core.windows.net"
        ),
        t[..40].to_string(),
    );
    // Kinds the scrubber once missed: command-line passwords, auth
    // headers, cookies, docker auth, odd URL passwords, glued tokens, a bare
    // AWS secret key.
    let pw = r.from(ALNUM, 16);
    add(
        "cli-password-flag",
        format!("mysqladmin --password {pw} status"),
        pw,
    );
    let pw = r.from(ALNUM, 16);
    add("mysql-p-flag", format!("mysql -u root -p{pw} appdb"), pw);
    let pw = r.from(ALNUM, 16);
    add("sshpass", format!("sshpass -p {pw} ssh deploy@web1"), pw);
    let t = r.from(B64, 28);
    add(
        "basic-auth",
        format!("curl -H 'Authorization: Basic {t}' https://api.example.com/v1"),
        t,
    );
    let t = r.from(ALNUM, 32);
    add("cookie", format!("Cookie: session={t}; theme=dark"), t);
    let t = r.from(B64, 32);
    add(
        "docker-auth",
        format!("{{\"auths\": {{\"ghcr.io\": {{\"auth\": \"{t}\"}}}}}}"),
        t,
    );
    let (a, b) = (r.from(ALNUM, 8), r.from(ALNUM, 14));
    add(
        "url-password-at",
        format!("postgres://app:{a}@{b}@db.internal:5432/app"),
        format!("{a}@{b}"),
    );
    let (a, b) = (r.from(ALNUM, 8), r.from(ALNUM, 14));
    add(
        "url-password-slash",
        format!("https://deploy:{a}/{b}@git.example.com/team/app.git"),
        b,
    );
    let t = r.from(ALNUM, 36);
    add("glued-token", format!("exportedghp_{t} to the runner"), t);
    let t = r.from(ALNUM, 36);
    add(
        "token-after-%3D",
        format!("https://ci.example.com/cb?state=1&token%3Dghp_{t}"),
        t,
    );
    let t = loop {
        let t = r.from(B64, 40);
        let has = |f: fn(&u8) -> bool| t.as_bytes().iter().any(f);
        if has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit) {
            break t;
        }
    };
    add(
        "aws-secret-bare",
        format!("the prod secret is {t} (rotate monthly)"),
        t,
    );
    // ~/.netrc entries, one line and one field a line
    let t = r.from(ALNUM, 18);
    add(
        "netrc-password",
        format!("machine api.example.com login deploy password {t}"),
        t,
    );
    let t = r.from(ALNUM, 18);
    add(
        "netrc-password",
        format!("machine git.example.com\n  login ci-bot\n  password {t}\n"),
        t,
    );
    // redis-cli's password flag
    let t = r.from(ALNUM, 20);
    add(
        "redis-cli-password",
        format!("redis-cli -h cache.internal -p 6380 -a {t} --no-auth-warning ping"),
        t,
    );
    // a GCP service account key's id (the private key itself is a key block)
    let t = r.from(HEX, 40);
    add(
        "gcp-private-key-id",
        format!(
            "{{\"type\": \"service_account\", \"project_id\": \"build-42\", \"private_key_id\": \"{t}\"}}"
        ),
        t,
    );
    // ~/.docker/config.json as the tools write it: one line, no spaces
    let t = r.from(B64, 32);
    add(
        "docker-auth",
        format!("{{\"auths\":{{\"registry.example.com\":{{\"auth\":\"{t}\"}}}}}}"),
        t,
    );
    // a Google API key of its real length in a request URL
    let t = r.from(URLSAFE, 35);
    add(
        "google-api-key",
        format!("https://maps.googleapis.com/maps/api/geocode/json?address=x&key=AIza{t}"),
        t,
    );
    v
}
