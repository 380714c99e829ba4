// The session's heartbeat: `about` every few seconds. It checks the token is still accepted (a
// revoked or expired one answers UNAUTHENTICATED, which ends the session in api.ts) and carries the
// kill switch for the banner.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { gql } from './api';
import { ABOUT_QUERY } from './queries';

export interface Autonomy {
  mode: 'normal' | 'halt';
  setBy: string | null;
  setAt: string | null;
  reason: string | null;
  breakerOpenedAt: string | null;
  breakerReason: string | null;
}

export const POLL_MS = 3000;

export interface About {
  version: string;
  principal: string;
  role: string;
  autonomy: Autonomy;
}

/** The latest `about`, polled every POLL_MS; `refresh` re-reads it at once (after halt/resume). */
export function useAbout(): { about: About | null; refresh: () => void } {
  const [about, setAbout] = useState<About | null>(null);
  const refresh = useCallback(() => {
    gql<{ about: About }>(ABOUT_QUERY).then(
      (d) => setAbout(d.about),
      () => undefined, // UNAUTHENTICATED ends the session in gql; a network blip waits for the next poll
    );
  }, []);
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return { about, refresh };
}
