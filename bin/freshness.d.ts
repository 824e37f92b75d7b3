// Types of bin/freshness.js (plain CommonJS: bin/lqsim.js loads it before anything else).
export function builtFrom(root: string): number | null;
export function newestSourceMtimeMs(root: string): number;
export function bundleIsFresh(root: string): boolean;
