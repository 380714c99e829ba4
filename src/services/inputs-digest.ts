import type { Driver } from 'neo4j-driver';
import { installationSecret } from '../graph/installation-secret.js';
import type { ServiceDeps } from './deps.js';

/*
 * The key approvals' input digests are taken with (HMAC-SHA256). An approval's inputsDigest is
 * readable by every agent; unkeyed, a weak secret among the inputs could be found offline by
 * hashing guesses. Keyed with the installation's secret (in the graph: one for every replica),
 * the digest still binds a grant to its inputs and tells nothing about them.
 */

const SECRET_NAME = 'inputs-digest';
const keys = new WeakMap<Driver, Promise<string>>();

/** The installation's digest key, read once per driver (a failed read is retried next time). */
export function inputsDigestKey(deps: Pick<ServiceDeps, 'driver'>): Promise<string> {
  let key = keys.get(deps.driver);
  if (key === undefined) {
    key = installationSecret(deps.driver, SECRET_NAME);
    keys.set(deps.driver, key);
    key.catch(() => keys.delete(deps.driver));
  }
  return key;
}
