// The CLI's bundle takes `redis` to be two parts of @redis/client (scripts/bundle-options.mjs,
// redisClientOnly, REDIS_CLIENT_PARTS): true only while every value the sources import from `redis`
// is one of them, the very object redis exports. `createClient`, for one, is not (redis' adds the
// Redis Stack modules' commands).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REDIS_CLIENT_PARTS } from '../../scripts/bundle-options.mjs';

const src = fileURLToPath(new URL('../../src', import.meta.url));
const require = createRequire(import.meta.url);
const redis = require('redis') as Record<string, unknown>;
// The @redis/client that the installed `redis` depends on, as the plugin resolves it.
const clientRequire = createRequire(require.resolve('redis'));
const client = clientRequire('@redis/client') as Record<string, unknown>;
/** A part as the bundle takes it: its file in @redis/client, the name it is exported under there. */
const part = (name: string): unknown => {
  const p = (REDIS_CLIENT_PARTS as Record<string, { file: string; name: string } | undefined>)[name];
  return p === undefined ? undefined : (clientRequire(`@redis/client/${p.file}`) as Record<string, unknown>)[p.name];
};

/** Each source file's value imports from 'redis': { file, names }; a form the test cannot read is an error. */
function redisImports(): { file: string; names: string[] }[] {
  const found: { file: string; names: string[] }[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(e.name)) {
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/^import\s+(type\s+)?([^;]*?)\s+from\s+'redis';/gms)) {
          if (m[1] !== undefined) continue; // types only
          const named = /^\{([^}]*)\}$/s.exec(m[2]!.trim());
          if (named === null) throw new Error(`${path}: an import from 'redis' this test cannot read: ${m[0]}`);
          const names = named[1]!
            .split(',')
            .map((n) => n.trim())
            .filter((n) => n !== '' && !n.startsWith('type '))
            .map((n) => n.split(/\s+as\s+/)[0]!);
          found.push({ file: path.slice(src.length + 1), names });
        }
      }
    }
  };
  walk(src);
  return found;
}

describe("the CLI bundle's redis (@redis/client only)", () => {
  it('finds the imports to hold to (the test reads the sources)', () => {
    expect(redisImports().flatMap((i) => i.names)).toContain('RedisClient');
  });

  it('is the same object as redis for every value the sources import from redis', () => {
    for (const { file, names } of redisImports())
      for (const name of names) {
        expect(part(name), `${file}: ${name} is not one of REDIS_CLIENT_PARTS`).toBeDefined();
        expect(part(name) === redis[name], `${file}: redis' ${name} is not @redis/client's`).toBe(true);
      }
  });

  it('takes each of its parts from where @redis/client defines it, the object its entry exports', () => {
    for (const name of Object.keys(REDIS_CLIENT_PARTS)) {
      expect(part(name)).toBeDefined();
      expect(part(name) === client[name]).toBe(true);
    }
  });

  it('would refuse createClient, which redis builds with the Redis Stack modules', () => {
    expect(client.createClient).toBeDefined();
    expect(client.createClient === redis.createClient).toBe(false);
  });

  it('is the @redis/client redis depends on', () => {
    const manifest = (p: string): { version: string; dependencies: Record<string, string> } =>
      JSON.parse(readFileSync(p, 'utf8')) as { version: string; dependencies: Record<string, string> };
    const clientDir = dirname(createRequire(require.resolve('redis')).resolve('@redis/client/package.json'));
    expect(manifest(join(clientDir, 'package.json')).version).toBe(
      manifest(require.resolve('redis/package.json')).dependencies['@redis/client'],
    );
  });
});
