// The one registry of Laravel version profiles. Everything that names the versions (the scenario
// schema's `laravel` enum and its prose, the CLI's --laravel choices, `name@profile` operands)
// reads PROFILE_NAMES or PROFILES from here; nothing lists them by hand.
import type { LuaScript } from '../lua.ts';
import type { LaravelProfile } from './types.ts';
import { laravel53 } from './laravel-5.3.ts';
import { laravel57 } from './laravel-5.7.ts';
import { laravel8 } from './laravel-8.ts';
import { laravel13 } from './laravel-13.ts';

import type { ProfileName } from './names.ts';
import { PROFILE_NAMES } from './names.ts';

export { DEFAULT_PROFILE, PROFILE_NAMES } from './names.ts';
export type { ProfileName } from './names.ts';

export const PROFILES = {
  '5.3': laravel53,
  '5.7': laravel57,
  '8': laravel8,
  '13': laravel13,
} as const satisfies Record<ProfileName, LaravelProfile>;

export function isProfileName(name: unknown): name is ProfileName {
  return typeof name === 'string' && (PROFILE_NAMES as readonly string[]).includes(name);
}

/** The profile of that name, or undefined (a recorded timeline may name one this build lacks). */
export function findProfile(name: string | undefined): LaravelProfile | undefined {
  return isProfileName(name) ? PROFILES[name] : undefined;
}

export function getProfile(name: string): LaravelProfile {
  const profile = findProfile(name);
  if (!profile) throw new Error(`unknown Laravel profile "${name}" (known: ${PROFILE_NAMES.join(', ')})`);
  return profile;
}

/** The Lua scripts a profile has: the LuaScripts methods its version defines. */
export function scriptsOf(profile: LaravelProfile): LuaScript[] {
  return Object.values(profile.scripts).filter((s): s is LuaScript => s !== null);
}

/** "a", "a and b", "a, b and c" (`word` "or" for a choice). */
export function joinNames(names: readonly string[], word: 'and' | 'or' = 'and'): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} ${word} ${names.at(-1)}`;
}

/**
 * One fact across the profiles, for prose: the profiles grouped by `value(profile)` in
 * PROFILE_NAMES order, e.g. "0 in 5.3 and 5.7; 1 in 8 and 13".
 */
export function byProfile(value: (profile: LaravelProfile) => string): string {
  const groups = new Map<string, ProfileName[]>();
  for (const name of PROFILE_NAMES) {
    const v = value(PROFILES[name]);
    groups.set(v, [...(groups.get(v) ?? []), name]);
  }
  return [...groups].map(([v, names]) => `${v} in ${joinNames(names)}`).join('; ');
}

export type { LaravelProfile } from './types.ts';
