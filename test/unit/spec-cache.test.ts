// The CLI's cache of validated scenarios (src/scenarios/spec-cache.ts) gives exactly the spec that
// validating the text gives, for every scenario that ships and every conformance fixture; keeps
// only what validated; and stays bounded. The bundle's use of it: test/integration/bin.test.ts.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIOS_DIR } from '../../src/scenarios/catalog.ts';
import { parseScenario } from '../../src/scenarios/load.ts';
import {
  cliSpecCache,
  loadScenarioFileCached,
  MAX_CACHED_SPECS,
  type SpecCache,
} from '../../src/scenarios/spec-cache.ts';
import { ScenarioError } from '../../src/scenarios/errors.ts';

const scratch = mkdtempSync(join(tmpdir(), 'lqsim-spec-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const freshCache = (): SpecCache => ({ dir: join(scratch, `cache-${n++}`), bundle: '11-22-33' });
const entries = (c: SpecCache): string[] => {
  try {
    return readdirSync(c.dir).sort();
  } catch {
    return [];
  }
};
const fixtures = fileURLToPath(new URL('../fixtures/conformance/', import.meta.url));
const yamlIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => join(dir, f));

describe('the spec cache', () => {
  it('gives what validation gives, strictly equal, for every shipped scenario and fixture', async () => {
    const files = [...yamlIn(SCENARIOS_DIR), ...yamlIn(fixtures)];
    expect(files.length).toBeGreaterThan(50);
    const cache = freshCache();
    for (const file of files) {
      const parsed = parseScenario(readFileSync(file, 'utf8'), file);
      const first = await loadScenarioFileCached(file, cache);
      expect(first).toStrictEqual(parsed);
      const second = await loadScenarioFileCached(file, cache);
      expect(second).toStrictEqual(parsed);
      const third = await loadScenarioFileCached(file, cache);
      expect(third.spec).not.toBe(second.spec); // a copy of its own each read: a run may not share one
    }
    expect(entries(cache)).toHaveLength(Math.min(files.length, MAX_CACHED_SPECS));
  });

  it('is read, not validated again, while it holds the text (the bundle is trusted with it as with its code)', async () => {
    const cache = freshCache();
    const file = join(SCENARIOS_DIR, 'timeout-max-attempts.yaml');
    await loadScenarioFileCached(file, cache);
    const [name] = entries(cache);
    const path = join(cache.dir, name!);
    const value = deserialize(readFileSync(path)) as { sha256: string; spec: { title: string } };
    value.spec.title = 'from the cache';
    writeFileSync(path, serialize(value));
    expect((await loadScenarioFileCached(file, cache)).spec.title).toBe('from the cache');
  });

  it('keeps nothing for a text that does not validate, and throws what loading throws', async () => {
    const cache = freshCache();
    const file = join(scratch, 'bad.yaml');
    writeFileSync(file, 'name: bad\ntitle: bad\ntimeline: [{ at: 0, dispatch: Nope }]\n');
    await expect(loadScenarioFileCached(file, cache)).rejects.toThrow(ScenarioError);
    await expect(loadScenarioFileCached(file, cache)).rejects.toThrow(/unknown job "Nope"/);
    expect(entries(cache)).toEqual([]);
  });

  it("removes other bundles' entries, and of its own keeps the ones written last", async () => {
    const cache = freshCache();
    const file = join(scratch, 'many.yaml');
    const text = (i: number) => `name: many\ntitle: number ${i}\ntimeline: [{ at: 0, note: "${i}" }]\n`;
    writeFileSync(file, text(0));
    await loadScenarioFileCached(file, cache);
    const [firstEntry] = entries(cache);
    writeFileSync(join(cache.dir, '9-9-9-abc.bin'), 'another bundle');
    // The first entry is the oldest: it goes once more than MAX_CACHED_SPECS are kept.
    utimesSync(join(cache.dir, firstEntry!), new Date(0), new Date(0));
    for (let i = 1; i <= MAX_CACHED_SPECS; i++) {
      writeFileSync(file, text(i));
      await loadScenarioFileCached(file, cache);
    }
    const kept = entries(cache);
    expect(kept).toHaveLength(MAX_CACHED_SPECS);
    expect(kept).not.toContain('9-9-9-abc.bin');
    expect(kept).not.toContain(firstEntry);
    expect(kept.every((f) => /^11-22-33-[0-9a-f]{64}\.bin$/.test(f))).toBe(true);
  });

  it('is none from the sources (only the bundle has an identity), and none with LQSIM_CODE_CACHE=0', () => {
    expect(cliSpecCache({})).toBeNull();
    expect(cliSpecCache({ LQSIM_CODE_CACHE: '0' })).toBeNull();
  });
});
