// The model's own state types (placeholder until the sim state types move here).

/** What a step did, for narration, notes (`on:`) and views. */
export const STEP_KINDS = [
  'dispatch',
  'size',
  'pop',
  'block',
  'process',
  'delete',
  'release',
  'fail',
  'kill',
  'restart',
  'stop',
] as const;
export type StepKind = (typeof STEP_KINDS)[number];
