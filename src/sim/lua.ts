// A Lua script as Laravel sends it: the exact text (EVAL, never EVALSHA) and its key count.
// Texts are Laravel's (MIT, see THIRD_PARTY.md): they go on the wire and must match byte for byte.

export type ScriptName = 'pop' | 'release' | 'migrateExpiredJobs' | 'size' | 'push' | 'clear' | 'later';

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
