// A Lua script as Laravel sends it: the exact text (EVAL, never EVALSHA) and its key count.
// Texts are Laravel's (MIT, see THIRD_PARTY.md): they go on the wire and must match byte for byte.

/** The queue's scripts (Illuminate\Queue\LuaScripts), which every profile decides. */
export type ScriptName = 'pop' | 'release' | 'migrateExpiredJobs' | 'size' | 'push' | 'clear' | 'later';
/** The cache store's (Illuminate\Cache\LuaScripts): cache-scripts.ts. */
export type CacheScriptName = 'releaseLock';

export interface LuaScript {
  name: ScriptName;
  /** Laravel's method: LuaScripts::pop() etc. */
  method: string;
  numberOfKeys: number;
  /** KEYS[i] and ARGV[i], as Laravel's doc comments describe them. */
  keys: readonly string[];
  argv: readonly string[];
  source: string;
}

/** A script of the cache store's: the same shape, its own names (the profiles decide only the queue's). */
export interface CacheScript extends Omit<LuaScript, 'name'> {
  name: CacheScriptName;
}

/** Any script the model sends. */
export type AnyScript = LuaScript | CacheScript;
