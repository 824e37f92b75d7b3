// src/sim is the model on its own: it imports nothing outside src/sim, and the scenario format's
// types fit the model's input types (checked by tsc through expectTypeOf).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AttemptSpec, StepKind as SchemaStepKind, WorkerSpec } from '../../src/scenarios/schema.ts';
import type { StepKind } from '../../src/sim/state.ts';
import type { Attempt, WorkerOptions } from '../../src/sim/worker-input.ts';
import { attemptBehaviour } from '../../src/sim/worker-input.ts';

const SIM = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/sim');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('src/sim', () => {
  it('imports nothing outside src/sim', () => {
    const outside: string[] = [];
    for (const file of sources(SIM)) {
      for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.[^']*)'/g)) {
        const target = relative(SIM, resolve(dirname(file), spec!));
        if (target.startsWith('..')) outside.push(`${relative(SIM, file)} → ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it("takes the scenario format's worker and attempt types as its own inputs", () => {
    expectTypeOf<WorkerSpec & { connection: string; tries: number }>().toExtend<WorkerOptions>();
    expectTypeOf<AttemptSpec>().toExtend<Attempt>();
    expectTypeOf<SchemaStepKind>().toEqualTypeOf<StepKind>();
  });

  it('attemptBehaviour: a bare outcome runs 0s; an object names at most one outcome, succeed by default', () => {
    expect(attemptBehaviour('fail')).toEqual({ run: 0, outcome: 'fail' });
    expect(attemptBehaviour({ run: 5 })).toEqual({ run: 5, outcome: 'succeed' });
    expect(attemptBehaviour({ throw: 'boom' })).toEqual({ run: 0, outcome: 'throw', message: 'boom' });
    expect(attemptBehaviour({ run: 2, release: 30 })).toEqual({ run: 2, outcome: 'release', release: 30 });
    expect(attemptBehaviour({ fail: true })).toEqual({ run: 0, outcome: 'fail', message: undefined });
    expect(attemptBehaviour({ fail: 'gave up' })).toEqual({ run: 0, outcome: 'fail', message: 'gave up' });
    expect(attemptBehaviour({ delete: true })).toEqual({ run: 0, outcome: 'delete' });
  });
});
