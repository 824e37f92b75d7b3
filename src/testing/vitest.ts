// `import 'laravel-queue-sim/vitest'` (in a test file or in Vitest's setupFiles): registers the
// matchers with Vitest's expect and adds their types to `expect(timeline)`.
import { expect } from 'vitest';
import type { TraceMatchers } from './matchers.ts';
import { matchers } from './matchers.ts';

expect.extend(matchers);

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends TraceMatchers<T> {}
}
