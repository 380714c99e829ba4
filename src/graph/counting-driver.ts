import type { Driver } from 'neo4j-driver';

/* eslint-disable @typescript-eslint/no-explicit-any -- a transparent Proxy over the driver's own types */

/**
 * Wraps a driver so every Cypher statement sent through it is counted (executeQuery, session.run and
 * tx.run). Used by the N+1 test and `bench:api` to show that DataLoaders keep query counts constant.
 */
export function countingDriver(driver: Driver): { driver: Driver; count(): number; reset(): void } {
  let n = 0;
  const wrapTx = (tx: any) =>
    new Proxy(tx, { get: (t, p) => (p === 'run' ? (...a: unknown[]) => (n++, t.run(...a)) : Reflect.get(t, p)) });
  const wrapSession = (s: any) =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === 'run') return (...a: unknown[]) => (n++, target.run(...a));
        if (prop === 'executeRead' || prop === 'executeWrite')
          return (work: (tx: unknown) => unknown, cfg?: unknown) =>
            target[prop]((tx: unknown) => work(wrapTx(tx)), cfg);
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  const proxy = new Proxy(driver, {
    get(target, prop) {
      if (prop === 'executeQuery') return (...a: unknown[]) => (n++, (target.executeQuery as any)(...a));
      if (prop === 'session') return (...a: unknown[]) => wrapSession((target.session as any)(...a));
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { driver: proxy, count: () => n, reset: () => (n = 0) };
}
