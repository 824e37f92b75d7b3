// The names of the Laravel version profiles, apart from the profiles themselves (their scripts and
// payload builders), for what only names them: the CLI's --laravel choices, declared before any
// command runs. src/sim/profiles/index.ts re-exports them beside the profiles.

/** The profiles, oldest first. */
export const PROFILE_NAMES = ['5.3', '5.7', '8', '13'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

/** The profile a scenario without `laravel:` runs under (the wire the seeds document). */
export const DEFAULT_PROFILE: ProfileName = '5.7';
