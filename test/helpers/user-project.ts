// An app's own test project, made in a temporary directory the way a user makes one after reading
// the README and docs/library.md: `laravel-queue-sim` and Vitest in its node_modules, their
// vitest.config and library examples copied verbatim, and test files of their own. The package
// resolves to this checkout (a symlink, as `npm link` makes), through the `lqsim-source` condition
// so that the sources run without a build; everything else is what those pages say to write.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

export const REPO = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');

/**
 * The fenced blocks of a section of a markdown file of this repository (`README.md`,
 * `docs/library.md`): from its heading to the next heading of its level or above.
 */
export function docBlocks(file: string, heading: string, lang: string): string[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const from = lines.indexOf(heading);
  if (from < 0) throw new Error(`${file} has no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const blocks: string[] = [];
  let block: string[] | null = null;
  let fenced = false;
  for (const line of lines.slice(from + 1)) {
    if (line.startsWith('```')) {
      if (!fenced && line === `\`\`\`${lang}`) block = [];
      else if (fenced && block !== null) {
        blocks.push(block.join('\n'));
        block = null;
      }
      fenced = !fenced;
      continue;
    }
    if (fenced) block?.push(line);
    else if (new RegExp(`^#{1,${level}} `).test(line)) break; // a '# ' inside a fence is a comment
  }
  return blocks;
}

/** The GitHub Actions workflow docs/library.md gives for CI, parsed. */
export function docsWorkflow(): {
  redisImage: string;
  env: Record<string, string>;
  run: string;
  raw: Record<string, unknown>;
} {
  const block = docBlocks('docs/library.md', '## A whole test suite on one Redis, files in parallel', 'yaml').find(
    (b) => b.includes('.github/workflows/'),
  );
  if (block === undefined) throw new Error('docs/library.md: no GitHub Actions workflow under "A whole test suite…"');
  const raw = parse(block) as {
    jobs: Record<
      string,
      { services?: Record<string, { image: string }>; env?: Record<string, string>; steps: Array<{ run?: string }> }
    >;
  };
  const job = Object.values(raw.jobs)[0]!;
  const service = Object.values(job.services ?? {})[0];
  const runs = job.steps.filter((s) => s.run !== undefined).map((s) => s.run!);
  return { redisImage: service?.image ?? '', env: job.env ?? {}, run: runs[runs.length - 1] ?? '', raw };
}

export interface UserProject {
  dir: string;
  write(path: string, text: string): void;
  /** Runs a shell command there (the workflow's `run:`), with a JSON report of Vitest's results. */
  vitest(command: string, env: Record<string, string>): Promise<VitestOutcome>;
  remove(): void;
}

export interface VitestOutcome {
  code: number;
  output: string;
  passed: number;
  failed: number;
  /** Each failed test's full name and its messages. */
  failures: Array<{ test: string; messages: string[] }>;
  files: number;
}

export function userProject(): UserProject {
  const dir = mkdtempSync(join(tmpdir(), 'lqsim-user-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  // What `npm i -D laravel-queue-sim vitest` leaves: the package and its dependencies.
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry === '.package-lock.json') continue;
    symlinkSync(join(REPO, 'node_modules', entry), join(modules, entry));
  }
  symlinkSync(REPO, join(modules, 'laravel-queue-sim'));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', JSON.stringify({ name: 'our-app-tests', private: true, type: 'module' }, null, 2));
  return {
    dir,
    write,
    vitest: (command, env) =>
      new Promise((resolve) => {
        const report = join(dir, `report-${Date.now()}.json`);
        const base: Record<string, string | undefined> = { ...process.env, ...env, FORCE_COLOR: '0', CI: 'true' };
        delete base.VITEST; // the parent's Vitest markers must not reach the child
        delete base.VITEST_POOL_ID;
        delete base.VITEST_WORKER_ID;
        delete base.NODE_OPTIONS;
        execFile(
          '/bin/sh',
          ['-c', `${command} --reporter=default --reporter=json --outputFile.json=${report}`],
          { cwd: dir, env: base as NodeJS.ProcessEnv, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            let r: {
              numPassedTests?: number;
              numFailedTests?: number;
              testResults?: Array<{
                status: string;
                message?: string;
                assertionResults?: Array<{ fullName: string; status: string; failureMessages: string[] }>;
              }>;
            } = {};
            try {
              r = JSON.parse(readFileSync(report, 'utf8'));
            } catch {
              // no report: the run failed before Vitest wrote one; code and output say why
            }
            const failures = (r.testResults ?? []).flatMap((f) => [
              ...(f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')
                ? [{ test: '(file)', messages: [f.message ?? ''] }]
                : []),
              ...(f.assertionResults ?? [])
                .filter((a) => a.status === 'failed')
                .map((a) => ({ test: a.fullName, messages: a.failureMessages })),
            ]);
            resolve({
              code,
              output: `${stdout}${stderr}`,
              passed: r.numPassedTests ?? 0,
              failed: failures.length,
              failures,
              files: (r.testResults ?? []).length,
            });
          },
        );
      }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
