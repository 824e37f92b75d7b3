// Writes schema/scenario.schema.json from the zod schema. Run: npx tsx scripts/gen-schema.ts
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scenarioJsonSchema } from '../src/scenarios/json-schema.ts';

const file = fileURLToPath(new URL('../schema/scenario.schema.json', import.meta.url));
writeFileSync(file, `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
console.log(`wrote ${file}`);
