// The CLI's commands parse a scenario once or a few times per process. zod's JIT compiles each
// object schema's parser (new Function) at its first parse, which costs such a process more than it
// saves: one job's `lqsim run` spent 4.3-6.6 ms in Scenario.safeParse with it, 2.7-3.3 ms without
// (docs/performance.md). Imported first by run, validate, conformance, tui (and lab) and check,
// before anything builds the schema: zod reads the setting as it builds each object schema. CLI
// only, because a library user's zod may be the application's own instance, whose settings are theirs.
import { config } from 'zod';

config({ jitless: true });
