import {
  judgeWriteTarget,
  riskiest,
  scanDestructiveText,
  SPECIAL_CHECKS,
  type CheckContext,
  type Verdict,
} from './checks.js';
import { judgeListed } from './listed.js';
import {
  ALWAYS_DESTRUCTIVE,
  ALWAYS_MUTATING,
  INTERPRETERS,
  READ_ONLY_COMMANDS,
  SHELLS,
  VERSIONED_INTERPRETER,
} from './rules.js';
import { SUBCOMMAND_TOOLS } from './subcommand-rules.js';
import { judgeGit, judgeSubcommand } from './subcommands.js';
import { unwrapCommand, type Word } from './wrappers.js';
import { maxRisk, type RiskClass } from '../risk.js';
import { parseShell, type SimpleCommand } from './shell-parse.js';
import { isDynamic, type Expansion } from './shell-words.js';

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
 * `sh -c` and substitutions are followed; what cannot be read fails closed. A command word that
 * is not a static literal (`$X`, `$(…)`, `$'…'`, globs, braces) is destructive: what runs is not
 * known. Options are read however they are spelt (`-o/x`, `-s@0`, `--out=`), and programs that
 * run other programs (`rg --pre`, `find -exec`, `awk system()`) are judged by what they run.
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

function verdictOf(parts: readonly CommandPart[]): Verdict {
  return riskiest(parts) ?? { riskClass: 'read_only', reason: 'no command' };
}

function checkContext(expansions: ReadonlyArray<Expansion | null>, ctx: Context): CheckContext {
  return {
    expansions,
    judgeWords: (words) =>
      verdictOf(
        classifySimple({ words, expansions: words.map(() => null), redirects: [] }, { ...ctx, depth: ctx.depth + 1 }),
      ),
    judgeText: (text) => verdictOf(classifyText(text, ctx.depth + 1)),
  };
}

const notStatic = (e: Expansion, what: string): Verdict => ({
  riskClass: 'destructive',
  reason: `destructive: ${what} is not a static literal (${e.why}): what runs is not known`,
});

function classifySimple(cmd: SimpleCommand, ctx: Context): CommandPart[] {
  const shown = [...cmd.words, ...cmd.redirects.map((r) => `${r.op}${r.target}`)].join(' ');
  const part = (v: Verdict): CommandPart => ({ command: shown, ...v });
  const parts: CommandPart[] = [];
  for (const r of cmd.redirects) {
    const writes = r.op.includes('>') && !(r.op.endsWith('&') && /^(\d+|-)$/.test(r.target));
    const v = writes ? judgeWriteTarget(r.target, `redirection ${r.op}`, r.expansion) : null;
    if (v !== null) parts.push(part(v));
  }
  const words: Word[] = cmd.words.map((text, i) => ({ text, expansion: cmd.expansions[i] ?? null }));
  const unwrapped = unwrapCommand(words);
  parts.push(...unwrapped.notes.map(part));
  if (unwrapped.kind === 'inner') {
    if (isDynamic(unwrapped.expansion))
      return [...parts, part(notStatic(unwrapped.expansion!, 'the command text is built when it runs and'))];
    return [...parts, ...classifyText(unwrapped.text, ctx.depth + 1)];
  }
  if (unwrapped.kind === 'verdict') return [...parts, part(unwrapped.verdict)];
  const [first, ...rest] = unwrapped.words;
  if (first === undefined) return parts.length > 0 ? parts : [part({ riskClass: 'read_only', reason: 'no command' })];
  if (first.expansion !== null) return [...parts, part(notStatic(first.expansion, `command word ${first.text}`))];
  const args = rest.map((w) => w.text);
  const check = checkContext(
    rest.map((w) => w.expansion),
    ctx,
  );
  const name = first.text.includes('/') ? first.text.slice(first.text.lastIndexOf('/') + 1) : first.text;
  if (SHELLS.has(name)) return [...parts, ...classifyShell(name, rest, ctx, part)];
  return [...parts, part(judge(name, args, ctx, check))];
}

/** `sh -c 'cmd'` is judged by `cmd`; a shell reading a pipe, here-document or script is not read-only. */
function classifyShell(name: string, words: Word[], ctx: Context, part: (v: Verdict) => CommandPart): CommandPart[] {
  const args = words.map((w) => w.text);
  const flags = args.filter((a, i) => a.startsWith('-') && args.slice(0, i).every((b) => b.startsWith('-')));
  const rest = args.slice(flags.length);
  if (flags.some((f) => /^-[A-Za-z]*c[A-Za-z]*$/.test(f)) && rest[0] !== undefined) {
    const text = words[flags.length]!;
    if (isDynamic(text.expansion))
      return [part(notStatic(text.expansion!, `the text ${name} -c runs is built when it runs and`))];
    return classifyText(rest[0], ctx.depth + 1);
  }
  const scan = scanDestructiveText(ctx.fullText);
  const why =
    rest[0] !== undefined
      ? `${name} runs script ${rest[0]}, which is not analysed`
      : `${name} reads commands from ${ctx.piped ? 'a pipe' : 'stdin'}: a command piped into a shell is not read-only`;
  return [part(scan ?? { riskClass: 'config_mutation', reason: why })];
}

function judge(name: string, args: string[], ctx: Context, check: CheckContext): Verdict {
  const alias =
    name === 'gawk' || name === 'mawk' || name === 'nawk' ? 'awk' : name.startsWith('mkfs.') ? 'mkfs' : name;
  const always = ALWAYS_DESTRUCTIVE[alias];
  if (always !== undefined) return { riskClass: 'destructive', reason: `destructive: ${name} ${always}` };
  const mutating = ALWAYS_MUTATING[alias] ?? (alias.includes('kernel') ? 'kernel mutation' : undefined);
  if (mutating !== undefined) return { riskClass: 'config_mutation', reason: `${mutating} (${name})` };
  const special = SPECIAL_CHECKS[alias];
  if (special !== undefined) return special(args, check);
  const tool = SUBCOMMAND_TOOLS[alias];
  if (tool !== undefined)
    return alias === 'git' ? judgeGit(tool, args, check) : judgeSubcommand(name, tool, args, check);
  if (INTERPRETERS.has(alias) || VERSIONED_INTERPRETER.test(alias)) {
    return (
      scanDestructiveText(ctx.fullText) ?? {
        riskClass: 'config_mutation',
        reason: `${name} runs a program that is not analysed`,
      }
    );
  }
  if (READ_ONLY_COMMANDS.has(alias)) return judgeListed(alias, args, check);
  // Off the list: still look inside it (`ssh host 'mkfs …'`, `ceph osd pool delete`) for destructive intent.
  return (
    scanDestructiveText([name, ...args].join(' ')) ?? { riskClass: 'config_mutation', reason: `${name}: ${OFF_LIST}` }
  );
}
