// Whether we run in CI: the CLI (no --update there, no progress bar, no TUI) and the test library
// (no golden written there) ask the same question, so it lives outside both.

/**
 * Whether we run in CI, as Ink decides it (the is-in-ci package, which makes Ink draw only the last
 * frame): CI or CONTINUOUS_INTEGRATION is present, even empty, and is neither '0' nor 'false'.
 */
export function ciIsSet(env: NodeJS.ProcessEnv): boolean {
  const set = (k: string) => env[k] !== undefined && env[k] !== '0' && env[k] !== 'false';
  return set('CI') || set('CONTINUOUS_INTEGRATION');
}
