// The library API for test suites and tools: get a Redis, load or write a scenario, run it, read
// the timeline. (Assertions, golden files and more exports come with the regression-test API.)
export { acquireRedis } from './redis/server.ts';
export type { RedisServer, RedisServerKind } from './redis/server.ts';
export { RedisUnavailableError } from './redis/errors.ts';
export { loadScenarioFile, parseScenario } from './scenarios/load.ts';
export type { LoadedScenario } from './scenarios/load.ts';
export { listScenarios, resolveScenario, SCENARIOS_DIR } from './scenarios/catalog.ts';
export { ScenarioError } from './scenarios/errors.ts';
export { Scenario } from './scenarios/schema.ts';
export type { ScenarioInput, ScenarioSpec } from './scenarios/schema.ts';
export { runScenario } from './scenarios/runner.ts';
export type { RedisTarget, RunOptions } from './scenarios/runner.ts';
export { allCommands } from './scenarios/timeline.ts';
export type * from './scenarios/timeline.ts';
export { renderText } from './output/text.ts';
export { renderNdjson } from './output/ndjson.ts';
export { PROFILES, getProfile } from './sim/profiles/index.ts';
export type { LaravelProfile } from './sim/profiles/types.ts';
