// The scenario format as JSON Schema (draft-07, what editors' YAML support understands), generated
// from the zod schema so the two never disagree. schema/scenario.schema.json is its committed copy.
import { z } from 'zod';
import { scenarioSchema } from './schema.ts';

export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioSchema(), { target: 'draft-7', io: 'input' }),
    title: 'laravel-queue-sim scenario',
    description: 'A Laravel Redis queue flow for lqsim: connections, workers, jobs and a timeline on a virtual clock.',
  };
}
