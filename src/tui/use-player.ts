// Play: one step every `ms` while playing. The timer restarts whenever the position changes
// (`position`: the step and whether the run is over), so a step still running against Redis is
// waited for, never skipped.
import { useEffect, useEffectEvent } from 'react';

export function usePlayer(playing: boolean, ms: number, position: string, next: () => void): void {
  // The latest `next`, without restarting the timer when only the callback changed.
  const tick = useEffectEvent(next);
  useEffect(() => {
    if (!playing) return;
    const timer = setTimeout(() => tick(), ms);
    return () => clearTimeout(timer);
  }, [playing, ms, position]);
}
