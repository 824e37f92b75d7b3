// The lab session tells its commands which version it runs (issue 25, item 5): completion and
// `:help worker` offer 5.x's delay= or 8+'s backoff=, not both.
import { describe, expect, it } from 'vitest';
import { emptyLab } from '../../src/lab/script.ts';
import { LabSession } from '../../src/tui/lab-session.ts';

const never = (): never => {
  throw new Error('no run: completion reads the session as it stands');
};

describe('the lab session offers its version’s worker options', () => {
  for (const [laravel, has, hasNot] of [
    ['5.7', 'delay=', 'backoff='],
    ['8', 'backoff=', 'delay='],
  ] as const) {
    it(`on ${laravel}: ${has} and not ${hasNot}`, () => {
      const lab = new LabSession(emptyLab(laravel), never);
      const offered = lab.complete('worker ', 0);
      expect(offered.some((o) => o.includes(has))).toBe(true);
      expect(offered.some((o) => o.includes(hasNot))).toBe(false);
      expect(lab.vocabulary(0).laravel).toBe(laravel);
    });
  }
});
