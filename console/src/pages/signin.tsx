// Sign-in: paste a bearer token once. `about` checks it and names the principal and role; the token
// then lives in memory only (session.ts).
import { useState } from 'preact/hooks';
import { GqlError } from '../api';
import { ErrorBox } from '../components/ui';
import { startSession, type Role } from '../session';

async function checkToken(token: string): Promise<{ principal: string; role: Role }> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ about { principal role } }' }),
  });
  const answer = (await res.json().catch(() => ({}))) as {
    data?: { about: { principal: string; role: Role } };
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  const first = answer.errors?.[0];
  if (first) throw new GqlError(first.message, first.extensions?.code);
  if (!answer.data) throw new GqlError(`HTTP ${res.status}`);
  return answer.data.about;
}

export default function SignInPage(props: { message: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const t = token.trim();
    if (!t || busy) return;
    setBusy(true);
    setError(null);
    try {
      const about = await checkToken(t);
      setToken('');
      startSession(t, about.principal, about.role);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };
  return (
    <main class="signin" data-testid="page-signin">
      <h1>aitia console</h1>
      {props.message && (
        <p class="notice" role="status" data-testid="signin-message">
          {props.message}
        </p>
      )}
      <form onSubmit={(e) => void submit(e)}>
        <label class="field" for="token">
          <span>Bearer token</span>
        </label>
        <input
          id="token"
          data-testid="token-input"
          type="password"
          autocomplete="off"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <p class="hint">
          An operator or agent token (<code>aitia tokens add</code>, or the one the demo prints). It is kept in this
          tab's memory only: reloading or closing the tab signs you out.
        </p>
        {error && <ErrorBox message={error} />}
        <button type="submit" class="btn btn-primary" data-testid="sign-in" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
