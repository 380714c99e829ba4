/**
 * Tools judged by their subcommand (`systemctl status`, `zpool destroy`), and git, whose global
 * `-c` settings can name a program to run before any subcommand is read.
 */
import {
  destructive,
  mutation,
  readOnly,
  riskiest,
  scanDestructiveText,
  type CheckContext,
  type Verdict,
} from './checks.js';
import { hasFlag } from './options.js';
import type { SubcommandRule } from './subcommand-rules.js';
import { isDynamic, mayBeOption } from './shell-words.js';

const OFF_LIST = 'not on the read-only allow-list';

/** True when `args` hold `flag`, or for single-dash long flags (`-batch`), any prefix of it. */
function hasGlobal(args: readonly string[], flag: string): boolean {
  if (/^-[A-Za-z]{2,}$/.test(flag))
    return args.some((a) => a.length >= 2 && /^-[A-Za-z]+$/.test(a) && flag.startsWith(a));
  return hasFlag(args, flag);
}

/** True when `flag` takes the next word: listed, or a cluster ending in one (`-qH host`). */
function takesValue(flag: string, valueFlags: readonly string[]): boolean {
  if (valueFlags.includes(flag)) return true;
  return /^-[A-Za-z0-9]{2,}$/.test(flag) && valueFlags.includes(`-${flag.at(-1)!}`);
}

export function judgeSubcommand(label: string, rule: SubcommandRule, args: string[], ctx: CheckContext): Verdict {
  const exps = ctx.expansions;
  const global = Object.entries(rule.mutatingGlobal ?? {}).find(([f]) => hasGlobal(args, f));
  if (global !== undefined) return mutation(`${label} ${global[0]} ${global[1]}`);
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-') && !mayBeOption(exps[i]))
    i += takesValue(args[i]!, rule.valueFlags ?? []) ? 2 : 1;
  const sub = args[i];
  const rest = args.slice(i + 1);
  const restCtx: CheckContext = { ...ctx, expansions: exps.slice(i + 1) };
  if (sub === undefined) {
    const bareRead = rule.bareIsRead === true || (rule.bareReadFlags ?? []).some((f) => hasFlag(args, f));
    return bareRead ? readOnly() : mutation(`${label} without a read-only subcommand: ${OFF_LIST}`);
  }
  if (isDynamic(exps[i])) return mutation(`${label}: subcommand ${sub} is expanded when it runs`);
  const here = `${label} ${sub}`;
  const nested = rule.nested?.[sub];
  if (nested !== undefined) return judgeSubcommand(here, nested, rest, restCtx);
  if (rule.destructive?.includes(sub)) return destructive(here);
  const flag = (rule.destructiveFlags?.[sub] ?? []).find((f) => hasFlag(rest, f));
  if (flag !== undefined) return destructive(`${here} ${flag}`);
  if (rule.read.includes(sub)) {
    const flags = rule.mutatingFlags?.[sub];
    const hit = Object.entries(flags ?? {}).find(([f]) => hasFlag(rest, f));
    if (hit !== undefined) return mutation(`${here} ${hit[0]} ${hit[1]}`);
    const unsure = rest.findIndex((_, k) => mayBeOption(restCtx.expansions[k]));
    if ((flags !== undefined || rule.destructiveFlags?.[sub] !== undefined) && unsure !== -1)
      return mutation(`${here}: argument ${rest[unsure]} is expanded when it runs, so it may be an option`);
    return readOnly();
  }
  const named = rule.named?.[sub];
  // What is off the list may still run a destructive command (`pct exec 100 -- rm -rf /`).
  const inner = scanDestructiveText(`${here} ${rest.join(' ')}`);
  if (inner !== null) return { ...inner, reason: `${here} runs: ${inner.reason}` };
  return mutation(named !== undefined ? `${named} (${here})` : `${here}: ${OFF_LIST}`);
}

// `-c` keys that only change how output looks.
const HARMLESS_GIT_KEYS =
  /^(color\.|column\.|advice\.|i18n\.|core\.quotepath$|core\.abbrev$|log\.date$|log\.decorate$|diff\.renames$|diff\.algorithm$|grep\.linenumber$)/;
// `-c` keys whose value is a command git runs.
const COMMAND_GIT_KEYS =
  /^(core\.(pager|editor|fsmonitor|sshcommand|askpass|gitproxy)|pager\..*|sequence\.editor|diff\.external|diff\..*\.(command|textconv)|alias\..*|credential\.helper|credential\..*\.helper|gpg\.program|gpg\..*\.program|interactive\.difffilter|filter\..*\.(clean|smudge|process)|merge\..*\.driver|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack))$/;

function judgeGitConfig(setting: string, ctx: CheckContext): Verdict {
  const eq = setting.indexOf('=');
  const key = (eq === -1 ? setting : setting.slice(0, eq)).toLowerCase();
  const value = eq === -1 ? '' : setting.slice(eq + 1);
  if (HARMLESS_GIT_KEYS.test(key)) return readOnly();
  if (!COMMAND_GIT_KEYS.test(key)) return mutation(`git -c ${key} sets configuration that is not analysed`);
  const inner = value === '' ? readOnly() : ctx.judgeText(value);
  const floor = mutation(`git -c ${key} runs ${JSON.stringify(value)}`);
  return inner.riskClass === 'destructive' ? { ...inner, reason: `git -c ${key} runs: ${inner.reason}` } : floor;
}

/** git: its global options first (`-c`, `--config-env`, `--exec-path`), then the subcommand. */
export function judgeGit(rule: SubcommandRule, args: string[], ctx: CheckContext): Verdict {
  const verdicts: Verdict[] = [];
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const a = args[i]!;
    if (a === '-c') verdicts.push(judgeGitConfig(args[++i] ?? '', ctx));
    else if (a.startsWith('-c')) verdicts.push(judgeGitConfig(a.slice(2), ctx));
    else if (a.startsWith('--config-env'))
      verdicts.push(mutation('git --config-env sets configuration from the environment, which can name programs'));
    else if (a.startsWith('--exec-path='))
      verdicts.push(destructive('git --exec-path chooses where git finds the programs it runs'));
    else if (rule.valueFlags?.includes(a)) i++;
  }
  const configured = verdicts.length > 0 ? riskiest(verdicts) : null;
  if (configured !== null && configured.riskClass !== 'read_only' && i < args.length && isDynamic(ctx.expansions[i]))
    return configured;
  return riskiest([
    configured,
    judgeSubcommand('git', { ...rule, valueFlags: [] }, args.slice(i), { ...ctx, expansions: ctx.expansions.slice(i) }),
  ])!;
}
