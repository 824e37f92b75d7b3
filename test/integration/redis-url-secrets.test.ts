// A REDIS_URL's password never reaches output, whatever the URL's shape: the message of a refused
// or failed acquireRedis(), describe() of a server that worked, and everything `lqsim run` prints
// on either stream (CI logs keep it). The passwords carry the characters a URL parser takes for
// something else (a raw `/` ends the host, `#` starts a fragment, `?` a query, `@` the host).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lqsim } from '../helpers/cli.ts';
import type { RedisServer } from '../../src/redis/server.ts';
import { acquireRedis } from '../../src/redis/server.ts';
import { serverWithAdmin, type AdminClient } from '../helpers/admin.ts';
import { redactUrl } from '../../src/redis/url.ts';

let server: RedisServer;
let admin: AdminClient;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ server, admin, stop } = await serverWithAdmin());
  // A user whose password has every troublesome character; the URL then carries it percent-encoded.
  await admin.sendCommand(['ACL', 'SETUSER', 'app', 'on', `>${TRICKY}`, '~*', '&*', '+@all']);
});
afterAll(() => stop());

const TRICKY = 'Sup3r/S3c#r?t@x:y%z';

/** Every form a password can take in a URL or a message: as written, decoded, encoded. */
function forms(password: string): string[] {
  const all = new Set([password, encodeURIComponent(password)]);
  try {
    all.add(decodeURIComponent(password));
  } catch {
    // not percent-encoded text: the raw form is the one to look for
  }
  return [...all];
}

/** [the URL, the secret in it]: for a refused port (1), a server that turns the login down, and odd shapes. */
function shapes(port: number): Array<[string, string]> {
  return [
    ['redis://u:Sup3r/S3cret@127.0.0.1:1', 'Sup3r/S3cret'],
    [`redis://u:Sup3r/S3cret@127.0.0.1:${port}`, 'Sup3r/S3cret'],
    ['redis://u:123/456@127.0.0.1:1', '123/456'],
    ['redis://u:Sup3r@S3cret@127.0.0.1:1', 'Sup3r@S3cret'],
    [`redis://u:Sup3r@S3cret@127.0.0.1:${port}`, 'Sup3r@S3cret'],
    ['redis://u:Sup#3rS3cret@127.0.0.1:1', 'Sup#3rS3cret'],
    ['redis://u:Sup?3rS3cret@127.0.0.1:1', 'Sup?3rS3cret'],
    [`redis://u:Sup3r:S3cret@127.0.0.1:${port}`, 'Sup3r:S3cret'],
    [`redis://u:Sup3r%2FS3cret@127.0.0.1:${port}`, 'Sup3r%2FS3cret'],
    [`redis://:OnlyPassw0rd@127.0.0.1:${port}`, 'OnlyPassw0rd'],
    [`redis://UserAsSecret0@127.0.0.1:${port}`, 'UserAsSecret0'],
    ['rediss://u:TlsS3cret@127.0.0.1:1', 'TlsS3cret'],
    [`rediss://u:TlsS3cret@127.0.0.1:${port}`, 'TlsS3cret'],
    ['redis://u:V6S3cret@[::1]:1', 'V6S3cret'],
    ['u:NoSch3me@127.0.0.1:1', 'NoSch3me'],
    ['redis://u:Unp4rsable@:not-a-port', 'Unp4rsable'],
    ['redis://u:Sp ace S3cret@127.0.0.1:1', 'Sp ace S3cret'],
    ['unix://u:SockS3cret@/tmp/redis.sock', 'SockS3cret'],
  ];
}

function expectNoSecret(text: string, secret: string, url: string): void {
  for (const form of forms(secret)) expect(text, `${url} shows ${form}`).not.toContain(form);
}

describe('a REDIS_URL password', () => {
  it('is hidden by redactUrl in every shape, keeping the user name and the host', () => {
    for (const [url, secret] of shapes(6379)) expectNoSecret(redactUrl(url), secret, url);
    expect(redactUrl('redis://u:Sup3r/S3cret@host:6380/2')).toBe('redis://u:***@host:6380/2');
    expect(redactUrl('redis://host:6380')).toBe('redis://host:6380');
  });

  it('never appears in what acquireRedis() throws', async () => {
    const failures = await Promise.all(
      shapes(server.port).map(async ([url, secret]) => {
        const got = await acquireRedis({ env: { REDIS_URL: url } }).then(
          async (s) => {
            await s.stop();
            return `accepted: ${s.describe()}`;
          },
          (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)),
        );
        return { url, secret, got };
      }),
    );
    for (const { url, secret, got } of failures) {
      expect(got, url).not.toMatch(/^accepted/);
      expectNoSecret(got, secret, url);
    }
  });

  it('never appears on either stream of a failed lqsim run', async () => {
    const runs = await Promise.all(
      shapes(server.port).map(async ([url, secret]) => ({
        url,
        secret,
        r: await lqsim(['run', 'dispatch'], { env: { REDIS_URL: url } }),
      })),
    );
    for (const { url, secret, r } of runs) {
      expect(r.code, `${url}: ${r.stderr}`).not.toBe(0);
      expectNoSecret(r.stdout + r.stderr, secret, url);
      expect(r.stderr.trim().split('\n'), url).toHaveLength(1);
    }
  });

  it('never appears in a run that worked: the announcement, describe() and the json export', async () => {
    const url = `redis://app:${encodeURIComponent(TRICKY)}@127.0.0.1:${server.port}`;
    const s = await acquireRedis({ env: { REDIS_URL: url } });
    expectNoSecret(s.describe(), TRICKY, url);
    expect(s.describe()).toContain('redis://app:***@127.0.0.1:');
    const r = await lqsim(['run', 'dispatch', '--format', 'json'], { env: { REDIS_URL: url } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).server.describe).toMatch(/^REDIS_URL redis:\/\/app:\*\*\*@127\.0\.0\.1:\d+ /);
    expectNoSecret(r.stdout + r.stderr, TRICKY, url);
  });
});
