// The user's situation, end to end: an app's test project written from the README and
// docs/library.md (the vitest config, both library examples verbatim, a golden per shipped scenario
// in files of their own), run the way docs/library.md's GitHub Actions workflow runs it (`REDIS_URL`
// and several Vitest workers), on one server that also holds the app's data in db 0 and the app's
// workers, blocked in BLPOP on dbs 1-3 and polling on db 4. Green every time; no payload ever
// reaches the app's workers; db 0 byte-identical; nothing of any run left behind. And a client that
// steals a job mid-run: the run fails, and every assertion on it fails with the error naming what
// happened.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireRedis, type RedisServer } from '../../src/redis/server.ts';
import { resolveScenario } from '../../src/scenarios/catalog.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';
import { appOnServer, type AppOnServer } from '../helpers/app-server.ts';
import { lqsim } from '../helpers/cli.ts';
import { docBlocks, docsWorkflow, REPO, userProject, type UserProject } from '../helpers/user-project.ts';

/** Shipped scenarios the project pins as goldens, one file each: every profile, BLPOP, chains, kills. */
const GOLDENS = ['failure-release', 'timeout-max-attempts', 'chain', 'block-for', 'priority-queues', 'killed-mid-job'];

let server: RedisServer;
let app: AppOnServer;
let project: UserProject;
const workflow = docsWorkflow();

beforeAll(async () => {
  server = await acquireRedis({ env: { ...process.env, LQSIM_REDIS: 'local', REDIS_URL: '' } });
  project = userProject();
  // docs/library.md's config for a whole suite, verbatim, and the one line a checkout needs beside it
  // (the package's sources instead of its build: see userProject).
  const [config] = docBlocks('docs/library.md', '## A whole test suite on one Redis, files in parallel', 'ts');
  // A checkout has no dist/ (the package's build), so the setup the page names by its package
  // export is taken from the sources here; the installed package is tested in pack.test.ts.
  const setup = "'laravel-queue-sim/vitest-global-setup'";
  expect(config).toContain(setup);
  project.write('readme.config.ts', config!.replace(setup, JSON.stringify(`${REPO}/src/testing/global-setup.ts`)));
  project.write(
    'vitest.config.ts',
    [
      "import { mergeConfig } from 'vitest/config';",
      "import { defaultServerConditions } from 'vite';",
      "import readme from './readme.config.ts';",
      "export default mergeConfig(readme, { ssr: { resolve: { conditions: ['lqsim-source', ...defaultServerConditions] } } });",
      '',
    ].join('\n'),
  );
  const [first] = docBlocks('README.md', '## Put it in a test', 'ts');
  project.write('tests/readme-example.test.ts', first!);
  const [example] = docBlocks('docs/library.md', '# Use it as a library', 'ts');
  project.write('tests/library-example.test.ts', example!);
  // Goldens recorded once on a server of the project's own (as `lqsim run --golden` would on a
  // developer's machine), then checked on the shared one.
  project.write('goldens/.keep', '');
  for (const name of GOLDENS) {
    const r = await lqsim(['run', name, '--golden', `${project.dir}/goldens/${name}.golden`]);
    expect(r.code, r.stderr).toBe(0);
    project.write(
      `tests/${name}.test.ts`,
      [
        "import { afterAll, beforeAll, expect, it } from 'vitest';",
        "import { acquireRedis, loadScenario, runScenario, type RedisServer, type Timeline } from 'laravel-queue-sim';",
        "import 'laravel-queue-sim/vitest';",
        '',
        'let redis: RedisServer | undefined;',
        'let trace: Timeline;',
        'beforeAll(async () => {',
        '  const server = (redis = await acquireRedis());',
        `  trace = await runScenario((await loadScenario('${name}')).spec, { redis: server });`,
        '});',
        'afterAll(() => redis?.stop());',
        '',
        `it('${name} sends what its golden says', async () => {`,
        `  await expect(trace).toMatchGolden('goldens/${name}.golden');`,
        '});',
        '',
      ].join('\n'),
    );
  }
  app = await appOnServer(server.url, { blockingDbs: [1, 2, 3], pollingDbs: [4] });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  project?.remove();
  await server?.stop();
});

async function keysOutsideDb0(): Promise<string[]> {
  const left: string[] = [];
  for (let db = 1; db < 16; db++) {
    const c = createClient({ url: server.url, database: db });
    c.on('error', () => undefined);
    await c.connect();
    for (const k of await c.keys('*')) left.push(`db ${db}: ${k}`);
    c.destroy();
  }
  return left;
}

describe("an app's suite on a shared Redis, as docs/library.md's workflow runs it", () => {
  it('the docs workflow is the shape this test runs: a Redis service, REDIS_URL, files in parallel', () => {
    expect(workflow.redisImage).toMatch(/^redis:/);
    expect(workflow.env.REDIS_URL).toMatch(/^redis:\/\/127\.0\.0\.1:6379$/);
    const workers = /--maxWorkers[= ](\d+)/.exec(workflow.run)?.[1];
    expect(workflow.run).toMatch(/^npx vitest run\b/);
    expect(Number(workers)).toBeGreaterThan(1);
  });

  it('is green every time, hands no job to the app, and leaves db 0 and the other dbs as they were', async () => {
    for (let round = 1; round <= 2; round++) {
      const r = await project.vitest(workflow.run, { REDIS_URL: server.url });
      expect(r.failures, `round ${round}:\n${r.output.slice(-4000)}`).toEqual([]);
      expect(r.code, r.output.slice(-2000)).toBe(0);
      expect(r.passed).toBe(GOLDENS.length + 2);
      expect(app.delivered, 'payloads the app workers received').toEqual([]);
      expect(await app.stillBlocked()).toBe(3);
      expect(await app.dumpDb0()).toEqual(app.seeded);
      expect(await keysOutsideDb0()).toEqual([]);
    }
  }, 300_000);

  it('with a client stealing jobs from every db the runs may use, each run it reaches fails with that named, none passes wrongly', async () => {
    // A client that goes round dbs 5-15 (the ones the app leaves free) taking whatever is queued.
    const thief = createClient({ url: server.url, RESP: 2, name: 'job-thief' });
    thief.on('error', () => undefined);
    await thief.connect();
    let stealing = true;
    const rounds = (async () => {
      while (stealing)
        for (let db = 5; db < 16 && stealing; db++) {
          await thief.sendCommand(['SELECT', String(db)]);
          for (const key of ['queues:default', 'laravel_database_queues:default', 'queues:high']) await thief.lPop(key);
        }
    })();
    const r = await project.vitest(workflow.run, { REDIS_URL: server.url });
    stealing = false;
    await rounds;
    thief.destroy();
    // The thief reached some runs (it goes round in well under a run's time); each of those failed
    // with the other client named first, and every test that passed matched its exact expectation.
    expect(r.failed, r.output.slice(-3000)).toBeGreaterThan(0);
    for (const f of r.failures)
      expect(f.messages.join('\n').split('\n')[0], f.test).toMatch(
        /the run ended (with an error|early): another client used this run's db \d+ \(127\.0\.0\.1:\d+ "job-thief": /,
      );
    expect(r.passed + r.failed).toBe(GOLDENS.length + 2);
    expect(app.delivered).toEqual([]);
    expect(await app.dumpDb0()).toEqual(app.seeded);
    expect(await keysOutsideDb0()).toEqual([]);
  }, 300_000);

  it('a client that takes a job mid-run ends that run with the error named, and every matcher then fails', async () => {
    const { spec } = await loadScenarioFile(await resolveScenario('failure-release'));
    const shared = { ...server, owned: false, describe: () => 'REDIS_URL (test)', stop: async () => undefined };
    const thief = createClient({ url: server.url, RESP: 2, name: 'thief' });
    thief.on('error', () => undefined);
    await thief.connect();
    let stolen: string | null = null;
    const trace = await runScenario(spec, {
      redis: shared,
      onStep: async (step) => {
        if (step.index !== 0) return;
        // The job the dispatcher just pushed, wherever the run is: a client that looks in every db.
        for (let db = 1; db < 16 && stolen === null; db++) {
          await thief.sendCommand(['SELECT', String(db)]);
          stolen = (await thief.lPop('queues:default')) as string | null;
        }
      },
    });
    thief.destroy();
    expect(stolen, 'the thief got the job').not.toBeNull();
    // The job gone (the model) is seen before MONITOR's lines of the thief reach the watch at the
    // step's barrier: the run waits for them and names the thief, with what the run saw of it.
    expect(trace.error).toMatch(/^another client used this run's db (\d+) \(127\.0\.0\.1:\d+ "thief": SELECT \1[;)]/);
    expect(trace.error).toContain("the run saw it when worker-1's pop (EVAL ‹pop› 2 queues:default");
    const { matchers } = await import('../../src/testing/matchers.ts');
    for (const result of [
      matchers.toHaveExecuted(trace, 'ChargeCard#1', 2),
      matchers.toHaveFailedJob(trace, 'ChargeCard#1'),
      matchers.toMatchRedisCommands(trace, []),
    ]) {
      expect(result.pass).toBe(false);
      expect(result.message()).toContain(trace.error!);
    }
    expect(app.delivered).toEqual([]);
    expect(await keysOutsideDb0()).toEqual([]);
  }, 60_000);
});
