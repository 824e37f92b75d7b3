// `lqsim explain --format json` written as it goes: the same document, byte for byte, as
// renderJson of the whole explained timeline (`lqsim run --format json`'s timeline with each
// job's life and the findings beside its steps), but each step written out as it ends, so a
// capture of any size is held one step at a time. JSON.stringify's pretty-printing is rebuilt
// member by member: `{`, each member on its own line two spaces in, an array's elements four.
import { jsonAt, rawJsonAt, safeJson } from '../output/json.ts';
import type { Step, Timeline } from '../scenarios/timeline.ts';
import type { CaptureSettings } from './settings.ts';
import type { Explained } from './timeline.ts';

/**
 * Where the document goes: `write` takes text as it is, `writeJson` JSON.stringify's text not yet
 * made terminal-safe (safeJson), for a writer that tests it more cheaply on its way out (ByteOut).
 */
export type JsonWrite = (text: string) => void;

/** The explained timeline as json: `begin` with its header, each `step`, `end` with the rest. */
export class ExplainedJsonWriter {
  private readonly json: JsonObjectWriter;
  private stepsAt = -1;

  constructor(write: JsonWrite, writeJson?: JsonWrite) {
    this.json = new JsonObjectWriter(write, writeJson);
  }

  /** The timeline's members before its steps, and the steps' array opened. */
  begin(timeline: Timeline): void {
    const members = Object.entries(timeline);
    this.stepsAt = members.findIndex(([key]) => key === 'steps');
    for (const [key, value] of members.slice(0, this.stepsAt)) this.json.member(key, value);
    this.json.openArray('steps');
  }

  step(step: Step): void {
    this.json.element(step);
  }

  /** The members after the steps as they are at the end (the jobs' outcomes are known then), the lives, the findings and the settings. */
  end({ timeline, lives, findings }: Explained, settings?: CaptureSettings): void {
    this.json.closeArray();
    for (const [key, value] of Object.entries(timeline).slice(this.stepsAt + 1)) this.json.member(key, value);
    this.json.member('lives', lives);
    this.json.member('findings', findings);
    this.json.member('settings', settings);
    this.json.close();
  }
}

/** One JSON object written a member at a time, an array member an element at a time. */
export class JsonObjectWriter {
  private members = 0;
  private elements = 0;

  private readonly writeJson: JsonWrite;

  constructor(
    private readonly write: JsonWrite,
    writeJson?: JsonWrite,
  ) {
    this.writeJson = writeJson ?? ((raw) => write(safeJson(raw)));
  }

  /**
   * A member with its whole value (left out when undefined, as JSON.stringify does); an array an
   * element at a time, so a long one (every job's life) is never one string.
   */
  member(key: string, value: unknown): void {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      this.openArray(key);
      for (const v of value as unknown[]) this.element(v);
      this.closeArray();
    } else this.write(`${this.next(key)}${jsonAt(value, 1)}`);
  }

  /** A member whose value is an array, its elements to follow. */
  openArray(key: string): void {
    this.write(`${this.next(key)}[`);
    this.elements = 0;
  }

  element(value: unknown): void {
    // An undefined element is null in JSON.stringify's arrays.
    this.write(this.elements++ === 0 ? '\n    ' : ',\n    ');
    this.writeJson(rawJsonAt(value ?? null, 2));
  }

  closeArray(): void {
    this.write(this.elements === 0 ? ']' : '\n  ]');
  }

  /** The object's end, and the newline that ends the document. */
  close(): void {
    this.write(this.members === 0 ? '{}\n' : '\n}\n');
  }

  private next(key: string): string {
    return `${this.members++ === 0 ? '{\n' : ',\n'}  ${JSON.stringify(key)}: `;
  }
}
