import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  boundInputsOf,
  canonicalJson,
  fieldDigestsOf,
  inputsDigestOf,
  isSecretKey,
  redactCommand,
  redactedInputsOf,
  redactParams,
  REDACTED,
} from '../../../src/policy/index.js';

const R = REDACTED;

describe('command-line secrets are redacted (issue 30, finding 10)', () => {
  it.each([
    ['mysql -pPASS db', 'mysql -p[REDACTED] db'],
    ['docker login -u bot -p s3cret registry.lan', 'docker login -u bot -p [REDACTED] registry.lan'],
    ['podman login -pS3cret quay.io', 'podman login -p[REDACTED] quay.io'],
    [
      'echo s3cret | docker login -u bot --password-stdin r',
      'echo [REDACTED] | docker login -u bot --password-stdin r',
    ],
    ['ldapsearch -x -D cn=admin -w s3cret -b dc=lan', 'ldapsearch -x -D cn=admin -w [REDACTED] -b dc=lan'],
    ['smbclient //nas/share -U alice%s3cret', 'smbclient //nas/share -U alice%[REDACTED]'],
    ['openssl enc -aes256 -k s3cret -in x', 'openssl enc -aes256 -k [REDACTED] -in x'],
    ['openssl pkcs12 -in x.p12 -passin pass:s3cret', 'openssl pkcs12 -in x.p12 -passin pass:[REDACTED]'],
    ['htpasswd -b /etc/nginx/htpasswd alice s3cret', 'htpasswd -b /etc/nginx/htpasswd alice [REDACTED]'],
    ['htpasswd -cbB f alice s3cret', 'htpasswd -cbB f alice [REDACTED]'],
    ['mysql -u root -phunter2 -h db1 shop', 'mysql -u root -p[REDACTED] -h db1 shop'],
    ['mysqldump -pS3cr3t! shop > x.sql', 'mysqldump -p[REDACTED] shop > x.sql'],
    ['mysql --password=x shop', 'mysql --password=[REDACTED] shop'],
    ['mysql --password x shop', 'mysql --password [REDACTED] shop'],
    ['curl -u user:pw https://h/x', 'curl -u user:[REDACTED] https://h/x'],
    ['curl --user admin:s3cret https://h', 'curl --user admin:[REDACTED] https://h'],
    ['curl --user=admin:s3cret https://h', 'curl --user=admin:[REDACTED] https://h'],
    ["curl -u 'admin:s3cret' https://h", "curl -u 'admin:[REDACTED]' https://h"],
    ['curl -uadmin:s3cret https://h', 'curl -uadmin:[REDACTED] https://h'],
    [
      "curl -H 'Authorization: Bearer abc.def' https://h",
      "curl -H 'Authorization: [REDACTED]' https://h".replace(
        'Authorization: [REDACTED]',
        'Authorization: Bearer [REDACTED]',
      ),
    ],
    ['curl -H "authorization: Basic dXNlcjpwdw==" h', 'curl -H "authorization: Basic [REDACTED]" h'],
    ["curl -H 'Cookie: session=abc; csrf=def' h", "curl -H 'Cookie: [REDACTED]' h"],
    ["curl -H 'X-Api-Key: k123' h", "curl -H 'X-Api-Key: [REDACTED]' h"],
    ['git clone https://user:pw@host/repo.git', 'git clone https://user:[REDACTED]@host/repo.git'],
    [
      'pip install -i https://bob:tok3n@pypi.example/simple x',
      'pip install -i https://bob:[REDACTED]@pypi.example/simple x',
    ],
    ['git clone https://ghp_abcdefghijklmnopqrstuv@github.com/o/r', 'git clone https://[REDACTED]@github.com/o/r'],
    ['echo "see https://h/path?x=1"', 'echo "see https://h/path?x=1"'],
    ['ssh://git@host/repo', 'ssh://git@host/repo'],
    ['PASSWORD=x ./deploy.sh', 'PASSWORD=[REDACTED] ./deploy.sh'],
    ['PGPASSWORD=hunter2 psql -h db -U app', 'PGPASSWORD=[REDACTED] psql -h db -U app'],
    ['MYSQL_PWD=x mysql', 'MYSQL_PWD=[REDACTED] mysql'],
    ['sshpass -p hunter2 ssh root@h', 'sshpass -p [REDACTED] ssh root@h'],
    ["sshpass -p 'two words' ssh h", 'sshpass -p [REDACTED] ssh h'],
    ['redis-cli -h r1 -a s3cret ping', 'redis-cli -h r1 -a [REDACTED] ping'],
    ['gh auth login --token x', 'gh auth login --token [REDACTED]'],
    ['tool --token=x', 'tool --token=[REDACTED]'],
    ['vault login --auth-token abc', 'vault login --auth-token [REDACTED]'],
    ['az login --client-secret=abc', 'az login --client-secret=[REDACTED]'],
    ['{"password":"x","user":"u"}', '{"password":[REDACTED],"user":"u"}'],
    [
      'echo "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----" > k',
      'echo "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----" > k',
    ],
  ])('%j → %j', (command, redacted) => {
    expect(redactCommand(command)).toBe(redacted);
    // Idempotent: redacting twice changes nothing more.
    expect(redactCommand(redacted)).toBe(redacted);
  });

  it.each([
    'systemctl status nginx',
    'journalctl -u nginx --since "1 hour ago"',
    'sort -u names.txt',
    'ps -p 123',
    'ssh -p 2222 root@host uptime',
    'curl https://example.com/health',
    'mysql -e "select 1"',
  ])('%j has nothing to redact', (command) => {
    expect(redactCommand(command)).toBe(command);
  });
});

describe('whole values under secret-named keys are redacted', () => {
  it.each([
    ['secret', { value: 'x', version: 2 }],
    ['credentials', { user: 'u', password: 'p' }],
    ['password', 'p'],
    ['Password', ['a', 'b']],
    ['token', 42],
    ['apiKey', 'k'],
    ['API-KEY', 'k'],
    ['api_key', 'k'],
    ['private_key', { pem: '…' }],
    ['privateKey', 'x'],
    ['authorization', 'Bearer x'],
    ['Authorization', { scheme: 'Bearer', value: 'x' }],
    ['cookie', 'a=b'],
    ['Set-Cookie', 'a=b'],
    ['client_secret', 'x'],
    ['db.password', 'x'],
    ['session_id', 'x'],
  ])('%s: %j', (key, value) => {
    expect(isSecretKey(key)).toBe(true);
    expect(redactParams({ keep: 'me', [key]: value, nested: { deeper: [{ [key]: value }] } })).toEqual({
      keep: 'me',
      [key]: R,
      nested: { deeper: [{ [key]: R }] },
    });
  });

  it.each(['name', 'size', 'owner', 'target', 'count', 'force'])('%s is not a secret key', (key) => {
    expect(isSecretKey(key)).toBe(false);
    expect(redactParams({ [key]: 'plain' })).toEqual({ [key]: 'plain' });
  });

  it('strings are scanned as commands at every depth; null stays null', () => {
    expect(
      redactParams({ steps: [{ run: 'mysql -pPASS shop' }, 'curl -u a:b h'], url: 'https://u:p@h/', password: null }),
    ).toEqual({
      steps: [{ run: 'mysql -p[REDACTED] shop' }, 'curl -u a:[REDACTED] h'],
      url: 'https://u:[REDACTED]@h/',
      password: null,
    });
  });

  it("an Approval's inputs carry none of it", () => {
    const bound = boundInputsOf(
      {
        action: 'run',
        command: 'PGPASSWORD=hunter2 psql -h db "postgres://app:hunter2@db/app"',
        params: {
          secret: { value: 'hunter2' },
          credentials: { user: 'u', password: 'hunter2' },
          note: 'curl -u a:hunter2 h',
        },
      },
      'manual:host/x',
    );
    expect(redactedInputsOf(bound)).not.toContain('hunter2');
  });
});

describe('the inputs digest is keyed', () => {
  const key = 'a'.repeat(64);
  const bound = boundInputsOf({ action: 'run', command: 'mysql -phunter2' }, 'manual:host/x');

  it('is not the plain SHA-256 an agent could test guesses against', () => {
    const plain = createHash('sha256').update(canonicalJson(bound)).digest('hex');
    expect(inputsDigestOf(bound, key)).not.toBe(plain);
    for (const digest of Object.values(fieldDigestsOf(bound, key))) expect(digest).not.toBe(plain);
    expect(fieldDigestsOf(bound, key).command).not.toBe(
      createHash('sha256').update(canonicalJson(bound.command)).digest('hex'),
    );
  });

  it('binds the inputs under one key, and differs under another', () => {
    const again = boundInputsOf({ action: 'run', command: 'mysql -phunter2' }, 'manual:host/x');
    expect(inputsDigestOf(again, key)).toBe(inputsDigestOf(bound, key));
    expect(inputsDigestOf({ ...bound, command: 'mysql -phunter3' }, key)).not.toBe(inputsDigestOf(bound, key));
    expect(inputsDigestOf(bound, 'b'.repeat(64))).not.toBe(inputsDigestOf(bound, key));
  });

  it('refuses a short key', () => {
    expect(() => inputsDigestOf(bound, 'short')).toThrow(/at least 32/);
  });
});
