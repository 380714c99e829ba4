import { posix } from 'node:path';
import { hasFlag } from './options.js';
import { CRITICAL_PATHS, DESTRUCTIVE_TEXT_PATTERNS } from './rules.js';
import { isRiskier, type RiskClass } from '../risk.js';
import { awkRisk, sedRisk } from './script-checks.js';
import { isDynamic, mayBeOption, type Expansion } from './shell-words.js';

export { hasFlag } from './options.js';

/** One judgement of one command, with the reason an operator will read. */
export interface Verdict {
  riskClass: RiskClass;
  reason: string;
}

/** What a check may ask of the classifier: how each argument is expanded, how a command is judged. */
export interface CheckContext {
  /** Parallel to the arguments. */
  expansions: ReadonlyArray<Expansion | null>;
  /** Judges a command given as words, as the classifier does. */
  judgeWords(words: string[]): Verdict;
  /** Judges a command line given as text. */
  judgeText(text: string): Verdict;
}

export const readOnly = (reason = 'read-only allow-list'): Verdict => ({ riskClass: 'read_only', reason });
export const mutation = (reason: string): Verdict => ({ riskClass: 'config_mutation', reason });
export const destructive = (reason: string): Verdict => ({
  riskClass: 'destructive',
  reason: `destructive: ${reason}`,
});

/** The riskiest verdict (the first of equals), or null for none. */
export function riskiest(verdicts: ReadonlyArray<Verdict | null>): Verdict | null {
  let worst: Verdict | null = null;
  for (const v of verdicts) if (v !== null && (worst === null || isRiskier(v.riskClass, worst.riskClass))) worst = v;
  return worst;
}

/** Arguments that are not options. */
export function positionals(args: readonly string[]): string[] {
  return args.filter((a) => !a.startsWith('-') && !a.startsWith('+'));
}

/** True for `/`, top-level system directories, home, globs of them, and paths built from variables. */
export function isCriticalPath(path: string): boolean {
  // An unexpanded `$VAR` or substitution may well be empty: `rm -rf "$DIR/"` is `rm -rf /`.
  if (path.includes('$') || path.includes('`')) return true;
  // `/./`, `/etc/../` and `/bin/..` name the root too: judge the path as the kernel resolves it.
  const resolved = path.startsWith('/') ? posix.normalize(path) : path;
  const trimmed = resolved
    .replace(/\/+/g, '/')
    .replace(/(\/\*|\/\.)+$/, '')
    .replace(/\/$/, '');
  return CRITICAL_PATHS.has(trimmed === '' ? '/' : trimmed) || path === '/*';
}

const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|mapper\/|disk\/|zd|rbd|loop|pve\/)/;
const HARMLESS_SINK = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;
// Files whose write acts on the running kernel at once: a crash, a reboot, raw memory.
const KERNEL_CONTROL =
  /^\/(proc\/sysrq-trigger|proc\/kcore|dev\/(mem|kmem|port)|sys\/power\/state)$|^\/sys\/firmware\//;

/** What writing to `target` means: nothing, a file change, or overwriting a device. */
export function judgeWriteTarget(target: string, via: string, expansion: Expansion | null = null): Verdict | null {
  if (isDynamic(expansion)) {
    const prefix = target.slice(0, expansion!.at);
    if ('/dev/'.startsWith(prefix) || prefix.startsWith('/dev/'))
      return destructive(`${via} writes ${target}, a path built at run time (it may be a block device)`);
    return mutation(`${via} writes ${target}`);
  }
  // `//dev/./sda` and `/tmp/../dev/sda` are /dev/sda.
  const path = target.startsWith('/') ? posix.normalize(target) : target;
  if (HARMLESS_SINK.test(path)) return null;
  if (BLOCK_DEVICE.test(path)) return destructive(`${via} overwrites block device ${target}`);
  if (KERNEL_CONTROL.test(path)) return destructive(`${via} writes ${target}, which acts on the running kernel`);
  return mutation(`${via} writes ${target}`);
}

/** Destructive patterns found in text the classifier cannot parse (a script, an ssh command). */
export function scanDestructiveText(text: string): Verdict | null {
  for (const [pattern, why] of DESTRUCTIVE_TEXT_PATTERNS) {
    if (pattern.test(text)) return destructive(`${why} (found in text that is not analysed)`);
  }
  return null;
}

function recursiveOnCritical(tool: string, args: readonly string[], ctx: CheckContext): Verdict {
  // An unquoted expansion may hold `-r` (and the path): `rm $X` may be `rm -rf /`.
  const split = ctx.expansions.some((e) => e?.fieldSplit === true && !e.known);
  const recursive = split || hasFlag(args, '-r') || hasFlag(args, '-R') || hasFlag(args, '--recursive');
  if (hasFlag(args, '--no-preserve-root')) return destructive(`${tool} --no-preserve-root`);
  const critical = positionals(args).find(isCriticalPath);
  if (recursive && critical !== undefined) return destructive(`${tool} recursively on ${critical}`);
  return mutation(`${tool} changes files`);
}

// Commands that change or remove what they are run on: run on every file under `/`, they wreck it.
const FILE_ALTERING = new Set(['rm', 'shred', 'unlink', 'truncate', 'chmod', 'chown', 'chgrp', 'mv', 'setfacl']);

/**
 * A command run on every file under `roots` (`find -exec`, `rg --pre`): judged with the roots as
 * its operands (`{}` stands for them), never read-only, destructive when it alters files and a
 * root is critical.
 */
export function onEveryFile(words: string[], roots: string[], via: string, what: string, ctx: CheckContext): Verdict {
  const name = (words[0] ?? '').slice((words[0] ?? '').lastIndexOf('/') + 1);
  const filled = words.some((w) => w.includes('{}'))
    ? words.flatMap((w) => (w === '{}' ? roots : [w.replaceAll('{}', roots[0] ?? '.')]))
    : [...words, ...roots];
  const inner = ctx.judgeWords(filled);
  const critical = roots.find(isCriticalPath);
  const floor =
    FILE_ALTERING.has(name) && critical !== undefined
      ? destructive(`${via} runs ${name} on every file under ${critical}`)
      : mutation(`${via} runs ${name} on every file ${what}`);
  return isRiskier(inner.riskClass, floor.riskClass)
    ? { ...inner, reason: `${via} runs ${name}: ${inner.reason}` }
    : floor;
}

const FIND_RUNS = ['-exec', '-execdir', '-ok', '-okdir'];
const FIND_WRITES = ['-fprint', '-fprint0', '-fprintf', '-fls'];

function judgeFind(args: readonly string[], ctx: CheckContext): Verdict {
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i]!)) i += args[i] === '-D' ? 2 : 1;
  const start = i;
  while (i < args.length && !/^[-(!),]/.test(args[i]!)) i++;
  const roots = args.slice(start, i).length > 0 ? args.slice(start, i) : ['.'];
  const verdicts: Verdict[] = [];
  const unsure = args.findIndex((_, k) => mayBeOption(ctx.expansions[k]));
  if (unsure !== -1)
    verdicts.push(mutation(`find: argument ${args[unsure]} is expanded when it runs, so it may be an action`));
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-delete') {
      const critical = roots.find(isCriticalPath);
      verdicts.push(
        critical !== undefined
          ? destructive(`find ${critical} -delete removes files across ${critical}`)
          : mutation('find -delete removes files'),
      );
    } else if (FIND_RUNS.includes(a)) {
      const end = args.findIndex((w, k) => k > i && (w === ';' || w === '+'));
      const words = args.slice(i + 1, end === -1 ? args.length : end);
      verdicts.push(onEveryFile(words, roots, `find ${a}`, 'it finds', ctx));
      i = end === -1 ? args.length : end;
    } else if (FIND_WRITES.includes(a)) {
      verdicts.push(judgeWriteTarget(args[i + 1] ?? '', `find ${a}`, ctx.expansions[i + 1] ?? null) ?? readOnly());
      i += a === '-fprintf' ? 2 : 1;
    }
  }
  return riskiest(verdicts) ?? readOnly();
}

/** Commands whose risk depends on their arguments in ways a table cannot say. */
export const SPECIAL_CHECKS: Readonly<Record<string, (args: string[], ctx: CheckContext) => Verdict>> = {
  rm: (args, ctx) => recursiveOnCritical('rm', args, ctx),
  chmod: (args, ctx) => recursiveOnCritical('chmod', args, ctx),
  chown: (args, ctx) => recursiveOnCritical('chown', args, ctx),
  chgrp: (args, ctx) => recursiveOnCritical('chgrp', args, ctx),
  mv: (args) => {
    const sources = positionals(args).slice(0, -1);
    const critical = sources.find(isCriticalPath);
    return critical !== undefined ? destructive(`mv moves ${critical}`) : mutation('mv changes files');
  },
  find: judgeFind,
  dd: (args, ctx) => {
    const at = args.findIndex((a) => a.startsWith('of='));
    if (at === -1) return readOnly('dd without of= only reads');
    const e = ctx.expansions[at] ?? null;
    const shifted = e === null ? null : { ...e, at: Math.max(0, e.at - 3) };
    return judgeWriteTarget(args[at]!.slice(3), 'dd', shifted) ?? readOnly('dd writes only to a harmless sink');
  },
  tee: (args, ctx) => {
    const verdicts = args
      .map((f, i) => (f.startsWith('-') ? null : judgeWriteTarget(f, 'tee', ctx.expansions[i] ?? null)))
      .filter((v): v is Verdict => v !== null);
    return (
      verdicts.find((v) => v.riskClass === 'destructive') ??
      verdicts[0] ??
      readOnly('tee without files only copies to stdout')
    );
  },
  sed: (args) => {
    const why = sedRisk(args);
    return why === null ? readOnly() : mutation(why);
  },
  awk: (args) => {
    const risk = awkRisk(args);
    if (risk === null) return readOnly();
    return scanDestructiveText(risk.program) ?? mutation(risk.why);
  },
  lshw: (args) =>
    args.some((a) => a === '-dump' || a === '--dump') ? mutation('lshw -dump writes a database file') : readOnly(),
  sysctl: (args) =>
    // `-f` is procps' alias of `-p`: it loads settings from a file.
    ['-w', '--write', '-p', '-f', '--load', '--system'].some((f) => hasFlag(args, f)) ||
    positionals(args).some((a) => a.includes('='))
      ? mutation('kernel mutation (sysctl write)')
      : readOnly(),
  crontab: (args) =>
    hasFlag(args, '-l') && !['-r', '-e', '-i'].some((f) => hasFlag(args, f)) && positionals(args).length === 0
      ? readOnly()
      : mutation('crontab installs or edits scheduled jobs'),
  dpkg: (args) => {
    const reads = [
      '-l',
      '--list',
      '-s',
      '--status',
      '-L',
      '--listfiles',
      '-S',
      '--search',
      '-p',
      '--print-avail',
      '--get-selections',
      '--print-architecture',
      '--audit',
      '-C',
      '--compare-versions',
      '--version',
    ];
    const first = args.find((a) => a.startsWith('-'));
    return first !== undefined && reads.some((r) => first === r || first.startsWith(`${r}=`))
      ? readOnly()
      : mutation('package mutation (dpkg)');
  },
  rpm: (args) => {
    const first = args.find((a) => a.startsWith('-')) ?? '';
    return /^-q|^--query|^-V|^--verify/.test(first) ? readOnly() : mutation('package mutation (rpm)');
  },
  pacman: (args) => (/^-Q/.test(args[0] ?? '') ? readOnly() : mutation('package mutation (pacman)')),
  service: (args) =>
    args.includes('status') || args.includes('--status-all')
      ? readOnly()
      : mutation('service start/stop is not on the read-only allow-list'),
  fdisk: (args) =>
    hasFlag(args, '-l') || hasFlag(args, '--list') ? readOnly() : destructive('fdisk rewrites partition tables'),
  sfdisk: (args) =>
    ['-l', '--list', '-d', '--dump', '-s', '--show-size'].some((f) => hasFlag(args, f))
      ? readOnly()
      : destructive('sfdisk rewrites partition tables'),
  sgdisk: (args) =>
    args.length > 0 &&
    args.every((a) => ['-p', '--print', '-i', '--info'].includes(a) || a.startsWith('/dev/') || /^\d+$/.test(a))
      ? readOnly()
      : destructive('sgdisk rewrites partition tables'),
  parted: (args) =>
    args.every(
      (a) => a === '-l' || a === '--list' || a === '-s' || a === '--script' || a === 'print' || a.startsWith('/dev/'),
    )
      ? readOnly()
      : destructive('parted rewrites partition tables'),
};
