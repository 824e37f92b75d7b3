// One of several files run in parallel against one shared redis-server (run-alone.ts).
import { it } from 'vitest';
import { sharedRunsMatchAlone } from './run-alone.ts';

it('chain: two runs at once on the shared server each give the trace of the run alone', async () => {
  await sharedRunsMatchAlone('chain');
});
