/*
 * Secrets out of what is stored: a command or parameter an approval binds is kept for operators to
 * read and for replays, never with a password or token in it. The bound digests are taken before
 * redaction, so a changed secret still changes the digest.
 */

/** What a redacted value reads as. */
export const REDACTED = '[REDACTED]';

const SECRET_WORDS =
  'password|passwd|pwd|passphrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key|credentials?';

// `password=…`, `TOKEN=…`, `api_key: …` (quoted or bare); `--password …` / `--token=…`; `Authorization: Bearer …`.
// Each pattern: (what stays)(the secret). A bare secret stops at a quote or backslash, so a command
// quoted inside JSON (a reason) redacts the same as the command itself.
const COMMAND_PATTERNS: readonly RegExp[] = [
  new RegExp(`(authorization:\\s*(?:(?:bearer|basic|token)\\s+)?)([^\\s"'\\\\]+)`, 'gi'),
  new RegExp(`(--?(?:${SECRET_WORDS})(?:=|\\s+))("[^"]*"|'[^']*'|[^\\s"'\\\\]+)`, 'gi'),
  new RegExp(`(\\b[\\w.-]*(?:${SECRET_WORDS})[\\w.-]*\\s*[=:]\\s*)("[^"]*"|'[^']*'|[^\\s&;|'"\\\\]+)`, 'gi'),
];

/** The command with every recognised secret value replaced by [REDACTED]. */
export function redactCommand(command: string): string {
  let out = command;
  for (const pattern of COMMAND_PATTERNS) {
    // A value an earlier pattern already redacted stays as it is.
    out = out.replace(pattern, (match: string, kept: string, secret: string) =>
      secret.includes(REDACTED) ? match : `${kept}${REDACTED}`,
    );
  }
  return out;
}

const SECRET_KEY = new RegExp(`(${SECRET_WORDS})`, 'i');

/** Parameters with the value of every secret-named key replaced, and strings scanned like commands, at every depth. */
export function redactParams(value: unknown, key = ''): unknown {
  if (key !== '' && SECRET_KEY.test(key) && value !== null && typeof value !== 'object') return REDACTED;
  if (typeof value === 'string') return redactCommand(value);
  if (Array.isArray(value)) return value.map((v) => redactParams(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactParams(v, k)]));
  }
  return value;
}
