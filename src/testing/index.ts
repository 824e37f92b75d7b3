// laravel-queue-sim/testing: assert a run's Redis commands in any test framework (assertTrace),
// or with the Vitest/Jest matchers (`expect.extend(matchers)`; for Vitest, importing
// laravel-queue-sim/vitest does that and adds the types).
export { assertTrace, traceMismatch } from './assert-trace.ts';
export type {
  CommandSpec,
  ExpectedCommand,
  ExpectedStep,
  ExpectedTrace,
  SkipSteps,
  TraceOptions,
  TraceSubject,
} from './expected.ts';
export { client, lua, skipSteps } from './expected.ts';
export { matchers } from './matchers.ts';
export type { MatcherResult, TraceMatchers } from './matchers.ts';
export { checkGolden } from './golden.ts';
export type { GoldenOptions, GoldenUpdate } from './golden.ts';
export type { DbOptions } from '../trace/database.ts';
export { afterNow, anyPayload, anyString, argPattern, matching, payload, same, scoreAt, script } from './patterns.ts';
export type { Arg, ArgPattern, JsonValue, MatchContext, PayloadField } from './patterns.ts';
