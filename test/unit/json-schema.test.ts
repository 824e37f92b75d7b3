// The committed JSON Schema that scenario files point editors at must be the zod schema's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioJsonSchema } from '../../src/scenarios/json-schema.ts';

describe('schema/scenario.schema.json', () => {
  it('is what scripts/gen-schema.ts generates from the zod schema (run it after changing schema.ts)', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../schema/scenario.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(committed).toEqual(JSON.parse(JSON.stringify(scenarioJsonSchema())));
  });

  it('is draft-07, closed to unknown fields, and requires name, title and timeline (jobs may be left out)', () => {
    const s = scenarioJsonSchema() as { $schema: string; additionalProperties: boolean; required: string[] };
    expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(s.additionalProperties).toBe(false);
    expect([...s.required].sort()).toEqual(['name', 'timeline', 'title']);
  });
});
