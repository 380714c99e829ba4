import type { NotificationMessage } from './notification-events.js';

/**
 * The Slack incoming-webhook message (pure): Block Kit with a summary line, the narrative and a
 * button linking to the console — the inbox for approvals, the resource page otherwise (an alert
 * received links to its resource's page; one naming nothing aitia holds to Alertmanager). No
 * interactive buttons: the link is the action. Every button text and every text of a `confirm`
 * object is `plain_text` (Slack drops a confirm whose text is `mrkdwn`, and the click with it).
 */

interface PlainText {
  type: 'plain_text';
  text: string;
  emoji?: boolean;
}

const plain = (text: string): PlainText => ({ type: 'plain_text', text: text.slice(0, 150), emoji: false });

/** Slack's mrkdwn escapes: & < > are control characters there. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The console page a notification links to. */
export function consoleLink(publicUrl: string, m: NotificationMessage): string {
  const base = `${publicUrl.replace(/\/+$/, '')}/console`;
  if (m.event.startsWith('approval.') || m.event.startsWith('grant.')) return `${base}#/inbox`;
  // The kill switch is estate-wide: its audit lines say who set it, when and why.
  if (m.event === 'autonomy.changed') return `${base}#/audit`;
  return `${base}#/resource/${encodeURIComponent(m.resourceId)}`;
}

/** An alert naming nothing aitia holds has no page of aitia's: it links to Alertmanager (or its source) when it can. */
function unmatchedAlertLink(m: NotificationMessage): string | null {
  for (const url of [m.payload.externalURL, m.payload.generatorURL])
    if (typeof url === 'string' && /^https?:\/\//.test(url)) return url;
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** One line saying what happened, mrkdwn-escaped. */
export function summaryOf(m: NotificationMessage): string {
  const p = m.payload;
  const approval = (p.approval ?? {}) as Record<string, unknown>;
  const target = escapeMrkdwn(str(approval.targetName) ?? m.resourceId);
  const action = escapeMrkdwn(str(approval.action) ?? '');
  const cond = (p.condition ?? {}) as Record<string, unknown>;
  const actor = escapeMrkdwn(str(p.actor) ?? 'someone');
  switch (m.event) {
    case 'approval.requested':
      return `*Approval requested*: ${action} on ${target} by ${escapeMrkdwn(str(approval.requester) ?? '?')}`;
    case 'approval.decided':
      return `*Approval ${p.change === 'approved' ? 'approved' : 'denied'}*: ${action} on ${target} by ${actor}`;
    case 'approval.expired':
      return `*Approval expired*: ${action} on ${target}`;
    case 'grant.redeemed':
      return `*Grant redeemed*: ${action} on ${target} by ${actor}`;
    case 'grant.refused':
      return `*Grant refused*: ${action} on ${target} by ${actor}`;
    case 'condition.opened':
      return `*Condition ${escapeMrkdwn(str(cond.type) ?? '')} opened* on ${escapeMrkdwn(m.resourceId)}${p.suppressed ? ' (suppressed: expected change)' : ''}`;
    case 'condition.resolved':
      return `*Condition ${escapeMrkdwn(str(cond.type) ?? '')} resolved* on ${escapeMrkdwn(m.resourceId)}`;
    case 'condition.reattributed':
      return `*Condition ${escapeMrkdwn(str(cond.type) ?? '')} re-attributed* on ${escapeMrkdwn(m.resourceId)}${p.suppressed ? ' (suppressed now: expected change)' : ''}`;
    case 'autonomy.changed':
      return autonomySummary(p, actor);
    case 'transition.unexplained': {
      const t = (p.transition ?? {}) as Record<string, unknown>;
      return `*Unexplained change* on ${escapeMrkdwn(m.resourceId)}: ${escapeMrkdwn(`${str(t.from) ?? '?'} → ${str(t.to) ?? '?'}`)}`;
    }
    case 'transition.reexplained':
      return reexplainedSummary(m.resourceId, p);
    case 'alert.received':
      return alertSummary(p);
    default:
      return `*${escapeMrkdwn(m.event)}* on ${escapeMrkdwn(m.resourceId)}`;
  }
}

const AUTONOMY_TITLES: Record<string, string> = {
  halted: 'Autonomy halted',
  resumed: 'Autonomy resumed',
  breaker_opened: 'Breaker opened',
  breaker_closed: 'Breaker closed',
};

/** `*Autonomy halted* by alice: maintenance` — who set the switch (or aitia, for a breaker) and why. */
function autonomySummary(p: Record<string, unknown>, actor: string): string {
  const change = str(p.change) ?? 'changed';
  const title = AUTONOMY_TITLES[change] ?? `Autonomy ${escapeMrkdwn(change)}`;
  const reason = str(p.reason);
  return `*${title}* by ${actor}${reason ? `: ${escapeMrkdwn(reason)}` : ''}`;
}

/** `*Change explained again* on …: cause unknown → alice@pve (high)` — what the first answer said, and the new one. */
function reexplainedSummary(resourceId: string, p: Record<string, unknown>): string {
  const answer = (v: unknown) => {
    const a = (v ?? {}) as Record<string, unknown>;
    const confidence = str(a.confidence) ?? '?';
    if (confidence === 'none') return 'cause unknown';
    return `${str(a.actor) ?? 'nobody named'} (${confidence})`;
  };
  return `*Change explained again* on ${escapeMrkdwn(resourceId)}: ${escapeMrkdwn(`${answer(p.before)} → ${answer(p.after)}`)}`;
}

/** `*Alert InstanceDown firing* on vm web01`, or what an unmatched alert names and why aitia holds nothing for it. */
function alertSummary(p: Record<string, unknown>): string {
  const r = (p.resource ?? null) as Record<string, unknown> | null;
  const head = `*Alert ${escapeMrkdwn(str(p.alertname) ?? 'alert')} ${str(p.status) === 'resolved' ? 'resolved' : 'firing'}*`;
  if (r) return `${head} on ${escapeMrkdwn(`${str(r.kind) ?? ''} ${str(r.name) ?? str(r.id) ?? ''}`.trim())}`;
  return `${head} (unmatched: ${escapeMrkdwn(str(p.unmatchedReason) ?? 'names nothing aitia holds')})`;
}

/** Slack refuses a text block over 3000 characters (and the message with it). */
const MAX_BLOCK_TEXT = 2900;

/** The message body an incoming webhook takes: `text` (the notification fallback) and `blocks`. */
export function slackMessage(m: NotificationMessage, publicUrl: string): Record<string, unknown> {
  const summary = summaryOf(m);
  const narrative = str(m.payload.narrative);
  const isApproval = m.event.startsWith('approval.') || m.event.startsWith('grant.');
  const unmatchedAlert = m.event === 'alert.received' && m.payload.matched !== true;
  const external = unmatchedAlert ? unmatchedAlertLink(m) : null;
  const label = isApproval
    ? 'Open the inbox'
    : m.event === 'autonomy.changed'
      ? 'Open the audit log'
      : external
        ? 'Open in Alertmanager'
        : 'Open in aitia';
  const button: Record<string, unknown> = {
    type: 'button',
    text: plain(label),
    url: external ?? consoleLink(publicUrl, m),
    action_id: `aitia-open-${m.seq}`,
  };
  if (m.event === 'approval.requested')
    button.confirm = {
      title: plain('Open the approval?'),
      text: plain('The console shows the request with its inputs; approve or deny it there.'),
      confirm: plain('Open'),
      deny: plain('Not now'),
    };
  return {
    text: summary.replace(/\*/g, ''),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: summary } },
      ...(narrative
        ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(narrative).slice(0, MAX_BLOCK_TEXT) }] }]
        : []),
      // An unmatched alert without an Alertmanager URL has nowhere to link.
      ...(unmatchedAlert && !external ? [] : [{ type: 'actions', elements: [button] }]),
    ],
  };
}
