// One of several files run in parallel against one shared redis-server (run-alone.ts).
import { it } from 'vitest';
import { sharedRunsMatchAlone } from './run-alone.ts';

it('failure-release: two runs at once on the shared server each give the trace of the run alone', async () => {
  await sharedRunsMatchAlone('failure-release');
});
