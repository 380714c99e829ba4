import type { UnknownBecause } from '../src/model/index.js';
import { providerWord, statusPhrase } from '../src/model/provider-text.js';

/** Renders a time for the sentence: the narrative's clock (its zone, named once in the sentence). */
export interface UnknownClock {
  label: string;
  short(iso: string): string;
}

/** Proxmox keeps task logs per node, a vCenter one event log: `the task log of pve2`, `the event log`. */
function logNoun(resourceId: string, node: string | null): string {
  if (resourceId.startsWith('vcenter:')) return 'the event log';
  return node ? `the task log of ${providerWord(node)}` : 'the task log';
}

function gapWhy(u: UnknownBecause): string {
  switch (u.gapReason) {
    case 'source_unreachable':
      return `${u.node ? providerWord(u.node) : 'the source'} unreachable`;
    case 'task_stage_failed':
      // The error is the provider's (or the network's) text: quoted as data.
      return `the read failed${u.detail ? `: ${statusPhrase(u.detail)}` : ''}`;
    case 'page_truncated':
      return 'more entries than a read takes: cut short';
    default:
      // not_read: aitia's own words (not read yet, never read), not the provider's.
      return u.detail ?? 'not read';
  }
}

/**
 * One plain sentence saying why the cause is not established, put before the ladder's own words:
 * "No task or event explains this; the task log of pve1 for 02:10:00–02:40:00 UTC was read
 * completely." or "Unknown: the task log of pve2 for 02:10:00–02:25:00 UTC could not be read
 * (pve2 unreachable), so the cause may be there." Empty when there is nothing to say.
 */
export function unknownSentence(u: UnknownBecause | null | undefined, resourceId: string, c: UnknownClock): string {
  if (!u) return '';
  const span = (from: string | null, to: string | null) =>
    from && to ? ` for ${c.short(from)}–${c.short(to)} ${c.label}` : '';
  const log = logNoun(resourceId, u.node);
  switch (u.reason) {
    case 'no_record':
      return `No task or event explains this; ${log}${span(u.from, u.to)} was read completely.`;
    case 'log_not_read':
      return `Unknown: ${log}${span(u.from, u.to)} could not be read (${gapWhy(u)}), so the cause may be there.`;
    case 'beyond_retention':
      return `Unknown: the change is older than ${log} aitia has read${u.horizon ? ` (from ${c.short(u.horizon)} ${c.label})` : ''}, so the cause cannot be looked up.`;
    case 'clock_uncertain': {
      // Behind is measured as a bound (a task listed late inside an earlier read): "at least".
      const off = u.clockOffsetSeconds ?? 0;
      const by = off < 0 ? `at least ${Math.round(-off)} s behind` : `off by ${Math.round(off)} s`;
      return `Unknown: the clock of ${u.node ? providerWord(u.node) : 'the source'} was ${by}, beyond the ${u.toleranceSeconds ?? 0} s tolerance, so its records cannot be placed against this change.`;
    }
    case 'no_log_for_kind':
      return `Unknown: the provider records no task or event for this kind of change, so no record can explain it.`;
  }
}
