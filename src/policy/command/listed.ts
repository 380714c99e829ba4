/**
 * Allow-listed commands judged by their options and operands (command-flags.ts): read-only only
 * when no option writes, changes state or runs a program, and no operand is one too many.
 */
import {
  judgeWriteTarget,
  mutation,
  onEveryFile,
  readOnly,
  riskiest,
  type CheckContext,
  type Verdict,
} from './checks.js';
import { COMMAND_FLAGS, type CommandFlags } from './flags.js';
import { readOptions } from './options.js';
import { mayBeMany } from './shell-words.js';

// `less +cmd` runs a less command at start; only moving and searching are known to be harmless.
const LESS_SAFE_START = /^\+([0-9]*[GgFfp%]?|\/[^!|]*)$/;

/**
 * getopt_long takes any unambiguous prefix, so the long options that write, change state or run
 * a program are known names too: `--rot` is `--rotate`, `--fl` is `--flush`.
 */
function withEveryLong(spec: CommandFlags): CommandFlags {
  const named = [
    ...Object.keys(spec.mutating ?? {}),
    ...Object.keys(spec.mutatingValues ?? {}),
    ...(spec.writes ?? []),
    ...(spec.runs ?? []),
  ].filter((n) => n.startsWith('--'));
  return { ...spec, long: [...(spec.long ?? []), ...named] };
}

export function judgeListed(name: string, args: string[], ctx: CheckContext): Verdict {
  const spec = COMMAND_FLAGS[name];
  if (spec === undefined) return readOnly();
  const read = readOptions(args, withEveryLong(spec), ctx.expansions);
  const verdicts: Array<Verdict | null> = [];
  if (read.unsure !== null) verdicts.push(mutation(`${name}: ${read.unsure}`));
  const roots = read.operands.length > 0 ? read.operands : ['.'];
  for (const o of read.options) {
    const label = `${name} ${o.name}`;
    if (spec.writes?.includes(o.name)) verdicts.push(judgeWriteTarget(o.value ?? '', label));
    const why = spec.mutating?.[o.name];
    if (why !== undefined) verdicts.push(mutation(`${label} ${why}`));
    if (spec.mutatingPrefixes?.some((p) => o.name.startsWith(p))) verdicts.push(mutation(`${label} changes state`));
    const re = spec.mutatingValues?.[o.name];
    if (re?.test(o.value ?? '')) verdicts.push(mutation(`${label} ${o.value} changes state`));
    if (spec.runs?.includes(o.name)) verdicts.push(onEveryFile([o.value ?? ''], roots, label, 'it reads', ctx));
  }
  if (name === 'less' || name === 'zless') {
    const start = read.operands.find((op) => op.startsWith('+') && !LESS_SAFE_START.test(op));
    if (start !== undefined)
      verdicts.push(mutation(`${name} ${start} runs a ${name} command at start, which can run a shell`));
  }
  if (spec.maxOperands !== undefined) {
    const operands = spec.plusIsFormat ? read.operands.filter((op) => !op.startsWith('+')) : read.operands;
    if (read.operandAt.some((k) => mayBeMany(ctx.expansions[k])))
      verdicts.push(
        mutation(`${name}: an operand expanded when it runs may be several, and one too many changes state`),
      );
    for (const extra of operands.slice(spec.maxOperands)) {
      verdicts.push(
        spec.operandWrites ? judgeWriteTarget(extra, name) : mutation(`${name} with operand ${extra} changes state`),
      );
    }
  }
  return riskiest(verdicts) ?? readOnly();
}
