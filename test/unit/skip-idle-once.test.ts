// Issue 25: N running on over a long stretch of idle polls looks at each step once as it arrives,
// not at every one since N was pressed again at each new step (quadratic in the stretch).
import { describe, expect, it } from 'vitest';
import type { UiState, View } from '../../src/tui/ui-state.ts';
import { initialUiState, reduce } from '../../src/tui/ui-state.ts';

describe('N running on', () => {
  it('looks at each arriving step once, and still stops at the first that is not idle', () => {
    const busy = 2_000;
    let looked = 0;
    const view = (steps: number): View => ({
      steps,
      finished: false,
      rows: 1,
      page: 10,
      stateLines: 0,
      statePage: 10,
      overlayLines: 0,
      overlayPage: 10,
      selectedRow: null,
      idle: (i) => {
        looked++;
        return i !== busy;
      },
    });
    let s: UiState = reduce({ ...initialUiState, target: 0 }, 'skipIdle', view(1));
    // The App sends skipIdle again as each step arrives (App.tsx), until one is not idle.
    for (let steps = 2; s.skipFrom !== null && steps <= busy + 1; steps++) s = reduce(s, 'skipIdle', view(steps));
    expect(s).toMatchObject({ target: busy, skipFrom: null, notice: `skipped ${busy - 1} idle polls` });
    expect(looked).toBeLessThanOrEqual(busy + 1);
  });
});
