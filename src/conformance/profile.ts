// The profile real Laravel is compared with. Its own module so that compare.ts, real-laravel.ts
// and worker-proxy.ts can all read it without importing one another in a cycle; what a scenario
// leaves open (the key prefix, queue:work's --tries) comes from getProfile(CONFORMANCE_PROFILE),
// so the real run and the model's run cannot default differently.
import type { ProfileName } from '../sim/profiles/index.ts';

/** The profile real Laravel is compared with: Debian packages 8.83. */
export const CONFORMANCE_PROFILE: ProfileName = '8';
