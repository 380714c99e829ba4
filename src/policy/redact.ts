/*
 * Secrets out of what is stored: a command or parameter an approval binds is kept for operators to
 * read (and every agent reads an Approval's inputs) and for replays, never with a password or token
 * in it. The bound digests are taken before redaction, keyed (see inputsDigestOf), so a changed
 * secret still changes the digest and the digest tells nothing about it.
 */

/** What a redacted value reads as. */
export const REDACTED = '[REDACTED]';

const SECRET_WORDS =
  'password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|cookie';

// A value as a command line carries it: quoted, or bare up to whitespace, a quote or a backslash
// (so a command quoted inside JSON redacts the same as the command itself).
const VALUE = `("[^"]*"|'[^']*'|[^\\s"'\\\\]+)`;

// Each pattern: (what stays)(the secret)(what stays after, if any). Order matters only in that a
// value an earlier pattern redacted is left as it is.
const COMMAND_PATTERNS: readonly RegExp[] = [
  // PEM private keys, whole.
  /(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)([\s\S]*?)(-----END [A-Z0-9 ]*PRIVATE KEY-----)/g,
  // URL userinfo: scheme://user:password@host keeps the user; a long bare userinfo is a token.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'\\]*:)([^\s/?#@"'\\]*)(@)/gi,
  /(\b[a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:"'\\]{16,})(@)/gi,
  // Headers whose whole value is a credential: `Authorization: Bearer …`, `Cookie: a=b; c=d`.
  new RegExp(`(authorization:\\s*(?:(?:bearer|basic|token|digest|negotiate)\\s+)?)([^\\s"'\\\\]+)`, 'gi'),
  /((?:set-)?cookie:\s*)([^"'\\\n]+)/gi,
  // `curl -u user:pw`, `--user user:pw`, `-uuser:pw`: the user stays.
  /((?:^|\s)(?:-u|--user|--proxy-user)(?:=|\s+)?["']?[^\s:"'\\]+:)([^\s"'\\]+)/gi,
  // `mysql -pPASS` (and its kin): the password is attached to -p.
  /(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlsh)\b[^|;&\n]*?\s-p)([^\s"'\\]+)/gi,
  // `sshpass -p x`, `redis-cli -a x`, `mongosh -p x`.
  new RegExp(`(\\bsshpass\\b[^|;&\\n]*?\\s-p\\s*)${VALUE}`, 'gi'),
  new RegExp(`(\\bredis-cli\\b[^|;&\\n]*?\\s-a\\s*)${VALUE}`, 'gi'),
  new RegExp(`(\\bmongo(?:sh)?\\b[^|;&\\n]*?\\s-p\\s+)${VALUE}`, 'gi'),
  // `docker login -p x` (podman, nerdctl, buildah, skopeo, helm registry), `ldapsearch -w x`,
  // `smbclient -U user%x`, `openssl … -k x` / `-pass pass:x`, `htpasswd -b file user x`.
  new RegExp(
    `(\\b(?:docker|podman|nerdctl|buildah|skopeo|helm)\\b[^|;&\\n]*?\\blogin\\b[^|;&\\n]*?\\s-p\\s*)${VALUE}`,
    'gi',
  ),
  new RegExp(`(\\bldap\\w*\\b[^|;&\\n]*?\\s-w\\s*)${VALUE}`, 'gi'),
  /(\b(?:smbclient|rpcclient|smbmap|net)\b[^|;&\n]*?\s(?:-U|--user(?:name)?)(?:=|\s+)?["']?[^\s%"'\\]+%)([^\s"'\\]+)/gi,
  new RegExp(`(\\bopenssl\\b[^|;&\\n]*?\\s-k\\s+)${VALUE}`, 'gi'),
  /(\s-pass(?:in|out)?\s+["']?pass:)([^\s"'\\]+)/gi,
  /(\bhtpasswd\b[^|;&\n]*?\s-\w*b\w*\s+(?:-\S+\s+)*\S+\s+\S+\s+)("[^"]*"|'[^']*'|[^\s"'\\]+)/gi,
  // A value piped into a login that reads its password from stdin: `echo x | docker login --password-stdin`.
  new RegExp(`(\\b(?:echo|printf)\\s+(?:-\\w+\\s+)*)${VALUE}(\\s*\\|[^;&\\n]*--password-stdin)`, 'gi'),
  // `--password …`, `--token=…`, `--auth-token …`, `--client-secret=…` (not `--password-stdin`: it takes no value).
  new RegExp(`(--?[\\w-]*(?:${SECRET_WORDS})[\\w-]*(?<!-stdin)(?:=|\\s+))${VALUE}`, 'gi'),
  // `password=…`, `PGPASSWORD=… cmd`, `api_key: …`, `"token":"…"`.
  new RegExp(`(\\b[\\w.-]*(?:${SECRET_WORDS})[\\w.-]*["']?\\s*[=:]\\s*)("[^"]*"|'[^']*'|[^\\s&;|'"\\\\]+)`, 'gi'),
];

/** The command (or any string) with every recognised secret value replaced by [REDACTED]. */
export function redactCommand(command: string): string {
  let out = command;
  for (const pattern of COMMAND_PATTERNS) {
    out = out.replace(pattern, (match: string, kept: string, secret: string, after?: unknown) =>
      secret.includes(REDACTED) ? match : `${kept}${REDACTED}${typeof after === 'string' ? after : ''}`,
    );
  }
  return out;
}

// Keys are compared folded (case, `_ - .` and spaces), so apiKey, API-KEY and api_key all match.
const SECRET_KEY =
  /password|passwd|pwd|passphrase|token|secret|apikey|accesskey|privatekey|credential|authorization|cookie|sessionid|bearer/;

/** True when a key names a secret: its whole value, whatever its shape, is not kept. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(
    key
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[\s_.-]+/g, ''),
  );
}

/**
 * Parameters with the whole value under every secret-named key replaced (`{"secret": {"value": …}}`
 * is `{"secret": "[REDACTED]"}`), and every string scanned as a command, at every depth.
 */
export function redactParams(value: unknown, key = ''): unknown {
  if (key !== '' && isSecretKey(key) && value !== null && value !== undefined) return REDACTED;
  if (typeof value === 'string') return redactCommand(value);
  if (Array.isArray(value)) return value.map((v) => redactParams(v));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactParams(v, k)]));
  }
  return value;
}
