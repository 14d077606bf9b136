import { useSyncExternalStore } from 'react';

/** Below this width the dashboard is the phone layout: one pane at a time and a bottom bar. */
export const NARROW = '(max-width: 767px)';

export function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener('change', changed);
      return () => query.removeEventListener('change', changed);
    },
    () => window.matchMedia(NARROW).matches,
  );
}
