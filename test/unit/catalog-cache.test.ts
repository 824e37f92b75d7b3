// The catalog `lqsim list` reads from the bundle (src/scenarios/catalog-cache.ts) stands only while
// the scenario files are exactly those it was made from.
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readCachedCatalog, writeCatalogCache } from '../../src/scenarios/catalog-cache.ts';

let dir: string;
let cache: string;
const T0 = new Date('2026-01-01T00:00:00Z');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lqsim-catalog-'));
  cache = join(dir, 'catalog.json');
  for (const name of ['a', 'b']) {
    writeFileSync(join(dir, `${name}.yaml`), `name: ${name}\n`);
    utimesSync(join(dir, `${name}.yaml`), T0, T0);
  }
  writeCatalogCache(cache, dir, [
    { name: 'a', title: 'A', file: join(dir, 'a.yaml'), laravel: '8' },
    { name: 'b', title: 'B', file: join(dir, 'b.yaml'), laravel: '5.7' },
  ]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the catalog cache', () => {
  it('gives the entries back, with their files where the scenarios are', () => {
    expect(readCachedCatalog(cache, dir)).toEqual([
      { name: 'a', title: 'A', file: join(dir, 'a.yaml'), laravel: '8' },
      { name: 'b', title: 'B', file: join(dir, 'b.yaml'), laravel: '5.7' },
    ]);
  });

  it('is not used once a file changed, even with its size and time kept', () => {
    writeFileSync(join(dir, 'a.yaml'), 'name: x\n');
    utimesSync(join(dir, 'a.yaml'), T0, T0);
    expect(readCachedCatalog(cache, dir)).toBeUndefined();
  });

  it('is still used when only modification times changed (npm pack, a git checkout)', () => {
    utimesSync(join(dir, 'b.yaml'), new Date(), new Date());
    expect(readCachedCatalog(cache, dir)).toHaveLength(2);
  });

  it('is not used once a scenario was added or removed', () => {
    writeFileSync(join(dir, 'c.yaml'), 'name: c\n');
    expect(readCachedCatalog(cache, dir)).toBeUndefined();
    rmSync(join(dir, 'c.yaml'));
    expect(readCachedCatalog(cache, dir)).toBeDefined();
    rmSync(join(dir, 'a.yaml'));
    expect(readCachedCatalog(cache, dir)).toBeUndefined();
  });

  it('is not used when missing or unreadable', () => {
    expect(readCachedCatalog(join(dir, 'none.json'), dir)).toBeUndefined();
    writeFileSync(cache, '{"files": [');
    expect(readCachedCatalog(cache, dir)).toBeUndefined();
  });
});
