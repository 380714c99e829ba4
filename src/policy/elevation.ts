import { maxRisk, type RiskClass } from './risk.js';

/** Thresholds above which an action's size alone raises its risk. */
export const ELEVATION_LIMITS = { count: 1, memoryMb: 16384, diskGb: 500, targets: 3 } as const;

/** The risk an action's parameters imply: the maximum, and each elevation with its own class. */
export interface Elevation {
  riskClass: RiskClass;
  steps: Array<{ riskClass: RiskClass; reason: string }>;
}

// Callers spell parameters differently; every spelling is read so none slips past.
const MEMORY_KEYS = ['memory', 'memory_mb', 'memoryMb'];
const DISK_KEYS = ['disk', 'disk_gb', 'diskGb'];
const FORCE_KEYS = ['force'];
const SKIP_CHECK_KEYS = ['skip_checks', 'skipChecks'];

type Numeric = { kind: 'absent' } | { kind: 'number'; value: number } | { kind: 'invalid'; raw: string };

function readNumber(params: Record<string, unknown>, key: string): Numeric {
  if (!Object.prototype.hasOwnProperty.call(params, key)) return { kind: 'absent' };
  const raw = params[key];
  if (raw === undefined || raw === null) return { kind: 'absent' };
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(value)
    ? { kind: 'number', value }
    : { kind: 'invalid', raw: JSON.stringify(raw) ?? String(raw) };
}

function isTrue(params: Record<string, unknown>, key: string): boolean {
  const v = Object.prototype.hasOwnProperty.call(params, key) ? params[key] : undefined;
  return v === true || (typeof v === 'string' && v.trim().toLowerCase() === 'true');
}

/**
 * Parameter elevation: count > 1, memory > 16384 MB, disk > 500 GB or more than 3 targets make an
 * action at least config_mutation; force or skip_checks make it destructive. A size that cannot
 * be read as a number fails closed (config_mutation).
 */
export function elevateByParams(params: Record<string, unknown> = {}, targetCount = 1): Elevation {
  let riskClass: RiskClass = 'read_only';
  const steps: Elevation['steps'] = [];
  const raise = (to: RiskClass, reason: string): void => {
    riskClass = maxRisk(riskClass, to);
    steps.push({ riskClass: to, reason });
  };
  const checks: Array<[string[], number, string]> = [
    [['count'], ELEVATION_LIMITS.count, ''],
    [MEMORY_KEYS, ELEVATION_LIMITS.memoryMb, ' MB'],
    [DISK_KEYS, ELEVATION_LIMITS.diskGb, ' GB'],
  ];
  for (const [keys, limit, unit] of checks) {
    for (const key of keys) {
      const n = readNumber(params, key);
      if (n.kind === 'number' && n.value > limit)
        raise('config_mutation', `parameter ${key}=${n.value}${unit} exceeds ${limit}${unit}`);
      if (n.kind === 'invalid') raise('config_mutation', `parameter ${key}=${n.raw} is not a number`);
    }
  }
  if (targetCount > ELEVATION_LIMITS.targets)
    raise('config_mutation', `${targetCount} targets exceed ${ELEVATION_LIMITS.targets}`);
  for (const key of [...FORCE_KEYS, ...SKIP_CHECK_KEYS]) {
    if (isTrue(params, key)) raise('destructive', `parameter ${key}=true bypasses safety checks`);
  }
  return { riskClass, steps };
}
