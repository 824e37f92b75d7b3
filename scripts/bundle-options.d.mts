import type { BuildOptions } from 'esbuild';

export const nodeBundle: BuildOptions;
export const nodeCjsBundle: BuildOptions;
export const redisClientOnly: import('esbuild').Plugin;
