import { CRITICAL_PATHS, DESTRUCTIVE_TEXT_PATTERNS } from './command-rules.js';
import type { RiskClass } from './risk.js';

/** One judgement of one command, with the reason an operator will read. */
export interface Verdict {
  riskClass: RiskClass;
  reason: string;
}

const readOnly = (reason = 'read-only allow-list'): Verdict => ({ riskClass: 'read_only', reason });
const mutation = (reason: string): Verdict => ({ riskClass: 'config_mutation', reason });
const destructive = (reason: string): Verdict => ({ riskClass: 'destructive', reason: `destructive: ${reason}` });

/** Arguments that are not options. */
export function positionals(args: readonly string[]): string[] {
  return args.filter((a) => !a.startsWith('-') && !a.startsWith('+'));
}

/** True when `args` hold `flag` itself, `--flag=value`, or a short flag inside a cluster (`-Cn`). */
export function hasFlag(args: readonly string[], flag: string): boolean {
  const short = /^-[A-Za-z]$/.test(flag) ? flag[1]! : null;
  return args.some(
    (a) =>
      a === flag ||
      (flag.startsWith('--') && a.startsWith(`${flag}=`)) ||
      (short !== null && /^-[A-Za-z]+$/.test(a) && a.includes(short)),
  );
}

/** True for `/`, top-level system directories, home, globs of them, and paths built from variables. */
export function isCriticalPath(path: string): boolean {
  // An unexpanded `$VAR` or substitution may well be empty: `rm -rf "$DIR/"` is `rm -rf /`.
  if (path.includes('$') || path.includes('`')) return true;
  const trimmed = path
    .replace(/\/+/g, '/')
    .replace(/(\/\*|\/\.)+$/, '')
    .replace(/\/$/, '');
  return CRITICAL_PATHS.has(trimmed === '' ? '/' : trimmed) || path === '/*';
}

const BLOCK_DEVICE = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|mapper\/|disk\/|zd|rbd|loop|pve\/)/;
const HARMLESS_SINK = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/;

/** What writing to `target` means: nothing, a file change, or overwriting a device. */
export function judgeWriteTarget(target: string, via: string): Verdict | null {
  if (HARMLESS_SINK.test(target)) return null;
  if (BLOCK_DEVICE.test(target)) return destructive(`${via} overwrites block device ${target}`);
  return mutation(`${via} writes ${target}`);
}

/** Destructive patterns found in text the classifier cannot parse (a script, an ssh command). */
export function scanDestructiveText(text: string): Verdict | null {
  for (const [pattern, why] of DESTRUCTIVE_TEXT_PATTERNS) {
    if (pattern.test(text)) return destructive(`${why} (found in text that is not analysed)`);
  }
  return null;
}

function recursiveOnCritical(tool: string, args: readonly string[]): Verdict {
  const recursive = hasFlag(args, '-r') || hasFlag(args, '-R') || hasFlag(args, '--recursive');
  if (hasFlag(args, '--no-preserve-root')) return destructive(`${tool} --no-preserve-root`);
  const critical = positionals(args).find(isCriticalPath);
  if (recursive && critical !== undefined) return destructive(`${tool} recursively on ${critical}`);
  return mutation(`${tool} changes files`);
}

const FIND_WRITES = ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls'];

// sed's `w`/`W` write files and GNU `e` executes: read-only only when none can occur. False
// positives (an `e` after a delimiter) cost an approval, never a wrong auto-run.
const SED_WRITES = /(^|[/;{}\s\d$,])[wWe](?![A-Za-z])/;
// awk can run commands (system, pipes, getline) and redirect print output to files.
const AWK_ESCAPES = /\bsystem\s*\(|\||getline|\bprintf?\b[^;}]*>/;

/** Commands whose risk depends on their arguments in ways a table cannot say. */
export const SPECIAL_CHECKS: Readonly<Record<string, (args: string[]) => Verdict>> = {
  rm: (args) => recursiveOnCritical('rm', args),
  chmod: (args) => recursiveOnCritical('chmod', args),
  chown: (args) => recursiveOnCritical('chown', args),
  chgrp: (args) => recursiveOnCritical('chgrp', args),
  mv: (args) => {
    const sources = positionals(args).slice(0, -1);
    const critical = sources.find(isCriticalPath);
    return critical !== undefined ? destructive(`mv moves ${critical}`) : mutation('mv changes files');
  },
  find: (args) => {
    const roots = args
      .slice(
        0,
        Math.max(
          0,
          args.findIndex((a) => a.startsWith('-')),
        ),
      )
      .filter(isCriticalPath);
    const writing = FIND_WRITES.find((f) => args.includes(f));
    if (writing === undefined) return readOnly();
    const removes =
      args.includes('-delete') ||
      args.some((a, i) => a.startsWith('-exec') && ['rm', 'shred'].includes(args[i + 1] ?? ''));
    return removes && roots.length > 0
      ? destructive(`find ${roots[0]} ${writing} removes files across ${roots[0]}`)
      : mutation(`find ${writing} changes files`);
  },
  dd: (args) => {
    const of = args.find((a) => a.startsWith('of='));
    if (of === undefined) return readOnly('dd without of= only reads');
    return judgeWriteTarget(of.slice(3), 'dd') ?? readOnly('dd writes only to a harmless sink');
  },
  tee: (args) => {
    const verdicts = positionals(args)
      .map((f) => judgeWriteTarget(f, 'tee'))
      .filter((v): v is Verdict => v !== null);
    return (
      verdicts.find((v) => v.riskClass === 'destructive') ??
      verdicts[0] ??
      readOnly('tee without files only copies to stdout')
    );
  },
  sed: (args) => {
    if (args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place')))
      return mutation('sed -i edits files in place');
    if (hasFlag(args, '-f') || hasFlag(args, '--file')) return mutation('sed -f runs a script that is not analysed');
    const script = positionals(args)[0] ?? '';
    return SED_WRITES.test(script) ? mutation('sed script may write files or execute commands') : readOnly();
  },
  awk: (args) => {
    if (hasFlag(args, '-f') || args.some((a) => a === '-i' || a.startsWith('inplace')))
      return mutation('awk runs a program file or edits in place');
    const program = positionals(args)[0] ?? '';
    return AWK_ESCAPES.test(program) ? mutation('awk program may run commands or write files') : readOnly();
  },
  sysctl: (args) =>
    ['-w', '--write', '-p', '--load', '--system'].some((f) => hasFlag(args, f)) ||
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
