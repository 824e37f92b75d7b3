// Regenerates the example run in docs/cli.md (between the `example:` markers) from a real run of
// `lqsim run timeout-max-attempts`, as printed to a pipe. Run: npx tsx scripts/docs-example.ts
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = `${root}docs/cli.md`;
const START = '<!-- example:timeout-max-attempts:start -->';
const END = '<!-- example:timeout-max-attempts:end -->';

const output = execFileSync(process.execPath, [`${root}bin/lqsim.js`, 'run', 'timeout-max-attempts'], {
  env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'ignore'],
});
const text = readFileSync(doc, 'utf8');
const from = text.indexOf(START);
const to = text.indexOf(END);
if (from < 0 || to < from) throw new Error(`docs/cli.md has no ${START} … ${END} block`);
const block = `${START}\n\`\`\`text\n${output.trimEnd()}\n\`\`\`\n`;
writeFileSync(doc, text.slice(0, from) + block + text.slice(to));
console.log(`docs/cli.md: example regenerated (${output.trimEnd().split('\n').length} lines)`);
