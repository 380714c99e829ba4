/**
 * Reads a command's arguments the way getopt_long does, so a flag is seen however it is spelt:
 * attached (`-o/etc/passwd`, `-s@0`), inside a cluster (`-ro/x`, `-us@0`), as `--long=value` or
 * `--long value`, and as an unambiguous prefix (`--out=/x` is `--output`). Options after operands
 * count too (GNU permutes); `--` ends them.
 */
import { mayBeMany, mayBeOption, type Expansion } from './shell-words.js';

/** What a command's options look like; flags not listed are read as taking no value. */
export interface OptionSpec {
  /** Short options that take a value, attached or as the next word: `'kot'` for `-k -o -t`. */
  shortValue?: string;
  /** Short options whose value can only be attached (`-I[fmt]`, `-i[suffix]`). */
  shortOptional?: string;
  /** Long options (with `--`) that take a value. */
  longValue?: readonly string[];
  /** Long options whose value can only follow `=` (`--in-place[=suffix]`). */
  longOptional?: readonly string[];
  /** Other long options the command knows, so prefixes resolve to the right one. */
  long?: readonly string[];
}

/** One option as given: its canonical name (`-o`, `--output`) and value, if it took one. */
export interface Option {
  name: string;
  value: string | undefined;
  /** Index of the word the option (or its value) came from. */
  at: number;
}

export interface ReadOptions {
  options: Option[];
  operands: string[];
  /** Indexes of the operands in the arguments. */
  operandAt: number[];
  /** Set when an argument expanded at run time may be an option or several words: why. */
  unsure: string | null;
}

function resolveLong(given: string, spec: OptionSpec): string {
  const known = [...(spec.longValue ?? []), ...(spec.longOptional ?? []), ...(spec.long ?? [])];
  if (known.includes(given)) return given;
  const candidates = known.filter((k) => k.startsWith(given));
  // An ambiguous prefix makes getopt refuse; the first candidate is as good a name as any.
  return given.length > 2 && candidates.length > 0 ? candidates[0]! : given;
}

/** Reads `args` (with what the shell expands in each, when known) against `spec`. */
export function readOptions(
  args: readonly string[],
  spec: OptionSpec = {},
  expansions: ReadonlyArray<Expansion | null> = [],
): ReadOptions {
  const out: ReadOptions = { options: [], operands: [], operandAt: [], unsure: null };
  const shortValue = spec.shortValue ?? '';
  const shortOptional = spec.shortOptional ?? '';
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const e = expansions[i];
    if (!ended && mayBeOption(e))
      out.unsure ??= `argument ${arg} is expanded when it runs (${e!.why}), so it may be an option`;
    else if (ended && mayBeMany(e)) out.unsure ??= `argument ${arg} is expanded when it runs (${e!.why})`;
    if (ended || arg === '-' || !arg.startsWith('-')) {
      out.operands.push(arg);
      out.operandAt.push(i);
      continue;
    }
    if (arg === '--') {
      ended = true;
      continue;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = resolveLong(eq === -1 ? arg : arg.slice(0, eq), spec);
      let value = eq === -1 ? undefined : arg.slice(eq + 1);
      if (value === undefined && spec.longValue?.includes(name) && i + 1 < args.length) value = args[++i];
      out.options.push({ name, value, at: i });
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const c = arg[j]!;
      const rest = arg.slice(j + 1);
      if (shortValue.includes(c)) {
        const value = rest !== '' ? rest : i + 1 < args.length ? args[++i] : undefined;
        out.options.push({ name: `-${c}`, value, at: i });
        break;
      }
      if (shortOptional.includes(c)) {
        out.options.push({ name: `-${c}`, value: rest, at: i });
        break;
      }
      out.options.push({ name: `-${c}`, value: undefined, at: i });
    }
  }
  return out;
}

/** The first option named in `flags` (`-o`, `--output`), or undefined. */
export function findOption(read: ReadOptions, flags: readonly string[]): Option | undefined {
  return read.options.find((o) => flags.includes(o.name));
}

/**
 * True when `args` hold `flag` however it is spelt, for commands without a spec: itself,
 * `--flag=value`, a long prefix of it, or a short flag anywhere in a cluster (`-Cn`, `-s@0`).
 * Without a spec a cluster's value cannot be told from its flags, so this errs towards finding it.
 */
export function hasFlag(args: readonly string[], flag: string): boolean {
  const short = /^-[A-Za-z0-9]$/.test(flag) ? flag[1]! : null;
  return args.some((a) => {
    if (a === flag) return true;
    if (flag.startsWith('--')) {
      const name = a.split('=')[0]!;
      return name.length > 2 && flag.startsWith(name) && a.startsWith('--');
    }
    if (short === null || a.startsWith('--') || !a.startsWith('-')) return false;
    const cluster = /^-[A-Za-z0-9]*/.exec(a)![0];
    return cluster.includes(short);
  });
}
