// Who is signed in. The bearer token lives in this module's memory only: never in a URL,
// localStorage, sessionStorage or a cookie, so closing or reloading the tab ends the session.
import { useEffect, useState } from 'preact/hooks';

export type Role = 'agent' | 'operator' | 'scheduler' | 'ingester';

export interface Session {
  principal: string;
  role: Role;
  /** Operators may act (approve, deny, halt, resume); every other role gets a read-only console. */
  canAct: boolean;
}

interface State {
  session: Session | null;
  /** Why the last session ended (revoked token, expired token, signed out). */
  message: string | null;
}

let token: string | null = null;
let state: State = { session: null, message: null };
const listeners = new Set<(s: State) => void>();

function set(next: State): void {
  state = next;
  for (const l of listeners) l(state);
}

export function currentToken(): string | null {
  return token;
}

export function currentSession(): Session | null {
  return state.session;
}

/** Starts a session for a token `about` has just accepted. */
export function startSession(newToken: string, principal: string, role: Role): Session {
  token = newToken;
  const session = { principal, role, canAct: role === 'operator' };
  set({ session, message: null });
  return session;
}

/** Forgets the token; the sign-in page shows the message. */
export function endSession(message: string | null = null): void {
  if (token === null && state.session === null) return;
  token = null;
  set({ session: null, message });
}

/** The session and the message of the last one's end; re-renders when either changes. */
export function useSession(): State {
  const [s, setS] = useState(state);
  useEffect(() => {
    listeners.add(setS);
    setS(state);
    return () => {
      listeners.delete(setS);
    };
  }, []);
  return s;
}
