// The console: sign-in until a token is accepted, then the shell (nav, search, kill switch) around
// the page the hash route names.
import type { FunctionComponent } from 'preact';
import { useAbout } from './about';
import { KillSwitch } from './components/killswitch';
import { SearchBox } from './components/search-box';
import { Badge, Button } from './components/ui';
import AuditPage from './pages/audit';
import HistoryPage from './pages/history';
import InboxPage from './pages/inbox';
import ResourcePage from './pages/resource';
import SearchPage from './pages/search';
import SignInPage from './pages/signin';
import TimelinePage from './pages/timeline';
import { href, useRoute } from './router';
import { endSession, useSession, type Session } from './session';

type PageProps = { session: Session; params: Record<string, string> };

const PAGES: Record<string, FunctionComponent<PageProps>> = {
  inbox: InboxPage,
  history: HistoryPage,
  timeline: TimelinePage,
  resource: ResourcePage,
  search: SearchPage,
  audit: AuditPage,
};

const NAV: { page: string; route: string; label: string; operatorsOnly?: boolean }[] = [
  { page: 'inbox', route: '/inbox', label: 'Inbox' },
  { page: 'history', route: '/approvals/history', label: 'History' },
  { page: 'timeline', route: '/timeline', label: 'Timeline' },
  { page: 'search', route: '/search', label: 'Search' },
  { page: 'audit', route: '/audit', label: 'Audit', operatorsOnly: true },
];

function Shell(props: { session: Session }) {
  const route = useRoute();
  const { about, refresh } = useAbout();
  const Page = PAGES[route.page];
  return (
    <>
      <header class="shell-header">
        <a class="brand" href={href('/inbox')}>
          aitia
        </a>
        <nav aria-label="Console pages">
          <ul>
            {NAV.filter((n) => !n.operatorsOnly || props.session.canAct).map((n) => (
              <li key={n.page}>
                <a
                  href={href(n.route)}
                  aria-current={route.page === n.page ? 'page' : undefined}
                  data-testid={`nav-${n.page}`}
                >
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SearchBox />
        <div class="who" data-testid="who">
          <span title="Signed in as">{props.session.principal}</span> <Badge value={props.session.role} kind="role" />
          {!props.session.canAct && <span class="read-only"> read-only</span>}
          <Button onClick={() => endSession('Signed out.')} testid="sign-out">
            Sign out
          </Button>
        </div>
        <div class="killswitch">
          <KillSwitch session={props.session} autonomy={about?.autonomy ?? null} onChanged={refresh} />
        </div>
      </header>
      <main id="page" data-testid={`page-${route.page}`}>
        {Page ? (
          <Page session={props.session} params={route.params} />
        ) : (
          <p>
            No page here. <a href={href('/inbox')}>Go to the inbox</a>.
          </p>
        )}
      </main>
    </>
  );
}

export function App() {
  const { session, message } = useSession();
  return session ? <Shell session={session} /> : <SignInPage message={message} />;
}
