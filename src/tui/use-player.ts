// Play: one step every `ms` while playing. The timer restarts whenever the position changes
// (`position`: the step and whether the run is over), so a step still running against Redis is
// waited for, never skipped.
import { useEffect, useRef } from 'react';

export function usePlayer(playing: boolean, ms: number, position: string, next: () => void): void {
  const nextRef = useRef(next);
  nextRef.current = next;
  useEffect(() => {
    if (!playing) return;
    const timer = setTimeout(() => nextRef.current(), ms);
    return () => clearTimeout(timer);
  }, [playing, ms, position]);
}
