// The session's latest snapshot; re-renders when a step arrives or the run ends.
import { useSyncExternalStore } from 'react';
import type { SessionSnapshot, StepSource } from './live-session.ts';

export function useSession(session: StepSource): SessionSnapshot {
  return useSyncExternalStore(session.subscribe, session.getSnapshot, session.getSnapshot);
}
