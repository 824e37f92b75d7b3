// The library API for test suites and tools: get a Redis, load or write a scenario, run it, read
// the timeline, render it. Assertions and matchers: laravel-queue-sim/testing (src/testing/).
export { acquireRedis } from './redis/server.ts';
export { acquireClusterTarget as acquireRedisCluster } from './scenarios/cluster-config.ts';
export type { RedisClusterTarget } from './scenarios/cluster-config.ts';
export type { ClusterNode } from './redis/cluster-nodes.ts';
export type { RedisServer, RedisServerKind } from './redis/server.ts';
export { RedisConnectError, RedisRefusedError, RedisUnavailableError, RedisSettingError } from './redis/errors.ts';
export { loadScenarioFile, parseScenario } from './scenarios/load.ts';
export type { LoadedScenario } from './scenarios/load.ts';
export { listScenarios, resolveScenario, SCENARIOS_DIR } from './scenarios/catalog.ts';
export type { CatalogEntry } from './scenarios/catalog.ts';
export { loadScenario } from './scenarios/shipped.ts';
export { ScenarioError } from './scenarios/errors.ts';
import { scenarioSchema } from './scenarios/schema.ts';
/** The scenario format's zod schema: Scenario.parse(input) is the spec a file with those fields gives. */
export const Scenario = scenarioSchema();
export { buildScenario, scenario, ScenarioBuilder } from './scenarios/builder.ts';
export type {
  ArtisanOptions,
  CacheOptions,
  ChainJobs,
  ChainOptions,
  ConfigChangeOptions,
  ConnectionOptions,
  DispatchOptions,
  KillOptions,
  RequestCalls,
  RequestOptions,
  JobOptions,
  LaravelVersion,
  LimiterOptions,
  NoteOptions,
  RedisOptions,
  SizeOptions,
  StopOptions,
  WorkerOptions,
} from './scenarios/builder.ts';
export type { ScenarioInput, ScenarioSpec } from './scenarios/schema.ts';
export { runScenario } from './scenarios/runner.ts';
export type { RedisTarget, RunOptions } from './scenarios/runner.ts';
export { allCommands } from './scenarios/timeline.ts';
export type * from './scenarios/timeline.ts';
export { renderText } from './output/text.ts';
export { renderNdjson } from './output/ndjson.ts';
export { renderJson } from './output/json.ts';
export { renderMarkdown } from './output/markdown.ts';
export { renderMermaid } from './output/mermaid.ts';
export { encodeCommand, renderResp } from './output/resp.ts';
export { PROFILE_NAMES, PROFILES, getProfile, isProfileName } from './sim/profiles/index.ts';
export type { LaravelProfile } from './sim/profiles/types.ts';
export type { ProfileName } from './sim/profiles/index.ts';
export { normaliseTrace, commandKey } from './trace/normalise.ts';
export type { NormalisedCommand, NormalisedStep, NormalisedTrace } from './trace/normalise.ts';
export { actorsFromAddresses, fromMonitorLines, fromTimeline } from './trace/trace-like.ts';
export type { TraceLike, TraceLikeCommand, TraceLikeStep } from './trace/trace-like.ts';
export { diffSummary, diffTraces, isIdentical } from './trace/diff.ts';
export type { CommandDiff, StepDiff, TraceDiff } from './trace/diff.ts';
export { renderDiff } from './trace/render-diff.ts';
export { formatGolden, parseGolden } from './trace/golden-text.ts';
export { GoldenFileError, MAX_GOLDEN_BYTES, readGoldenFile, writeGoldenFile } from './trace/golden-file.ts';
export type { DbOptions } from './trace/database.ts';
export { registerTraceResolver, resolveTrace, TraceSourceError } from './trace/source.ts';
export { explainCapture, explainNodeCaptures } from './explain/index.ts';
export type {
  CaptureConfiguration,
  Explained,
  ExplainedCapture,
  Finding,
  JobLife,
  LifeEvent,
} from './explain/index.ts';
export type { ResolvedTrace, SourceContext, TraceResolver } from './trace/source.ts';
// resolveTrace() runs scenario operands: this registers that source (scenario:, and operands
// without a prefix that are no golden or ndjson file).
import './scenarios/trace-source.ts';
