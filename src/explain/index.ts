// `lqsim explain` as a library call: a capture's text (or its lines) explained whole, for a test
// suite or a tool that holds the capture already. The CLI streams large files instead
// (src/cli/explain.ts); both read with the same parts.
import type { CaptureProblem, CapturedLine } from './capture.ts';
import { captureEntry, isProblem } from './capture.ts';
import { mergeNodeCaptures } from './cluster-capture.ts';
import type { CaptureConfiguration } from './configuration.ts';
import { captureConfiguration } from './configuration.ts';
import type { CaptureSettings } from './settings.ts';
import { captureSettings } from './settings.ts';
import type { Explained } from './timeline.ts';
import { captureTimeline } from './timeline.ts';

export interface ExplainedCapture extends Explained {
  configuration: CaptureConfiguration;
  /** The configuration as json and ndjson carry it (explain/settings.ts). */
  settings: CaptureSettings;
  /** Lines that are not MONITOR's (nor lqsim's ndjson), by number. */
  problems: CaptureProblem[];
}

/** Explains a `redis-cli monitor` capture (or lqsim's ndjson) given as text or as its lines. */
export function explainCapture(capture: string | readonly string[], o: { file?: string } = {}): ExplainedCapture {
  const raw = typeof capture === 'string' ? capture.split(/\r?\n/) : capture;
  const lines: CapturedLine[] = [];
  const problems: CaptureProblem[] = [];
  raw.forEach((text, i) => {
    const entry = captureEntry(text.replace(/\r$/, ''), i + 1);
    if (entry === null) return;
    if (isProblem(entry)) problems.push(entry);
    else lines.push(entry);
  });
  const configuration = captureConfiguration(lines);
  return {
    ...captureTimeline(lines, configuration, { file: o.file ?? 'capture', problems }),
    configuration,
    settings: captureSettings(configuration),
    problems,
  };
}

/**
 * Explains a Redis Cluster's capture: one `redis-cli monitor` text per node, named by `label`,
 * merged by time as `lqsim explain node1.txt node2.txt ...` reads the files (explain/cluster-capture.ts).
 */
export function explainNodeCaptures(
  nodes: ReadonlyArray<{ label: string; text: string }>,
  o: { file?: string } = {},
): ExplainedCapture {
  const lines: CapturedLine[] = [];
  const problems: CaptureProblem[] = [];
  for (const entry of mergeNodeCaptures(nodes)) {
    if (isProblem(entry)) problems.push(entry);
    else lines.push(entry);
  }
  const configuration = captureConfiguration(lines, { nodes: nodes.map((n) => n.label) });
  return {
    ...captureTimeline(lines, configuration, { file: o.file ?? 'capture', problems }),
    configuration,
    settings: captureSettings(configuration),
    problems,
  };
}

export type { CaptureConfiguration } from './configuration.ts';
export type { Finding } from './findings.ts';
export type { CaptureSettings } from './settings.ts';
export type { Explained, JobLife, LifeEvent } from './timeline.ts';
