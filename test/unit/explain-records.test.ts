// lqsim explain's settings, lives and findings as data: the settings structured with their lines
// (json's `settings`, ndjson's records after the commands), and lqsim's own ndjson readers (explain
// itself, lqsim diff's ndjson source) reading past the records. The figures are read off the
// capture by hand: laravel8-ran-twice.txt's line 2 is the dispatcher's SELECT (127.0.0.1:56296),
// line 6 the first worker's (:56312), line 15 the second's (:56328); its pop at line 11 sends
// now + 3 (retry_after 3); every key has the 8.x skeleton's prefix.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureEntry } from '../../src/explain/capture.ts';
import { ExplainedJsonWriter } from '../../src/explain/json-writer.ts';
import { renderExplainedRecords } from '../../src/explain/records.ts';
import { explainCapture } from '../../src/index.ts';
import { renderNdjson } from '../../src/output/ndjson.ts';
import { ndjsonTrace } from '../../src/trace/source.ts';

const text = readFileSync(new URL('../fixtures/explain/laravel8-ran-twice.txt', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'lqsim-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the settings as data', () => {
  it('holds each figure with the lines it rests on, and the connections per role', () => {
    const { settings } = explainCapture(text);
    expect(settings.laravel).toMatchObject({ releases: '5.8 to 9.22', profiles: ['8'] });
    expect(settings.laravel.scripts.map((s) => s.value)).toEqual([
      'LuaScripts::push',
      'LuaScripts::migrateExpiredJobs',
      'LuaScripts::pop',
    ]);
    expect(settings.prefixes.map((p) => p.value)).toEqual(['laravel_database_']);
    expect(settings.dbs.map((d) => d.value)).toEqual([0]);
    expect(settings.queues.map((q) => q.value)).toEqual(['default']);
    expect(settings.retryAfter[0]).toMatchObject({ value: 3 });
    expect(settings.retryAfter[0]!.lines[0]).toBe(11);
    expect(settings.blockFor).toEqual([]);
    expect(settings.roles.dispatcher).toEqual({ connections: 1, first: [{ client: '127.0.0.1:56296', line: 2 }] });
    expect(settings.roles.worker).toEqual({
      connections: 2,
      first: [
        { client: '127.0.0.1:56312', line: 6 },
        { client: '127.0.0.1:56328', line: 15 },
      ],
    });
  });
});

describe('ndjson: records after the commands', () => {
  const explained = explainCapture(text);
  const records = renderExplainedRecords(explained, explained.settings)
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('the settings, then each life, then each finding, each told by its record field', () => {
    expect(records.map((r) => r.record)).toEqual([
      'settings',
      ...explained.lives.map(() => 'life'),
      ...explained.findings.map(() => 'finding'),
    ]);
    expect(records[0]).toMatchObject({ laravel: { releases: '5.8 to 9.22' } });
    const findings = records.filter((r) => r.record === 'finding');
    expect(findings.length).toBeGreaterThan(0);
    for (const f of findings)
      expect(Object.keys(f)).toEqual(expect.arrayContaining(['kind', 'certainty', 'alternatives']));
  });

  it("explain reading lqsim's ndjson skips them, and so does lqsim diff's ndjson source", async () => {
    const file = join(dir, 'explained.ndjson');
    const commands = renderNdjson(explained.timeline);
    const withRecords = commands + renderExplainedRecords(explained, explained.settings);
    for (const [i, l] of withRecords.trimEnd().split('\n').entries()) {
      const entry = captureEntry(l, i + 1);
      if (JSON.parse(l).record !== undefined) expect(entry).toBeNull();
      else expect(entry).not.toBeNull();
    }
    writeFileSync(file, withRecords);
    const plain = join(dir, 'commands.ndjson');
    writeFileSync(plain, commands);
    expect((await ndjsonTrace(file)).trace).toEqual((await ndjsonTrace(plain)).trace);
  });
});

describe('json: the settings after the findings', () => {
  it('is a member of the document, written as it goes', () => {
    const explained = explainCapture(text);
    let out = '';
    const json = new ExplainedJsonWriter((s) => (out += s));
    json.begin(explained.timeline);
    for (const step of explained.timeline.steps) json.step(step);
    json.end(explained, explained.settings);
    const doc = JSON.parse(out) as Record<string, unknown>;
    expect(Object.keys(doc).slice(-3)).toEqual(['lives', 'findings', 'settings']);
    expect(doc.settings).toEqual(JSON.parse(JSON.stringify(explained.settings)));
  });
});
