// Regenerates docs/laravel.md's "What changed between Laravel versions" (between the `versions:`
// markers) from `lqsim diff` of `dispatch` and `timeout-max-attempts` across the profiles 5.7 → 8
// → 13. The prose for each transition is written by hand from the diffs, and each sentence names
// the diff lines it rests on: if a run no longer shows them, this script fails instead of printing
// prose the diff does not back.
//   npx tsx scripts/docs-versions.ts            rewrite the block in docs/laravel.md
//   npx tsx scripts/docs-versions.ts --check    exit 1 if that block is not current
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeChalk } from '../src/output/colour.ts';
import { acquireRedis } from '../src/redis/server.ts';
import type { ProfileName } from '../src/sim/profiles/index.ts';
import { diffTraces } from '../src/trace/diff.ts';
import { renderDiff } from '../src/trace/render-diff.ts';
import { runScenarioTrace } from '../src/scenarios/trace-source.ts';
import type { SourceContext } from '../src/trace/source.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = `${root}docs/laravel.md`;
const START = '<!-- versions:start -->';
const END = '<!-- versions:end -->';
const SCENARIOS = ['dispatch', 'timeout-max-attempts'] as const;
/** Commands shown of a step only in a or only in b; the rest are counted. */
const WHOLE_STEP_COMMANDS = 12;

interface Claim {
  text: string;
  /** Lines (or parts of lines) the transition's diffs must contain for `text` to hold. */
  evidence: string[];
}

const PROSE: Record<string, Claim[]> = {
  '5.7→8': [
    {
      text: 'Dispatch is no longer a plain `RPUSH`: the push script (5.8.0) RPUSHes the payload and a `1` onto `queues:default:notify`; `migrateExpiredJobs` and `pop` take the notify list as a third key, and `pop` LPOPs it along with the job.',
      evidence: [
        '    - RPUSH queues:default ‹',
        '    + EVAL ‹push› 2 queues:default queues:default:notify ‹',
        '    +   [lua] rpush queues:default:notify 1',
        '    + EVAL ‹pop› 3 queues:default queues:default:reserved queues:default:notify T+90',
        '    +   [lua] lpop queues:default:notify',
      ],
    },
    {
      text: "The payload gains `uuid`, `maxExceptions`, `failOnTimeout`, `backoff` and `retryUntil` (`timeoutAt` is gone), and the keys get the skeleton's `laravel_database_` prefix.",
      evidence: [
        '+uuid UUID1',
        '+maxExceptions null',
        '+failOnTimeout false',
        '+backoff null',
        '+retryUntil null',
        '-timeoutAt',
        '~ key prefix: (none) → laravel_database_',
      ],
    },
    {
      text: 'The timeout: 5.7 only kills the worker, so the job waits in `:reserved` until `retry_after` (t+90), is migrated back, popped as attempts 2 and only then failed (`ZREM` of the attempts:2 copy). 8 (since 5.8.28) fails the job on its last attempt inside the timeout handler, a `ZREM` of the attempts:1 copy at t+60 before the kill; the polls, the migration and the second pop disappear.',
      evidence: [
        '    - ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:2›',
        '    + ZREM queues:default:reserved ‹ImportCsv#ID1 attempts:1›',
        '    -   [lua] zremrangebyrank queues:default:reserved 0 0',
        '    -   [lua] zadd queues:default:reserved T+180 ‹ImportCsv#ID1 attempts:2›',
        '| #3 T+60 worker-1',
      ],
    },
  ],
  '8→13': [
    {
      text: "Payloads gain `createdAt` (the dispatch time), `delay`, `deleteWhenMissingModels` and `data.batchId`, and `serialize()` leaves out the job's properties that still have their defaults (`O:…:0:{}`).",
      evidence: ['+createdAt T+0', '+delay null', '+deleteWhenMissingModels false', '+data.batchId null', '":0:{}'],
    },
    {
      text: '`migrateExpiredJobs` takes a batch size as a second ARGV (`migration_batch_size`, -1 for no limit) and passes it to `zrangebyscore ... limit 0 -1`.',
      evidence: [
        '    + EVAL ‹migrateExpiredJobs› 3 queues:default:delayed queues:default queues:default:notify T+0 -1',
        '    +   [lua] zrangebyscore queues:default:delayed -inf T+0 limit 0 -1',
      ],
    },
    {
      text: 'The key prefix becomes `laravel-database-`. The timeout is handled as in 8: the job is failed with a `ZREM` at t+60, before the kill.',
      evidence: ['~ key prefix: laravel_database_ → laravel-database-', '~ #3 T+60 worker-1 | #3 T+60 worker-1'],
    },
  ],
};

/**
 * The diff, shortened for reading: a step only in a or only in b keeps its first
 * WHOLE_STEP_COMMANDS commands, none when it repeats the step before (same title: the polls of an
 * idle worker); in a changed step every - and + line is kept, and a run of more than two unchanged
 * (=) commands is cut to its first.
 */
function excerpt(diff: string): string {
  const out: string[] = [];
  let block: 'changed' | 'whole' | 'other' = 'other';
  let kept = 0;
  let dropped = 0;
  let sameRun: string[] = [];
  let lastTitle = '';
  let repeat = false;
  const flushSame = () => {
    if (sameRun.length > 2) out.push(sameRun[0]!, `    = … ${sameRun.length - 1} more unchanged`);
    else out.push(...sameRun);
    sameRun = [];
  };
  const flushDropped = () => {
    if (dropped > 0 && repeat) out.push(`    … ${dropped} command${dropped === 1 ? '' : 's'}, as in the step before`);
    else if (dropped > 0) out.push(`    … ${dropped} more command${dropped === 1 ? '' : 's'}`);
    dropped = 0;
  };
  for (const line of diff.trimEnd().split('\n')) {
    const command = /^ {4}([=+-]) /.exec(line)?.[1];
    const detail = line.startsWith('        ');
    if (command === undefined && !detail) {
      flushSame();
      flushDropped();
      block = line.startsWith('~ #')
        ? 'changed'
        : /^[+-] /.test(line)
          ? 'whole'
          : block === 'other' || !line.startsWith('   ')
            ? 'other'
            : block;
      kept = 0;
      const title = block === 'whole' ? line.slice(line.indexOf('  ') + 2) : '';
      repeat = block === 'whole' && title !== '' && title === lastTitle;
      lastTitle = title;
      out.push(line);
    } else if (block === 'whole') {
      if (command !== undefined && !repeat && kept < WHOLE_STEP_COMMANDS) {
        kept++;
        out.push(line);
      } else if (command !== undefined) dropped++;
      else if (dropped === 0) out.push(line);
    } else if (command === '=') sameRun.push(line);
    else {
      flushSame();
      out.push(line);
    }
  }
  flushSame();
  flushDropped();
  return out.join('\n');
}

/** The generated block (markers included). */
export async function generateVersionsSection(): Promise<string> {
  const chain: ProfileName[] = ['5.7', '8', '13'];
  const server = await acquireRedis({ log: (m) => process.stderr.write(`docs-versions: ${m}\n`) });
  const ctx: SourceContext = { redis: async () => server };
  const parts: string[] = [START];
  try {
    for (let i = 0; i + 1 < chain.length; i++) {
      const [from, to] = [chain[i]!, chain[i + 1]!];
      const diffs: string[] = [];
      for (const scenario of SCENARIOS) {
        const a = await runScenarioTrace(scenario, from, ctx);
        const b = await runScenarioTrace(scenario, to, ctx);
        const text = renderDiff(diffTraces(a.trace, b.trace), { chalk: makeChalk(0), labels: [a.label, b.label] });
        diffs.push(`$ lqsim diff ${scenario}@${from} ${scenario}@${to}\n${text}`);
      }
      const excerpts = diffs.map(excerpt);
      // The prose must be backed by what docs/laravel.md shows, not only by the full diff.
      const all = excerpts.join('\n');
      const claims = PROSE[`${from}→${to}`];
      if (!claims) throw new Error(`no prose for ${from} → ${to}: read the diffs and add it to PROSE`);
      for (const claim of claims) {
        const missing = claim.evidence.filter((e) => !all.includes(e));
        if (missing.length > 0)
          throw new Error(`${from} → ${to}: the diff no longer shows ${JSON.stringify(missing)} for: ${claim.text}`);
      }
      parts.push(`### ${from} → ${to}`, '', ...claims.map((c) => `- ${c.text}`), '');
      for (const e of excerpts) parts.push('```text', e, '```', '');
    }
  } finally {
    await server.stop();
  }
  parts.push(END);
  return parts.join('\n');
}

function replaceBlock(text: string, block: string): string {
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/laravel.md has no ${START} … ${END} block`);
  return text.slice(0, from) + block + text.slice(to + END.length);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = readFileSync(doc, 'utf8');
  const next = replaceBlock(text, await generateVersionsSection());
  if (process.argv.includes('--check')) {
    if (next !== text) {
      console.error(
        'docs/laravel.md: "What changed between Laravel versions" is out of date; run npx tsx scripts/docs-versions.ts',
      );
      process.exit(1);
    }
    console.log('docs/laravel.md: "What changed between Laravel versions" is current');
  } else {
    writeFileSync(doc, next);
    console.log('docs/laravel.md: "What changed between Laravel versions" regenerated');
  }
}
