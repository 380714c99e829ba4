import {
  hasFlag,
  judgeWriteTarget,
  positionals,
  scanDestructiveText,
  SPECIAL_CHECKS,
  type Verdict,
} from './command-checks.js';
import {
  ALWAYS_DESTRUCTIVE,
  ALWAYS_MUTATING,
  INTERPRETERS,
  MAX_POSITIONALS,
  MUTATING_FLAGS,
  READ_ONLY_COMMANDS,
  SHELLS,
  SUBCOMMAND_TOOLS,
  type SubcommandRule,
} from './command-rules.js';
import { maxRisk, type RiskClass } from './risk.js';
import { parseShell, type SimpleCommand } from './shell-parse.js';
import { unwrapCommand } from './command-wrappers.js';

/** One part of a command line and how it was judged. */
export interface CommandPart {
  command: string;
  riskClass: RiskClass;
  reason: string;
}

/** A command line's risk: the maximum over its parts (a chain is as risky as its riskiest link). */
export interface CommandClassification {
  riskClass: RiskClass;
  parts: CommandPart[];
}

const MAX_DEPTH = 6;
const OFF_LIST = 'not on the read-only allow-list';

/**
 * Classifies a shell command for a `run` action: read_only only when every part is on the
 * read-only allow-list; package, kernel and service-enablement changes and anything unknown are
 * config_mutation; erasing storage is destructive. Pipes, lists, `sudo`, env prefixes, quotes,
 * `sh -c` and substitutions are followed; what cannot be read fails closed.
 */
export function classifyCommand(command: string): CommandClassification {
  const parts = classifyText(command, 0);
  return { riskClass: parts.reduce<RiskClass>((acc, p) => maxRisk(acc, p.riskClass), 'read_only'), parts };
}

function classifyText(text: string, depth: number): CommandPart[] {
  if (text.trim() === '')
    return [{ command: text, riskClass: 'config_mutation', reason: 'empty command: nothing to classify' }];
  if (depth > MAX_DEPTH)
    return [{ command: text, riskClass: 'config_mutation', reason: 'commands nested too deeply to analyse' }];
  const parsed = parseShell(text);
  const parts: CommandPart[] = [];
  for (const error of parsed.errors) {
    const scan = scanDestructiveText(text);
    parts.push({
      command: text,
      riskClass: scan?.riskClass ?? 'config_mutation',
      reason: scan?.reason ?? `cannot be read safely: ${error}`,
    });
  }
  for (const pipeline of parsed.pipelines) {
    pipeline.forEach((cmd, i) => parts.push(...classifySimple(cmd, { piped: i > 0, fullText: text, depth })));
  }
  for (const body of parsed.substitutions) parts.push(...classifyText(body, depth + 1));
  if (parts.length === 0)
    parts.push({ command: text, riskClass: 'read_only', reason: 'comment or empty list: runs nothing' });
  return parts;
}

interface Context {
  piped: boolean;
  fullText: string;
  depth: number;
}

function classifySimple(cmd: SimpleCommand, ctx: Context): CommandPart[] {
  const shown = [...cmd.words, ...cmd.redirects.map((r) => `${r.op}${r.target}`)].join(' ');
  const part = (v: Verdict): CommandPart => ({ command: shown, ...v });
  const parts: CommandPart[] = [];
  for (const r of cmd.redirects) {
    const writes = r.op.includes('>') && !(r.op.endsWith('&') && /^(\d+|-)$/.test(r.target));
    const v = writes ? judgeWriteTarget(r.target, `redirection ${r.op}`) : null;
    if (v !== null) parts.push(part(v));
  }
  const unwrapped = unwrapCommand(cmd.words);
  if (unwrapped.kind === 'inner') return [...parts, ...classifyText(unwrapped.text, ctx.depth + 1)];
  if (unwrapped.kind === 'verdict') return [...parts, part(unwrapped.verdict)];
  const [first, ...args] = unwrapped.words;
  if (first === undefined) return parts.length > 0 ? parts : [part({ riskClass: 'read_only', reason: 'no command' })];
  const name = first.includes('/') ? first.slice(first.lastIndexOf('/') + 1) : first;
  if (SHELLS.has(name)) return [...parts, ...classifyShell(name, args, ctx, part)];
  return [...parts, part(judge(name, args, ctx))];
}

/** `sh -c 'cmd'` is judged by `cmd`; a shell reading a pipe, here-document or script is not read-only. */
function classifyShell(name: string, args: string[], ctx: Context, part: (v: Verdict) => CommandPart): CommandPart[] {
  const flags = args.filter((a, i) => a.startsWith('-') && args.slice(0, i).every((b) => b.startsWith('-')));
  const rest = args.slice(flags.length);
  if (flags.some((f) => /^-[A-Za-z]*c[A-Za-z]*$/.test(f)) && rest[0] !== undefined)
    return classifyText(rest[0], ctx.depth + 1);
  const scan = scanDestructiveText(ctx.fullText);
  const why =
    rest[0] !== undefined
      ? `${name} runs script ${rest[0]}, which is not analysed`
      : `${name} reads commands from ${ctx.piped ? 'a pipe' : 'stdin'}: a command piped into a shell is not read-only`;
  return [part(scan ?? { riskClass: 'config_mutation', reason: why })];
}

function judge(name: string, args: string[], ctx: Context): Verdict {
  const alias =
    name === 'gawk' || name === 'mawk' || name === 'nawk' ? 'awk' : name.startsWith('mkfs.') ? 'mkfs' : name;
  const always = ALWAYS_DESTRUCTIVE[alias];
  if (always !== undefined) return { riskClass: 'destructive', reason: `destructive: ${name} ${always}` };
  const mutating = ALWAYS_MUTATING[alias] ?? (alias.includes('kernel') ? 'kernel mutation' : undefined);
  if (mutating !== undefined) return { riskClass: 'config_mutation', reason: `${mutating} (${name})` };
  const special = SPECIAL_CHECKS[alias];
  if (special !== undefined) return special(args);
  const tool = SUBCOMMAND_TOOLS[alias];
  if (tool !== undefined) return judgeSubcommand(name, tool, args);
  if (INTERPRETERS.has(alias)) {
    return (
      scanDestructiveText(ctx.fullText) ?? {
        riskClass: 'config_mutation',
        reason: `${name} runs a program that is not analysed`,
      }
    );
  }
  if (READ_ONLY_COMMANDS.has(alias)) {
    const flag = (MUTATING_FLAGS[alias] ?? []).find((f) => hasFlag(args, f));
    if (flag !== undefined) return { riskClass: 'config_mutation', reason: `${name} ${flag} writes` };
    const max = MAX_POSITIONALS[alias];
    if (max !== undefined && positionals(args).length > max)
      return { riskClass: 'config_mutation', reason: `${name} with arguments changes state` };
    return { riskClass: 'read_only', reason: 'read-only allow-list' };
  }
  // Off the list: still look inside its arguments (`ssh host 'mkfs …'`) for destructive intent.
  return scanDestructiveText(args.join(' ')) ?? { riskClass: 'config_mutation', reason: `${name}: ${OFF_LIST}` };
}

function judgeSubcommand(label: string, rule: SubcommandRule, args: string[]): Verdict {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += rule.valueFlags?.includes(args[i]!) ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) {
    return rule.bareIsRead
      ? { riskClass: 'read_only', reason: 'read-only allow-list' }
      : { riskClass: 'config_mutation', reason: `${label} without a read-only subcommand: ${OFF_LIST}` };
  }
  const here = `${label} ${sub}`;
  const nested = rule.nested?.[sub];
  if (nested !== undefined) return judgeSubcommand(here, nested, rest);
  if (rule.destructive?.includes(sub)) return { riskClass: 'destructive', reason: `destructive: ${here}` };
  const flag = (rule.destructiveFlags?.[sub] ?? []).find((f) => hasFlag(rest, f));
  if (flag !== undefined) return { riskClass: 'destructive', reason: `destructive: ${here} ${flag}` };
  if (rule.read.includes(sub)) return { riskClass: 'read_only', reason: 'read-only allow-list' };
  const named = rule.named?.[sub];
  return { riskClass: 'config_mutation', reason: named !== undefined ? `${named} (${here})` : `${here}: ${OFF_LIST}` };
}
