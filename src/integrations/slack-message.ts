import type { NotificationMessage } from './notification-events.js';

/**
 * The Slack incoming-webhook message (pure): Block Kit with a summary line, the narrative and a
 * button linking to the console — the inbox for approvals, the resource page otherwise. No
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
    case 'autonomy.changed':
      return autonomySummary(p, actor);
    case 'transition.unexplained': {
      const t = (p.transition ?? {}) as Record<string, unknown>;
      return `*Unexplained change* on ${escapeMrkdwn(m.resourceId)}: ${escapeMrkdwn(`${str(t.from) ?? '?'} → ${str(t.to) ?? '?'}`)}`;
    }
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

/** The message body an incoming webhook takes: `text` (the notification fallback) and `blocks`. */
export function slackMessage(m: NotificationMessage, publicUrl: string): Record<string, unknown> {
  const summary = summaryOf(m);
  const narrative = str(m.payload.narrative);
  const isApproval = m.event.startsWith('approval.') || m.event.startsWith('grant.');
  const label = isApproval ? 'Open the inbox' : m.event === 'autonomy.changed' ? 'Open the audit log' : 'Open in aitia';
  const button: Record<string, unknown> = {
    type: 'button',
    text: plain(label),
    url: consoleLink(publicUrl, m),
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
      ...(narrative ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(narrative) }] }] : []),
      { type: 'actions', elements: [button] },
    ],
  };
}
