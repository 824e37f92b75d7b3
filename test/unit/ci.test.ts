// Whether CI is set: one rule for `lqsim tui` (text instead of the UI) and `check --update`
// (refused), the one Ink itself uses (is-in-ci) to decide to draw only the last frame.
import { describe, expect, it } from 'vitest';
import { ciIsSet } from '../../src/cli/args.ts';

describe('ciIsSet', () => {
  it('is unset when neither CI nor CONTINUOUS_INTEGRATION is present', () => {
    expect(ciIsSet({})).toBe(false);
    expect(ciIsSet({ GITHUB_ACTIONS: 'true' })).toBe(false);
  });

  it("is set by any value but '0' and 'false', the empty string included (as is-in-ci)", () => {
    for (const v of ['true', '1', 'yes', '', 'FALSE']) {
      expect(ciIsSet({ CI: v })).toBe(true);
      expect(ciIsSet({ CONTINUOUS_INTEGRATION: v })).toBe(true);
    }
  });

  it("is unset by '0' or 'false'; either variable alone is enough", () => {
    expect(ciIsSet({ CI: '0' })).toBe(false);
    expect(ciIsSet({ CI: 'false' })).toBe(false);
    expect(ciIsSet({ CONTINUOUS_INTEGRATION: 'false' })).toBe(false);
    expect(ciIsSet({ CI: 'false', CONTINUOUS_INTEGRATION: 'true' })).toBe(true);
    expect(ciIsSet({ CI: 'true', CONTINUOUS_INTEGRATION: '0' })).toBe(true);
  });
});
