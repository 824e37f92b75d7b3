// Bytes from a scenario (payload properties, titles, notes, names in errors) must reach a
// terminal as inert text in every output format meant for one. A real run under Laravel 8 (whose
// json_encode keeps non-ASCII raw: C1 controls and bidi overrides go to Redis as bytes) carries
// ESC/CSI, OSC (title, clipboard, hyperlink), BEL, a C1 CSI and a bidi override, in a payload
// property, the title, the description and a note; every format of `lqsim run --format` is
// rendered from it. JSON formats may carry them JSON-escaped (\u001b), never raw. resp is raw
// bytes by design and refuses a terminal.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMATS } from '../../src/cli/args.ts';
import { checkExportTarget } from '../../src/cli/export-formats.ts';
import { renderExport } from '../../src/output/export.ts';
import { renderNdjson } from '../../src/output/ndjson.ts';
import { makeChalk } from '../../src/output/colour.ts';
import { renderText } from '../../src/output/text.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { useRedis } from '../helpers/run.ts';

const redis = useRedis();
const dir = mkdtempSync(join(tmpdir(), 'terminal-safety-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = fileURLToPath(new URL('../../bin/lqsim.js', import.meta.url));

// YAML double-quoted escapes: \e ESC, \a BEL, \x9b the C1 CSI, \u202e RIGHT-TO-LEFT OVERRIDE.
const EVIL_YAML = String.raw`\e[2J\e]0;pwned\a\e]52;c;cm0gLXJmIH4=\a\x9b31m\u202eevil\e]8;;https://x.test\e\\link`;
const SCENARIO = [
  'name: evil',
  `title: "evil title ${EVIL_YAML}"`,
  `description: "evil description ${EVIL_YAML}"`,
  'laravel: "8"',
  'workers: [{ name: worker-1 }]',
  'jobs:',
  `  Evil: { class: App\\Jobs\\Evil, properties: { blob: "${EVIL_YAML}" } }`,
  'timeline:',
  '  - { at: 0, dispatch: Evil }',
  `  - { at: 0, actor: worker-1, on: pop, note: "evil note ${EVIL_YAML}" }`,
  '',
].join('\n');

/** C0 controls but newline, DEL, C1 controls, bidi controls: none may reach a terminal raw. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const firstUnsafe = (s: string): string | null => {
  const m = UNSAFE.exec(s);
  return m
    ? `${JSON.stringify(m[0])} at ${m.index}: ${JSON.stringify(s.slice(Math.max(0, m.index - 40), m.index + 20))}`
    : null;
};

const file = join(dir, 'evil.yaml');
writeFileSync(file, SCENARIO);
let timeline: Timeline | undefined;
async function evilRun(): Promise<Timeline> {
  timeline ??= await runScenario((await loadScenarioFile(file)).spec, { redis: redis(), file });
  return timeline;
}

describe('hostile bytes in a real run', () => {
  it('reach Redis raw (so the test means something)', async () => {
    const t = await evilRun();
    expect(t.error).toBeUndefined();
    const rawArgs = t.steps.flatMap((s) => s.commands.flatMap((c) => c.args)).join('\n');
    expect(rawArgs).toContain('\u009b31m\u202eevil'); // Laravel 8's payload keeps them unescaped
    expect(t.scenario.title).toContain('\u001b[2J');
  });

  const renderers: Record<string, (t: Timeline) => string> = {
    text: (t) => renderText(t, { chalk: makeChalk(0), full: false, width: 100 }),
    'text --full': (t) => renderText(t, { chalk: makeChalk(0), full: true, width: 100 }),
    'text (colour)': (t) =>
      renderText(t, { chalk: makeChalk(3), full: true, width: 100 }).replace(/\u001b\[[0-9;]*m/g, ''),
    ndjson: (t) => renderNdjson(t),
    ...Object.fromEntries(
      EXPORT_FORMATS.filter((f) => f !== 'resp').map((f) => [f, (t: Timeline) => String(renderExport(f, t))]),
    ),
  };

  it.each(Object.keys(renderers))('%s: no raw control, escape or bidi byte', async (format) => {
    const out = renderers[format]!(await evilRun());
    expect(firstUnsafe(out)).toBeNull();
    expect(out.length).toBeGreaterThan(0);
  });

  it('json and ndjson still carry the bytes, JSON-escaped', async () => {
    const t = await evilRun();
    const ndjson = renderNdjson(t)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { args: string[] });
    expect(ndjson.some((c) => c.args.some((a) => a.includes('\u009b31m\u202eevil')))).toBe(true);
    expect(JSON.stringify(JSON.parse(String(renderExport('json', t))))).toContain('evil title');
  });

  it('resp (raw protocol bytes) refuses a terminal', () => {
    expect(() => checkExportTarget('resp', { isTTY: true })).toThrow(/redirect it to a file or a pipe/);
    expect(() => checkExportTarget('resp', { isTTY: false })).not.toThrow();
  });
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((r) => child.on('close', (code) => r({ code, stdout, stderr })));
}

describe('the CLI', () => {
  it('lqsim run prints the hostile scenario escaped', async () => {
    const { code, stdout, stderr } = await runCli(['run', file, '--full']);
    expect(code, stderr).toBe(0);
    expect(firstUnsafe(stdout)).toBeNull();
    expect(firstUnsafe(stderr)).toBeNull();
    expect(stdout).toContain('\\x1b[2J');
  });

  it('an error message naming hostile input is escaped too, on one line, exit 2', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, SCENARIO.replace('dispatch: Evil', `dispatch: "Evil${EVIL_YAML}"`));
    const { code, stdout, stderr } = await runCli(['run', bad]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    // The name is refused (shown escaped, cut short) before the job lookup.
    expect(stderr).toMatch(/^lqsim: .*bad\.yaml:9:\d+: timeline\.0\.dispatch: .*"Evil\\(x1b|u001b)\[2J/);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(firstUnsafe(stderr)).toBeNull();
  });
});
