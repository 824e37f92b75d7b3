import type { BuildOptions } from 'esbuild';

export const nodeBundle: BuildOptions;
export const nodeCjsBundle: BuildOptions;
export const redisClientOnly: import('esbuild').Plugin;
export const REDIS_CLIENT_PARTS: Readonly<Record<string, { readonly file: string; readonly name: string }>>;
