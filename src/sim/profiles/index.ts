import type { LaravelProfile } from './types.ts';
import { laravel53 } from './laravel-5.3.ts';
import { laravel57 } from './laravel-5.7.ts';
import { laravel8 } from './laravel-8.ts';
import { laravel13 } from './laravel-13.ts';

export const PROFILES: Record<string, LaravelProfile> = {
  '5.3': laravel53,
  '5.7': laravel57,
  '8': laravel8,
  '13': laravel13,
};

export function getProfile(name: string): LaravelProfile {
  const profile = PROFILES[name];
  if (!profile) throw new Error(`unknown Laravel profile "${name}" (known: ${Object.keys(PROFILES).join(', ')})`);
  return profile;
}

export type { LaravelProfile } from './types.ts';
