import type { ProxmoxClient } from './client.js';
import { guestAgentState, type AgentPingAnswer, type GuestAgentState } from './guest-agent.js';
import { pingGuestAgent } from './inventory-get.js';

/** What one agent ping said about a VM, and when. */
export interface AgentFact {
  /** running | not_running | not_configured; null when the ping gave no usable answer (timeout, 595). */
  state: GuestAgentState | null;
  /** When it was pinged (epoch ms). */
  at: number;
  /** The ping's answer, for the reason in a preflight message. */
  answer: AgentPingAnswer;
  /** True when this call sent the ping, false when the cached or in-flight answer was used. */
  fresh: boolean;
}

/** A VM to ask about: where it runs. */
export interface AgentTarget {
  node: string;
  vmid: number;
}

/**
 * Pings a guest agent on demand, for the gate's preflight when the stored `qemu_guest_agent` is
 * older than it accepts: bounded (`maxConcurrent` pings at once, the rest wait), cached (an answer
 * younger than `maxAgeMs` is reused), and deduplicated (concurrent asks about one VM share one
 * ping). The poller keeps its own cadence; this is for the moment before an action.
 */
export interface AgentPinger {
  /** The VM's agent fact, at most `maxAgeMs` old (default: the pinger's). */
  check(target: AgentTarget, options?: { maxAgeMs?: number }): Promise<AgentFact>;
  /** Cached facts (bounded by `cacheSize`). */
  readonly size: number;
}

export interface AgentPingerOptions {
  /** An answer younger than this is reused. Default 60 s. */
  maxAgeMs?: number;
  /** Pings in flight at once. Default 2. */
  maxConcurrent?: number;
  /** Facts kept; the oldest go first. Default 1000. */
  cacheSize?: number;
  /** The clock (epoch ms). */
  now?: () => number;
}

export function createAgentPinger(client: ProxmoxClient, options: AgentPingerOptions = {}): AgentPinger {
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? 2);
  const cacheSize = Math.max(1, options.cacheSize ?? 1000);
  const now = options.now ?? Date.now;
  const cache = new Map<string, AgentFact>();
  const inFlight = new Map<string, Promise<AgentFact>>();
  let active = 0;
  const waiting: Array<() => void> = [];

  const ping = async (key: string, target: AgentTarget): Promise<AgentFact> => {
    if (active >= maxConcurrent) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      const answer = await pingGuestAgent(client, target.node, target.vmid);
      // The ping itself answers for a stopped VM or a missing agent; enabled/running are what it implies.
      const fact: AgentFact = {
        state: guestAgentState({ enabled: true, running: true, ping: answer }),
        at: now(),
        answer,
        fresh: true,
      };
      cache.delete(key);
      cache.set(key, fact);
      while (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
      return fact;
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };

  return {
    get size() {
      return cache.size;
    },
    check(target, opts = {}) {
      const key = `${target.node}/${target.vmid}`;
      const cached = cache.get(key);
      if (cached && now() - cached.at < (opts.maxAgeMs ?? maxAgeMs))
        return Promise.resolve({ ...cached, fresh: false });
      const pending = inFlight.get(key);
      if (pending) return pending.then((f) => ({ ...f, fresh: false }));
      const p = ping(key, target).finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
  };
}
