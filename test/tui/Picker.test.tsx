// `lqsim tui` with no scenario: the picker lists the shipped scenarios; enter opens the chosen one.
import { render } from 'ink-testing-library';
import { expect, it } from 'vitest';
import type { CatalogEntry } from '../../src/scenarios/catalog.ts';
import { inLearningOrder, listScenarios } from '../../src/scenarios/catalog.ts';
import { recordedSession } from '../../src/tui/live-session.ts';
import { Root } from '../../src/tui/Root.tsx';
import { KEYS, settle, waitForFrame } from './fake-terminal.ts';
import { recordScenarios } from './recorded.ts';

const timeline = recordScenarios('timeout-max-attempts');

it('lists the scenarios, moves with ↓, and enter opens the chosen one in the App', async () => {
  const entries = await listScenarios();
  // Listed in learning order (dispatch first), not by name.
  const listed = inLearningOrder(entries);
  const opened: CatalogEntry[] = [];
  const app = render(
    <Root
      colour={false}
      session={null}
      entries={entries}
      open={(e) => {
        opened.push(e);
        return recordedSession(timeline('timeout-max-attempts'));
      }}
    />,
  );
  await settle();
  const frame = app.lastFrame() ?? '';
  // The list shows what fits (24 rows here) and scrolls with the choice.
  for (const e of listed.slice(0, 10)) expect(frame).toContain(e.name);
  expect(frame).toContain(`1/${entries.length}`);
  const target = listed.findIndex((e) => e.name === 'timeout-max-attempts');
  for (let i = 0; i < target; i++) {
    app.stdin.write(KEYS.down);
    await settle();
  }
  expect(app.lastFrame()).toContain(`${target + 1}/${entries.length}`);
  expect(app.lastFrame()).toContain('timeout-max-attempts');
  app.stdin.write(KEYS.enter);
  await settle();
  expect(opened.map((e) => e.name)).toEqual(['timeout-max-attempts']);
  // It opens on the premise; → shows step #0.
  expect(app.lastFrame()).toContain('the premise');
  // The App reads keys once its input effect has run, a moment after its first frame.
  await settle(50);
  app.stdin.write(KEYS.right);
  // Under load a frame can take longer than settle()'s wait: wait for the one that shows step #0.
  const step0 = await waitForFrame(app.lastFrame, (f) => f.includes('step #0') && !f.includes('the premise'));
  expect(step0).toContain('RPUSH queues:default ‹ImportCsv#1 attempts:0›');
  app.unmount();
});
