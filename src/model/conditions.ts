import { z } from 'zod';

/** Problems that can be open on a resource. `unmonitored` is reporting only: no remediation. */
export const CONDITION_TYPES = [
  'check_failing',
  'unreachable',
  'paused_io_error',
  'adapter_unreachable',
  'unmonitored',
] as const;
export const ConditionTypeSchema = z.enum(CONDITION_TYPES);
export type ConditionType = z.infer<typeof ConditionTypeSchema>;

export const CONDITION_STATUSES = ['open', 'resolved'] as const;
export const ConditionStatusSchema = z.enum(CONDITION_STATUSES);
export type ConditionStatus = z.infer<typeof ConditionStatusSchema>;

/** A Condition as reads return it (the write side lives in conditions.ts). */
export interface ConditionRecord {
  id: string;
  type: string;
  status: 'open' | 'resolved';
  resourceId: string;
  openedAt: string;
  resolvedAt: string | null;
  evidence: unknown;
  attribution: unknown;
}
