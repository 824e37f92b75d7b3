// Payloads, keys and scenario text are user data: whatever bytes they hold, what reaches the
// terminal is inert text. A real run is taken and poisoned with escape sequences (clear screen,
// window title, OSC 52 clipboard, a hyperlink), a C1 CSI, a BEL and a bidi override.
import { render } from 'ink-testing-library';
import { expect, it } from 'vitest';
import type { Timeline } from '../../src/scenarios/timeline.ts';
import { App } from '../../src/tui/App.tsx';
import { recordedSession } from '../../src/tui/live-session.ts';
import { KEYS, settle, settleFrame } from './fake-terminal.ts';
import { recordScenarios } from './recorded.ts';

const timeline = recordScenarios('timeout-max-attempts');
const EVIL =
  '\u001b[2J\u001b]0;pwned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\u009b31m\u202eevil\u001b]8;;https://x.test\u001b\\link';

function poisoned(source: Timeline): Timeline {
  const t = structuredClone(source);
  const step = t.steps[0]!;
  step.title += EVIL;
  step.note = `note ${EVIL}`;
  step.actor = `dispatcher${EVIL}`;
  const rpush = step.commands.find((c) => c.args[0] === 'RPUSH')!;
  rpush.args[1] = `queues:${EVIL}`;
  const payload = JSON.parse(rpush.args[2]!) as { data: { command: string } };
  payload.data.command = EVIL;
  // As MONITOR would show a client that sent the bytes raw (not JSON-escaped).
  rpush.args[2] = JSON.stringify(payload).replace('\\u001b', '\u001b');
  rpush.args.push(EVIL);
  const q = step.state.queues[0]!;
  q.keys.ready = `queues:${EVIL}`;
  q.ready[0]!.job = `ImportCsv${EVIL}`;
  step.state.workers[0]!.name = `worker${EVIL}`;
  return t;
}

/** Any C0 control but newline, DEL, C1 controls, and bidi controls. */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

it('renders hostile bytes as visible escapes in every view', async () => {
  const app = render(
    <App session={recordedSession(poisoned(timeline('timeout-max-attempts')))} scenario={`x${EVIL}`} colour={false} />,
  );
  await settle();
  const frames: string[] = [app.lastFrame() ?? ''];
  for (const keys of [['r'], ['r', KEYS.up, KEYS.enter], [KEYS.escape, 'i'], [KEYS.escape, 's']]) {
    for (const k of keys) {
      app.stdin.write(k);
      await settleFrame(() => app.lastFrame() ?? '');
    }
    frames.push(app.lastFrame() ?? '');
  }
  for (const frame of frames) expect(frame).not.toMatch(UNSAFE);
  const all = frames.join('\n');
  expect(all).toContain('\\x1b[2J');
  expect(all).toContain('\\x07');
  expect(all).toContain('\\u009b31m');
  expect(all).toContain('\\u202eevil');
  app.unmount();
});
