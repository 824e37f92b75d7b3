// Ink hides the cursor while it draws on a terminal, and its cli-cursor asks restore-cursor to show
// it again when the process exits. restore-cursor 4 wrote that `ESC[?25h` to process.stderr
// whatever stderr was: a test's fake terminal left it in the test log, and `lqsim tui 2>file` in
// the file. package.json's `overrides` takes restore-cursor 5, which writes it only to a terminal;
// the CLI bundle is built with it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

// A process whose Ink draws on a (fake) terminal while its own stdout and stderr are pipes.
const DRAW_AND_EXIT = `
import { EventEmitter } from 'node:events';
import React from 'react';
import { render, Text } from 'ink';
class FakeTerminal extends EventEmitter {
  isTTY = true; columns = 40; rows = 5; frames = [];
  write = (s) => { this.frames.push(s); return true; };
}
const stdout = new FakeTerminal();
const app = render(React.createElement(Text, null, 'frame'), { stdout, patchConsole: false });
await new Promise((resolve) => setTimeout(resolve, 50));
app.unmount();
await app.waitUntilExit();
// The cursor was hidden on the fake terminal, and shown there again at unmount.
process.stdout.write(JSON.stringify(stdout.frames.join('')));
`;

it('no cursor escape reaches a stderr that is not a terminal when a process that drew with Ink exits', () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.CI; // Ink draws only the last frame in CI (is-in-ci), hiding no cursor
  delete env.CONTINUOUS_INTEGRATION;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', DRAW_AND_EXIT], {
    cwd: repo,
    env,
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  const drawn = JSON.parse(r.stdout) as string;
  expect(drawn).toContain('frame');
  expect(drawn).toContain('\x1b[?25l');
  expect(r.stderr).toBe('');
});
